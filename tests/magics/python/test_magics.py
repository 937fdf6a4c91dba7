"""The IPython extension: %%cuda and friends in a real InteractiveShell (no GPU needed)."""
import re

import pytest

import xcuda
from conftest import requires_no_device

CELL = '''%%cuda
extern "C" __global__ void saxpy_m(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void cpp_m(int* p) { p[0] = 1; }
'''


def run(ip, cell):
    result = ip.run_cell(cell)
    return result


def test_cuda_cell_binds_kernels_into_user_ns(ip):
    r = run(ip, CELL)
    assert r.success, r.error_in_exec
    assert isinstance(ip.user_ns["saxpy_m"], xcuda.Kernel)
    assert ip.user_ns["cpp_m"].signature == "void cpp_m(int* p)"


def test_a_compiled_cell_says_what_it_bound_how_it_came_and_q_silences_it(ip, capsys):
    body = 'extern "C" __global__ void said_a(float* p) { p[0] = 1; }\n' \
           'extern "C" __global__ void said_b(float* p) { p[0] = 2; }\n'
    assert run(ip, "%%cuda --no-cache\n" + body).success
    first = capsys.readouterr().out.strip()
    assert re.fullmatch(r"Compiled for sm_\d+ in \d+ (ms|\.\d s): said_a, said_b", first), first
    assert run(ip, "%%cuda\n" + body).success and run(ip, "%%cuda\n" + body).success
    again = capsys.readouterr().out.strip().splitlines()[-1]
    assert re.fullmatch(r"From the (compile|disk) cache \(sm_\d+, \d+ ms\): said_a, said_b", again), again
    assert run(ip, "%%cuda -q\n" + body).success and capsys.readouterr().out == ""
    assert run(ip, "%%cuda -n said_mod --fast-compile\n" + body).success
    fast = capsys.readouterr().out
    assert "; module said_mod (--fast-compile=max: built quickly, its kernels may run slower)" in fast, fast


def test_name_option_binds_the_module(ip):
    r = run(ip, "%%cuda -n mod_m\n" + CELL.split("\n", 1)[1])
    assert r.success, r.error_in_exec
    assert isinstance(ip.user_ns["mod_m"], xcuda.Module)
    assert "saxpy_m" in ip.user_ns["mod_m"].kernels


def test_a_named_cells_variables_are_reached_through_its_module(ip):
    r = run(ip, "%%cuda -n vars_m --instantiate 'lut_m<int>'\n"
                "__constant__ float coeffs_m[4];\n"
                "namespace ns_m { __device__ int total; }\n"
                "template <typename T> __device__ T lut_m[2];\n"
                "extern \"C\" __global__ void use_m(float* y) { y[0] = coeffs_m[0] + ns_m::total + lut_m<int>[0]; }\n")
    assert r.success, r.error_in_exec
    assert list(ip.user_ns["vars_m"].globals) == ["coeffs_m", "ns_m::total", "lut_m<int>"]
    assert isinstance(ip.user_ns["use_m"], xcuda.Kernel)


def test_template_instantiation_is_indexable(ip):
    r = run(ip, "%%cuda --instantiate 'axpy_m<float>' --instantiate 'axpy_m<double>'\n"
                "template <typename T> __global__ void axpy_m(T a, const T* x, T* y, int n) {"
                " int i = threadIdx.x; if (i < n) y[i] += a * x[i]; }\n")
    assert r.success, r.error_in_exec
    axpy = ip.user_ns["axpy_m"]
    assert axpy["float"].signature == "void axpy_m<float>(float a, const float* x, float* y, int n)"
    assert "double" in axpy[" double "].signature


def test_help_lists_the_options(ip, capsys):
    ip.run_line_magic("cuda", "-h")
    out = capsys.readouterr().out
    for option in ("--instantiate", "--ptx", "--resources", "--arch", "--name"):
        assert option in out
    r = run(ip, "%%cuda -h\n// ignored\n")
    assert r.success
    assert "--sass" in capsys.readouterr().out


# Every magic, in each form it is registered in, with the first line of its help.
MAGIC_HELP = [
    ("%%cuda", "Usage: %%cuda [options]"),
    ("%%cuda_header", "Usage: %%cuda_header NAME"),
    ("%%cuda_profile", "Usage: %%cuda_profile"),
    ("%cuda", "Usage: %%cuda [options]"),
    ("%cuda_header", "Usage: %%cuda_header NAME"),
    ("%cuda_profile", "Usage: %%cuda_profile"),
    ("%cuda_info", "Usage: %cuda_info"),
    ("%cuda_device", "Usage: %cuda_device"),
    ("%cuda_timeit", "Usage: %cuda_timeit"),
    ("%cuda_cache", "Usage: %cuda_cache"),
]


@pytest.mark.parametrize("flag", ["-h", "--help"])
@pytest.mark.parametrize("magic, usage", MAGIC_HELP)
def test_every_magic_answers_help_alone_in_its_cell(ip, capsys, magic, usage, flag):
    # a cell magic's body is empty here: IPython alone would refuse it before the magic runs
    r = run(ip, f"{magic} {flag}")
    assert r.success, r.error_in_exec
    out = capsys.readouterr()
    assert out.out.startswith(usage), out.out
    assert "-h, --help" in out.out
    assert "Traceback" not in out.out + out.err and "empty" not in out.err


def test_help_in_a_header_cell_with_a_body_stores_nothing(ip, capsys):
    r = run(ip, '%%cuda_header -h help_only_m.h\n#define HELP_ONLY_M 1\n')
    assert r.success, r.error_in_exec
    assert capsys.readouterr().out.startswith("Usage: %%cuda_header NAME")
    r = run(ip, '%%cuda\n#include "help_only_m.h"\n__global__ void help_only_m() {}\n')
    assert not r.success


def test_a_cuda_cell_without_body_or_help_still_says_the_body_is_empty(ip, capsys):
    r = run(ip, "%%cuda --arch sm_90")
    assert not r.success and "cell body is empty" in str(r.error_in_exec)
    r = run(ip, "%%cuda -- -h")  # after --, -h is NVRTC's
    assert not r.success and "cell body is empty" in str(r.error_in_exec)


def test_compile_error_is_one_error_at_the_cells_line(ip, capsys):
    r = run(ip, '%%cuda\n__global__ void bad_m(float* y) {\n    y[0] = missing_m;\n}\n')
    assert not r.success
    e = r.error_in_exec
    assert type(e).__name__ == "CompileError"
    # Line 1 of the cell is the %%cuda line, as the notebook numbers it.
    assert (e.line, e.column) == (3, 12)
    assert e.source_line.strip() == "y[0] = missing_m;"
    out = capsys.readouterr()
    shown = out.out + out.err
    assert shown.count("CompileError") == 1
    assert "Traceback" not in shown
    assert "missing_m" in "\n".join(e._render_traceback_())


def test_bad_option_is_a_usage_error(ip, capsys):
    r = run(ip, "%%cuda --no-such-option\n__global__ void k_m() {}\n")
    assert not r.success
    assert "--no-such-option" in str(r.error_in_exec)


@pytest.mark.parametrize("line, keywords", [
    ("--std c++99", {"std": "c++99"}),
    ("-D 1X", {"defines": ["1X"]}),
    ("-D =3", {"defines": {"": 3}}),
    ("--arch 90", {"arch": "90"}),
    ("--instantiate axpy", {"instantiate": "axpy"}),
    ("--fast-compile=fast", {"fast_compile": "fast"}),
])
def test_compile_keywords_are_checked_as_the_magic_line_is(ip, line, keywords):
    r = run(ip, "%%cuda " + line + "\n__global__ void k_m() {}\n")
    assert not r.success
    with pytest.raises(ValueError) as e:
        xcuda.compile("__global__ void k_m() {}\n", **keywords)
    assert str(e.value) == str(r.error_in_exec)


def test_resources_show_registers(ip, capsys):
    r = run(ip, "%%cuda --resources\n" + CELL.split("\n", 1)[1])
    assert r.success, r.error_in_exec
    out = capsys.readouterr().out
    assert "Registers" in out and "saxpy_m" in out


def test_ptx_is_shown(ip, capsys):
    r = run(ip, "%%cuda --ptx\n" + CELL.split("\n", 1)[1])
    assert r.success, r.error_in_exec
    assert ".entry saxpy_m" in capsys.readouterr().out


def test_header_cell_is_included_by_later_cells(ip):
    assert run(ip, "%%cuda_header scale_m.h\n#define SCALE_M 3\n").success
    r = run(ip, '%%cuda\n#include "scale_m.h"\nextern "C" __global__ void scaled_m(int* p) { p[0] = SCALE_M; }\n')
    assert r.success, r.error_in_exec
    assert "scaled_m" in ip.user_ns


def test_changing_a_header_recompiles_its_users(ip):
    body = '%%cuda\n#include "val_m.h"\nextern "C" __global__ void val_m(int* p) { p[0] = VAL_M; }\n'
    run(ip, "%%cuda_header val_m.h\n#define VAL_M 1\n")
    run(ip, body)
    run(ip, "%%cuda_header val_m.h\n#define VAL_M 2\n")
    r = run(ip, body)
    assert r.success
    # The cached module of VAL_M 1 would carry 1 as its immediate; a recompile carries 2.
    ptx = xcuda.compile('#include "val_m.h"\nextern "C" __global__ void val_m(int* p) { p[0] = VAL_M; }\n').ptx
    assert "2;" in ptx


STD_HEADERS_CELL = r"""%%cuda -n std_headers_m
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <type_traits>
#include <utility>
template <typename T>
__device__ std::enable_if_t<std::is_floating_point<T>::value, T> root_m(T x) { return std::sqrt(x); }
extern "C" __global__ void std_headers_k(const float* x, float* y, std::uint32_t n) {
    std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    assert(i < n);
    float a = root_m(x[i]), b = fabs(x[i]);
    std::swap(a, b);
    y[i] = a + b + (x[i] < std::numeric_limits<float>::max() ? 1.0f : 0.0f);
    printf("%u\n", i);
}
"""


def test_cells_include_standard_headers_as_with_nvcc(ip):
    r = run(ip, STD_HEADERS_CELL)
    assert r.success, r.error_in_exec
    m = ip.user_ns["std_headers_m"]
    assert "vprintf" in m.ptx and "__assertfail" in m.ptx and "sqrt.rn.f32" in m.ptx
    assert ip.user_ns["std_headers_k"].signature == "void std_headers_k(const float* x, float* y, std::uint32_t n)"


def test_a_header_cell_named_like_a_standard_header_replaces_it(ip):
    # printf stays an NVRTC built-in, so later cells that include <stdio.h> still compile
    assert run(ip, "%%cuda_header stdio.h\n#define OWN_STDIO_M 1\n").success
    r = run(ip, '%%cuda\n#include <stdio.h>\nstatic_assert(OWN_STDIO_M == 1, "");\n'
                'extern "C" __global__ void own_stdio_m() { printf("own\\n"); }\n')
    assert r.success, r.error_in_exec


def test_cache_info_and_clear(ip, capsys):
    run(ip, CELL)
    ip.run_line_magic("cuda_cache", "info")
    out = capsys.readouterr().out
    assert "memory" in out and "disk" in out
    ip.run_line_magic("cuda_cache", "clear")
    assert "cleared" in capsys.readouterr().out
    ip.run_line_magic("cuda_cache", "info")
    out = capsys.readouterr().out
    memory_row = next(line for line in out.splitlines() if line.startswith("memory"))
    assert memory_row.split()[1] == "0"
    r = run(ip, "%cuda_cache frobnicate")
    assert not r.success


def test_cache_memory_limit_bounds_the_memory_part(ip, capsys):
    try:
        ip.run_line_magic("cuda_cache", "limit 0")
        assert "memory limit 0" in capsys.readouterr().out
        run(ip, CELL)
        ip.run_line_magic("cuda_cache", "info")
        memory_row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("memory"))
        assert memory_row.split()[1] == "0", memory_row
        r = run(ip, "%cuda_cache limit lots")
        assert not r.success and "512M" in str(r.error_in_exec)
    finally:
        ip.run_line_magic("cuda_cache", "limit 256M")


@requires_no_device
def test_cuda_info_says_there_is_no_gpu(ip, capsys):
    ip.run_line_magic("cuda_info", "")
    out = capsys.readouterr().out
    assert out.startswith("No NVIDIA GPU here: ") and "launches raise NoDeviceError" in out, out
    assert "NVRTC: " in out and "Headers: " in out and "CCCL: " in out, out


@requires_no_device
def test_launch_in_a_cell_without_gpu_is_one_no_device_error(ip):
    run(ip, CELL)
    r = run(ip, "import numpy as np\nx = np.ones(4, np.float32)\nsaxpy_m[1, 4](2.0, x, x.copy(), 4)\n")
    assert type(r.error_in_exec).__name__ == "NoDeviceError"


def test_cuda_device_help(ip, capsys):
    ip.run_line_magic("cuda_device", "-h")
    assert "%cuda_device [N | cpu]" in capsys.readouterr().out


def test_a_magics_own_error_is_one_line_not_a_traceback_through_ipython(ip):
    r = run(ip, '%%cuda --arch sm_20\nextern "C" __global__ void k() {}\n')
    assert not r.success
    assert r.error_in_exec._render_traceback_() == [f"ValueError: {r.error_in_exec}"]
    assert "sm_20 is not supported" in str(r.error_in_exec)


@requires_no_device
def test_a_magic_needing_a_gpu_says_so_in_one_line(ip):
    from IPython.core.error import UsageError
    for cell in ("%cuda_device 0", "%cuda_timeit print(1)"):
        r = run(ip, cell)
        assert not r.success
        if isinstance(r.error_in_exec, UsageError):  # IPython shows these as one line itself
            assert "GPU" in str(r.error_in_exec) or "driver" in str(r.error_in_exec), r.error_in_exec
            continue
        lines = r.error_in_exec._render_traceback_()
        assert len(lines) == 1 and lines[0].startswith("NoDeviceError: "), lines


def test_user_errors_inside_cuda_timeit_keep_their_traceback(ip):
    r = run(ip, "%cuda_timeit name_that_does_not_exist")
    assert isinstance(r.error_in_exec, NameError)
    assert not hasattr(r.error_in_exec, "_render_traceback_")


def test_question_mark_on_a_magic_shows_its_full_help(ip):
    for kind, name, usage in (("cell", "cuda", "Usage: %%cuda"), ("line", "cuda_cache", "Usage: %cuda_cache"),
                              ("line", "cuda_timeit", "%cuda_timeit"), ("cell", "cuda_profile", "%%cuda_profile")):
        magic = ip.find_cell_magic(name) if kind == "cell" else ip.find_line_magic(name)
        assert usage in magic.__doc__, (name, magic.__doc__)


def test_question_mark_on_a_kernel_shows_signature_launch_and_parameters(ip):
    assert run(ip, '%%cuda\nextern "C" __global__ void inspected(float a, const float* x, int n = 4) {}\n').success
    doc = ip.object_inspect("inspected")["docstring"]
    assert doc.startswith("void inspected(float a, const float* x, int n = 4)")
    assert "inspected[grid, block](a, x, n)" in doc
    assert "n: int (scalar, 4 bytes, default 4)" in doc
    assert "Resources (ptxas): arch=sm_" in doc


def test_kernels_and_modules_show_as_html_tables(ip):
    assert run(ip, '%%cuda -n shown_module\nextern "C" __global__ void shown(float2 v, int* out) {}\n').success
    html = ip.user_ns["shown"]._repr_html_()
    assert "<table" in html and "void shown(float2 v, int* out)" in html and "float2 (vector, 8 bytes)" in html
    html = ip.user_ns["shown_module"]._repr_html_()
    assert "xcuda.Module shown_module" in html and "<td>shown</td>" in html
    assert repr(ip.user_ns["shown"]).startswith("<xcuda.Kernel")  # text/plain kept
