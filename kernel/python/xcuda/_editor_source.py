"""Reading a %%cuda cell's CUDA C++ without a compiler: which parts are code (not comments or
literals), whether its brackets are closed, and what it declares.

The declaration scanner is a handful of regular expressions, enough for completion and
inspection, not a C++ parser. Its limits: it finds functions, kernels, structs/classes/
unions/enums (and their data members), typedef/using aliases, #define macros, and variables
declared as `Type name` or `Type* name` (parameters included); a second declarator of one
statement (`int i, j;`) is missed, macro-generated and template-dependent names are unseen,
and an expression statement shaped like a declaration (`a * b;`) is taken for one.
"""

import re
from typing import NamedTuple


def mask(code):
    """code with comments and the insides of string/char literals blanked, newlines kept, so
    that offsets still match; and whether it ends inside a /* comment."""
    out = list(code)
    i, n = 0, len(code)
    in_block = False
    while i < n:
        c = code[i]
        if c == "/" and code.startswith("//", i):
            end = code.find("\n", i)
            end = n if end == -1 else end
            out[i:end] = " " * (end - i)
            i = end
        elif c == "/" and code.startswith("/*", i):
            end = code.find("*/", i + 2)
            in_block = end == -1
            end = n if in_block else end + 2
            out[i:end] = [ch if ch == "\n" else " " for ch in code[i:end]]
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and code[j] != c and code[j] != "\n":
                j += 2 if code[j] == "\\" else 1
            end = min(j, n)
            out[i + 1:end] = " " * (end - i - 1)  # the quotes stay: `extern "C"` keeps its shape
            i = end + 1
        else:
            i += 1
    return "".join(out), in_block


class Balance(NamedTuple):
    braces: int  # open { (negative: more } than {)
    others: int  # open ( and [
    in_comment: bool


def balance(code):
    masked, in_comment = mask(code)
    braces = masked.count("{") - masked.count("}")
    others = masked.count("(") + masked.count("[") - masked.count(")") - masked.count("]")
    return Balance(braces, others, in_comment)


class Declaration(NamedTuple):
    name: str
    kind: str  # JupyterLab's completion type: function, class, variable, property, constant
    text: str  # the declaration's source line(s), as inspection shows them
    type_name: str = ""  # a variable's or member's type, stripped of qualifiers and * &
    owner: str = ""  # a member's struct
    is_kernel: bool = False


_NOT_TYPES = frozenset("""return else goto case delete new throw typedef using sizeof co_return
    if for while switch do break continue namespace public private protected operator template
    typename class struct union enum define include""".split())
_QUALIFIERS = frozenset("""const volatile static extern inline constexpr register unsigned signed
    __shared__ __constant__ __device__ __host__ __global__ __managed__ __restrict__ __forceinline__
    __noinline__ mutable struct class""".split())

_FUNCTION = re.compile(
    r"(?P<head>(?:\btemplate\s*<[^;{}]*>\s*)?(?:[\w:\"]+\s*(?:<[^;{}()]*>)?[\s\*&]+)+?)"
    r"(?P<name>[A-Za-z_]\w*)\s*\((?P<params>[^;{}]*?)\)\s*(?:const\s*|noexcept\s*)*(?P<end>[{;])")
_RECORD = re.compile(r"\b(?P<key>struct|class|union|enum(?:\s+class)?)\s+(?:__align__\s*\(\s*\d+\s*\)\s*)?"
                     r"(?P<name>[A-Za-z_]\w*)\s*(?::[^{;]*)?\{")
_ALIAS = re.compile(r"\btypedef\b[^;{}]*?\b(?P<name>[A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*;|"
                    r"\busing\s+(?P<uname>[A-Za-z_]\w*)\s*=")
_DIRECTIVE = re.compile(r"(?m)^[ \t]*#.*$")
_DEFINE = re.compile(r"(?m)^[ \t]*#[ \t]*define[ \t]+(?P<name>[A-Za-z_]\w*)")
_VARIABLE = re.compile(
    r"(?P<type>\b[A-Za-z_][\w:]*(?:\s*<[^;{}()]*?>)?)(?P<ptr>[\s\*&]+)(?:__restrict__\s+)?"
    r"(?P<name>[A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*(?=[=;,)]|\{)")


def _line_of(code, offset):
    start = code.rfind("\n", 0, offset) + 1
    end = code.find("\n", offset)
    return code[start:len(code) if end == -1 else end].strip()


def _matching_brace(masked, open_at):
    depth = 0
    for i in range(open_at, len(masked)):
        if masked[i] == "{":
            depth += 1
        elif masked[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return len(masked)


_QUALIFIER_TAIL = re.compile(r"(?:\b(?:%s)\s*)+$" % "|".join(sorted(_QUALIFIERS)))


def _starts_statement(masked, offset):
    """Whether a declaration may begin at offset: after ; { } ( , : > (a template's) or the
    start, qualifiers aside. Keeps `y = a * x;` from reading as a declaration of x."""
    before = masked[max(0, offset - 200):offset].rstrip()
    before = _QUALIFIER_TAIL.sub("", before).rstrip()
    return not before or before[-1] in ";{}(,:>"


def _variables(code, masked, start, end, owner=""):
    """(offset, Declaration) of each `Type name` between start and end."""
    found = []
    for m in _VARIABLE.finditer(masked, start, end):
        type_name = m["type"].split("<")[0].split("::")[-1]
        if type_name in _NOT_TYPES or m["name"] in _QUALIFIERS or m["name"] in _NOT_TYPES:
            continue
        if type_name in _QUALIFIERS and type_name not in ("unsigned", "signed"):
            continue  # `const x`: the type was taken for the name's qualifier
        if not _starts_statement(masked, m.start()):
            continue
        found.append((m.start("name"), Declaration(m["name"], "property" if owner else "variable",
                                                   _line_of(code, m.start("name")), type_name, owner)))
    return found


# Attributes whose parenthesis would read as a function's: blanked before scanning.
_ATTRIBUTE = re.compile(r"\b(?:__launch_bounds__|__cluster_dims__|__align__)\s*\([^;{}()]*\)")


def declarations(code):
    """What `code` declares, in source order per kind; later duplicates are kept (overloads)."""
    masked, _ = mask(code)
    masked = _ATTRIBUTE.sub(lambda m: " " * len(m[0]), masked)
    # Directives are no declarations (#define is read from the code below): blanked, so that
    # `#define N 4` does not run into the kernel on the next line.
    masked = _DIRECTIVE.sub(lambda m: " " * len(m[0]), masked)
    found = []
    for m in _FUNCTION.finditer(masked):
        head = m["head"].split()
        if m["name"] in _NOT_TYPES or not head or head[-1].strip("*&") in _NOT_TYPES or "=" in m["head"]:
            continue
        if any(word in _NOT_TYPES - {"template", "typename", "class", "struct"} for word in head):
            continue
        text = code[m.start("head"):m.end()].strip().rstrip("{").strip()
        found.append(Declaration(m["name"], "function", text, is_kernel="__global__" in m["head"]))
    records = []
    for m in _RECORD.finditer(masked):
        close = _matching_brace(masked, m.end() - 1)
        found.append(Declaration(m["name"], "class", _line_of(code, m.start())))
        records.append((m.end(), close))
        if m["key"].startswith("enum"):
            for e in re.finditer(r"(?:^|,)\s*([A-Za-z_]\w*)", masked[m.end():close]):
                found.append(Declaration(e[1], "constant", f"{m['key']} {m['name']}: {e[1]}"))
        else:
            found.extend(d for _, d in _variables(code, masked, m.end(), close, owner=m["name"]))
    for m in _ALIAS.finditer(masked):
        found.append(Declaration(m["name"] or m["uname"], "class", _line_of(code, m.start())))
    for m in _DEFINE.finditer(code):
        found.append(Declaration(m["name"], "constant", _line_of(code, m.start())))
    # Variables: everywhere but inside struct bodies (those are members, found above).
    for offset, v in _variables(code, masked, 0, len(masked)):
        if not any(a <= offset < b for a, b in records):
            found.append(v)
    return found
