"""Where NVRTC, the headers its programs include, nvJitLink and CUPTI are: the places a Python user
has them, best first.

1. ``$CUDA_HOME`` (then ``$CUDA_PATH``): a toolkit the user named. (``$XCUDA_NVRTC``, one library
   named by hand, comes before everything: the C++ loader reads it.)
2. NVIDIA's wheels in this Python's ``sys.path``: CUDA 13's (``nvidia-cuda-nvrtc``,
   ``nvidia-cuda-runtime``, ``nvidia-cuda-cccl``, ... all under ``nvidia/cu13/``) and CUDA 12's
   (``nvidia-cuda-nvrtc-cu12``, ... each under ``nvidia/<piece>/``): the layouts cuda-pathfinder
   searches too.
3. conda: ``$CONDA_PREFIX``.
4. A system toolkit: ``/usr/local/cuda``, then ``/usr/local/cuda-X.Y`` (newest first), ``/opt/cuda``.

Nothing is loaded here (an idle kernel maps no NVRTC): the list goes to the C++ loader, which
opens, on the first compile, the first NVRTC that a GPU's driver can use, with the headers,
nvJitLink and CUPTI of its own place.

cuda-pathfinder's loader is not used for this: it opens the library as it finds it, takes CUDA 13
before 12 whatever the driver supports, and finds each library on its own, where NVRTC, its
headers and nvJitLink must be of one CUDA. `.ci/no-toolkit` checks that both find the same NVRTC
in a venv with NVIDIA's wheels.
"""
import dataclasses
import glob
import os
import re
import sys

# Per CUDA major, where each piece lies under a site-packages directory.
WHEEL_LAYOUTS = {
    13: {"nvrtc": "nvidia/cu13/lib", "include": "nvidia/cu13/include", "cccl": "nvidia/cu13/include/cccl",
         "nvjitlink": "nvidia/cu13/lib", "cupti": "nvidia/cu13/lib"},
    12: {"nvrtc": "nvidia/cuda_nvrtc/lib", "include": "nvidia/cuda_runtime/include",
         "cccl": "nvidia/cuda_cccl/include", "nvjitlink": "nvidia/nvjitlink/lib", "cupti": "nvidia/cuda_cupti/lib"},
}
LIBRARY_STEMS = {"nvrtc": "libnvrtc.so", "nvjitlink": "libnvJitLink.so", "cupti": "libcupti.so"}
# compute-sanitizer from NVIDIA's nvidia-cuda-sanitizer-api wheels (CUDA 13's runs
# nvidia/cu13/compute-sanitizer/ through this script).
SANITIZER_IN_WHEELS = {13: "nvidia/cu13/bin/compute-sanitizer", 12: "nvidia/cuda_sanitizer_api/bin/compute-sanitizer"}
RUNTIME_HEADER = "cuda_fp16.h"
CCCL_HEADER = os.path.join("cuda", "std", "version")
SYSTEM_ROOTS = ("/usr/local/cuda", "/usr/local/cuda-*", "/opt/cuda")


@dataclasses.dataclass(frozen=True)
class Place:
    """One place that holds some of a toolkit's pieces; a path is "" where the place lacks it."""
    origin: str
    cuda_major: int
    nvrtc: str = ""
    include_dir: str = ""
    cccl_dir: str = ""
    nvjitlink: str = ""
    cupti: str = ""

    def has_any(self):
        return any((self.nvrtc, self.include_dir, self.cccl_dir, self.nvjitlink, self.cupti))


def _library(directory, piece, major=None):
    """The path of libX.so.<major> in `directory` ("" when absent). Without a major, the highest
    major there (a toolkit root may hold any)."""
    stem = LIBRARY_STEMS[piece]
    if major is not None:
        path = os.path.join(directory, f"{stem}.{major}")
        return path if os.path.isfile(path) else ""
    best, best_major = "", -1
    for path in glob.glob(os.path.join(glob.escape(directory), stem + ".*")):
        found = re.fullmatch(re.escape(stem) + r"\.(\d+)", os.path.basename(path))
        if found and os.path.isfile(path) and int(found.group(1)) > best_major:
            best, best_major = path, int(found.group(1))
    return best


def _major_of(library_path):
    found = re.search(r"\.so\.(\d+)$", library_path)
    return int(found.group(1)) if found else 0


def _header_major(include_dir):
    """CUDA_VERSION's major from cuda.h, for a place with headers and no NVRTC (0 if unknown)."""
    try:
        with open(os.path.join(include_dir, "cuda.h"), encoding="latin-1") as header:
            found = re.search(r"#define\s+CUDA_VERSION\s+(\d+)", header.read())
    except OSError:
        return 0
    return int(found.group(1)) // 1000 if found else 0


def _first_dir(candidates, marker):
    return next((d for d in candidates if os.path.isfile(os.path.join(d, marker))), "")


def _toolkit_root(root, origin):
    """A toolkit's (or conda prefix's) pieces: lib64/, lib/ or targets/<triple>/lib/, and
    include/ or targets/<triple>/include/ (CCCL in include/cccl for CUDA 13, include/ for 12)."""
    targets = sorted(glob.glob(os.path.join(glob.escape(root), "targets", "*")))
    lib_dirs = [os.path.join(root, "lib64"), os.path.join(root, "lib")] + [os.path.join(t, "lib") for t in targets]
    include_dirs = [os.path.join(root, "include")] + [os.path.join(t, "include") for t in targets]
    nvrtc = next(filter(None, (_library(d, "nvrtc") for d in lib_dirs)), "")
    include_dir = _first_dir(include_dirs, RUNTIME_HEADER)
    major = _major_of(nvrtc) or _header_major(include_dir)
    cccl_dir = _first_dir([os.path.join(d, "cccl") for d in include_dirs] + include_dirs, CCCL_HEADER)
    if major:
        nvjitlink = next(filter(None, (_library(d, "nvjitlink", major) for d in lib_dirs)), "")
        cupti_dirs = lib_dirs + [os.path.join(root, "extras", "CUPTI", "lib64")]
        cupti = next(filter(None, (_library(d, "cupti", major) for d in cupti_dirs)), "")
    else:
        nvjitlink = cupti = ""
    return Place(origin, major, nvrtc, include_dir, cccl_dir, nvjitlink, cupti)


def _wheels(site_dir, major):
    layout = WHEEL_LAYOUTS[major]
    at = {piece: os.path.join(site_dir, *relative.split("/")) for piece, relative in layout.items()}
    return Place(
        origin=f"pip: NVIDIA's CUDA {major} wheels in {site_dir}",
        cuda_major=major,
        nvrtc=_library(at["nvrtc"], "nvrtc", major),
        include_dir=at["include"] if os.path.isfile(os.path.join(at["include"], RUNTIME_HEADER)) else "",
        cccl_dir=at["cccl"] if os.path.isfile(os.path.join(at["cccl"], CCCL_HEADER)) else "",
        nvjitlink=_library(at["nvjitlink"], "nvjitlink", major),
        cupti=_library(at["cupti"], "cupti", major),
    )


def _version_key(path):
    return [int(n) for n in re.findall(r"\d+", os.path.basename(path))]


def _system_roots(patterns):
    roots = []
    for pattern in patterns:
        matches = sorted(glob.glob(pattern), key=_version_key, reverse=True) if "*" in pattern else [pattern]
        roots += [m for m in matches if os.path.isdir(m)]
    return roots


def find_places(environ=None, search_path=None, system_roots=SYSTEM_ROOTS):
    """The places that hold any piece, best first (the module's docstring says the order).
    `environ`, `search_path` (sys.path) and `system_roots` (glob patterns) are for tests."""
    environ = os.environ if environ is None else environ
    search_path = sys.path if search_path is None else search_path
    candidates = []
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if environ.get(var):
            candidates.append(_toolkit_root(environ[var], f"{var}={environ[var]}"))
    for entry in search_path:
        if not isinstance(entry, str):
            continue
        site_dir = os.path.abspath(entry or os.curdir)
        if os.path.isdir(os.path.join(site_dir, "nvidia")):
            candidates += [_wheels(site_dir, major) for major in sorted(WHEEL_LAYOUTS, reverse=True)]
    if environ.get("CONDA_PREFIX"):
        candidates.append(_toolkit_root(environ["CONDA_PREFIX"], f"conda: CONDA_PREFIX={environ['CONDA_PREFIX']}"))
    candidates += [_toolkit_root(root, f"system toolkit: {root}") for root in _system_roots(system_roots)]
    places, seen = [], set()
    for place in candidates:
        key = tuple(os.path.realpath(p) if p else "" for p in dataclasses.astuple(place)[2:])
        if place.has_any() and key not in seen:
            seen.add(key)
            places.append(place)
    return places


def find_compute_sanitizer(environ=None, search_path=None, system_roots=SYSTEM_ROOTS):
    """(path, origin) of compute-sanitizer, searched as find_places searches (a toolkit's bin/,
    NVIDIA's nvidia-cuda-sanitizer-api wheels, conda's bin/), or None."""
    environ = os.environ if environ is None else environ
    search_path = sys.path if search_path is None else search_path
    candidates = [(os.path.join(environ[var], "bin"), f"{var}={environ[var]}")
                  for var in ("CUDA_HOME", "CUDA_PATH") if environ.get(var)]
    for entry in search_path:
        if isinstance(entry, str) and os.path.isdir(os.path.join(os.path.abspath(entry or os.curdir), "nvidia")):
            site_dir = os.path.abspath(entry or os.curdir)
            candidates += [(os.path.dirname(os.path.join(site_dir, *SANITIZER_IN_WHEELS[major].split("/"))),
                            f"pip: NVIDIA's CUDA {major} wheels in {site_dir}")
                           for major in sorted(SANITIZER_IN_WHEELS, reverse=True)]
    if environ.get("CONDA_PREFIX"):
        candidates.append((os.path.join(environ["CONDA_PREFIX"], "bin"), f"conda: CONDA_PREFIX={environ['CONDA_PREFIX']}"))
    candidates += [(os.path.join(root, "bin"), f"system toolkit: {root}") for root in _system_roots(system_roots)]
    for directory, origin in candidates:
        tool = os.path.join(directory, "compute-sanitizer")
        if os.path.isfile(tool) and os.access(tool, os.X_OK):
            return tool, origin
    return None


def tell_the_loader(places=None):
    """Gives the places to the C++ loader (xcuda._core), for the NVRTC it has not loaded yet."""
    from xcuda import _core

    _core._set_toolkit_places([dataclasses.astuple(p) for p in (find_places() if places is None else places)])
