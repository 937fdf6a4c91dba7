"""A course file a student's notebook can hold: each exercise's signature, tests (their input
arrays), launches and gates, and, instead of the reference, a keyed 64-bit digest of each expected
output element. Grading with it says which elements are wrong but not what they should be.

A float element is digested after rounding down to a step of atol + rtol * max|expected| of its
array, so a value within one step of the right one is accepted (and one within two steps may be):
the digests of the three steps around a student's value are compared. Integers are digested
exactly. The digests hide the values from reading, not from a search: a student who tries every
small integer for a histogram's bin will find it. What must stay secret stays in the teacher's
file, which only the grader runs (docs/exercises.md)."""
import json
import secrets

import numpy as np

from xcuda._exercise.spec import Exercise, LaunchRules

FORMAT = "xcuda-course/1"
_loaded = {}
_M1, _M2, _M3 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


def _mix(salt, index, q):
    """splitmix64's finaliser over (salt, element index, quantised value): uint64 arrays."""
    with np.errstate(over="ignore"):
        x = (q.astype(np.uint64) * _M1) ^ (index.astype(np.uint64) * _M3) ^ np.uint64(salt)
        x ^= x >> np.uint64(30)
        x *= _M2
        x ^= x >> np.uint64(27)
        x *= _M3
        x ^= x >> np.uint64(31)
    return x


def _quantised(values, scale):
    """Elements as int64: exact for integers and bools (scale None), else rounded down to steps of `scale`."""
    if scale is None:
        return np.asarray(values).ravel().astype(np.int64)
    v = np.asarray(values, dtype=np.float64).ravel()
    with np.errstate(invalid="ignore", over="ignore"):
        q = np.floor(v / scale)
    q = np.where(np.isnan(q), np.iinfo(np.int64).min, np.clip(q, -(2.0 ** 62), 2.0 ** 62))
    return q.astype(np.int64)


class Hashed:
    """An expected output known only by its elements' digests."""

    def __init__(self, shape, dtype, scale, salt, digest):
        self.shape, self.dtype, self.scale, self.salt = tuple(shape), np.dtype(dtype), scale, int(salt)
        self.digest = np.asarray(digest, dtype=np.uint64)

    @classmethod
    def of(cls, expected, rtol, atol, salt):
        expected = np.asarray(expected)
        scale = None
        if expected.dtype.kind == "f":
            finite = np.abs(expected[np.isfinite(expected)])
            scale = float(atol + rtol * (finite.max() if finite.size else 0.0)) or 1e-30
        digest = _mix(salt, np.arange(expected.size, dtype=np.uint64), _quantised(expected, scale))
        return cls(expected.shape, expected.dtype, scale, salt, digest)

    def wrong_mask(self, got):
        got = np.asarray(got).ravel()
        index = np.arange(got.size, dtype=np.uint64)
        q = _quantised(got, self.scale)
        if self.scale is None:
            return _mix(self.salt, index, q) != self.digest
        right = np.zeros(got.size, bool)
        for step in (-1, 0, 1):
            right |= _mix(self.salt, index, q + step) == self.digest
        return ~right


class PublishedExercise(Exercise):
    """An exercise read from a course file: its tests' inputs stored, its outputs known by digests."""

    def __init__(self, spec, arrays):
        self._spec, self._arrays = spec, arrays
        configs = [tuple(map(tuple, c[:2])) + (c[2],) if c is not None else None for c in spec["launches"]]
        sizes = [_size(t["size"]) for t in spec["tests"]]
        super().__init__(
            name=spec["name"], kernel=spec["kernel"], reference=_hidden, inputs=_stored,
            sizes={t["label"]: _size(t["size"]) for t in spec["tests"]},
            launch=None if spec["student_launches"] else _StoredLaunch(configs, sizes),
            rules=LaunchRules(**spec["rules"]), gates=spec["gates"], gate_size=_size(spec["gate_size"]),
            seed=0, rtol=spec["rtol"], atol=spec["atol"], title=spec["title"], points=spec["points"])
        self.limits = {g: self.limits[g] for g in spec["gates"]} | {"check_findings": self.limits["check_findings"]}
        self._elements = spec["elements"]

    def element_count(self, size):
        return self._elements[[_size(t["size"]) for t in self._spec["tests"]].index(size)]

    def arguments(self, index):
        args = dict(self._spec["tests"][index]["scalars"])
        for p in self.parameters:
            key = f"{self.name}/{index}/{p.name}"
            if p.pointer and key in self._arrays:
                args[p.name] = np.array(self._arrays[key])
        return args

    def expected(self, index, args):
        outputs = self._spec["tests"][index]["outputs"]
        expected = {name: Hashed(o["shape"], o["dtype"], o["scale"], self._spec["salt"],
                                 self._arrays[f"{self.name}/{index}/digest/{name}"]) for name, o in outputs.items()}
        initial = {p.name: (args[p.name] if p.name in args else np.zeros(expected[p.name].shape, p.dtype))
                   for p in self.outputs}
        return expected, initial


class _StoredLaunch:
    def __init__(self, configs, sizes):
        self.by_size = dict(zip(sizes, configs))

    def __call__(self, size):
        return self.by_size[size]


def _hidden(**_):
    raise RuntimeError("this exercise was loaded from a course file: its reference is not in this notebook")


def _stored(rng, size):
    raise RuntimeError("a published exercise's inputs are stored; use arguments(index)")


def _size(value):
    return tuple(value) if isinstance(value, list) else value


def _json_scalar(v):
    return v.item() if hasattr(v, "item") else v


def publish(path, exercises):
    """Writes the course file for `exercises` (Exercise objects) to `path` (.npz)."""
    from xcuda._exercise.reference import expected_outputs
    from xcuda._exercise.spec import launch_of
    arrays, specs = {}, []
    for ex in exercises:
        if isinstance(ex, PublishedExercise):
            raise ValueError(f"exercise {ex.name!r} was loaded from a course file: publish from the teacher's file")
        salt = secrets.randbits(63)
        tests = []
        for i, (_, size) in enumerate(ex.tests):
            args = ex.arguments(i)
            expected, _ = expected_outputs(ex, i, args)
            outputs = {}
            for p in ex.outputs:
                h = Hashed.of(expected[p.name], ex.rtol, ex.atol, salt)
                arrays[f"{ex.name}/{i}/digest/{p.name}"] = h.digest
                outputs[p.name] = {"shape": list(h.shape), "dtype": h.dtype.str, "scale": h.scale}
            for p in ex.parameters:
                if p.pointer and p.name in args:
                    arrays[f"{ex.name}/{i}/{p.name}"] = np.asarray(args[p.name])
            tests.append({"label": ex.label(i), "size": list(size) if isinstance(size, tuple) else size,
                          "scalars": {k: _json_scalar(v) for k, v in args.items() if not isinstance(v, np.ndarray)},
                          "outputs": outputs})
        launches = None if ex.student_launches else [
            [list(c[0]), list(c[1]), c[2]] for c in (launch_of(ex.launch, s, "launch") for _, s in ex.tests)]
        specs.append({
            "name": ex.name, "title": ex.title, "kernel": ex.kernel, "tests": tests,
            "launches": launches or [None] * len(ex.tests), "student_launches": ex.student_launches,
            "rules": {"block_multiple_of": ex.rules.block_multiple_of,
                      "max_threads_per_block": ex.rules.max_threads_per_block, "max_blocks": ex.rules.max_blocks},
            "gates": {g: str(lim) for g, lim in ex.limits.items() if g != "check_findings"},
            "gate_size": list(ex.gate_size) if isinstance(ex.gate_size, tuple) else ex.gate_size,
            "elements": [ex.element_count(s) for _, s in ex.tests], "rtol": ex.rtol, "atol": ex.atol,
            "points": ex.points, "salt": salt})
    arrays["__course__"] = np.array(json.dumps({"format": FORMAT, "exercises": specs}))
    np.savez_compressed(path, **arrays)


def load(path):
    """Reads a course file and registers its exercises for grade(kernel, name); returns their names."""
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    if "__course__" not in arrays:
        raise ValueError(f"{path}: not an xcuda course file (xcuda.publish_exercises writes them)")
    course = json.loads(str(arrays.pop("__course__")))
    if course.get("format") != FORMAT:
        raise ValueError(f"{path}: course file format {course.get('format')!r}; this xcuda reads {FORMAT!r}")
    names = []
    for spec in course["exercises"]:
        _loaded[spec["name"]] = PublishedExercise(spec, arrays)
        names.append(spec["name"])
    return names


def has(name):
    return name in _loaded


def get(name):
    return _loaded[name]
