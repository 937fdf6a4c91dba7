"""%%cuda_timeline and xcuda.timeline(): what a cell ran on the device, recorded in this process.

On CI (no GPU) they run on the CPU device, whose stream workers record their launches and copies
on host time; on a GPU (requires_gpu) CUPTI's Activity API records every library's work, the
host's waits and NVTX ranges. The drawing itself is test_timeline_view.py's."""
import json
import time

import numpy as np
import pytest

import xcuda
from conftest import SAXPY, requires_gpu, requires_kernels, requires_no_device


@pytest.fixture
def saxpy_ns(ip):
    assert ip.run_cell("%%cuda -q\n" + SAXPY).success
    ip.user_ns.update(np=np, xcuda=xcuda, time=time)
    ip.user_ns["x"] = np.arange(4096, dtype=np.float32)
    ip.user_ns["y"] = np.ones(4096, dtype=np.float32)
    return ip


def device_work(timeline):
    return [r for r in timeline.records if r["kind"] in ("kernel", "memcpy", "memset", "graph")]


@requires_kernels
def test_a_cell_s_launches_and_copies_are_on_the_timeline_with_their_shapes_and_bytes(saxpy_ns):
    ip = saxpy_ns
    result = ip.run_cell("%%cuda_timeline\nsaxpy[16, 256](2.0, x, y, 4096)\nsaxpy[(32, 1), (128, 1)](2.0, x, y, 4096)\n")
    assert result.success, result.error_in_exec
    t = result.result
    assert isinstance(t, xcuda.Timeline)
    kernels = [r for r in t.records if r["kind"] == "kernel"]
    assert [k["name"] for k in kernels] == ["saxpy", "saxpy"]
    assert kernels[0]["grid"] == (16, 1, 1) and kernels[0]["block"] == (256, 1, 1)
    assert kernels[1]["grid"] == (32, 1, 1) and kernels[1]["block"] == (128, 1, 1)
    assert kernels[0]["registers"] > 0
    # numpy arguments: x and y go to the device for each launch, y (not const) comes back
    copies = [r for r in t.records if r["kind"] == "memcpy"]
    assert sorted(c["direction"] for c in copies) == ["DtoH", "DtoH", "HtoD", "HtoD", "HtoD", "HtoD"]
    assert all(c["bytes"] == 4096 * 4 for c in copies)
    # the launches ran: y = 1 + 2x + 2x
    assert np.array_equal(ip.user_ns["y"], 1 + 4 * ip.user_ns["x"])
    # everything lies in the cell's window, in the order it ran on the stream
    for r in device_work(t):
        assert t.trace.start_ns <= r["start_ns"] <= r["end_ns"] <= t.trace.end_ns
    assert kernels[0]["end_ns"] <= kernels[1]["start_ns"]
    # the body's two lines were marked, on the same clock
    assert [line for _, line in t.trace.lines] == [1, 2]
    assert t.trace.lines[0][0] <= kernels[0]["start_ns"]
    assert "2 kernels" in t.summary() and "saxpy" in str(t)
    assert "<svg" in t._repr_html_()


@requires_kernels
def test_the_longest_gap_is_named_by_the_line_the_host_was_running(saxpy_ns):
    ip = saxpy_ns
    cell = ("saxpy[16, 256](2.0, x, y, 4096)\n"
            "xcuda.synchronize()\n"
            "time.sleep(0.08)\n"
            "saxpy[16, 256](2.0, x, y, 4096)\n")
    result = ip.run_cell("%%cuda_timeline\n" + cell)
    assert result.success, result.error_in_exec
    t = result.result
    gap = t.longest_gap
    assert gap is not None and gap.duration_ns >= 80e6
    assert gap.during == "`time.sleep(0.08)` at line 3"  # the host held the GPU up there
    assert "time.sleep(0.08)" in t.summary()


@requires_kernels
def test_each_stream_is_its_own_lane(saxpy_ns):
    ip = saxpy_ns
    ip.user_ns["xd"] = xcuda.to_device(ip.user_ns["x"])
    ip.user_ns["yd"] = xcuda.to_device(ip.user_ns["y"])
    result = ip.run_cell("%%cuda_timeline\ns = xcuda.Stream()\nsaxpy[16, 256, 0, s](2.0, xd, yd, 4096)\n"
                         "saxpy[16, 256](2.0, xd, yd, 4096)\ns.synchronize()\n")
    assert result.success, result.error_in_exec
    kernels = [r for r in result.result.records if r["kind"] == "kernel"]
    assert len(kernels) == 2 and kernels[0]["stream"] != kernels[1]["stream"]


@requires_kernels
def test_a_graph_launch_spans_its_nodes_on_the_graph_s_stream(saxpy):
    x = xcuda.to_device(np.ones(4096, np.float32))
    y = xcuda.zeros(4096, np.float32)
    with xcuda.graph() as g:
        saxpy[16, 256](2.0, x, y, 4096)
        saxpy[16, 256](2.0, x, y, 4096)
    t = xcuda.timeline(lambda: (g.launch(), g.stream.synchronize()))
    graphs = [r for r in t.records if r["kind"] == "graph"]
    assert len(graphs) == 1, t.records
    nodes = [r for r in t.records if r["kind"] == "kernel"]
    if xcuda.get_device() != "cpu":  # CUPTI records each node as a kernel too; the CPU device runs them inside
        assert [k["name"] for k in nodes] == ["saxpy", "saxpy"]
        assert all(graphs[0]["start_ns"] <= k["start_ns"] <= k["end_ns"] <= graphs[0]["end_ns"] for k in nodes)
        assert "2 nodes" in graphs[0]["name"]
    else:
        assert "graph of 2 nodes" == graphs[0]["name"]
    assert np.array_equal(y.get(), np.full(4096, 4.0, np.float32))


@requires_kernels
def test_save_writes_a_chrome_trace_of_the_kernels(saxpy_ns, tmp_path):
    ip = saxpy_ns
    path = tmp_path / "t.json"
    result = ip.run_cell(f"%%cuda_timeline --save {path}\nsaxpy[16, 256](2.0, x, y, 4096)\n")
    assert result.success, result.error_in_exec
    events = json.loads(path.read_text())["traceEvents"]
    kernels = [e for e in events if e.get("ph") == "X" and e.get("name") == "saxpy"]
    assert len(kernels) == 1 and kernels[0]["dur"] > 0


@requires_kernels
def test_timeline_of_a_function_returns_its_result_and_marks_its_lines(saxpy):
    x = np.arange(1000, dtype=np.float32)
    y = np.zeros(1000, dtype=np.float32)

    def work():
        saxpy[4, 256](3.0, x, y, 1000)
        return "done"

    t = xcuda.timeline(work)
    assert t.result == "done"
    assert [r["name"] for r in t.records if r["kind"] == "kernel"] == ["saxpy"]
    assert [line for _, line in t.trace.lines] == [2, 3]  # counted from `def work():`, as its source is quoted
    assert "saxpy[4, 256]" in t.trace.source.splitlines()[1]


@requires_kernels
def test_one_timeline_at_a_time_and_a_failed_body_ends_its_recording(saxpy):
    with pytest.raises(xcuda.ProfilerUnavailableError, match="already recording") as raised:
        xcuda.timeline(lambda: xcuda.timeline(lambda: None))
    assert raised.value.reason == "busy"

    def fails():
        raise KeyError("in the body")

    with pytest.raises(KeyError, match="in the body"):
        xcuda.timeline(fails)
    x = np.ones(256, dtype=np.float32)
    t = xcuda.timeline(lambda: saxpy[1, 256](1.0, x, x.copy(), 256))  # recording again after the failure
    assert len([r for r in t.records if r["kind"] == "kernel"]) == 1


@requires_kernels
def test_the_cpu_device_says_its_times_are_host_time(ip):
    if xcuda.get_device() != "cpu":
        pytest.skip("the GPU's timeline is CUPTI's, on the GPU's clock (test_gpu_* below)")
    result = ip.run_cell("%%cuda_timeline\npass\n")
    assert result.success, result.error_in_exec
    t = result.result
    assert "CPU device" in t.trace.clock_note and "host time" in t.trace.clock_note
    assert "no GPU work was recorded" in t.summary()


def test_magic_help_and_misuse(ip, capsys):
    assert ip.run_cell("%%cuda_timeline -h\npass\n").success
    assert "Perfetto" in capsys.readouterr().out
    result = ip.run_cell("%cuda_timeline")
    assert type(result.error_in_exec).__name__ == "UsageError"
    assert "cell below it" in str(result.error_in_exec)
    result = ip.run_cell("%%cuda_timeline --colour\npass\n")
    assert "unknown option '--colour'" in str(result.error_in_exec)


@requires_no_device
def test_without_any_device_the_magic_says_why_in_one_line(ip):
    result = ip.run_cell("%%cuda_timeline\npass\n")
    error = result.error_in_exec
    assert isinstance(error, xcuda.NoDeviceError)
    assert len(error._render_traceback_()) == 1


# --- on a GPU: CUPTI in this process


@requires_gpu
def test_gpu_timeline_records_calls_syncs_and_other_libraries_kernels(saxpy_ns):
    ip = saxpy_ns
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed: its kernels are not there to record")
    ip.user_ns["cupy"] = cupy
    cell = ("a = cupy.arange(1 << 20, dtype=cupy.float32)\n"
            "b = (a * 2).sum()\n"
            "saxpy[16, 256](2.0, x, y, 4096)\n"
            "cupy.cuda.Device().synchronize()\n")
    result = ip.run_cell("%%cuda_timeline\n" + cell)
    assert result.success, result.error_in_exec
    t = result.result
    kernels = [r for r in t.records if r["kind"] == "kernel"]
    names = [k["name"] for k in kernels]
    assert "saxpy" in names and len(names) >= 3, names  # CuPy's arange, multiply and sum, and ours
    ours = next(k for k in kernels if k["name"] == "saxpy")
    calls = [r for r in t.records if r["kind"] == "api" and r.get("correlation") == ours["correlation"]]
    assert [c["name"] for c in calls] == ["cuLaunchKernel"] or [c["name"] for c in calls] == ["cuLaunchKernelEx"]
    assert calls[0]["end_ns"] <= ours["end_ns"]
    assert any(r["kind"] == "sync" for r in t.records)  # CuPy's cudaDeviceSynchronize waited on the host
    assert t.trace.device.startswith("NVIDIA")


@requires_gpu
def test_gpu_timeline_records_nvtx_ranges_pushed_in_the_cell():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: torch.cuda.nvtx is not there")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA here")

    def work():
        torch.cuda.nvtx.range_push("load")
        a = torch.ones(1 << 20, device="cuda")
        torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_push("compute")
        (a * 2).sum().item()
        torch.cuda.nvtx.range_pop()

    t = xcuda.timeline(work)
    ranges = [r for r in t.records if r["kind"] == "nvtx"]
    assert [r["name"] for r in ranges] == ["load", "compute"], ranges
    assert ranges[0]["end_ns"] <= ranges[1]["start_ns"]


@requires_gpu
def test_gpu_timeline_and_counters_never_share_cupti_in_one_cell(saxpy_ns):
    ip = saxpy_ns
    # Kernel.profile falls back to event timing with the reason when counters cannot be read
    result = ip.run_cell("%%cuda_timeline\nreport = saxpy.profile(2.0, x, y, 4096, grid=16, block=256, "
                         "metrics='basic')\n")
    assert result.success, result.error_in_exec
    text = str(ip.user_ns["report"])
    assert "cannot start while the timeline is recording" in text and "one client at a time" in text, text
    assert [r["name"] for r in result.result.records if r["kind"] == "kernel"] == ["saxpy"]
    counted = ip.run_cell("report = saxpy.profile(2.0, x, y, 4096, grid=16, block=256, metrics='basic')")
    assert counted.success and "cannot start" not in str(ip.user_ns["report"])  # free again after the cell


@requires_gpu
def test_gpu_timeline_names_another_profiler_holding_cupti():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: torch.profiler is not there to hold CUPTI")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA here")
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        torch.ones(10, device="cuda").sum()
        with pytest.raises(xcuda.ProfilerUnavailableError, match="torch.profiler is recording") as raised:
            xcuda.timeline(lambda: None)
    assert raised.value.reason == "busy"
    assert len(prof.events()) > 0  # its own records, untouched
    # after the block PyTorch keeps an idle CUPTI subscription: the timeline records all the same
    t = xcuda.timeline(lambda: torch.ones(1 << 20, device="cuda").sum().item())
    assert any(r["kind"] == "kernel" for r in t.records)
    assert any(r["kind"] == "api" and r["name"] == "cudaLaunchKernel" for r in t.records)  # no _v7000 suffix
