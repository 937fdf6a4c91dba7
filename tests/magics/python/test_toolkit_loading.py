"""What `import xcuda` finds reaches the C++ loader: an NVRTC in a pip-style site-packages is the one
that compiles, with the headers of its own place; of several, a GPU's driver gets one whose CUDA it
supports; code too new for the driver is refused saying both versions and the wheel to install;
%cuda_info says where each piece came from and never raises. Each case runs in a child process, as
the loader chooses once per process. The stand-in NVRTCs for CUDA 12 and 13 and the simulated
driver come from ctest ($XCUDA_FAKE_NVRTC_12, $XCUDA_FAKE_NVRTC_13, $XCUDA_TEST_SIM_DRIVER)."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

import xcuda

FAKE_NVRTC = {12: os.environ.get("XCUDA_FAKE_NVRTC_12", ""), 13: os.environ.get("XCUDA_FAKE_NVRTC_13", "")}
SIM_DRIVER = os.environ.get("XCUDA_TEST_SIM_DRIVER", "")
needs_stand_ins = pytest.mark.skipif(
    not (FAKE_NVRTC[12] and FAKE_NVRTC[13] and SIM_DRIVER),
    reason="needs the stand-in NVRTCs and the simulated driver that ctest's magics.python names")
CUDA_INFO = '''
    from IPython.testing.globalipapp import start_ipython
    ip = start_ipython()
    ip.run_line_magic("load_ext", "xcuda")
    ip.run_line_magic("cuda_info", "")
'''


def run_child(code, site=None, **env):
    """Runs `code` in a fresh Python with `site` first on sys.path and no CUDA_HOME; its stdout."""
    environ = dict(os.environ, CUDA_HOME="", CUDA_PATH="", CONDA_PREFIX="", **env)
    if site is not None:
        environ["PYTHONPATH"] = os.pathsep.join([str(site), environ.get("PYTHONPATH", "")])
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=180,
                       env=environ)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def in_use(site=None, **env):
    out = run_child("import json, xcuda\nprint(json.dumps(xcuda._core._toolkit_in_use()))", site, **env)
    return json.loads(out.splitlines()[-1])


def link(target, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)


def this_toolkit():
    """This process's NVRTC and headers (the machine's toolkit), to dress a pip-style tree with."""
    found = xcuda._core._toolkit_in_use()
    if not (found["include_dir"] and found["cccl_dir"]):
        pytest.skip(f"needs a toolkit with the runtime's headers and CCCL; found {found}")
    return found


@pytest.fixture
def pip_tree(tmp_path):
    """site-packages as `pip install "xcuda[cuda13]"` (or cuda12) leaves it, its files links to the
    machine's toolkit: NVIDIA's layout for this NVRTC's CUDA major."""
    found = this_toolkit()
    major = found["version"][0]
    site = tmp_path / "site-packages"
    layout = {13: ("cu13/lib", "cu13/include", "cu13/include/cccl"),
              12: ("cuda_nvrtc/lib", "cuda_runtime/include", "cuda_cccl/include")}.get(major)
    if layout is None:
        pytest.skip(f"NVRTC {major}: the wheels of CUDA 12 and 13 only are known")
    lib, include, cccl = (site / "nvidia" / part for part in layout)
    lib.mkdir(parents=True)
    for name in os.listdir(os.path.dirname(found["nvrtc"])):
        if name.startswith("libnvrtc"):  # NVRTC and its builtins, which it opens from its own folder
            link(os.path.join(os.path.dirname(found["nvrtc"]), name), lib / name)
    # The runtime's headers, without the toolkit's CCCL: the tree's own comes from its own folder.
    include.mkdir(parents=True)
    for name in os.listdir(found["include_dir"]):
        if name != "cccl" and not os.path.isfile(os.path.join(found["include_dir"], name, "std", "version")):
            link(os.path.join(found["include_dir"], name), include / name)
    if not cccl.exists():
        link(found["cccl_dir"], cccl)
    return site, major


def test_an_nvrtc_in_a_pip_tree_compiles_with_the_headers_of_its_own_place(pip_tree):
    site, major = pip_tree
    out = run_child('''
        import json, xcuda
        m = xcuda.compile("#include <cuda/std/cmath>\\n#include <cuda_fp16.h>\\n"
                          'extern "C" __global__ void k(float* y) { y[0] = cuda::std::sqrt(y[0]); }', arch="sm_90")
        print(sorted(m.kernels))
        print(json.dumps(xcuda._core._toolkit_in_use()))
    ''', site)
    assert "['k']" in out
    found = json.loads(out.splitlines()[-1])
    origin = f"pip: NVIDIA's CUDA {major} wheels in {site}"
    assert found["origin"] == found["include_origin"] == found["cccl_origin"] == origin, found
    assert found["nvrtc"].startswith(str(site / "nvidia")), found


def test_cuda_info_names_each_piece_and_where_it_came_from(pip_tree):
    site, major = pip_tree
    out = run_child(CUDA_INFO, site, XCUDA_NVJITLINK="/nonexistent/libnvJitLink.so",
                    XCUDA_CUPTI="/nonexistent/libcupti.so")
    origin = f"(from pip: NVIDIA's CUDA {major} wheels in {site})"
    lines = {line.split(":", 1)[0]: line for line in out.splitlines() if ": " in line}
    assert lines["NVRTC"].startswith(f"NVRTC: {major}.") and origin in lines["NVRTC"], out
    assert origin in lines["Headers"] and origin in lines["CCCL"], out
    suffix = "" if major >= 13 else f"-cu{major}"
    assert lines["nvJitLink"].startswith(f"nvJitLink: not found: pip install nvidia-nvjitlink{suffix}"), out
    assert lines["CUPTI"].startswith(f"CUPTI: not found: pip install nvidia-cuda-cupti{suffix}"), out
    assert lines["compute-sanitizer"].startswith(
        ("compute-sanitizer: /", f"compute-sanitizer: not found: pip install nvidia-cuda-sanitizer-api{suffix} ")), out
    assert lines["Python"] == f"Python: {sys.executable} (pip installs go here: %pip install in a notebook cell)", out


def test_cuda_info_without_nvrtc_says_what_to_install_and_does_not_raise():
    out = run_child(CUDA_INFO + '''
    print("still here")
    ''', XCUDA_NVRTC="/nonexistent/libnvrtc.so.13")
    nvrtc = next(line for line in out.splitlines() if line.startswith("NVRTC:"))
    assert nvrtc.startswith("NVRTC: not found: tried /nonexistent/libnvrtc.so.13 ("), nvrtc
    assert 'pip install "xcuda[cuda13]"' in nvrtc and "XCUDA_NVRTC" in nvrtc, nvrtc
    assert "lib64" not in nvrtc
    assert "Headers:" not in out  # not looked for without an NVRTC
    assert "still here" in out


@needs_stand_ins
def test_a_cuda12_driver_gets_the_cuda12_nvrtc_where_both_wheels_are_installed(tmp_path):
    site = tmp_path / "site-packages"
    link(FAKE_NVRTC[13], site / "nvidia" / "cu13" / "lib" / "libnvrtc.so.13")
    link(FAKE_NVRTC[12], site / "nvidia" / "cuda_nvrtc" / "lib" / "libnvrtc.so.12")
    found = in_use(site, XCUDA_CUDA_DRIVER=SIM_DRIVER, XCUDA_SIM_DRIVER_VERSION="12040")
    assert found["version"] == [12, 4] and found["origin"] == f"pip: NVIDIA's CUDA 12 wheels in {site}", found
    assert "NVRTC 13.0 makes code for CUDA 13, and the GPU's driver supports CUDA 12.4" in found["skipped"], found
    assert found["driver_mismatch"] == ""
    # A driver for CUDA 13 takes the first, CUDA 13's; with no GPU the CPU device runs either.
    assert in_use(site, XCUDA_CUDA_DRIVER=SIM_DRIVER)["version"] == [13, 0]
    assert in_use(site, XCUDA_CUDA_DRIVER="/nonexistent/libcuda.so.1")["version"] == [13, 0]


@needs_stand_ins
def test_code_newer_than_the_driver_is_refused_naming_both_versions_and_the_wheel():
    # This machine's NVRTC (13) under a simulated CUDA 12.4 driver, the only NVRTC there is: PTX
    # ISA 9.x, which a CUDA 12 driver refuses, as Colab's does.
    out = run_child('''
        import json, xcuda
        m = xcuda.compile('extern "C" __global__ void k(int* p) { p[0] = 1; }', arch="compute_90")
        try:
            m.kernels["k"].attributes  # loads the module on the device
        except xcuda.CudaError as e:
            print("refused:", e)
        print(json.dumps(xcuda._core._toolkit_in_use()))
    ''', XCUDA_CUDA_DRIVER=SIM_DRIVER, XCUDA_SIM_DRIVER_VERSION="12040")
    found = json.loads(out.splitlines()[-1])
    if found["version"][0] < 13:
        pytest.skip(f"this machine's NVRTC is {found['version']}: a CUDA 12.4 driver loads its code")
    assert found["driver_mismatch"].endswith("the GPU's driver supports CUDA 12.4"), found
    refused = next(line for line in out.splitlines() if line.startswith("refused:"))
    assert "CUDA_ERROR_UNSUPPORTED_PTX_VERSION" in refused, refused
    assert "and the GPU's driver supports CUDA 12.4" in refused, refused
    assert 'pip install "xcuda[cuda12]"' in refused, refused
