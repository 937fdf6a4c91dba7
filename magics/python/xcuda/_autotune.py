"""Kernel.autotune: the fastest launch configuration and compile-time parameters of a kernel, on
the notebook's own arguments.

A sweep is the product of the block shapes and, for each template parameter or -D macro named,
its values. The cell is compiled once per combination of template arguments and macros, on
several threads (the compile session lets go of Python's lock while NVRTC runs, so compiles
overlap). Each configuration is then launched once from the arguments' original contents and
its results compared with the first configuration's (or given to `check`), and timed with CUDA
events (Kernel.benchmark: warm-up, then the median of several runs). A configuration that does
not compile, launch or pass the check is listed with the reason and left out.

The best configuration is kept per kernel source, options, device and argument shapes in the
compile cache's directory (as trusted as the compile cache: owned by the user, private), so the
notebook run again uses it without tuning; `retune=True` measures again. A sweep interrupted
with Ctrl-C keeps what it measured there: the next call measures only the rest.
"""
import concurrent.futures
import hashlib
import html
import itertools
import json
import math
import os
import time

from xcuda import _core

# numpy is imported where a sweep needs it, not with xcuda: a kernel's start must not pay for it.

# Recorded sweeps: their format, and where they live below the compile cache's directory.
RECORD_VERSION = 1
RECORD_FOLDER = "autotune"


class Config(dict):
    """One configuration: 'block' and each template parameter and macro by name."""

    def label(self):
        parts = [f"block={_dims(self['block'])}"]
        parts += [f"{k}={v}" for k, v in self.items() if k != "block"]
        return ", ".join(parts)


def _dims(value):
    if isinstance(value, int):
        return str(value)
    return "(" + ", ".join(str(v) for v in value) + ")"


def _as_block(value):
    if isinstance(value, int):
        return (value,)
    dims = tuple(value)
    if not dims or len(dims) > 3 or not all(isinstance(d, int) and d > 0 for d in dims):
        raise ValueError(f"block={value!r}: each block shape is an int or a tuple of up to 3 positive ints")
    return dims


def _sweep_space(block, template, defines):
    """(block shapes, or [the function] when block= is one; {name: (kind, values)})."""
    if callable(block):
        blocks = [block]  # one shape per combination of the other parameters (_configs)
    else:
        blocks = [block] if isinstance(block, int) or (
            isinstance(block, tuple) and all(isinstance(b, int) for b in block)) else list(block)
        if not blocks:
            raise ValueError("block=[]: give at least one block shape")
        blocks = [_as_block(b) for b in blocks]
    named = {}
    for what, table in (("template", template or {}), ("defines", defines or {})):
        if not isinstance(table, dict):
            raise TypeError(f"{what}= takes a dict {{name: [values]}}, not {type(table).__name__}")
        for name, values in table.items():
            values = list(values) if isinstance(values, (list, tuple, range)) else [values]
            if not values:
                raise ValueError(f"{what}[{name!r}] is empty: give at least one value")
            if name in named or name == "block":
                raise ValueError(f"{name!r} is named twice (block, template= and defines= share one namespace)")
            named[name] = (what, values)
    return blocks, named


class Row:
    """One configuration's outcome: times in seconds, or why it was left out."""

    def __init__(self, config, times=None, error=None):
        self.config = config
        self.times = times or []
        self.error = error

    @property
    def median(self):
        import numpy as np
        return float(np.median(self.times)) if self.times else math.nan

    def as_record(self):
        return {"config": dict(self.config), "times": self.times, "error": self.error}


class Tuned:
    """What autotune returns: a launcher of the best configuration. Call it with the kernel's
    arguments (grid and shared memory computed as the sweep did). .config, .kernel, .grid,
    .block, .shared_mem; .rows every configuration's outcome; .reused whether it came from an
    earlier sweep; shown in a notebook as a table and a chart."""

    def __init__(self, name, rows, best, kernel, grid, shared_mem, reused, interrupted, notes):
        self.name = name
        self.rows = rows
        self.best = best
        self.config = best.config if best is not None else None
        self.kernel = kernel
        self.grid = grid
        self.block = best.config["block"] if best is not None else None
        self.shared_mem = shared_mem
        self.reused = reused
        self.interrupted = interrupted
        self.notes = notes

    def __call__(self, *args, stream=None):
        if self.kernel is None:
            raise RuntimeError("autotune found no configuration that ran: see its table for each one's reason")
        return self.kernel(*args, grid=self.grid, block=self.block, shared_mem=self.shared_mem, stream=stream)

    def _headline(self):
        ran = [r for r in self.rows if not r.error]
        if self.best is None:
            return f"autotune {self.name}: none of {len(self.rows)} configurations ran"
        how = ("reused the sweep recorded earlier (retune=True measures again)" if self.reused
               else f"{len(ran)} of {len(self.rows)} configurations ran")
        worst = max(r.median for r in ran)
        return (f"autotune {self.name}: best {self.best.config.label()} at {_time(self.best.median)} "
                f"({worst / self.best.median:.2f}x faster than the slowest); {how}")

    def __str__(self):
        lines = [self._headline()]
        lines += self.notes
        if self.interrupted:
            lines.append("interrupted: the configurations not measured yet are measured by the next call")
        width = max(len(r.config.label()) for r in self.rows)
        for r in sorted(self.rows, key=_order):
            mark = "*" if r is self.best else " "
            if r.error:
                lines.append(f"{mark} {r.config.label():<{width}}  skipped: {r.error}")
            else:
                lo, hi = min(r.times), max(r.times)
                lines.append(f"{mark} {r.config.label():<{width}}  {_time(r.median):>10}  "
                             f"(min {_time(lo)}, max {_time(hi)})")
        return "\n".join(lines)

    def __repr__(self):
        return f"<xcuda.Tuned {self.name}: {self.best.config.label() if self.best else 'nothing ran'}>"

    def _repr_pretty_(self, p, cycle):
        p.text(str(self))

    def _repr_html_(self):
        rows = sorted(self.rows, key=_order)
        ran = [r for r in rows if not r.error]
        slowest = max((max(r.times) for r in ran), default=1.0)
        bar_width = 260
        out = [f"<div><p><b>{html.escape(self._headline())}</b></p>"]
        for note in self.notes + (["interrupted: the rest is measured by the next call"] if self.interrupted else []):
            out.append(f"<p>{html.escape(note)}</p>")
        out.append('<table><tr><th>configuration</th><th style="text-align:right">median</th>'
                   '<th>time (bar: median; whisker: min to max)</th></tr>')
        for r in rows:
            best = r is self.best
            style = ' style="font-weight:bold;background:#e6f4ea"' if best else ""
            label = html.escape(r.config.label()) + (" &#9733; best" if best else "")
            if r.error:
                out.append(f"<tr{style}><td>{label}</td><td></td><td style='color:#b35900'>skipped: "
                           f"{html.escape(r.error)}</td></tr>")
                continue
            scale = bar_width / slowest
            lo, hi, med = min(r.times) * scale, max(r.times) * scale, r.median * scale
            colour = "#1a7f37" if best else "#4e79a7"
            svg = (f'<svg width="{bar_width + 4}" height="14" role="img"><title>median {_time(r.median)}, min '
                   f'{_time(min(r.times))}, max {_time(max(r.times))}</title>'
                   f'<rect x="0" y="2" width="{med:.1f}" height="10" fill="{colour}"/>'
                   f'<line x1="{lo:.1f}" x2="{hi:.1f}" y1="7" y2="7" stroke="#222" stroke-width="1.5"/></svg>')
            out.append(f"<tr{style}><td>{label}</td><td style='text-align:right'>{_time(r.median)}</td>"
                       f"<td>{svg}</td></tr>")
        out.append("</table></div>")
        return "".join(out)


def _order(row):
    return (row.error is not None, row.median if not row.error else 0.0)


def _time(seconds):
    if seconds != seconds:
        return "-"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3f} ms"
    return f"{seconds * 1e6:.2f} µs"


# --- the arguments: kept on the device for the sweep, restored before each checked launch


class _Arguments:
    """The call's arguments for the sweep: numpy arrays become device arrays (else every launch
    would copy them both ways), and every array's original contents are kept so that each
    configuration's checked launch starts from the same inputs."""

    def __init__(self, kernel, args):
        import numpy as np
        self.given = list(args)
        self.launch = []
        self.originals = {}
        writable = _writable_parameters(kernel, len(args))
        self.outputs = []
        self.staged = []  # the numpy arguments, given to the sweep as device arrays
        for i, a in enumerate(self.given):
            if isinstance(a, np.ndarray):
                self.staged.append(i)
                device = _core.to_device(a)
                self.launch.append(device)
                self.originals[i] = a.copy()
            else:
                self.launch.append(a)
                host = _to_host(a)
                if host is not None:
                    self.originals[i] = host
            if i in self.originals and writable[i]:
                self.outputs.append(i)

    def restore(self):
        for i, host in self.originals.items():
            _set_contents(self.launch[i], host)

    def results(self):
        return [_to_host(self.launch[i]) for i in self.outputs]

    def hand_back(self):
        """Copies the device arrays made for numpy arguments back into them."""
        for i in self.staged:
            self.launch[i].get(out=self.given[i])

    def shapes(self):
        """What the recorded sweep is keyed by: each argument's type, shape and dtype, or a scalar's type."""
        out = []
        for a in self.given:
            shape = getattr(a, "shape", None)
            dtype = getattr(a, "dtype", None)
            out.append([type(a).__name__, list(shape) if shape is not None else None,
                        str(dtype) if dtype is not None else None])
        return out


def _writable_parameters(kernel, count):
    """Which parameters a kernel may write through: pointers not to const."""
    params = [t for _, t in kernel.parameters]
    writable = []
    for i in range(count):
        t = params[i].replace(" ", "") if i < len(params) else ""
        writable.append("*" in t and not t.startswith("const") and "const*" not in t)
    return writable


def _to_host(a):
    import numpy as np
    if isinstance(a, np.ndarray):
        return a.copy()
    if isinstance(a, _core.DeviceArray) or (hasattr(a, "__cuda_array_interface__") and hasattr(a, "get")):
        return np.asarray(a.get())  # xcuda and CuPy arrays
    if hasattr(a, "__cuda_array_interface__") or hasattr(a, "__dlpack__"):
        cpu = getattr(a, "cpu", None)  # PyTorch
        if cpu is not None:
            return cpu().numpy().copy()
    return None


def _set_contents(a, host):
    import numpy as np
    if isinstance(a, np.ndarray):
        np.copyto(a, host)
    elif hasattr(a, "set"):
        a.set(host)
    else:  # PyTorch
        import torch
        a.copy_(torch.from_numpy(host))


def _same(reference, results, rtol, atol):
    """None when results match the reference, else what differs."""
    import numpy as np
    for n, (want, got) in enumerate(zip(reference, results)):
        if want.shape != got.shape:
            return f"output {n} has shape {got.shape}, the first configuration's {want.shape}"
        if np.issubdtype(want.dtype, np.floating) or np.issubdtype(want.dtype, np.complexfloating):
            close = np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
        else:
            close = got == want
        if not np.all(close):
            bad = int(np.flatnonzero(~np.asarray(close).ravel())[0])
            return (f"output {n} differs from the first configuration's at element {bad}: "
                    f"{got.ravel()[bad]!r} vs {want.ravel()[bad]!r} ({int((~close).sum())} elements differ)")
    return None


# --- compiling the variants


def _variants(kernel, named):
    """Each combination of template arguments and macros: (values by name, compile keywords)."""
    options = dict(kernel.compile_options)
    options.pop("name", None)
    qualified, template_params = kernel._template_params
    template_names = [n for n, (what, _) in named.items() if what == "template"]
    if template_names and not template_params:
        raise ValueError(f"template={{{', '.join(map(repr, template_names))}: ...}}: {kernel.name} is no template "
                         "kernel; name its macros in defines= instead")
    unknown = [n for n in template_names if n not in template_params]
    if unknown:
        raise ValueError(f"template={{{', '.join(map(repr, unknown))}: ...}}: {kernel.name}'s template parameters "
                         f"are {', '.join(template_params)}")
    current = [a.strip() for a in kernel.instantiation.split(",")] if kernel.instantiation else []
    out = []
    varied = [n for n in named if n != "block"]
    for values in itertools.product(*(named[n][1] for n in varied)):
        chosen = dict(zip(varied, values))
        kw = dict(options)
        defines = list(kw.get("defines") or [])
        for n, v in chosen.items():
            if named[n][0] == "defines":
                defines = [d for d in defines if d.split("=", 1)[0] != n] + [f"{n}={v}"]
        kw["defines"] = defines
        args = None
        if template_params:
            args = []
            for i, p in enumerate(template_params):
                if p in chosen:
                    args.append(str(chosen[p]))
                elif i < len(current):
                    args.append(current[i])
                else:
                    raise ValueError(f"template parameter {p} of {kernel.name} has no value: add it to template= "
                                     "(or autotune an instantiation, e.g. kernel['float'])")
            kw["instantiate"] = list(kw.get("instantiate") or []) + [f"{qualified}<{', '.join(args)}>"]
        out.append((chosen, kw, args))
    return out


def _compile_variant(kernel_name, source, kw, args):
    module = _core.compile(source, **kw)
    found = module.kernels[kernel_name]
    if args is not None:
        found = found[tuple(args)]
    return found


def _compile_all(kernel, variants):
    """The kernel of each variant, or the reason it failed, compiled on several threads."""
    source = kernel.source
    workers = max(1, min(len(variants), os.cpu_count() or 1, 16))
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="xcuda-autotune") as pool:
        futures = [pool.submit(_compile_variant, kernel.name, source, kw, args) for _, kw, args in variants]
        out = []
        for f in futures:
            try:
                out.append((f.result(), None))
            except _core.CompileError as e:
                first = next((line for line in str(e).splitlines() if "error" in line), str(e).splitlines()[0])
                out.append((None, f"does not compile: {first.strip()}"))
            except (ValueError, TypeError, KeyError) as e:
                out.append((None, f"does not compile: {e}"))
        return out


# --- the record of earlier sweeps


def _record_dir():
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg.startswith("/"):
        base = os.path.join(xdg, "xcuda")
    elif os.environ.get("HOME", "").startswith("/"):
        base = os.path.join(os.environ["HOME"], ".cache", "xcuda")
    else:
        return None
    return os.path.join(base, RECORD_FOLDER)


def _trusted(path, is_dir):
    """Ours and not writable by others, as the compile cache requires of its entries."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return st.st_uid == os.getuid() and not (st.st_mode & 0o022) and (os.path.isdir(path) == is_dir)


def _record_key(kernel, space, args, device_name, grid_text, shared_text):
    h = hashlib.sha256()
    for part in (kernel.source, kernel.name, kernel.instantiation,
                 json.dumps(kernel.compile_options, sort_keys=True, default=str),
                 json.dumps(space, default=str), json.dumps(args.shapes()), device_name, grid_text, shared_text,
                 str(RECORD_VERSION)):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def _load_record(key):
    folder = _record_dir()
    if folder is None or not _trusted(folder, True):
        return None
    path = os.path.join(folder, key + ".json")
    if not _trusted(path, False):
        return None
    try:
        with open(path) as f:
            record = json.load(f)
    except (OSError, ValueError):
        return None
    return record if record.get("version") == RECORD_VERSION else None


def _save_record(key, record):
    folder = _record_dir()
    if folder is None:
        return "the sweep was not kept: neither XDG_CACHE_HOME nor HOME is an absolute path"
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        if not _trusted(folder, True):
            return f"the sweep was not kept: {folder} is not a private directory of yours"
        tmp = os.path.join(folder, f".{key}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(record, f)
        os.replace(tmp, os.path.join(folder, key + ".json"))
    except OSError as e:
        return f"the sweep was not kept: {e}"
    return None


# --- the sweep


def _launch_value(value, config, what):
    if callable(value):
        got = value(config)
        if got is None:
            raise ValueError(f"{what}= returned None for {config.label()}")
        return got
    return value


def _describe_callable(value):
    if callable(value):
        code = getattr(value, "__code__", None)
        return "callable:" + (hashlib.sha256(code.co_code).hexdigest() if code is not None else repr(value))
    return repr(value)


def autotune(kernel, *args, grid, block, template=None, defines=None, shared_mem=0, stream=None, check=None,
             rtol=1e-5, atol=1e-8, repeat=7, number=None, warmup=1, retune=False, show=True):
    """autotune(*args, grid, block, template=None, defines=None, shared_mem=0, stream=None, check=None,
             rtol=1e-5, atol=1e-8, repeat=7, number=None, warmup=1, retune=False, show=True) -> Tuned

    Sweeps launch configurations and compile-time parameters of this kernel on `args` and returns a
    launcher of the fastest (an xcuda.Tuned: call it with the kernel's arguments).
      block     a list of block shapes to try (ints or tuples), or one, or a function of the
                configuration's other parameters returning its shape (lambda c: (c['TILE'], c['TILE']))
      grid      the grid, or a function of the configuration (a dict with 'block' and each name in
                template=/defines=) returning it, e.g. lambda c: (n + c['block'][0] - 1) // c['block'][0]
      template  {parameter: [values]} for a template kernel's template parameters
      defines   {MACRO: [values]}: the cell compiled with -D MACRO=value for each
      shared_mem  dynamic shared memory in bytes, or a function of the configuration
      check     called as check(*outputs) with each configuration's results (the arrays the kernel
                may write, as numpy arrays) from the original inputs; falsy or raising leaves the
                configuration out. By default each is compared with the first configuration's
                (numpy.isclose with rtol, atol for floats; equality otherwise).
      repeat, number, warmup  as Kernel.benchmark: the median of `repeat` runs of `number` launches
                is compared (number=None: as many as take about 2 ms, from one launch timed)
      retune    measure again instead of using the sweep recorded for the same source, options,
                device and argument shapes
      show      display the table and chart in a notebook (the result shows them too)
    Afterwards the arguments hold the best configuration's results from their original contents.
    Configurations that do not compile, launch or pass the check are listed with the reason.
    Ctrl-C stops the sweep and keeps what it measured (the next call measures only the rest)."""
    blocks, named = _sweep_space(block, template, defines)
    arguments = _Arguments(kernel, args)
    device = _core.get_device()
    device_name = str(_core.Device(device).name) if device != "cpu" else "cpu"
    space = {"block": [_describe_callable(b) if callable(b) else list(b) for b in blocks],
             **{n: [str(v) for v in vs] for n, (_, vs) in named.items()}}
    key = _record_key(kernel, space, arguments, device_name, _describe_callable(grid), _describe_callable(shared_mem))
    earlier = None if retune else _load_record(key)
    notes = []
    if device == "cpu":
        notes.append("on the CPU device: the times are the emulator's, not a GPU's (a GPU may rank the "
                     "configurations differently)")

    variants = _variants(kernel, named)
    configs = [c for chosen, _, _ in variants for c in _configs(blocks, chosen)]
    measured = {}
    if earlier is not None:
        for r in earlier.get("rows", []):
            measured[Config(r["config"]).label()] = r

    complete = earlier is not None and all(c.label() in measured for c in configs) and not earlier.get("interrupted")
    if complete:
        rows = [Row(c, measured[c.label()]["times"], measured[c.label()]["error"]) for c in configs]
        best = min((r for r in rows if not r.error), key=lambda r: r.median, default=None)
        best_kernel = None
        if best is not None:
            _, kw, targs = variants[_variant_of(variants, best.config)]
            best_kernel = _compile_variant(kernel.name, kernel.source, kw, targs)
        tuned = _finish(kernel, arguments, rows, best, best_kernel, grid, shared_mem, stream, reused=True,
                        interrupted=False, notes=notes)
        return _shown(tuned, show)

    compiled = _compile_all(kernel, variants)
    rows = []
    reference = None
    interrupted = False
    try:
        for (chosen, _, _), (variant_kernel, compile_error) in zip(variants, compiled):
            for config in _configs(blocks, chosen):
                old = measured.get(config.label())
                if old is not None:
                    row = Row(config, old["times"], old["error"])
                    rows.append(row)
                    continue
                if compile_error:
                    rows.append(Row(config, error=compile_error))
                    continue
                row, results = _measure(variant_kernel, config, arguments, grid, shared_mem, stream, check,
                                        reference, rtol, atol, repeat, number, warmup)
                if reference is None and results is not None and not row.error and check is None:
                    reference = results
                rows.append(row)
    except KeyboardInterrupt:
        interrupted = True
    done = {r.config.label() for r in rows}
    if interrupted:
        notes.append(f"interrupted after {len(rows)} of {len(configs)} configurations")
    best = min((r for r in rows if not r.error), key=lambda r: r.median, default=None)
    best_kernel = None
    if best is not None:
        index = _variant_of(variants, best.config)
        best_kernel = compiled[index][0]
    record = {"version": RECORD_VERSION, "when": time.strftime("%Y-%m-%d %H:%M:%S"), "device": device_name,
              "interrupted": interrupted or len(done) < len(configs),
              "rows": [dict(r.as_record(), config={k: (list(v) if k == "block" else v) for k, v in r.config.items()})
                       for r in rows]}
    problem = _save_record(key, record)
    if problem:
        notes.append(problem)
    tuned = _finish(kernel, arguments, rows, best, best_kernel, grid, shared_mem, stream, reused=False,
                    interrupted=interrupted, notes=notes)
    return _shown(tuned, show)


def _configs(blocks, chosen):
    """The configurations of one variant: each block shape, or the one block= computes for it."""
    if len(blocks) == 1 and callable(blocks[0]):
        return [Config(block=_as_block(blocks[0](Config(chosen))), **chosen)]
    return [Config(block=b, **chosen) for b in blocks]


def _variant_of(variants, config):
    """The index of the variant (template arguments and macros) a configuration was compiled as."""
    for i, (chosen, _, _) in enumerate(variants):
        if all(str(config.get(k)) == str(v) for k, v in chosen.items()):
            return i
    raise LookupError(f"no variant compiles {config.label()}")


def _measure(variant_kernel, config, arguments, grid, shared_mem, stream, check, reference, rtol, atol, repeat,
             number, warmup):
    """Launches one configuration once from the original inputs (checked), then times it."""
    try:
        g = _launch_value(grid, config, "grid")
        s = _launch_value(shared_mem, config, "shared_mem")
        arguments.restore()
        variant_kernel(*arguments.launch, grid=g, block=config["block"], shared_mem=s, stream=stream)
        _core.synchronize()
        results = arguments.results()
    except _core.CudaError as e:
        return Row(config, error=f"does not launch: {type(e).__name__}: {e}"), None
    except (ValueError, TypeError) as e:
        return Row(config, error=f"does not launch: {e}"), None
    if check is not None:
        try:
            ok = check(*results)
        except AssertionError as e:
            ok, why = False, f"check failed: {e}" if str(e) else "check failed"
        else:
            why = "check returned False"
        if not ok:
            return Row(config, error=why), results
    elif reference is not None:
        differs = _same(reference, results, rtol, atol)
        if differs:
            return Row(config, error=differs), results
    if number is None:
        number = _launches_per_run(variant_kernel, arguments, g, config["block"], s, stream)
    try:
        timing = variant_kernel.benchmark(*arguments.launch, grid=g, block=config["block"], shared_mem=s,
                                          stream=stream, number=number, repeat=repeat, warmup=warmup)
    except _core.CudaError as e:
        return Row(config, error=f"does not launch: {type(e).__name__}: {e}"), None
    return Row(config, list(timing.timings)), results


# One timed run of a configuration lasts about this long (Kernel.benchmark's own default, 0.2 s,
# suits one kernel; a sweep of dozens would take minutes): several launches where one is short.
RUN_SECONDS = 2e-3
MAX_LAUNCHES_PER_RUN = 1000


def _launches_per_run(variant_kernel, arguments, grid, block, shared_mem, stream):
    """How many launches make one timed run of RUN_SECONDS, from one launch timed with events."""
    start, end = _core.Event(), _core.Event()
    start.record(stream)
    variant_kernel(*arguments.launch, grid=grid, block=block, shared_mem=shared_mem, stream=stream)
    end.record(stream)
    seconds = start.elapsed_time(end) / 1e3
    return max(1, min(MAX_LAUNCHES_PER_RUN, int(RUN_SECONDS / seconds) if seconds > 0 else MAX_LAUNCHES_PER_RUN))


def _finish(kernel, arguments, rows, best, best_kernel, grid, shared_mem, stream, reused, interrupted, notes):
    g = s = None
    if best is not None and best_kernel is not None:
        g = _launch_value(grid, best.config, "grid")
        s = _launch_value(shared_mem, best.config, "shared_mem")
        arguments.restore()
        best_kernel(*arguments.launch, grid=g, block=best.config["block"], shared_mem=s, stream=stream)
        _core.synchronize()
        arguments.hand_back()
    return Tuned(kernel.name, rows, best, best_kernel, g, s, reused, interrupted, notes)


def _shown(tuned, show):
    if show:
        try:
            from IPython import get_ipython
            from IPython.display import display
        except ImportError:
            return tuned
        if get_ipython() is not None:
            display(tuned)
    return tuned
