"""The CPU-device part's wiring and goal arithmetic (no GPU, no xcuda needed): `--only cpu` picks
bench/cpu_device.py, the default run leaves it out, and its goals are formed the right way round
(time ratios to numpy, seconds for SGEMM, speed-ups over numba's simulator). Timings are never
asserted here. Run: python3 -m pytest bench/tests"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import cpu_device as cd  # noqa: E402
import report  # noqa: E402
import run  # noqa: E402


def test_only_cpu_selects_the_module_and_default_leaves_it_out():
    assert run.parse(["--only", "cpu"]).only == ["cpu"]
    assert "cpu" not in run.parse([]).only
    assert run.MODULES.get("cpu", "cpu") == "cpu_device"


def _filled(sim_ms: float) -> report.Results:
    res = report.Results()
    for on in (True, False):
        res.add(cd.PART, cd.saxpy_dev(on), "ms", [30.0])
        res.add(cd.PART, cd.saxpy_host(on), "ms", [35.0])
        res.add(cd.PART, cd.sgemm_dev(on), "s", [1.5])
        res.add(cd.PART, cd.sim_saxpy_xc(on), "ms", [0.5])
        res.add(cd.PART, cd.sim_sgemm_xc(on), "ms", [2.0])
    res.add(cd.PART, cd.SAXPY_NUMPY, "ms", [0.5])
    res.add(cd.PART, cd.SIM_SAXPY_NUMBA, "ms", [sim_ms])
    res.add(cd.PART, cd.SIM_SGEMM_NUMBA, "ms", [sim_ms])
    return res


def test_goals_are_time_ratios_seconds_and_speed_ups():
    res = _filled(sim_ms=100.0)
    cd._goals(res)
    by = {g.text: g for g in res.goals}
    saxpy = next(g for t, g in by.items() if "DeviceArrays" in t)
    assert saxpy.ratio == 60.0 and saxpy.verdict == "PASS"
    sgemm = next(g for t, g in by.items() if "<= 2 s" in t)
    assert sgemm.ratio == 1.5 and sgemm.verdict == "PASS"
    sims = [g for t, g in by.items() if "numba" in t]
    # 100 ms in the simulator vs 0.5 / 2.0 ms in xcuda: 200x (PASS) and 50x (MISS)
    assert [g.ratio for g in sims] == [200.0, 50.0]
    assert [g.verdict for g in sims] == ["PASS", "MISS"]


def test_missing_simulator_makes_its_goals_na_with_the_reason():
    res = _filled(sim_ms=100.0)
    res.fail(cd.PART, cd.SIM_SAXPY_NUMBA, "ms", report.UNAVAILABLE, "no Python with numba")
    cd._goals(res)
    g = next(g for g in res.goals if "saxpy 2^14" in g.text)
    assert g.ratio is None and "no Python with numba" in g.verdict


def test_the_simulator_child_refuses_to_run_without_the_simulator(tmp_path):
    import json
    import subprocess
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    p = subprocess.run([sys.executable, os.path.join(os.path.dirname(cd.__file__), "cpu_device_numba.py")],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 1 and "NUMBA_ENABLE_CUDASIM" in json.loads(p.stdout.strip().splitlines()[-1])["error"]
