"""The course (xcuda.course, notebooks/06-course*.ipynb): every solution passes every test and gate;
every stub is "not solved yet"; and for each exercise, wrong kernels a student writes (off by one, a
missing barrier, uncoalesced or conflicting access, ...) get the feedback a teacher would give."""
import pytest

import xcuda
import xcuda.course
from conftest import STUBS, exercise_cells, grade, replaced, requires_device, solution

pytestmark = requires_device


def failing_gates(result):
    return [g.gate for g in result.gates if not g.passed]


def first_failure(result):
    return next(t for t in result.tests if not t.passed)


def test_the_course_has_ten_exercises_in_order_each_with_a_stub_and_a_solution():
    assert xcuda.course.NAMES == ["map", "guard", "map2d", "blocks", "stencil", "dot", "scan", "histogram",
                                  "matmul", "transpose"]
    stubs = exercise_cells(STUBS)
    assert list(stubs) == xcuda.course.NAMES
    for name, stub in stubs.items():
        assert "// YOUR CODE HERE" in stub and "BEGIN SOLUTION" not in stub, name
        assert "BEGIN SOLUTION" in solution(name) and "END SOLUTION" in solution(name), name


@pytest.mark.parametrize("name", xcuda.course.NAMES)
def test_each_solution_passes_every_test_and_gate(name):
    result = grade(solution(name), name)
    assert result.solved, str(result)
    assert result.score == result.max_score
    assert not result.stories and not result.findings


@pytest.mark.parametrize("name", xcuda.course.NAMES)
def test_each_stub_is_not_solved_yet(name):
    result = grade(exercise_cells(STUBS)[name], name)
    assert result.not_started and not result.solved, str(result)
    assert result.verdict.startswith("not solved yet")
    assert result.score == 0


# --- 1. map ---------------------------------------------------------------------------------------

def test_map_off_by_one_is_stopped_at_its_line_with_the_array_it_overran():
    result = grade(replaced(solution("map"), "int i = threadIdx.x;", "int i = threadIdx.x + 1;"), "map")
    t = first_failure(result)
    assert t.finding is not None and t.finding.kind == "out_of_bounds", str(result)
    assert "past the end of `x`" in t.hint or "past the end of `y`" in t.hint
    assert result.findings[0].line == 4 and "x[i]" in result.findings[0].source


def test_map_with_every_thread_on_element_zero_says_which_thread_should_have_written_the_first_missing_one():
    result = grade(replaced(solution("map"), "int i = threadIdx.x;", "int i = blockIdx.x;"), "map")
    t = first_failure(result)
    assert "y[1] is 0, expected" in t.outcome and "never written" in t.hint, str(result)
    (story,) = result.stories
    assert "no thread wrote y[1]" in story["title"] and "thread (1,0,0) of block (0,0,0)" in story["title"]
    touched = [x for line in story["lines"] for x in line["touched"]]
    assert any(x.startswith("x[0] = ") and x.endswith(" read") for x in touched), touched
    assert any(x.startswith("y[0] = ") and x.endswith(" written") for x in touched), touched
    assert "<svg" in result.picture_svg


def test_map_reading_with_a_stride_is_right_but_fails_the_coalescing_gate():
    # i = 33 t mod n is a permutation of 0..n-1 for the course's sizes: the values are right.
    result = grade(replaced(solution("map"), "int i = threadIdx.x;", "int i = (threadIdx.x * 33) % blockDim.x;"),
                   "map")
    assert result.tests_passed == len(result.tests), str(result)
    assert failing_gates(result) == ["sectors_per_request"]
    gate = next(g for g in result.gates if g.gate == "sectors_per_request")
    assert gate.measured > 16 and "neighbouring threads" in gate.note
    assert result.verdict.startswith("correct, but 1 of")


# --- 2. guard -------------------------------------------------------------------------------------

def test_guard_missing_is_an_out_of_bounds_access_with_the_advice_to_guard():
    result = grade(replaced(solution("guard"), "if (i < n) y[i]", "y[i]"), "guard")
    t = first_failure(result)
    assert t.finding is not None and t.finding.kind == "out_of_bounds"
    assert "guard the access" in t.hint


def test_guard_one_short_leaves_the_last_element_and_says_so():
    result = grade(replaced(solution("guard"), "if (i < n)", "if (i < n - 1)"), "guard")
    t = first_failure(result)
    assert "the last element was never written" in t.hint, str(result)


def test_guard_one_too_far_reads_past_the_end():
    result = grade(replaced(solution("guard"), "if (i < n)", "if (i <= n)"), "guard")
    assert first_failure(result).finding.kind == "out_of_bounds"


# --- 3. 2-D ---------------------------------------------------------------------------------------

def test_2d_with_x_as_the_row_is_right_but_uncoalesced():
    result = grade(replaced(solution("map2d"), "int c = threadIdx.x, r = threadIdx.y;",
                            "int r = threadIdx.x, c = threadIdx.y;"), "map2d")
    assert result.tests_passed == len(result.tests), str(result)
    assert "sectors_per_request" in failing_gates(result)


def test_2d_guarding_only_the_columns_overruns_the_rows():
    result = grade(replaced(solution("map2d"), "if (r < rows && c < cols)", "if (c < cols)"), "map2d")
    assert first_failure(result).finding.kind == "out_of_bounds", str(result)


def test_2d_with_the_wrong_row_stride_names_the_first_wrong_element_by_row_and_column():
    result = grade(replaced(solution("map2d"), "out[r * cols + c] = a[r * cols + c]",
                            "out[r * rows + c] = a[r * rows + c]"), "map2d")
    t = first_failure(result)
    # rows = 3 for cols = 5: rows overlap, and the last elements are never written.
    assert t.outcome.startswith("out[11] (row 2, column 1) is 0, expected 17"), str(result)
    assert "elements 11 and up were never written" in t.hint


# --- 4. blocks ------------------------------------------------------------------------------------

def test_blocks_without_the_grid_stride_loop_is_told_how_many_threads_there_are():
    result = grade(replaced(solution("blocks"), "for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; "
                                                "i += blockDim.x * gridDim.x)",
                            "for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += n)"), "blocks")
    t = first_failure(result)
    assert "elements 512 and up were never written" in t.hint and "grid-stride" in t.hint, str(result)


def test_blocks_stepping_by_a_block_is_a_race_between_blocks_named_at_its_line():
    # Every block walks the same elements: block 1's thread 0 reads y[128] that block 0's wrote.
    result = grade(replaced(solution("blocks"), "i += blockDim.x * gridDim.x", "i += blockDim.x"), "blocks")
    t = first_failure(result)
    assert t.outcome == "stopped by the checks: global_race at line 4", str(result)
    text = str(result)
    assert "race on global memory in kernel `saxpy`" in text and "of block (1,0,0) reads `y[128]`" in text, text
    assert "thread (0,0,0) of block (0,0,0) writes it at line 4" in text, text


def test_blocks_one_too_far_reads_past_the_end():
    result = grade(replaced(solution("blocks"), "i < n;", "i <= n;"), "blocks")
    assert first_failure(result).finding.kind == "out_of_bounds"


# --- 5. stencil -----------------------------------------------------------------------------------

STENCIL_GLOBAL = r'''
extern "C" __global__ void stencil(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = (i > 0 ? x[i - 1] : 0.0f) + x[i] + (i + 1 < n ? x[i + 1] : 0.0f);
}
'''


def test_stencil_without_the_barrier_races_on_the_tile():
    result = grade(replaced(solution("stencil"), "    __syncthreads();\n", ""), "stencil")
    t = first_failure(result)
    assert t.finding is not None and t.finding.kind == "shared_race", str(result)
    assert "__syncthreads() is missing" in t.hint


def test_stencil_from_global_memory_is_right_but_loads_each_element_three_times():
    result = grade(STENCIL_GLOBAL, "stencil")
    assert result.tests_passed == len(result.tests), str(result)
    assert set(failing_gates(result)) == {"global_loads_per_element", "shared_memory_bytes"}
    loads = next(g for g in result.gates if g.gate == "global_loads_per_element")
    assert 2.9 < loads.measured <= 3 and "load it once" in loads.note


def test_stencil_without_the_right_neighbour_is_wrong_at_the_block_edge():
    right_neighbour = "    if (threadIdx.x == blockDim.x - 1) tile[BLOCK + 1] = i + 1 < n ? x[i + 1] : 0.0f;\n"
    result = grade(replaced(solution("stencil"), right_neighbour, ""), "stencil")
    assert not result.solved
    t = first_failure(result)
    # The last thread of block 0 sums a neighbour nobody loaded (or the checks see the read of it).
    assert "y[127]" in t.outcome or t.finding is not None, str(result)


# --- 6. dot ---------------------------------------------------------------------------------------

DOT_INTERLEAVED = r'''
#define BLOCK 256
extern "C" __global__ void dot(const float* a, const float* b, float* result, int n) {
    __shared__ float partial[BLOCK];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[threadIdx.x] = i < n ? a[i] * b[i] : 0.0f;
    __syncthreads();
    for (int s = 1; s < blockDim.x; s *= 2) {
        if (threadIdx.x % (2 * s) == 0) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(result, partial[0]);
}
'''


DOT_STRIDED = DOT_INTERLEAVED.replace(
    "        if (threadIdx.x % (2 * s) == 0) partial[threadIdx.x] += partial[threadIdx.x + s];",
    "        int k = 2 * s * threadIdx.x;\n        if (k < blockDim.x) partial[k] += partial[k + s];")


def test_dot_without_the_barrier_in_the_tree_races():
    body = solution("dot")
    broken = replaced(body, "partial[threadIdx.x + s];\n        __syncthreads();", "partial[threadIdx.x + s];")
    t = first_failure(grade(broken, "dot"))
    assert t.finding.kind == "shared_race" and "__syncthreads()" in t.hint


def test_dot_with_every_other_thread_active_is_right_but_diverges():
    result = grade(DOT_INTERLEAVED, "dot")
    assert result.tests_passed == len(result.tests), str(result)
    assert failing_gates(result) == ["divergent_branches"]
    divergent = next(g for g in result.gates if g.gate == "divergent_branches")
    assert "line 9" in divergent.note and "the same across each warp" in divergent.note


def test_dot_with_strided_indices_is_right_but_has_bank_conflicts():
    assert DOT_STRIDED != DOT_INTERLEAVED
    result = grade(DOT_STRIDED, "dot")
    assert result.tests_passed == len(result.tests), str(result)
    assert failing_gates(result) == ["bank_conflicts"]
    conflicts = next(g for g in result.gates if g.gate == "bank_conflicts")
    assert "line 10" in conflicts.note and "pad the array" in conflicts.note


def test_dot_without_the_guard_reads_past_the_end():
    result = grade(replaced(solution("dot"), "i < n ? a[i] * b[i] : 0.0f", "a[i] * b[i]"), "dot")
    assert first_failure(result).finding.kind == "out_of_bounds"


def test_dot_that_stops_the_tree_one_step_early_is_wrong_with_the_expected_sum():
    result = grade(replaced(solution("dot"), "s > 0; s /= 2", "s > 1; s /= 2"), "dot")
    t = first_failure(result)
    assert "result[0] is" in t.outcome and "expected" in t.outcome, str(result)


# --- 7. scan --------------------------------------------------------------------------------------

def test_scan_without_the_barrier_between_read_and_write_races():
    broken = replaced(solution("scan"), "0;   // read every value this step needs ...\n        __syncthreads();",
                      "0;")
    t = first_failure(grade(broken, "scan"))
    assert t.finding.kind == "shared_race", t.outcome
    assert "between line" in t.hint


def test_scan_that_is_exclusive_is_told_its_index_is_one_too_low():
    result = grade(replaced(solution("scan"), "if (t < n) y[t] = s[t];", "if (t < n) y[t] = t > 0 ? s[t - 1] : 0;"),
                   "scan")
    t = first_failure(result)
    assert "one too low" in t.hint, str(result)


def test_scan_reading_without_the_guard_overruns_x():
    result = grade(replaced(solution("scan"), "s[t] = t < n ? x[t] : 0;", "s[t] = x[t];"), "scan")
    t = first_failure(result)
    assert t.finding.kind == "out_of_bounds" and t.finding.parameter == "x"


# --- 8. histogram ---------------------------------------------------------------------------------

def test_histogram_without_atomics_loses_updates():
    result = grade(replaced(solution("histogram"), "atomicAdd(&bins[values[i]], 1);", "bins[values[i]]++;"),
                   "histogram")
    t = first_failure(result)
    # The CPU device's warps run in lockstep, so lanes meeting at a bin lose updates every time (a check
    # of global-memory races, where there is one, stops it instead).
    assert "use atomicAdd" in t.hint or (t.finding is not None and "race" in t.finding.kind), str(result)


def test_histogram_without_the_grid_stride_loop_counts_one_value_per_thread():
    result = grade(replaced(solution("histogram"), "i += blockDim.x * gridDim.x", "i += n"), "histogram")
    t = first_failure(result)
    assert "count only 2048 values" in t.hint, str(result)


def test_histogram_one_too_far_reads_past_the_values():
    result = grade(replaced(solution("histogram"), "i < n;", "i <= n;"), "histogram")
    assert first_failure(result).finding.kind == "out_of_bounds"


# --- 9. matmul ------------------------------------------------------------------------------------

MATMUL_NAIVE = r'''
extern "C" __global__ void matmul(const float* a, const float* b, float* c, int n) {
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n || col >= n) return;
    float sum = 0.0f;
    for (int k = 0; k < n; ++k) sum += a[row * n + k] * b[k * n + col];
    c[row * n + col] = sum;
}
'''


def test_matmul_without_the_second_barrier_races_on_the_tiles():
    broken = replaced(solution("matmul"), "        __syncthreads();                 // every thread is done",
                      "        // every")
    t = first_failure(grade(broken, "matmul"))
    assert t.finding.kind == "shared_race", t.outcome


def test_matmul_from_global_memory_is_right_but_loads_too_much():
    result = grade(MATMUL_NAIVE, "matmul")
    assert result.tests_passed == len(result.tests), str(result)
    assert "global_loads_per_element" in failing_gates(result)
    loads = next(g for g in result.gates if g.gate == "global_loads_per_element")
    assert loads.measured == pytest.approx(96, rel=0.01)  # 2n at n = 48


def test_matmul_without_the_tile_guards_overruns_at_sizes_that_are_not_multiples_of_the_tile():
    broken = replaced(solution("matmul"),
                      "row < n && k0 + threadIdx.x < n ? a[row * n + k0 + threadIdx.x] : 0.0f",
                      "a[row * n + k0 + threadIdx.x]")
    t = first_failure(grade(broken, "matmul"))
    assert t.finding.kind == "out_of_bounds" and t.finding.parameter == "a"


# --- 10. transpose --------------------------------------------------------------------------------

TRANSPOSE_NAIVE = r'''
extern "C" __global__ void transpose(const float* a, float* out, int rows, int cols) {
    int x = blockIdx.x * 32 + threadIdx.x;
    for (int y = blockIdx.y * 32 + threadIdx.y; y < blockIdx.y * 32 + 32; y += 8)
        if (x < cols && y < rows) out[x * rows + y] = a[y * cols + x];
}
'''


def test_transpose_direct_is_right_but_its_writes_are_uncoalesced():
    result = grade(TRANSPOSE_NAIVE, "transpose")
    assert result.tests_passed == len(result.tests), str(result)
    assert "sectors_per_request" in failing_gates(result)
    sectors = next(g for g in result.gates if g.gate == "sectors_per_request")
    assert "out[x * rows + y]" in sectors.note


def test_transpose_through_an_unpadded_tile_has_bank_conflicts():
    result = grade(replaced(solution("transpose"), "tile[TILE][TILE + 1];", "tile[TILE][TILE];"), "transpose")
    assert result.tests_passed == len(result.tests), str(result)
    assert failing_gates(result) == ["bank_conflicts"]
    assert "[32][33]" in next(g for g in result.gates if g.gate == "bank_conflicts").note


def test_transpose_without_the_barrier_races_on_the_tile():
    t = first_failure(grade(replaced(solution("transpose"), "    __syncthreads();\n", ""), "transpose"))
    assert t.finding.kind == "shared_race"
