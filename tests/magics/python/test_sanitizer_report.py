"""compute-sanitizer's text, as it really prints it (sanitizer_logs/, recorded on the H200 and the
H100), read into %%cuda_check's findings: kind, cell line and source, parameter and element, thread
and block, repeats counted. Runs anywhere: no GPU needed to read a log."""
import pathlib

from xcuda._sanitizer_report import Allocation, findings, parse

LOGS = pathlib.Path(__file__).parent / "sanitizer_logs"

# The probe's sources (bench/probes/sanitizer_formats.py), line 1 empty as there.
TWICE = '''
extern "C" __global__ void twice(float* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    p[i] *= 2.0f;
}'''
SHIFT = '''
extern "C" __global__ void shift(float* p) {
    __shared__ float s[256];
    s[threadIdx.x] = p[threadIdx.x];
    p[threadIdx.x] = s[(threadIdx.x + 1) % 256];
}'''


def log(name):
    return (LOGS / f"{name}.log").read_text()


def test_an_out_of_bounds_access_names_the_parameter_element_line_and_repeats():
    # the probe's array: 1000 floats at the address the tool named as the nearest allocation
    p = Allocation("p", 0x7fe26a800000, 4000, 4, "float")
    found = findings(log("memcheck-oob-write"), [p], TWICE)
    assert len(found) == 1  # 24 threads, one line: one finding
    f = found[0]
    assert (f.kind, f.kernel, f.line, f.source) == ("out_of_bounds", "twice", 4, "p[i] *= 2.0f;")
    assert (f.thread, f.block) == ((232, 0, 0), (3, 0, 0))
    assert (f.parameter, f.element, f.count) == ("p", 1000, 24)
    text = str(f)
    assert text.startswith("out-of-bounds read of 4 bytes in global memory by thread (232,0,0) of block (3,0,0)")
    assert "p[1000] is 0 bytes past the end of `p` (1000 elements of float, 4000 bytes)" in text
    assert "reported 24 times" in text


def test_an_address_inside_an_allocation_or_before_it_is_placed_too():
    inside = Allocation("q", 0x7fe26a800f00, 0x200, 4)
    assert findings(log("memcheck-oob-write"), [inside], TWICE)[0].where == "q[40] is inside `q` (128 elements, 512 bytes)"
    after = Allocation("r", 0x7fe26a801000, 64, 8)
    f = findings(log("memcheck-oob-write"), [after], TWICE)[0]
    assert f.parameter == "r" and f.element is None and f.where.startswith("96 bytes before the start of `r`")


def test_a_shared_memory_race_has_both_lines_and_the_hazard_count():
    (f,) = findings(log("racecheck-shared"), [], SHIFT)
    assert (f.kind, f.kernel, f.line, f.other_line, f.count) == ("shared_race", "shift", 4, 5, 1024)
    assert f.source == "s[threadIdx.x] = p[threadIdx.x];" and "and line 5" in str(f)


def test_a_divergent_barrier_is_one_finding_at_its_line():
    source = '\nextern "C" __global__ void half_barrier(float* p) {\n    if (threadIdx.x < 16) __syncthreads();\n'
    (f,) = findings(log("synccheck-divergent"), [], source)
    assert (f.kind, f.line, f.source) == ("divergent_barrier", 3, "if (threadIdx.x < 16) __syncthreads();")
    assert f.count > 1 and "Divergent thread(s) in warp" in f.header


def test_an_uninitialised_read_names_the_array_read():
    src = Allocation("src", 0x7f00b4800000, 2048, 4, "const float")
    dst = Allocation("dst", 0x7f00b4a00000, 2048, 4, "float")
    (f,) = findings(log("initcheck-uninitialised"), [src, dst], "")
    assert (f.kind, f.line, f.parameter, f.element) == ("uninitialised_read", 4, "src", 96)
    assert str(f).startswith("read of 4 bytes of uninitialised global memory by thread (96,0,0)")


def test_host_backtraces_summaries_and_the_programs_own_output_are_not_findings():
    reports = parse(log("memcheck-oob-write"))
    assert {kind for kind, _, _ in reports} == {"out_of_bounds"}
    assert all(not d.startswith("Host Frame") for _, _, details in reports for d in details)
    assert parse("plain output\n========= ERROR SUMMARY: 0 errors\n") == []


def test_a_report_of_a_kind_not_known_here_is_kept_with_its_words():
    text = "========= Hardware exception: Warp Illegal Instruction\n=========     at k+0x10 in cell.cu:7\n"
    (f,) = findings(text, [], "")
    assert (f.kind, f.line, f.header) == ("other", 7, "Hardware exception: Warp Illegal Instruction")


# The probes of bench/probes/checks (recorded on an H100 from standalone programs), as cells: each
# statement on the line the probe has it on (README.md says what was adapted).
MISALIGNED = '''
extern "C" __global__ void k(const float* in, float* out) {
    const float4* v = reinterpret_cast<const float4*>(in + 1);
    float4 a = v[threadIdx.x];
    out[threadIdx.x] = a.x + a.y + a.z + a.w;
}'''
ASSERTS = '''

extern "C" __global__ void k(const float* in, float* out) {
    int i = threadIdx.x;
    assert(in[i] > 0.0f);
    out[i] = 1.0f / in[i];
}'''


def test_a_misaligned_vector_load_is_misaligned_not_out_of_bounds():
    inp = Allocation("in", 0x7f8f7c800000, 4096, 4, "const float")
    (f,) = findings(log("memcheck-misaligned-float4"), [inp], MISALIGNED)
    assert (f.kind, f.line, f.parameter, f.element, f.count) == ("misaligned", 4, "in", 1, 4)
    assert f.source == "float4 a = v[threadIdx.x];"
    assert str(f).startswith("misaligned read of 16 bytes in global memory by thread (0,0,0)")
    assert "the address is not a multiple of 16 bytes: in[1] is inside `in`" in str(f)


def test_a_failed_assert_is_an_assertion_at_its_line_with_its_message():
    output = (LOGS / "memcheck-assert.stdout").read_text()
    (f,) = findings(log("memcheck-assert"), [], ASSERTS, output=output)
    assert (f.kind, f.kernel, f.line, f.source, f.count) == ("assertion", "k", 5, "assert(in[i] > 0.0f);", 4)
    assert str(f).startswith("device assertion `in[i] > 0.0f` failed by thread (0,0,0) of block (0,0,0)")


def test_without_the_programs_output_an_assert_is_still_an_assertion_without_a_line():
    (f,) = findings(log("memcheck-assert"), [], ASSERTS)
    assert (f.kind, f.line) == ("assertion", 0) and f.header == "device assertion failed"


def test_an_access_through_a_null_argument_names_that_argument_not_the_nearest_array():
    y = Allocation("y", 0x7f6ab6800000, 1024, 4, "float")
    (f,) = findings(log("memcheck-null-argument"), [y], "", null_pointers=["x"])
    assert (f.kind, f.line, f.parameter, f.element) == ("out_of_bounds", 4, "x", None)
    assert "`x` is a null pointer" in str(f) and "`y`" not in str(f)


def test_a_null_device_pointer_is_named_and_with_no_null_known_the_address_is_still_called_null():
    (f,) = findings(log("memcheck-device-pointer-unset"), [], "", null_pointers=["table"])
    assert f.parameter == "table" and "`table` is a null pointer" in f.where
    (f,) = findings(log("memcheck-device-pointer-unset"), [Allocation("out", 0x7f1c82800000, 128, 4)], "")
    assert f.parameter is None and f.where.startswith("the address 0x0 is a null pointer")


def test_device_heap_errors_are_told_apart_from_array_overruns():
    (uaf,) = findings(log("memcheck-heap-use-after-free"), [], "")
    assert (uaf.kind, uaf.line, uaf.count) == ("out_of_bounds", 6, 4) and "device heap" in uaf.where
    (overflow,) = findings(log("memcheck-heap-overflow"), [], "")
    assert (overflow.kind, overflow.line) == ("out_of_bounds", 5) and "device heap" in overflow.where
    (twice,) = findings(log("memcheck-heap-double-free"), [], "")
    assert (twice.kind, twice.line) == ("double_free", 8)
    (bad,) = findings(log("memcheck-heap-bad-free"), [], "")
    assert (bad.kind, bad.line) == ("invalid_free", 6)
