"""xcuda.compile and the Module/Kernel objects: everything here works without a GPU."""
import re
import uuid

import pytest

import xcuda
from conftest import SAXPY


def test_compile_binds_every_global_under_its_source_name():
    m = xcuda.compile(SAXPY + "__global__ void cpp_kernel(int* p) { p[0] = 1; }\n")
    assert set(m.kernels) == {"saxpy", "cpp_kernel"}
    assert m.cpp_kernel.lowered_name != "cpp_kernel"  # C++ name, mangled in the module
    assert m["saxpy"].lowered_name == "saxpy"


def test_signature_is_the_declaration_as_written(saxpy):
    assert saxpy.signature == "void saxpy(float a, const float* x, float* y, int n)"
    assert saxpy.name == "saxpy"
    assert saxpy.parameters == [("a", "float"), ("x", "const float*"), ("y", "float*"), ("n", "int")]
    assert "saxpy" in repr(saxpy)


def test_module_has_ptx_cubin_and_log():
    m = xcuda.compile(SAXPY)
    assert ".entry saxpy" in m.ptx
    assert m.cubin[:4] == b"\x7fELF"
    assert isinstance(m.log, str)
    assert m.arch.startswith("sm_")


def test_resources_come_from_ptxas_without_a_gpu(saxpy):
    r = saxpy.resources
    assert r["registers"] > 0
    assert r["arch"].startswith("sm_")


def test_recompiling_the_same_source_is_a_memory_cache_hit():
    src = SAXPY + "// cache probe\n"
    xcuda.compile(src)
    assert xcuda.compile(src).cache == "memory"


def test_a_memory_hit_is_a_new_module_with_new_kernels():
    # A re-run shares the compiled form, never the loaded module (its __device__ variables).
    src = SAXPY + "// rerun probe\n"
    first, again = xcuda.compile(src), xcuda.compile(src)
    assert again.cache == "memory"
    assert again is not first and again.kernels["saxpy"] is not first.kernels["saxpy"]
    assert again.kernels["saxpy"].signature == first.kernels["saxpy"].signature
    assert again.kernels["saxpy"].lowered_name == "saxpy"


def test_fast_compile_reaches_nvrtc_and_never_shares_a_default_build():
    # a source no earlier run left in the disk cache, or the fast build would come from there
    src = SAXPY + f"// fast-compile probe {uuid.uuid4()}\n"
    default = xcuda.compile(src)
    fast = xcuda.compile(src, fast_compile=True)
    assert fast.cache == "none"
    assert "--Ofast-compile=max" in fast.options and "--Ofast-compile=max" not in default.options
    assert "--Ofast-compile=mid" in xcuda.compile(src, fast_compile="mid").options
    assert xcuda.compile(src, fast_compile=False).cache == "memory"  # the default build again
    assert xcuda.compile(src, fast_compile="max").cache == "memory"


def test_fast_compile_levels_are_checked():
    with pytest.raises(ValueError, match="--fast-compile=fast is not a level"):
        xcuda.compile(SAXPY, fast_compile="fast")
    with pytest.raises(TypeError, match="pass True"):
        xcuda.compile(SAXPY, fast_compile=2)


def test_no_cache_compiles_again():
    assert xcuda.compile(SAXPY, no_cache=True).cache == "none"


def test_template_instantiations_are_indexed_by_their_arguments():
    m = xcuda.compile("template <typename T, int N> __global__ void fill(T* p) { p[threadIdx.x] = T(N); }",
                      instantiate=["fill<float, 4>", "fill<int,2>"])
    fill = m.kernels["fill"]
    assert isinstance(fill, xcuda.KernelTemplate)
    assert fill["float,4"].signature == fill["  float , 4 "].signature
    assert fill["float", 4].instantiation == "float, 4"
    assert "int" in fill["int, 2"].signature
    with pytest.raises(KeyError, match="double"):
        fill["double, 1"]


TK = "template <typename T, int N, bool B> __global__ void tk(T* p) { if (B) p[0] = T(N); }"


def test_template_keys_are_the_cpp_template_arguments():
    tk = xcuda.compile(TK, instantiate=["tk<float, 256, false>", "tk<int,4,true>"]).kernels["tk"]
    assert tk[("float", 256, False)].instantiation == "float, 256, false"
    assert tk["int", 4, True].lowered_name == tk["int, 4, true"].lowered_name
    np = pytest.importorskip("numpy")
    assert tk["float", np.int32(256), np.False_].lowered_name == tk["float", 256, False].lowered_name


def test_a_missing_instantiation_is_a_key_error_whose_advice_compiles():
    tk = xcuda.compile(TK, instantiate=["tk<float, 256, false>"]).kernels["tk"]
    with pytest.raises(KeyError) as e:
        tk["float", 128, True]
    advice = re.search(r"Add --instantiate '([^']*)'", str(e.value)).group(1)
    assert advice == "tk<float, 128, true>"
    again = xcuda.compile(TK, instantiate=[advice]).kernels["tk"]
    assert again["float", 128, True].instantiation == "float, 128, true"


def test_a_template_whose_default_names_an_earlier_parameter_instantiates_as_written():
    # CuPy's RawModule tests: enable_if in a defaulted template parameter.
    m = xcuda.compile("#include <type_traits>\n"
                      "template <typename T, typename = typename std::enable_if<std::is_integral<T>::value>::type>\n"
                      "__global__ void shift(T* a, int n) { if (threadIdx.x < n) a[threadIdx.x] += 100; }\n",
                      instantiate=["shift<int>"])
    shift = m.kernels["shift"]
    assert shift["int"].instantiation == "int"
    assert shift["int", "typename std::enable_if<std::is_integral<int>::value>::type"] is not None


def test_a_single_template_argument_needs_no_tuple():
    m = xcuda.compile("template <bool B> __global__ void one_b(int* p) { p[0] = B; }\n"
                      "template <int N> __global__ void one_n(int* p) { p[0] = N; }\n",
                      instantiate=["one_b<true>", "one_n<256>"])
    assert m.kernels["one_b"][True].instantiation == "true"
    assert m.kernels["one_n"][256].instantiation == "256"
    assert m.kernels["one_n"]["256"].instantiation == "256"


def test_defines_and_options_reach_nvrtc():
    m = xcuda.compile('extern "C" __global__ void k(float* p) { p[0] = VALUE; }', defines={"VALUE": "2.5f"})
    assert "k" in m.kernels
    with pytest.raises(xcuda.CompileError):
        xcuda.compile('extern "C" __global__ void k(float* p) { p[0] = VALUE; }')


def test_unknown_compile_option_is_a_type_error_listing_the_options():
    with pytest.raises(TypeError, match="instantiate"):
        xcuda.compile(SAXPY, instantiation="x")


def test_bad_keyword_values_are_value_errors_before_nvrtc_runs():
    with pytest.raises(ValueError, match="--std c\\+\\+99 is not a C\\+\\+ standard"):
        xcuda.compile(SAXPY, std="c++99")
    with pytest.raises(ValueError, match="-D 1X does not define a macro; write -D NAME or -D NAME=VALUE"):
        xcuda.compile(SAXPY, defines=["N=1", "1X"])
    with pytest.raises(ValueError, match="--instantiate axpy is not a template instantiation"):
        xcuda.compile(SAXPY, instantiate="axpy")


def test_a_keyword_of_the_wrong_type_says_what_to_pass():
    with pytest.raises(TypeError, match=r"std=17 has the wrong type; pass a str like 'c\+\+17'"):
        xcuda.compile(SAXPY, std=17)
    with pytest.raises(TypeError, match="defines=3 has the wrong type"):
        xcuda.compile(SAXPY, defines=3)


def test_none_gives_an_options_default_as_leaving_it_out_does():
    explicit = xcuda.compile(SAXPY, arch=None, std=None, defines=None, fast_compile=None, name=None)
    assert explicit.cubin == xcuda.compile(SAXPY).cubin


def test_display_options_are_magic_only():
    with pytest.raises(TypeError, match="unexpected option ptx; options: name, arch, std, include_dirs"):
        xcuda.compile(SAXPY, ptx=True)


def test_compile_docstring_lists_every_keyword():
    for keyword in ("name", "arch", "std", "include_dirs", "defines", "instantiate", "fast_math", "lineinfo",
                    "fast_compile", "no_cache", "options"):
        assert "  " + keyword + " (%%cuda " in xcuda.compile.__doc__, keyword


def test_compile_error_has_line_column_source_line_and_log():
    src = 'extern "C" __global__ void bad(float* y) {\n    y[0] = undefined_name;\n}\n'
    with pytest.raises(xcuda.CompileError) as info:
        xcuda.compile(src)
    e = info.value
    assert (e.line, e.column) == (2, 12)
    assert "undefined_name" in e.source_line
    assert "undefined_name" in e.log
    assert isinstance(e, xcuda.CudaError)
    rendered = "\n".join(e._render_traceback_())
    assert "CompileError" in rendered and ":2:12:" in rendered


def test_exception_tree():
    assert issubclass(xcuda.DriverError, xcuda.CudaError)
    assert issubclass(xcuda.LaunchError, xcuda.DriverError)
    assert issubclass(xcuda.OutOfMemoryError, xcuda.DriverError)
    assert issubclass(xcuda.OutOfMemoryError, MemoryError)
    assert issubclass(xcuda.ContextLostError, xcuda.DriverError)
    assert issubclass(xcuda.NoDeviceError, xcuda.CudaError)
    assert issubclass(xcuda.CompileError, xcuda.CudaError)


def test_sass_is_shown_or_the_missing_tool_is_named():
    report = xcuda.compile(SAXPY).sass()
    text = str(report)
    assert "saxpy" in text or "cuobjdump" in text
