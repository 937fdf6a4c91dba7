"""What a %%cuda cell's completion knows beyond the cell: the magic's options (read from the
magic's own help, which the C++ option table writes), the headers earlier %%cuda_header cells
registered, the CUDA toolkit's include directories, and the architectures NVRTC compiles for.
"""

import ctypes
import functools
import glob
import os
import re
from typing import NamedTuple


class Option(NamedTuple):
    spellings: tuple  # ("-n", "--name")
    metavar: str  # "NAME", "sm_XX", "" for a flag
    help: str
    values: tuple  # a fixed set of values, () when free


# "  -n, --name NAME   help" / "  --fast-compile[=LEVEL]  help" / "  -I DIR  help", as
# compile::format_help writes each row of the option table.
_HELP_ROW = re.compile(r"^  (?P<names>-[\w-]*(?:, --[\w-]+)?)(?:\[=(?P<opt>\S+)\]| (?P<meta>\S+))?\s{2,}(?P<help>.*)$")


def _values_in_help(help_text):
    """The fixed values a help line enumerates after its last colon ("C++ standard: c++11,
    c++14, c++17 (default), c++20"); () when what follows is prose, not single words."""
    if ":" not in help_text:
        return ()
    tail = help_text.rsplit(":", 1)[1].replace("(default)", "")
    words = [w.strip() for w in re.split(r",| or ", tail) if w.strip()]
    if len(words) < 2 or any(not re.fullmatch(r"[\w+.-]+", w) for w in words):
        return ()
    return tuple(words)


def magic_options(shell, magic):
    """The options of cell magic `magic` (cuda, cuda_header) as its -h lists them."""
    function = shell.magics_manager.magics["cell"].get(magic)
    doc = getattr(function, "__doc__", None) or ""
    return _parse_options(doc)


@functools.lru_cache(maxsize=8)
def _parse_options(doc):
    options = []
    in_options = False
    for line in doc.splitlines():
        if line.startswith("Options:"):
            in_options = True
            continue
        m = _HELP_ROW.match(line) if in_options else None
        if m is None or m["names"] == "--":
            continue
        metavar = m["opt"] or m["meta"] or ""
        values = supported_archs() if metavar == "sm_XX" else _values_in_help(m["help"]) if metavar else ()
        options.append(Option(tuple(m["names"].split(", ")), metavar, m["help"], values))
    return tuple(options)


def _nvrtc_library():
    """The libnvrtc this process loaded for %%cuda (no second copy), else the toolkit's."""
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                if "libnvrtc.so" in line:
                    return line.split(None, 5)[-1].strip()
    except OSError:  # not Linux: look in the toolkit
        pass
    for root in toolkit_roots():
        for found in sorted(glob.glob(os.path.join(root, "lib*", "libnvrtc.so*"))):
            return found
    return None


@functools.lru_cache(maxsize=1)
def supported_archs():
    """The sm_XX NVRTC compiles for (nvrtcGetSupportedArchs); () when no NVRTC is found."""
    path = _nvrtc_library()
    if path is None:
        return ()
    try:
        nvrtc = ctypes.CDLL(path)
        count = ctypes.c_int()
        if nvrtc.nvrtcGetNumSupportedArchs(ctypes.byref(count)) != 0:
            return ()
        archs = (ctypes.c_int * count.value)()
        if nvrtc.nvrtcGetSupportedArchs(archs) != 0:
            return ()
    except (OSError, AttributeError):  # an NVRTC too old for the query: no value list
        return ()
    return tuple(f"sm_{a}" for a in archs)


@functools.lru_cache(maxsize=1)
def toolkit_roots():
    """The CUDA toolkit's directories: $CUDA_HOME, $CUDA_PATH, then /usr/local/cuda*."""
    roots = [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH")]
    roots += ["/usr/local/cuda"] + sorted(glob.glob("/usr/local/cuda-*"), reverse=True)
    seen = []
    for root in roots:
        if root and os.path.isdir(os.path.join(root, "include")) and os.path.realpath(root) not in seen:
            seen.append(os.path.realpath(root))
    return tuple(seen)


@functools.lru_cache(maxsize=1)
def include_dirs():
    """Where #include <...> looks: the toolkit's include dir and CCCL's (include/cccl in
    CUDA 13, where cuda/, cub/, thrust/ live; the include dir itself before it)."""
    dirs = []
    for root in toolkit_roots()[:1]:
        include = os.path.join(root, "include")
        dirs += [d for d in (include, os.path.join(include, "cccl")) if os.path.isdir(d)]
    return tuple(dirs)


@functools.lru_cache(maxsize=256)
def _listing(directory):
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError:
        return ()
    return tuple(e.name + "/" if e.is_dir() else e.name for e in entries if not e.name.startswith("."))


def include_entries(subdir):
    """Headers and folders under subdir ("" or "cub/") of the include dirs, folders with "/"."""
    names = []
    for directory in include_dirs():
        names += [n for n in _listing(os.path.join(directory, subdir)) if n not in names]
    return names


_HEADER_CELL = re.compile(r"\A%%cuda_header[ \t]+(?P<name>\S+)[^\n]*\n?")


def registered_headers(shell):
    """{name: source} of the %%cuda_header cells run so far, the last of each name winning.
    The registry itself lives in C++ with no Python view, so this reads the cells from the
    input history (raw, as typed), which is what registered them."""
    history = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None)
    if history is None:
        history = shell.user_ns.get("In", [])
    headers = {}
    for cell in history:
        m = _HEADER_CELL.match(cell) if cell.startswith("%%cuda_header") else None
        if m is not None and not m["name"].startswith("-"):  # -h registers nothing
            headers[m["name"]] = cell[m.end():]
    return headers
