"""Cuts the device code out of a CUDA sample's .cu/.cuh files, so NVRTC can compile it alone.

cuda-samples mix kernels with host code (main, cudaMalloc, helper_cuda.h, <fstream>...) that NVRTC
cannot compile. Rather than copy kernels by hand (their source must never enter our repository) the
driver slices the sample's own files at run time:

- the text is split into top-level items with a small scanner that knows comments, strings,
  character literals, preprocessor lines and brace/parenthesis nesting (no C++ parser: the items
  are "a declaration up to its `;`", "a definition up to its closing `}`", "a directive line");
- `namespace X { ... }` and `extern "C" { ... }` blocks are sliced recursively;
- an item is kept when it is device code or something device code may need: it names
  `__global__`/`__device__`/`__constant__`/`__shared__`/`__managed__`, or it is a type
  (struct/class/union/enum, typedef, using, namespace alias), a compile-time constant
  (`const`/`constexpr` with an initialiser) or a static_assert; every other item (host functions
  and prototypes, host globals, explicit host instantiations) is dropped;
- every preprocessor directive is kept (so `#if`/`#endif` stay balanced and macros stay
  defined), except includes: a quoted include found next to the including file (or in an include
  directory) is inlined, sliced the same way; any other include is kept when it compiles on its
  own for the device (the caller's `include_ok` probe), else dropped (helper_cuda.h, <fstream>...);
- every file starts with a `#line 1 "<its path>"` and a dropped item becomes as many blank lines
  as it had, so compile errors, line info and the CPU device's findings name the sample's own
  file and line;
- when NVRTC still rejects the result, `repair()` drops the kept types/constants its errors
  point into (a `typedef struct { pthread_t ... }`, `using namespace std::chrono;`) and the
  caller compiles again.

This is a heuristic: it relies on device code being marked as such (CUDA requires it for functions
called from kernels, except constexpr functions, which are kept) and on host code not being needed
by it. A case that needs more (a macro from a dropped header) passes a prelude.
"""
from __future__ import annotations

import os
import re
from typing import Callable, Iterable, List, Optional, Tuple

DEVICE_WORDS = re.compile(r"\b(__global__|__device__|__constant__|__shared__|__managed__)\b")
TYPE_START = re.compile(r"^(?:(?:typedef|using|struct|class|union|enum|static_assert)\b|namespace\s+\w+\s*=)")
# a member function definition inside a class body: `...) {` or `...) const {`
MEMBER_FUNCTION = re.compile(r"\)\s*(?:const\s*)?(?:noexcept\s*)?(?::[^;{]*)?\{")
BLOCK_HEAD = re.compile(r'^(?:inline\s+)?namespace(?:\s+[\w:]+)?\s*$|^extern\s*"C(?:\+\+)?"\s*$')
# alignment and attribute specifiers, whose parentheses would make a struct look like a function
ATTRIBUTES = re.compile(r"__align__\s*\(\s*\w+\s*\)|alignas\s*\([^)]*\)|__attribute__\s*\(\(.*?\)\)"
                        r"|__declspec\s*\([^)]*\)")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def _skip_string(text: str, i: int) -> int:
    """Index after the string or character literal that starts at text[i] (a quote)."""
    quote = text[i]
    # C++11 raw strings R"delim( ... )delim"
    if quote == '"' and i > 0 and text[i - 1] == "R":
        m = re.match(r'"([^()\\\s]{0,16})\(', text[i:])
        if m:
            end = text.find(")" + m.group(1) + '"', i + m.end())
            return len(text) if end < 0 else end + len(m.group(1)) + 2
    i += 1
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == quote or c == "\n":
            return i + 1
        i += 1
    return i


def strip_comments(text: str) -> str:
    """The text with comments replaced by a space (strings left alone)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            out.append(" ")
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            out.append(" ")
        elif text[i] in "\"'":
            j = _skip_string(text, i)
            out.append(text[i:j])
            i = j
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _strip_template_params(head: str) -> str:
    """`template <...>` prefixes removed (their defaults may contain `=` or `class`)."""
    while True:
        m = re.match(r"\s*template\s*<", head)
        if not m:
            return head
        depth, i = 1, m.end()
        while i < len(head) and depth:
            if head[i] == "<":
                depth += 1
            elif head[i] == ">":
                depth -= 1
            i += 1
        head = head[i:]


def _needs_semicolon(head: str) -> bool:
    """Whether a top-level `{...}` with this head is followed by declarators up to a `;`
    (a type definition or a braced initialiser) rather than ending at its `}` (a function,
    a namespace, an extern "C" block)."""
    h = _strip_template_params(strip_comments(head)).strip()
    h = ATTRIBUTES.sub(" ", h)
    if BLOCK_HEAD.match(h):
        return False
    if re.match(r"typedef\b", h):
        return True
    if "=" in h.replace("==", "").replace("<=", "").replace(">=", "").replace("!=", ""):
        return "(" not in h.split("=")[0]
    if re.search(r"\b(struct|class|union|enum)\b", h) and "(" not in h:
        return True
    return False


def split_items(text: str) -> List[Tuple[str, str]]:
    """Top-level items: ('pp', directive), ('code', declaration or definition), ('ws', blank).
    Concatenating the texts gives `text` back."""
    items: List[Tuple[str, str]] = []
    i, n, start = 0, len(text), 0
    depth = paren = 0
    line_start = True
    wait_semicolon = False
    while i < n:
        c = text[i]
        if c == "\n":
            line_start = True
            i += 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if c == "#" and line_start:
            j = i
            while True:
                k = text.find("\n", j)
                if k < 0:
                    k = n
                    break
                if text[k - 1] == "\\" or text[k - 2:k] == "\\\r":
                    j = k + 1
                    continue
                break
            if depth == 0 and paren == 0 and not wait_semicolon and not strip_comments(text[start:i]).strip():
                if i > start:
                    items.append(("ws", text[start:i]))
                items.append(("pp", text[i:k]))
                start = k
            i = k
            continue
        line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if c in "\"'":
            i = _skip_string(text, i)
            continue
        if c in "([":
            paren += 1
        elif c in ")]":
            paren = max(0, paren - 1)
        elif c == "{":
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
            if depth == 0 and paren == 0 and not wait_semicolon:
                item = text[start:i + 1]
                if _needs_semicolon(item[:_first_brace(item)]):
                    wait_semicolon = True
                else:
                    items.append(("code", item))
                    start = i + 1
        elif c == ";" and depth == 0 and paren == 0:
            items.append(("code", text[start:i + 1]))
            start = i + 1
            wait_semicolon = False
        i += 1
    if start < n:
        items.append(("ws" if not strip_comments(text[start:]).strip() else "code", text[start:]))
    return items


def _first_brace(item: str) -> int:
    """Index of the first `{` outside comments and strings (len(item) if none)."""
    i, n = 0, len(item)
    while i < n:
        if item.startswith("//", i):
            j = item.find("\n", i)
            i = n if j < 0 else j
        elif item.startswith("/*", i):
            j = item.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif item[i] in "\"'":
            i = _skip_string(item, i)
        elif item[i] == "{":
            return i
        else:
            i += 1
    return n


def _blank(text: str) -> str:
    return "\n" * text.count("\n")


DEVICE, OPTIONAL, DROP = "device", "optional", "drop"


def classify(code: str) -> str:
    """DEVICE: device code (kept); OPTIONAL: a type, alias or constant that device code may need
    (kept, but dropped again if NVRTC rejects it); DROP: host code."""
    s = strip_comments(code).strip()
    if not s or s == ";":
        return DEVICE
    if DEVICE_WORDS.search(s):
        return DEVICE
    body_at = _first_brace(s)
    head = ATTRIBUTES.sub(" ", _strip_template_params(s[:body_at])).strip()
    head_no_extern = re.sub(r'^extern\s*"C(\+\+)?"\s*', "", head)
    if TYPE_START.match(head_no_extern):
        # a type is kept unless it has member functions, none of them device code (a host
        # helper class: NVRTC refuses host functions)
        return DROP if MEMBER_FUNCTION.search(s[body_at:]) else OPTIONAL
    if re.search(r"\bconstexpr\b", head):
        return OPTIONAL  # constexpr functions and variables are usable in device code
    if body_at == len(s) and "=" in head:
        # a constant with an initialiser (`const int N = 4;`, not `const char *name = "x";`,
        # whose pointer is a host variable), unless it calls a function to get its value
        declarator, init = head.split("=", 1)
        if re.search(r"\bconst\b", declarator) and "*" not in declarator \
                and not re.search(r"[A-Za-z_]\w*\s*\(", init.replace("sizeof", "")):
            return OPTIONAL
    return DROP


ERROR_AT = re.compile(r"^(?P<file>[^\s:]+):(?P<line>\d+):(?:\d+:)?\s*error", re.M)


class Slicer:
    """Slices files and inlines their local includes. `include_ok(name)` says whether a system
    (or unresolved) include compiles for the device; `include_dirs` are searched for quoted
    includes after the including file's directory.

    `slice(paths)` gives the device code; when NVRTC rejects it, `repair(compile_log)` drops the
    OPTIONAL items (types, aliases, constants kept in case device code needs them) that its errors
    point into, and returns whether there was any (then slice again and retry). That is how
    `typedef struct { pthread_t ... }` or `using namespace std::chrono;` go away."""

    def __init__(self, include_ok: Callable[[str], bool], include_dirs: Iterable[str] = ()):
        self.include_ok = include_ok
        self.include_dirs = list(include_dirs)
        self.dropped: List[str] = []    # what was dropped, for the report: "file: item head"
        self.rejected: set = set()      # (file basename, first line) of OPTIONAL items NVRTC refused
        self._optional: List[Tuple[str, int, int]] = []
        self._inlined: set = set()

    def slice(self, paths: Iterable[str]) -> str:
        self._inlined = set()
        self._optional = []
        self.dropped = []
        return "\n".join(self._slice_file(p) for p in paths)

    def repair(self, compile_log: str) -> bool:
        added = False
        for m in ERROR_AT.finditer(compile_log):
            name, line = os.path.basename(m.group("file")), int(m.group("line"))
            for (f, first, last) in self._optional:
                if f == name and first <= line <= last and (f, first) not in self.rejected:
                    self.rejected.add((f, first))
                    added = True
        return added

    def _resolve(self, name: str, from_dir: str) -> Optional[str]:
        for d in [from_dir] + self.include_dirs:
            p = os.path.normpath(os.path.join(d, name))
            if os.path.isfile(p):
                return p
        return None

    def _slice_file(self, path: str) -> str:
        path = os.path.normpath(path)
        self._inlined.add(path)
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        return "#line 1 \"%s\"\n" % path + self._slice_text(text, path, 1)

    def _slice_text(self, text: str, path: str, line: int) -> str:
        """`text` starts at `line` of `path`."""
        out = []
        name = os.path.basename(path)
        for kind, item in split_items(text):
            # the item's first line: past the blank lines and comments that lead it
            lead = len(item) - len(item.lstrip())
            first = line + item[:lead].count("\n")
            last = line + item.rstrip().count("\n")
            if kind == "pp":
                out.append(self._directive(item, path, line))
            elif kind == "ws":
                out.append(item)
            else:
                s = strip_comments(item)
                brace = _first_brace(s)
                head = s[:brace].strip()
                if brace < len(s) and BLOCK_HEAD.match(_strip_template_params(head).strip()) \
                        and s.rstrip().endswith("}"):
                    # namespace / extern "C" block: slice its body, keep the braces
                    b0 = _first_brace(item)
                    b1 = item.rstrip().rfind("}")
                    out.append(item[:b0 + 1]
                               + self._slice_text(item[b0 + 1:b1], path, line + item[:b0 + 1].count("\n"))
                               + item[b1:])
                else:
                    verdict = classify(item)
                    if verdict == OPTIONAL and (name, first) in self.rejected:
                        verdict = DROP
                    if verdict == OPTIONAL:
                        self._optional.append((name, first, last))
                    if verdict == DROP:
                        self.dropped.append("%s:%d: %s" % (name, first, " ".join(head.split())[:80]))
                        out.append(_blank(item))
                    else:
                        out.append(item)
            line += item.count("\n")
        return "".join(out)

    def _directive(self, line_text: str, path: str, line: int) -> str:
        """A directive at `line` of `path`: kept, or an include inlined or dropped."""
        m = INCLUDE.match(line_text)
        if not m:
            return line_text
        bracket, name = m.group(1), m.group(2)
        if bracket == '"':
            found = self._resolve(name, os.path.dirname(path))
            if found:
                if found in self._inlined:
                    return "// (already inlined: %s)" % name
                return self._slice_file(found) + "\n#line %d \"%s\"" % (line + 1, path)
        if self.include_ok(name):
            return line_text
        self.dropped.append("%s:%d: #include %s (does not compile for the device)"
                            % (os.path.basename(path), line, name))
        return "// real_kernels.py: dropped host-only include %s" % name
