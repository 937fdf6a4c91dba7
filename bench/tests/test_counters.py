"""The counters part's comparison with ncu (no GPU needed): reading ncu's CSV and the
deviations the goals judge. Run: python3 -m pytest bench/tests"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import counters  # noqa: E402
import report  # noqa: E402

# The shape of `ncu --csv --print-units base` (a banner line, then one row per metric).
NCU_CSV = '''==PROF== Connected to process 4242 (/usr/bin/python3.12)
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","4242","python3.12","127.0.0.1","vadd","1","7","(256, 1, 1)","(262144, 1, 1)","0","9.0","Command line profiler metrics","dram__bytes_read.sum","byte","536,880,000"
"0","4242","python3.12","127.0.0.1","vadd","1","7","(256, 1, 1)","(262144, 1, 1)","0","9.0","Command line profiler metrics","sm__throughput.avg.pct_of_peak_sustained_elapsed","%","34.78"
"1","4242","python3.12","127.0.0.1","horner","1","7","(256, 1, 1)","(65536, 1, 1)","0","9.0","Command line profiler metrics","dram__bytes_read.sum","byte","67108864"
"2","4242","python3.12","127.0.0.1","cupy_fill","1","7","(128, 1, 1)","(8, 1, 1)","0","9.0","Command line profiler metrics","dram__bytes_read.sum","byte","0"
==PROF== Disconnected from process 4242
'''


def test_ncu_csv_gives_each_named_kernels_metrics_in_base_units():
    got = counters._parse_ncu_csv(NCU_CSV, ("vadd", "horner"))
    assert got == {"vadd": {"dram__bytes_read.sum": 536880000.0,
                            "sm__throughput.avg.pct_of_peak_sustained_elapsed": 34.78},
                   "horner": {"dram__bytes_read.sum": 67108864.0}}


def _values(read, write, fadd, fmul, ffma, sm, mem, dram):
    names = counters.COUNTS + counters.FLOPS + counters.PERCENTS
    return dict(zip(names, (read, write, fadd, fmul, ffma, sm, mem, dram)))


def test_deviations_are_relative_to_ncu_and_the_goals_judge_them():
    res = report.Results()
    ours = _values(1010, 0, 0, 0, 100, 33.0, 70.0, 70.0)
    theirs = _values(1000, 0, 0, 0, 100, 30.0, 70.0, 70.0)
    counters._deviation_rows(res, "vadd", ours, theirs)
    counters._deviation_rows(res, "horner", theirs, theirs)
    counters._goals(res)
    verdicts = {g.text: (g.ratio, g.verdict) for g in res.goals}
    assert verdicts["vadd: DRAM bytes within 2% of ncu"] == (1.0, "PASS")
    assert verdicts["vadd: FP32 FLOPs within 2% of ncu"] == (0.0, "PASS")
    ratio, verdict = verdicts["vadd: SM, memory and DRAM throughput % within 10% of ncu"]
    assert abs(ratio - 10.0) < 1e-9 and verdict == "PASS"  # 33 vs 30 is 10%
    assert verdicts["horner: DRAM bytes within 2% of ncu"] == (0.0, "PASS")
    assert verdicts["cell start to the counters report <= 0.2x the ncu run of the same CUBIN"][1].startswith("n/a")
