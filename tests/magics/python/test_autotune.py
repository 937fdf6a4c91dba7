"""Kernel.autotune: a sweep of block shapes, template arguments and -D macros on the notebook's own
arguments, each configuration checked against the first and timed with events; the best kept
in the cache directory and reused. On CI the sweep runs on the CPU device (its times are the
emulator's, which the result says), where every result is real."""
import numpy as np
import pytest

import xcuda
from conftest import requires_kernels

SCALE = r'''
#ifndef PER_THREAD
#define PER_THREAD 1
#endif
extern "C" __global__ void scale(const float* x, float* y, int n) {
    int first = (blockIdx.x * blockDim.x + threadIdx.x) * PER_THREAD;
    for (int k = 0; k < PER_THREAD; ++k) {
        int i = first + k;
#ifdef WRONG_AT
        if (i == WRONG_AT) { y[i] = -1.0f; continue; }
#endif
        if (i < n) y[i] = 3.0f * x[i];
    }
}
'''

TILED = r'''
template <int TILE>
__global__ void tile_sum(const float* x, float* out, int n) {
    static_assert(TILE <= 256, "TILE must fit the 256 floats of shared memory");
    __shared__ float s[256];
    int i = blockIdx.x * TILE + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
        float acc = 0.0f;
        for (int k = 0; k < TILE; ++k) acc += s[k];
        out[blockIdx.x] = acc;
    }
}
'''

N = 1 << 12


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.fixture
def scale():
    return xcuda.compile(SCALE).kernels["scale"]


def inputs():
    rng = np.random.default_rng(7)
    return rng.random(N, dtype=np.float32), np.zeros(N, np.float32)


def grid_for(config):
    per_block = config["block"][0] * int(config.get("PER_THREAD", 1))
    return (N + per_block - 1) // per_block


@requires_kernels
def test_a_sweep_times_every_configuration_and_leaves_the_best_result_in_the_arguments(scale):
    x, y = inputs()
    tuned = scale.autotune(x, y, N, grid=grid_for, block=[32, 64, 128], defines={"PER_THREAD": [1, 4]},
                           repeat=3, show=False)
    assert len(tuned.rows) == 6 and all(not r.error and len(r.times) == 3 for r in tuned.rows)
    assert tuned.best.median == min(r.median for r in tuned.rows)
    assert tuned.block == tuple(tuned.config["block"]) and tuned.grid == grid_for(tuned.config)
    assert np.array_equal(y, 3 * x)  # the arguments hold the best's result, from the original inputs
    y2 = np.zeros_like(y)
    tuned(x, y2, N)  # the launcher: the best configuration
    assert np.array_equal(y2, 3 * x)
    assert "best block=" in str(tuned) and "<svg" in tuned._repr_html_()
    if xcuda.get_device() == "cpu":
        assert any("CPU device" in note for note in tuned.notes)


@requires_kernels
def test_configurations_that_do_not_compile_launch_or_agree_are_left_out_with_the_reason(scale):
    x, y = inputs()
    # 2048 threads a block is more than any device takes; WRONG_AT=5 writes -1 at element 5
    tuned = scale.autotune(x, y, N, grid=grid_for, block=[64, 2048], defines={"WRONG_AT": [N + 1, 5]},
                           repeat=2, show=False)
    reasons = {r.config.label(): r.error for r in tuned.rows}
    assert reasons["block=(64), WRONG_AT=" + str(N + 1)] is None
    assert "does not launch" in reasons["block=(2048), WRONG_AT=" + str(N + 1)]
    assert "differs from the first configuration's at element 5" in reasons["block=(64), WRONG_AT=5"]
    assert tuned.config["WRONG_AT"] == N + 1
    assert np.array_equal(y, 3 * x)


@requires_kernels
def test_template_arguments_are_swept_and_a_failing_instantiation_says_it_does_not_compile():
    kernel = xcuda.compile(TILED, instantiate="tile_sum<32>").kernels["tile_sum"]["32"]
    rng = np.random.default_rng(3)
    x = rng.integers(0, 8, 1024).astype(np.float32)  # small integers: every tile sums exactly
    out = np.zeros(1024, np.float32)

    def check(out):
        return out[:1024 // 64].sum() == x.sum() or out[:1024 // 32].sum() == x.sum() \
            or out[:1024 // 128].sum() == x.sum()

    tuned = kernel.autotune(x, out, 1024, grid=lambda c: 1024 // c["TILE"], block=lambda c: c["TILE"],
                            template={"TILE": [32, 64, 128, 512]}, check=check, repeat=2, show=False)
    errors = {r.config["TILE"]: r.error for r in tuned.rows}
    assert "does not compile" in errors[512] and "TILE must fit" in errors[512], errors[512]
    assert all(errors[t] is None for t in (32, 64, 128)), errors
    assert {r.config["TILE"]: r.config["block"] for r in tuned.rows} == {32: (32,), 64: (64,), 128: (128,), 512: (512,)}


@requires_kernels
def test_a_recorded_sweep_is_reused_and_retune_measures_again(scale):
    x, y = inputs()
    first = scale.autotune(x, y, N, grid=grid_for, block=[32, 64], repeat=2, show=False)
    assert not first.reused
    y[:] = 0
    again = scale.autotune(x, y, N, grid=grid_for, block=[32, 64], repeat=2, show=False)
    assert again.reused and again.config == first.config
    assert [r.times for r in again.rows] == [r.times for r in first.rows]  # read back, not measured
    assert np.array_equal(y, 3 * x)  # the best still ran on the arguments
    fresh = scale.autotune(x, y, N, grid=grid_for, block=[32, 64], repeat=2, retune=True, show=False)
    assert not fresh.reused
    other_shape = scale.autotune(x[:100].copy(), y[:100].copy(), 100, grid=1, block=[32, 64], repeat=2,
                                 show=False)
    assert not other_shape.reused  # another argument shape is another sweep


@requires_kernels
def test_an_interrupted_sweep_keeps_what_it_measured_and_the_next_call_measures_the_rest(scale):
    x, y = inputs()
    calls = []

    def interrupt_at_the_second(y_out):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return True

    cut = scale.autotune(x, y, N, grid=grid_for, block=[32, 64, 128], check=interrupt_at_the_second, repeat=2,
                         show=False)
    assert cut.interrupted and len(cut.rows) == 1
    kept = cut.rows[0]
    calls.clear()
    rest = scale.autotune(x, y, N, grid=grid_for, block=[32, 64, 128], check=lambda y_out: True, repeat=2,
                          show=False)
    assert len(rest.rows) == 3 and not rest.interrupted
    assert rest.rows[0].times == kept.times  # measured before the interrupt, not again


@requires_kernels
def test_bad_sweeps_are_refused_with_what_to_pass(scale):
    x, y = inputs()
    with pytest.raises(ValueError, match="block=\\[\\]"):
        scale.autotune(x, y, N, grid=1, block=[], show=False)
    with pytest.raises(ValueError, match="no template kernel"):
        scale.autotune(x, y, N, grid=1, block=[32], template={"T": ["float"]}, show=False)
    with pytest.raises(ValueError, match="empty"):
        scale.autotune(x, y, N, grid=1, block=[32], defines={"PER_THREAD": []}, show=False)
