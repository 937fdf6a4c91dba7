"""%cuda_restart on a GPU: time to a usable session with SIZE_MB of numpy arrays in the
namespace, after a kernel an interrupt left running and after a real ContextLost, against the
same bytes pickled to and from the same temporary directory by the same kernel (the disk speed
the goal is stated in: "save and load at disk speed plus under 3 s").

Each scenario runs in a kernel of its own (kernelspec `xcuda`, installed by `python -m xcuda
install`), started by jupyter_client from this Python:
  python3 bench/restart.py [--size-mb 1024] [--json FILE]
Needs a CUDA device (the faults are real ones). Prints one markdown table."""
from __future__ import annotations

import argparse
import json
import sys
import time

from jupyter_client.manager import start_new_kernel

SPIN_FOREVER = ('%%cuda\nextern "C" __global__ void spin(float* flag) '
                '{ while (atomicAdd(flag, 0.0f) == 0.0f) {} }\n'
                'extern "C" __global__ void wild(float* p) { p[1ull << 40] = 1.0f; }\n'
                'extern "C" __global__ void twice(float* p, int n) '
                '{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] *= 2.0f; }\n')

MAKE_ARRAYS = """
import numpy as np, xcuda, time, os, pickle, tempfile, shutil
rng = np.random.default_rng(28)
arrays = [rng.random({n} // 16, dtype=np.float32) for _ in range(4)]  # 4 x a quarter of the bytes
sums = [float(a.sum(dtype=np.float64)) for a in arrays]
flag = np.zeros(4, np.float32)
d = xcuda.zeros(4, np.float32)
def reference():
    # the same bytes through pickle, to and from where %cuda_restart writes (tempfile's directory)
    ref_dir = tempfile.mkdtemp(prefix="xcuda-restart-ref-")
    t = time.perf_counter()
    with open(os.path.join(ref_dir, "a"), "wb") as f:
        pickle.dump(arrays, f, protocol=pickle.HIGHEST_PROTOCOL)
    write_s = time.perf_counter() - t
    t = time.perf_counter()
    with open(os.path.join(ref_dir, "a"), "rb") as f:
        pickle.load(f)
    read_s = time.perf_counter() - t
    shutil.rmtree(ref_dir)
    print("REF", write_s, read_s, sum(a.nbytes for a in arrays))
reference()
"""

CHECK_AFTER = """
import numpy as np, xcuda
ok = [float(a.sum(dtype=np.float64)) == s for a, s in zip(arrays, sums)]
x = np.ones(1000, np.float32)
twice[4, 256](x, 1000)
print("AFTER", all(ok), float(x.sum()), xcuda.gpu_work_left_running())
"""


def reply_to(kc, msg_id, timeout):
    deadline = time.monotonic() + timeout
    while True:
        reply = kc.get_shell_msg(timeout=max(0.1, deadline - time.monotonic()))
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply


def run(kc, code, timeout=300, while_running=None):
    """(reply content, stdout text) of one cell, once its idle is out (a cell sent before that
    would be aborted after an error, as ipykernel does). while_running(): called once it is sent."""
    msg_id = kc.execute(code)
    if while_running:
        while_running()
    content = reply_to(kc, msg_id, timeout)["content"]
    out = []
    while True:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "stream":
            out.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            out.append("\n".join(msg["content"]["traceback"]))
        elif msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return content, "".join(out)


def scenario(name, size_mb):
    km, kc = start_new_kernel(kernel_name="xcuda")
    try:
        content, out = run(kc, MAKE_ARRAYS.format(n=size_mb << 20))
        assert content["status"] == "ok", out
        write_s, read_s, nbytes = out.split("REF")[1].split()[:3]
        content, out = run(kc, SPIN_FOREVER)
        assert content["status"] == "ok", out
        if name == "runaway kernel, interrupted":
            content, out = run(kc, "spin[1, 1](flag)", timeout=30,
                               while_running=lambda: (time.sleep(2.0), km.interrupt_kernel()))
            fault = content.get("ename")
        else:
            content, out = run(kc, "wild[1, 1](d)")
            fault = content.get("ename")
        start = time.monotonic()
        content, restart_out = run(kc, "%cuda_restart", timeout=600)
        replied = time.monotonic() - start
        assert content["status"] == "ok", (content, restart_out)
        content, after = run(kc, CHECK_AFTER, timeout=600)
        usable = time.monotonic() - start
        assert content["status"] == "ok", after
        words = after.split("AFTER")[1].split()
        return {"scenario": name, "fault": fault, "bytes": int(nbytes), "ref_write_s": float(write_s),
                "ref_read_s": float(read_s), "restart_reply_s": replied, "usable_s": usable,
                "arrays_back": words[0] == "True", "launch_after": words[1] == "2000.0",
                "left_running_after": words[2], "save_report": restart_out.strip().splitlines()[:3]}
    finally:
        try:
            km.shutdown_kernel(now=True)
        except Exception as exc:  # a bench row is still worth printing; say why the kernel did not stop
            print(f"shutdown of the {name} kernel failed: {exc!r}", file=sys.stderr)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    rows = [scenario(name, args.size_mb) for name in ("runaway kernel, interrupted", "ContextLost (out-of-bounds store)")]
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    print("| after | fault | MiB | pickle write + read (s) | %cuda_restart reply (s) | usable (s) | "
          "usable - disk (s) | arrays back | launch after |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        disk = r["ref_write_s"] + r["ref_read_s"]
        print(f"| {r['scenario']} | {r['fault']} | {r['bytes'] >> 20} | {disk:.2f} | {r['restart_reply_s']:.2f} | "
              f"{r['usable_s']:.2f} | {r['usable_s'] - disk:.2f} | {r['arrays_back']} | {r['launch_after']} |")
    for r in rows:
        print(r["scenario"], "->", " / ".join(r["save_report"]))
    return 0 if all(r["arrays_back"] and r["launch_after"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
