"""The DWARF that NVRTC and nvcc write into PTX under -G, read into what a debugger shows: each
function's variables by their C++ names and types, where each lives (a PTX register, the
kernel's parameter space, the thread's local depot) and the labels that bound its scope.

PTX carries the sections as directives (`.section .debug_info { .b8 ...; .b32 N; .b64 label }`):
bytes, with label-valued words where an object file would have relocations. A location
`DW_OP_regx N` names a PTX register by its name's characters packed into N (`%f2` is
0x256632); `DW_OP_addr` names a symbol (`saxpy_param_1`, `__local_depot0`). Only what -G emits
for CUDA C++ is read (DWARF 2-4 forms, one compilation unit per module); anything else raises
DwarfError with the offset, so a change in what NVRTC writes is seen, not misread.
"""
import re

# Tags (DWARF 4, section 7.5.3), attributes (7.5.4), forms (7.5.5) and operations (7.7.1) used here.
TAG_ARRAY, TAG_CLASS, TAG_ENUM, TAG_PARAMETER = 0x01, 0x02, 0x04, 0x05
TAG_LEXICAL_BLOCK, TAG_MEMBER, TAG_POINTER, TAG_REFERENCE = 0x0B, 0x0D, 0x0F, 0x10
TAG_COMPILE_UNIT, TAG_STRUCT, TAG_TYPEDEF, TAG_UNION = 0x11, 0x13, 0x16, 0x17
TAG_INLINED, TAG_SUBRANGE, TAG_BASE, TAG_CONST = 0x1D, 0x21, 0x24, 0x26
TAG_ENUMERATOR, TAG_SUBPROGRAM, TAG_VARIABLE, TAG_VOLATILE = 0x28, 0x2E, 0x34, 0x35
TAG_RESTRICT, TAG_RVALUE_REFERENCE = 0x37, 0x42

AT_LOCATION, AT_NAME, AT_BYTE_SIZE, AT_LOW_PC, AT_HIGH_PC = 0x02, 0x03, 0x0B, 0x11, 0x12
AT_CONST_VALUE, AT_UPPER_BOUND, AT_ADDRESS_CLASS, AT_COUNT = 0x1C, 0x2F, 0x33, 0x37
AT_DATA_MEMBER_LOCATION, AT_DECL_LINE, AT_DECLARATION, AT_ENCODING = 0x38, 0x3B, 0x3C, 0x3E
AT_SPECIFICATION, AT_TYPE, AT_LINKAGE_NAME, AT_MIPS_LINKAGE_NAME = 0x47, 0x49, 0x6E, 0x2007

FORM_ADDR, FORM_BLOCK2, FORM_BLOCK4, FORM_DATA2, FORM_DATA4 = 0x01, 0x03, 0x04, 0x05, 0x06
FORM_DATA8, FORM_STRING, FORM_BLOCK, FORM_BLOCK1, FORM_DATA1 = 0x07, 0x08, 0x09, 0x0A, 0x0B
FORM_FLAG, FORM_SDATA, FORM_STRP, FORM_UDATA, FORM_REF_ADDR = 0x0C, 0x0D, 0x0E, 0x0F, 0x10
FORM_REF1, FORM_REF2, FORM_REF4, FORM_REF8, FORM_REF_UDATA = 0x11, 0x12, 0x13, 0x14, 0x15
FORM_SEC_OFFSET, FORM_EXPRLOC, FORM_FLAG_PRESENT = 0x17, 0x18, 0x19

OP_ADDR, OP_DEREF, OP_CONSTU, OP_PLUS_UCONST, OP_REGX = 0x03, 0x06, 0x10, 0x23, 0x90
OP_FBREG, OP_BREGX, OP_PIECE, OP_STACK_VALUE = 0x91, 0x92, 0x93, 0x9F

# DW_ATE_*: how a base type's bytes read.
ENCODINGS = {0x02: "bool", 0x04: "float", 0x05: "signed", 0x06: "signed_char", 0x07: "unsigned",
             0x08: "unsigned_char", 0x10: "utf"}

# NVIDIA's DW_AT_address_class values: where a variable lives.
ADDRESS_CLASSES = {1: "code", 2: "reg", 3: "sreg", 4: "const", 5: "global", 6: "local", 7: "param",
                   8: "shared", 12: "generic"}


class DwarfError(ValueError):
    """The PTX's debug sections hold something this reader does not understand."""


class Section:
    """A debug section's bytes, and the symbols its label-valued words name (offset -> label)."""

    def __init__(self, name):
        self.name = name
        self.data = bytearray()
        self.symbols = {}


_DIRECTIVE = re.compile(r"\.b(8|16|32|64)\s+(.*)")


def sections(ptx):
    """The `.section .debug_*` blocks of a PTX text, by name."""
    found = {}
    current = None
    for raw in ptx.splitlines():
        line = raw.strip()
        if current is None:
            if line.startswith(".section"):
                current = Section(line.split()[1])
            continue
        if line == "{" or not line:
            continue
        if line == "}":
            found[current.name] = current
            current = None
            continue
        m = _DIRECTIVE.match(line)
        if m is None:
            raise DwarfError(f"{current.name}: unexpected line {line!r}")
        width = int(m.group(1)) // 8
        for item in m.group(2).rstrip(";").split(","):
            item = item.strip()
            if re.fullmatch(r"-?(0x[0-9a-fA-F]+|\d+)", item):
                current.data += (int(item, 0) & ((1 << (8 * width)) - 1)).to_bytes(width, "little")
            else:  # a label: its address, known once the program is decoded
                label, _, addend = item.partition("+")
                current.symbols[len(current.data)] = label.strip()
                current.data += (int(addend or "0", 0)).to_bytes(width, "little")
    return found


class _Reader:
    def __init__(self, section, offset=0):
        self.section = section
        self.data = section.data
        self.at = offset

    def fail(self, what):
        raise DwarfError(f"{self.section.name} offset {self.at}: {what}")

    def u(self, n):
        if self.at + n > len(self.data):
            self.fail(f"{n} bytes past the end")
        value = int.from_bytes(self.data[self.at:self.at + n], "little")
        self.at += n
        return value

    def uleb(self, signed=False):
        value = shift = 0
        while True:
            byte = self.u(1)
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                if signed and byte & 0x40:  # the sign bit of the last group
                    value -= 1 << shift
                return value

    def sleb(self):
        return self.uleb(signed=True)

    def cstring(self):
        end = self.data.find(b"\0", self.at)
        if end < 0:
            self.fail("a string without its NUL")
        text = self.data[self.at:end].decode("utf-8", "replace")
        self.at = end + 1
        return text

    def address(self, n):
        symbol = self.section.symbols.get(self.at)
        value = self.u(n)
        return (symbol, value) if symbol is not None else value


def register_name(number):
    """DW_OP_regx's operand as the PTX register it packs (0x256632 -> '%f2')."""
    return number.to_bytes((number.bit_length() + 7) // 8, "big").decode("ascii", "replace")


def _abbreviations(section, offset):
    r = _Reader(section, offset)
    table = {}
    while True:
        code = r.uleb()
        if code == 0:
            return table
        tag = r.uleb()
        children = r.u(1) != 0
        specs = []
        while True:
            attribute, form = r.uleb(), r.uleb()
            if attribute == 0 and form == 0:
                break
            specs.append((attribute, form))
        table[code] = (tag, children, specs)


def _form_value(r, form, address_size, offset_size, unit_offset):
    if form == FORM_ADDR:
        return r.address(address_size)
    if form in (FORM_DATA1, FORM_REF1, FORM_FLAG):
        value = r.u(1)
    elif form in (FORM_DATA2, FORM_REF2):
        value = r.u(2)
    elif form in (FORM_DATA4, FORM_REF4):
        value = r.u(4)
    elif form in (FORM_DATA8, FORM_REF8):
        value = r.u(8)
    elif form in (FORM_UDATA, FORM_REF_UDATA):
        value = r.uleb()
    elif form == FORM_SDATA:
        return r.sleb()
    elif form == FORM_STRING:
        return r.cstring()
    elif form == FORM_STRP:
        return ("strp", r.u(offset_size))
    elif form in (FORM_SEC_OFFSET, FORM_REF_ADDR):
        return r.address(offset_size)
    elif form == FORM_FLAG_PRESENT:
        return True
    elif form in (FORM_BLOCK1, FORM_BLOCK2, FORM_BLOCK4, FORM_BLOCK, FORM_EXPRLOC):
        n = {FORM_BLOCK1: lambda: r.u(1), FORM_BLOCK2: lambda: r.u(2), FORM_BLOCK4: lambda: r.u(4)}.get(form, r.uleb)()
        start = r.at
        r.at += n
        return ("block", start, n)
    else:
        r.fail(f"attribute form 0x{form:x}, which -G does not emit")
    if form in (FORM_REF1, FORM_REF2, FORM_REF4, FORM_REF8, FORM_REF_UDATA):
        return ("ref", unit_offset + value)
    return value


class _Die:
    __slots__ = ("offset", "tag", "attributes", "children", "parent")

    def __init__(self, offset, tag, attributes, parent):
        self.offset = offset
        self.tag = tag
        self.attributes = attributes
        self.children = []
        self.parent = parent

    def get(self, attribute, default=None):
        return self.attributes.get(attribute, default)


def _read_dies(info, abbrev, strings):
    """Every DIE of every unit, by offset, and the units' top DIEs."""
    r = _Reader(info)
    dies, units = {}, []
    while r.at < len(info.data):
        unit_offset = r.at
        length = r.u(4)
        offset_size = 4
        if length == 0xFFFFFFFF:
            length, offset_size = r.u(8), 8
        end = r.at + length
        version = r.u(2)
        if version not in (2, 3, 4):
            r.fail(f"DWARF version {version}; the debugger reads versions 2 to 4")
        abbrev_offset = r.address(offset_size)
        if isinstance(abbrev_offset, tuple):  # `.b32 .debug_abbrev`: the section's start
            abbrev_offset = abbrev_offset[1]
        address_size = r.u(1)
        table = _abbreviations(abbrev, abbrev_offset)
        stack = []
        while r.at < end:
            offset = r.at
            code = r.uleb()
            if code == 0:
                if stack:
                    stack.pop()
                continue
            if code not in table:
                r.fail(f"abbreviation {code} is not in .debug_abbrev")
            tag, has_children, specs = table[code]
            attributes = {}
            for attribute, form in specs:
                value = _form_value(r, form, address_size, offset_size, unit_offset)
                if isinstance(value, tuple) and value[0] == "strp":
                    value = _string_at(strings, value[1])
                attributes[attribute] = value
            die = _Die(offset, tag, attributes, stack[-1] if stack else None)
            dies[offset] = die
            if stack:
                stack[-1].children.append(die)
            else:
                units.append(die)
            if has_children:
                stack.append(die)
        r.at = end
    return dies, units


def _string_at(strings, offset):
    if strings is None:
        raise DwarfError(f"a string at .debug_str offset {offset}, but the PTX has no .debug_str")
    r = _Reader(strings, offset)
    return r.cstring()


class Type:
    """A C++ type as DWARF describes it: kind is base, pointer, reference, const, volatile,
    typedef, struct, union, class, array, enum or void."""

    def __init__(self, kind, name="", size=0):
        self.kind = kind
        self.name = name
        self.size = size
        self.encoding = None  # base: float, signed, unsigned, bool, ...
        self.target = None  # pointer, reference, const, volatile, typedef, array, enum: the type under it
        self.members = []  # struct/union/class: (name, byte offset, Type)
        self.dims = []  # array: element counts, outermost first
        self.enumerators = {}  # enum: value -> name

    def strip(self):
        """The type under typedefs and cv-qualifiers."""
        t = self
        while t.kind in ("typedef", "const", "volatile") and t.target is not None:
            t = t.target
        return t

    def byte_size(self):
        t = self.strip()
        if t.kind == "array":
            n = 1
            for d in t.dims:
                n *= d
            return n * t.target.byte_size()
        if t.kind in ("pointer", "reference"):
            return t.size or 8
        if t.kind == "enum" and not t.size and t.target is not None:
            return t.target.byte_size()
        return t.size

    def c_name(self):
        """The type as C++ writes it: 'const float *', 'int [4]'."""
        if self.kind in ("base", "struct", "union", "class", "enum", "typedef"):
            return self.name or f"<anonymous {self.kind}>"
        if self.kind == "void":
            return "void"
        if self.kind in ("const", "volatile"):
            inner = self.target.c_name() if self.target is not None else "void"
            if self.target is not None and self.target.kind in ("pointer", "reference"):
                return f"{inner} {self.kind}"
            return f"{self.kind} {inner}"
        if self.kind in ("pointer", "reference"):
            inner = self.target.c_name() if self.target is not None else "void"
            return f"{inner} {'*' if self.kind == 'pointer' else '&'}"
        if self.kind == "array":
            return self.target.c_name() + "".join(f"[{d}]" for d in self.dims)
        return self.name or self.kind


class Location:
    """Where a variable lives: kind 'reg' (name: '%f2'), 'param', 'local', 'global', 'shared' or
    'const' (name: the PTX symbol, offset: bytes into it), 'list' (ranges: (first label, end
    label, Location) where it lives between those labels), or 'none' (optimised away)."""

    def __init__(self, kind, name="", offset=0, ranges=None):
        self.kind = kind
        self.name = name
        self.offset = offset
        self.ranges = ranges or []

    def __repr__(self):
        return f"Location({self.kind!r}, {self.name!r}, {self.offset})"


class Variable:
    """A parameter or local variable of a device function. `scope` is (first label, end label)
    of the lexical block that declares it, or None for the whole function."""

    def __init__(self, name, type_, location, is_parameter, scope, line):
        self.name = name
        self.type = type_
        self.location = location
        self.is_parameter = is_parameter
        self.scope = scope
        self.line = line

    def __repr__(self):
        return f"Variable({self.name!r}, {self.type.c_name()!r}, {self.location})"


class Function:
    """A device function or kernel: its PTX name, source name, code labels and variables."""

    def __init__(self, ptx_name, name, low, high, line):
        self.ptx_name = ptx_name
        self.name = name
        self.low = low
        self.high = high
        self.line = line
        self.variables = []


class DebugInfo:
    """What -G says of a module: its functions by PTX name."""

    def __init__(self, functions):
        self.functions = functions

    def function(self, ptx_name):
        return self.functions.get(ptx_name)


def _label(value):
    """A DW_FORM_addr value's label, or None when it is a plain number."""
    return value[0] if isinstance(value, tuple) else None


class _Builder:
    def __init__(self, info, dies, loc):
        self.info = info
        self.loc = loc
        self.dies = dies
        self.types = {}

    def type_of(self, die):
        ref = die.get(AT_TYPE)
        if ref is None:
            return Type("void")
        return self.type_at(ref[1])

    def type_at(self, offset):
        if offset in self.types:
            return self.types[offset]
        die = self.dies.get(offset)
        if die is None:
            raise DwarfError(f".debug_info: a type reference to offset {offset}, where no entry starts")
        kinds = {TAG_BASE: "base", TAG_POINTER: "pointer", TAG_REFERENCE: "reference",
                 TAG_RVALUE_REFERENCE: "reference", TAG_CONST: "const", TAG_VOLATILE: "volatile",
                 TAG_RESTRICT: "typedef", TAG_TYPEDEF: "typedef", TAG_STRUCT: "struct", TAG_UNION: "union",
                 TAG_CLASS: "class", TAG_ARRAY: "array", TAG_ENUM: "enum"}
        kind = kinds.get(die.tag, "void")
        t = Type(kind, die.get(AT_NAME, ""), die.get(AT_BYTE_SIZE, 0) or 0)
        if die.tag == TAG_RESTRICT:
            t.name = ""
        self.types[offset] = t  # before the parts: a struct may point to itself
        if kind == "base":
            t.encoding = ENCODINGS.get(die.get(AT_ENCODING), "unsigned")
        if AT_TYPE in die.attributes:
            t.target = self.type_of(die)
        if die.tag == TAG_RESTRICT and t.target is not None:
            t.name = t.target.c_name() + " __restrict__"
        for child in die.children:
            if child.tag == TAG_MEMBER and child.get(AT_DECLARATION) is None:
                where = child.get(AT_DATA_MEMBER_LOCATION, 0)
                if isinstance(where, tuple) and where[0] == "block":
                    where = self.plus_uconst(where)
                t.members.append((child.get(AT_NAME, ""), where, self.type_of(child)))
            elif child.tag == TAG_SUBRANGE:
                if AT_COUNT in child.attributes:
                    t.dims.append(child.get(AT_COUNT))
                elif AT_UPPER_BOUND in child.attributes:
                    t.dims.append(child.get(AT_UPPER_BOUND) + 1)
                else:
                    t.dims.append(0)  # an array of unknown bound (extern __shared__ float s[])
            elif child.tag == TAG_ENUMERATOR:
                t.enumerators[child.get(AT_CONST_VALUE)] = child.get(AT_NAME, "")
        return t

    def plus_uconst(self, block):
        _, start, n = block
        r = _Reader(self.info, start)
        if n and r.u(1) == OP_PLUS_UCONST:
            return r.uleb()
        raise DwarfError(f".debug_info offset {start}: a member location other than DW_OP_plus_uconst")

    def location(self, die):
        value = die.get(AT_LOCATION)
        space = ADDRESS_CLASSES.get(die.get(AT_ADDRESS_CLASS), "")
        if value is None:
            return Location("none")
        if isinstance(value, tuple) and value[0] == "block":
            _, start, n = value
            return self.expression(self.info, start, n, space, die.get(AT_NAME))
        # A location list (.debug_loc): the variable moves between registers as the code goes.
        offset = value[1] if isinstance(value, tuple) else value
        if self.loc is None:
            raise DwarfError(f".debug_info offset {die.offset}: a location list, but the PTX has no .debug_loc")
        r = _Reader(self.loc, offset)
        ranges = []
        while True:
            low, high = r.address(8), r.address(8)
            if low == 0 and high == 0:
                break
            n = r.u(2)
            ranges.append((_label(low), _label(high), self.expression(self.loc, r.at, n, space, die.get(AT_NAME))))
            r.at += n
        return Location("list", ranges=ranges)

    def expression(self, section, start, n, space, name):
        r = _Reader(section, start)
        end = start + n
        location = None
        while r.at < end:
            op = r.u(1)
            if op == OP_REGX:
                location = Location("reg", register_name(r.uleb()))
            elif op == OP_ADDR:
                symbol = r.address(8)
                if isinstance(symbol, tuple):
                    location = Location(space or "global", symbol[0], symbol[1])
                else:
                    location = Location(space or "global", "", symbol)
            elif op == OP_PLUS_UCONST and location is not None:
                location.offset += r.uleb()
            elif op == OP_CONSTU:
                location = Location(space or "global", "", r.uleb())
            elif op in (OP_DEREF, OP_STACK_VALUE):
                return Location("none")  # a value the expression computes: not read by this debugger
            else:
                raise DwarfError(f"{section.name} offset {r.at - 1}: location operation 0x{op:x} of {name}")
        return location or Location("none")


def read(ptx):
    """The debug information of a PTX text compiled with -G, or None when it has none."""
    found = sections(ptx)
    info, abbrev = found.get(".debug_info"), found.get(".debug_abbrev")
    if info is None or abbrev is None or not info.data:
        return None
    dies, units = _read_dies(info, abbrev, found.get(".debug_str"))
    builder = _Builder(info, dies, found.get(".debug_loc"))
    functions = {}

    def collect(die, function, scope):
        for child in die.children:
            if child.tag in (TAG_PARAMETER, TAG_VARIABLE) and AT_NAME in child.attributes:
                function.variables.append(Variable(child.get(AT_NAME), builder.type_of(child),
                                                   builder.location(child), child.tag == TAG_PARAMETER, scope,
                                                   child.get(AT_DECL_LINE, 0)))
            elif child.tag == TAG_LEXICAL_BLOCK:
                low, high = _label(child.get(AT_LOW_PC)), _label(child.get(AT_HIGH_PC))
                collect(child, function, (low, high) if low and high else scope)

    def walk(die):
        for child in die.children:
            if child.tag == TAG_SUBPROGRAM and AT_LOW_PC in child.attributes:
                spec = child
                if AT_SPECIFICATION in child.attributes:
                    spec = dies.get(child.get(AT_SPECIFICATION)[1], child)
                ptx_name = (child.get(AT_LINKAGE_NAME) or child.get(AT_MIPS_LINKAGE_NAME)
                            or spec.get(AT_LINKAGE_NAME) or spec.get(AT_MIPS_LINKAGE_NAME)
                            or child.get(AT_NAME) or spec.get(AT_NAME, ""))
                function = Function(ptx_name, child.get(AT_NAME) or spec.get(AT_NAME, ptx_name),
                                    _label(child.get(AT_LOW_PC)), _label(child.get(AT_HIGH_PC)),
                                    child.get(AT_DECL_LINE) or spec.get(AT_DECL_LINE, 0))
                collect(child, function, None)
                functions[ptx_name] = function
            elif child.tag in (TAG_STRUCT, TAG_CLASS, TAG_UNION) or child.tag == 0x39:  # namespaces too
                walk(child)

    for unit in units:
        walk(unit)
    return DebugInfo(functions)
