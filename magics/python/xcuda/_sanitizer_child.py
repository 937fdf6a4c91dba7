"""The child process of %%cuda_check on a GPU (xcuda/_sanitizer.py starts it under
compute-sanitizer): makes one launch of the notebook's, on copies of its arguments, and hands
back where each array argument lived and what the launch left in it.

  python -m xcuda._sanitizer_child PAYLOAD_FILE OUT_DIR

PAYLOAD_FILE (pickle): kernel (an xcuda.Kernel compiled with -lineinfo), device, grid, block,
shared_mem, options, args: a list of ("array", ndarray or None, shape, dtype) (None: the
notebook's array was never written, so it is allocated uninitialised, for initcheck) or
("value", object); variables: the module's __constant__/__device__ variables as the notebook
left them, [(name, bytes, [(offset, kind, ref, delta)])], each pointer among them to be made to
point at this process's copy of an argument ("argument", its index), a variable ("variable", its
name) or an extra array ("extra", its index in extras, a list like args). OUT_DIR receives
allocations.pickle before the launch (so that an address in a finding is placed even when the
launch kills this process), then results.pickle: the arguments' arrays, the variables without
pointers and the extra arrays as the launch left them."""
import os
import pickle
import sys


def device_arguments(specs):
    """(arguments for the launch, [(index, ptr, nbytes, itemsize, device array)]): each array its
    own allocation of its exact size, so that one element past the end is outside every allocation."""
    import numpy as np
    import xcuda

    args, arrays = [], []
    for index, spec in enumerate(specs):
        if spec[0] == "array":
            host, shape, dtype = spec[1], spec[2], np.dtype(spec[3])
            d = xcuda.to_device(host) if host is not None else xcuda.empty(shape, dtype)
            arrays.append((index, d.ptr, d.nbytes, dtype.itemsize, d))
            args.append(d)
        else:
            args.append(spec[1])
    return args, arrays


def set_variables(kernel, variables, arrays, extras):
    """The module's variables as the notebook left them, pointers moved to this process's copies."""
    import numpy as np

    if not variables:
        return
    views = kernel._globals
    bases = {"argument": {index: ptr for index, ptr, _, _, _ in arrays},
             "extra": {index: ptr for index, ptr, _, _, _ in extras}}
    for name, raw, pointers in variables:
        view = views[name]
        data = bytearray(raw)
        for offset, kind, ref, delta in pointers:
            base = views[ref].ptr if kind == "variable" else bases[kind][ref]
            data[offset:offset + 8] = (base + delta).to_bytes(8, "little")
        view.set(np.frombuffer(bytes(data), dtype=view.dtype).reshape(view.shape))


def main(payload_path, out_dir):
    with open(payload_path, "rb") as f:
        payload = pickle.load(f)
    import xcuda

    xcuda.set_device(payload["device"])
    args, arrays = device_arguments(payload["args"])
    _, extras = device_arguments(payload.get("extras", []))
    kernel = payload["kernel"]
    variables = payload.get("variables", [])
    set_variables(kernel, variables, arrays, extras)
    with open(os.path.join(out_dir, "allocations.pickle"), "wb") as f:
        pickle.dump([(index, ptr, nbytes, itemsize) for index, ptr, nbytes, itemsize, _ in arrays], f)
    error = None
    results = None
    plain_variables, extra_results = {}, {}
    try:
        kernel(*args, grid=payload["grid"], block=payload["block"], shared_mem=payload["shared_mem"],
               **payload["options"])
        xcuda.synchronize()
        results = {index: d.get() for index, _, _, _, d in arrays}
        plain_variables = {name: kernel._globals[name].get() for name, _, pointers in variables if not pointers}
        extra_results = {index: d.get() for index, _, _, _, d in extras}
    except xcuda.CudaError as e:  # the launch's own failure (the findings say why): reported, not raised
        error = f"{type(e).__name__}: {e}"
    sys.stdout.flush()  # device printf, before the parent reads the results
    with open(os.path.join(out_dir, "results.pickle"), "wb") as f:
        pickle.dump({"results": results, "error": error, "variables": plain_variables, "extras": extra_results}, f,
                    protocol=pickle.HIGHEST_PROTOCOL)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
