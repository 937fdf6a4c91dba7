"""Which errors check_notebook lets an executed notebook show, on made-up outputs (no kernel runs)."""
from nbformat.v4 import new_code_cell, new_notebook, new_output

from notebook_checks import NO_DEVICE_ERROR, SKIP_MARK, check_notebook, tag_problems

GPU_TAGS = ["gpu", "raises-exception"]


def executed(*outputs, tags=(), **expectations):
    cell = new_code_cell("saxpy[1, 32](2.0, x, y, n)", execution_count=1, outputs=list(outputs))
    if tags:
        cell.metadata["tags"] = list(tags)
    if expectations:
        cell.metadata["xcuda"] = expectations
    return cell


def printed(text):
    return new_output("stream", name="stdout", text=text)


def raised(ename):
    return new_output("error", ename=ename, evalue="message", traceback=[])


def problems(cell, device):
    checked = executed(printed("checked\n"), expect=["checked"])
    return check_notebook(new_notebook(cells=[checked, cell]), device)


def test_a_gpu_cell_may_stop_with_no_device_error_with_no_device():
    assert problems(executed(raised(NO_DEVICE_ERROR), tags=GPU_TAGS), "none") == []


def test_on_a_gpu_or_the_cpu_device_no_cell_may_raise_not_even_a_gpu_cell():
    for device, where in (("gpu", "on a GPU"), ("cpu", "on the CPU device")):
        found = problems(executed(raised(NO_DEVICE_ERROR), tags=GPU_TAGS), device)
        assert len(found) == 1 and f"{where} every cell must run clean" in found[0], found


def test_an_untagged_cell_may_not_raise_no_device_error():
    found = problems(executed(raised(NO_DEVICE_ERROR)), "none")
    assert len(found) == 1 and f"raised {NO_DEVICE_ERROR}" in found[0], found


def test_a_gpu_cell_may_not_raise_another_error_with_no_device():
    found = problems(executed(raised("NameError"), tags=GPU_TAGS), "none")
    assert len(found) == 1 and "raised NameError" in found[0], found


def test_a_gpu_cell_that_runs_clean_with_no_device_is_wrongly_tagged():
    found = problems(executed(printed("done\n"), tags=GPU_TAGS), "none")
    assert len(found) == 1 and "untag it" in found[0], found


def test_a_gpu_cell_that_skipped_for_a_missing_library_need_not_raise():
    skipped = executed(printed(f"CuPy is not importable{SKIP_MARK} CuPy cell\n"), tags=GPU_TAGS,
                       expect_gpu=["CuPy checked"], needs=["cupy"])
    for device in ("none", "gpu", "cpu"):
        assert problems(skipped, device) == [], device


def test_a_gpu_cell_shows_what_it_printed_before_the_error():
    cell = executed(printed("signature\n"), raised(NO_DEVICE_ERROR), tags=GPU_TAGS, expect=["signature"],
                    expect_run=["launch checked"])
    assert problems(cell, "none") == []
    assert len(problems(executed(raised(NO_DEVICE_ERROR), tags=GPU_TAGS, expect=["signature"]), "none")) == 1


def test_results_are_expected_wherever_kernels_ran_and_gpu_texts_only_on_a_gpu():
    cell = executed(printed("saxpy checked\n"), tags=GPU_TAGS, expect_run=["saxpy checked"],
                    expect_gpu=["on the GPU"], expect_cpu_device=["on the CPU device"])
    assert len(problems(cell, "gpu")) == 1 and "'on the GPU'" in problems(cell, "gpu")[0]
    assert len(problems(cell, "cpu")) == 1 and "'on the CPU device'" in problems(cell, "cpu")[0]
    ran = executed(printed("saxpy checked on the CPU device\n"), tags=GPU_TAGS, expect_run=["saxpy checked"],
                   expect_no_gpu=["CPU device"])
    assert problems(ran, "cpu") == []


def test_gpu_and_raises_exception_tags_go_together():
    def tagged(*tags):
        return tag_problems(new_notebook(cells=[executed(tags=tags)]))

    assert tagged(*GPU_TAGS) == [] and tagged() == []
    assert len(tagged("gpu")) == 1
    assert len(tagged("raises-exception")) == 1
