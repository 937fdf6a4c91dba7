"""An exercise as a teacher defines it: the kernel's signature, a reference, test inputs at sizes
that expose the usual mistakes (fixed by a seed), who chooses the launch, and gates measured
exactly on the CPU device."""
import dataclasses
import math
import re

import numpy as np

# C types a kernel parameter may point to (or be), as numpy dtypes.
CTYPES = {
    "float": np.float32, "double": np.float64, "__half": np.float16, "half": np.float16,
    "char": np.int8, "signed char": np.int8, "unsigned char": np.uint8, "int8_t": np.int8, "uint8_t": np.uint8,
    "short": np.int16, "unsigned short": np.uint16, "int16_t": np.int16, "uint16_t": np.uint16,
    "int": np.int32, "unsigned": np.uint32, "unsigned int": np.uint32, "int32_t": np.int32, "uint32_t": np.uint32,
    "long": np.int64, "long long": np.int64, "unsigned long": np.uint64, "unsigned long long": np.uint64,
    "int64_t": np.int64, "uint64_t": np.uint64, "size_t": np.uint64, "bool": np.bool_,
}

# Gate name -> what the rubric calls it. Each is measured exactly on the CPU device at the gate test.
GATES = {
    "global_loads_per_element": "global loads per element",
    "global_stores_per_element": "global stores per element",
    "global_atomics_per_element": "global atomics per element",
    "sectors_per_request": "32-byte sectors per global request",
    "bank_conflicts": "shared-memory bank conflicts",
    "divergent_branches": "divergent branches",
    "shared_memory_bytes": "shared memory per block (bytes)",
    "check_findings": "findings of the checks",
}
_LIMIT = re.compile(r"^\s*(<=|>=|==|<|>)\s*([-+0-9.eE]+)\s*$")


@dataclasses.dataclass(frozen=True)
class Parameter:
    name: str
    ctype: str  # the pointee's (or the value's) type, as written without const
    pointer: bool
    const: bool

    @property
    def dtype(self):
        return np.dtype(CTYPES[self.ctype]) if self.ctype in CTYPES else None

    @property
    def output(self):
        """A non-const pointer: the kernel writes it, and the grader compares it."""
        return self.pointer and not self.const

    def __str__(self):
        return f"{'const ' if self.const else ''}{self.ctype}{'*' if self.pointer else ''} {self.name}"


def parse_signature(text):
    """'void affine(const float* x, float* y, int n)' -> ('affine', [Parameter, ...]). Qualifiers
    (extern "C", __global__, __restrict__) are ignored."""
    cleaned = re.sub(r'extern\s*"C"|__global__|__restrict__|__restrict|\brestrict\b', " ", text)
    m = re.match(r"^\s*void\s+(\w+)\s*\((.*)\)\s*;?\s*$", cleaned, re.S)
    if not m:
        raise ValueError(f"kernel={text!r}: write the kernel's signature as C++ declares it, e.g. "
                         "'void affine(const float* x, float* y, int n)'")
    name, body = m.group(1), m.group(2).strip()
    params = []
    for part in [p.strip() for p in body.split(",")] if body and body != "void" else []:
        pm = re.match(r"^(const\s+)?([A-Za-z_][\w\s]*?)\s*(\*?)\s*(?:const\s*)?(\w+)$", part)
        if not pm:
            raise ValueError(f"kernel={text!r}: cannot read the parameter {part!r} (write it as 'const float* x' or "
                             "'int n')")
        ctype = " ".join(pm.group(2).split())
        params.append(Parameter(pm.group(4), ctype, bool(pm.group(3)), bool(pm.group(1))))
    return name, params


@dataclasses.dataclass(frozen=True)
class Limit:
    op: str
    value: float

    @staticmethod
    def parse(gate, limit):
        if isinstance(limit, Limit):
            return limit
        if isinstance(limit, (int, float)) and not isinstance(limit, bool):
            return Limit("<=", float(limit))
        m = _LIMIT.match(str(limit))
        if not m:
            raise ValueError(f"gates={{{gate!r}: {limit!r}}}: a limit is a number (at most) or a string like "
                             "'<= 1', '>= 1024' or '== 0'")
        return Limit(m.group(1), float(m.group(2)))

    def holds(self, measured):
        return {"<=": measured <= self.value + 1e-9, ">=": measured >= self.value - 1e-9,
                "==": abs(measured - self.value) <= 1e-9, "<": measured < self.value,
                ">": measured > self.value}[self.op]

    def __str__(self):
        v = int(self.value) if float(self.value).is_integer() else self.value
        return f"{self.op} {v}"


@dataclasses.dataclass(frozen=True)
class LaunchRules:
    """What a student's own launch must respect, when the exercise lets the student choose it
    (launch=None): threads per block a multiple of block_multiple_of and at most
    max_threads_per_block; at most max_blocks blocks (None: any grid)."""
    block_multiple_of: int = 32
    max_threads_per_block: int = 1024
    max_blocks: int = None  # None: any grid

    def problems(self, grid, block):
        threads = math.prod(block)
        found = []
        if threads % self.block_multiple_of:
            found.append(f"a block of {threads} threads is not a multiple of {self.block_multiple_of}")
        if threads > self.max_threads_per_block:
            found.append(f"a block of {threads} threads is more than {self.max_threads_per_block}")
        if self.max_blocks is not None and math.prod(grid) > self.max_blocks:
            found.append(f"a grid of {math.prod(grid)} blocks is more than {self.max_blocks}")
        return found


def dims(value, what):
    """An int or a tuple of up to three ints, as a 3-tuple."""
    if isinstance(value, (int, np.integer)):
        value = (int(value),)
    value = tuple(int(v) for v in value)
    if not 1 <= len(value) <= 3 or any(v < 1 for v in value):
        raise ValueError(f"{what} {value!r}: give an int or a tuple of up to three positive ints")
    return value + (1,) * (3 - len(value))


def launch_of(choice, size, what):
    """The launch a callable or fixed tuple gives for `size`: (grid, block, shared_bytes)."""
    value = choice(size) if callable(choice) else choice
    if not isinstance(value, (tuple, list)) or len(value) not in (2, 3):
        raise ValueError(f"{what} gave {value!r} for size {size!r}: return (grid, block) or "
                         "(grid, block, shared_bytes)")
    shared = int(value[2]) if len(value) == 3 else 0
    return dims(value[0], f"{what}'s grid"), dims(value[1], f"{what}'s block"), shared


def describe_size(size, block_threads):
    """How a size relates to the block: the mistakes it exposes."""
    if isinstance(size, tuple):
        return " x ".join(str(s) for s in size)
    if block_threads <= 1:
        return f"n = {size}"
    if size < block_threads:
        return f"n = {size} (smaller than a block of {block_threads})"
    if size % block_threads:
        return f"n = {size} (not a multiple of the block, {block_threads})"
    blocks = size // block_threads
    return f"n = {size} ({blocks} block{'s' if blocks != 1 else ''})"


@dataclasses.dataclass
class Exercise:
    """A kernel exercise (xcuda.exercise defines and registers one; its docstring says every field).
    .parameters and .outputs (from the signature), .tests [(label or None, size)], .label(i),
    .arguments(i) (test i's arguments, fixed by the seed), .limits (the gates)."""

    name: str
    kernel: str  # the signature
    reference: object  # a callable on numpy arrays, or an xcuda.Kernel
    inputs: object  # callable(rng, size) -> {parameter: array or number}
    sizes: object  # list of sizes (int, or a tuple for 2-D), or {label: size}
    launch: object = None  # callable(size) -> (grid, block[, shared]), a fixed tuple, or None: the student's
    rules: LaunchRules = dataclasses.field(default_factory=LaunchRules)
    gates: dict = dataclasses.field(default_factory=dict)
    gate_size: object = None  # the size the gates are measured at (default: the last)
    elements: object = None  # callable(size) -> the element count gates divide by (default: the size's product)
    seed: int = 0
    rtol: float = 1e-5
    atol: float = 1e-6
    title: str = ""
    hints: list = dataclasses.field(default_factory=list)  # [(callable(got, expected, inputs) -> bool, text)]
    reference_launch: object = None  # a reference kernel's launch (default: the exercise's)
    owner: object = None  # callable(index, size, grid, block) -> (block, thread): who should write an element
    points: float = None  # the score's scale (default: one point per test and gate)

    def __post_init__(self):
        if not re.match(r"^[\w.-]+$", str(self.name)):
            raise ValueError(f"exercise name {self.name!r}: use letters, digits, '_', '-' or '.'")
        self.kernel_name, self.parameters = parse_signature(self.kernel)
        unknown = [p for p in self.parameters if p.pointer and p.dtype is None]
        if unknown:
            raise ValueError(f"exercise {self.name!r}: parameter `{unknown[0]}`: pointers to {unknown[0].ctype} are "
                             f"not supported; use one of {', '.join(sorted(CTYPES))}")
        if not self.outputs:
            raise ValueError(f"exercise {self.name!r}: the kernel has no output (a non-const pointer parameter) to "
                             "compare")
        if not callable(self.inputs):
            raise ValueError(f"exercise {self.name!r}: inputs must be a callable(rng, size) returning a dict of "
                             "the kernel's arguments by name")
        if self.reference is None or not (callable(self.reference)):
            raise ValueError(f"exercise {self.name!r}: reference must be a function of numpy arrays or an xcuda.Kernel")
        bad = [g for g in self.gates if g not in GATES]
        if bad:
            raise ValueError(f"exercise {self.name!r}: unknown gate {bad[0]!r}; the gates are {', '.join(GATES)}")
        self.limits = {g: Limit.parse(g, v) for g, v in self.gates.items()}
        self.limits.setdefault("check_findings", Limit("==", 0))
        if isinstance(self.sizes, dict):
            self.tests = [(str(label), size) for label, size in self.sizes.items()]
        else:
            self.tests = [(None, size) for size in self.sizes]
        if not self.tests:
            raise ValueError(f"exercise {self.name!r}: give at least one test size")
        sizes = [s for _, s in self.tests]
        if self.gate_size is None:
            self.gate_size = sizes[-1]
        elif self.gate_size not in sizes:
            raise ValueError(f"exercise {self.name!r}: gate_size {self.gate_size!r} is not one of the sizes {sizes}")

    @property
    def outputs(self):
        return [p for p in self.parameters if p.output]

    @property
    def student_launches(self):
        return self.launch is None

    def element_count(self, size):
        if self.elements is not None:
            return int(self.elements(size))
        return int(math.prod(size) if isinstance(size, tuple) else size)

    def label(self, index):
        label, size = self.tests[index]
        if label is not None:
            return label
        block = 0
        if not self.student_launches:
            block = math.prod(launch_of(self.launch, size, "launch")[1])
        return describe_size(size, block)

    def arguments(self, index):
        """Test `index`'s arguments by parameter name, as the seed fixes them: every parameter the
        kernel reads, and the outputs the inputs give (the others are sized from the reference)."""
        size = self.tests[index][1]
        given = self.inputs(np.random.default_rng([self.seed, index]), size)
        if not isinstance(given, dict):
            raise ValueError(f"exercise {self.name!r}: inputs(rng, {size!r}) returned {type(given).__name__}; return a "
                             "dict of the kernel's arguments by name")
        names = {p.name for p in self.parameters}
        extra = sorted(set(given) - names)
        if extra:
            raise ValueError(f"exercise {self.name!r}: inputs gave {extra[0]!r}, which is not a parameter of "
                             f"`{self.kernel}`")
        args = {}
        for p in self.parameters:
            if p.name not in given:
                if p.output:
                    continue  # sized from the reference below
                raise ValueError(f"exercise {self.name!r}: inputs(rng, {size!r}) gave no value for `{p}`")
            v = given[p.name]
            if p.pointer:
                v = np.ascontiguousarray(np.asarray(v), dtype=p.dtype)
            args[p.name] = v
        return args
