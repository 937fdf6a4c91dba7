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


def problems(cell, gpu):
    checked = executed(printed("checked\n"), expect=["checked"])
    return check_notebook(new_notebook(cells=[checked, cell]), gpu)


def test_a_gpu_cell_may_stop_with_no_device_error_without_a_gpu():
    assert problems(executed(raised(NO_DEVICE_ERROR), tags=GPU_TAGS), gpu=False) == []


def test_with_a_gpu_no_cell_may_raise_not_even_a_gpu_cell():
    found = problems(executed(raised(NO_DEVICE_ERROR), tags=GPU_TAGS), gpu=True)
    assert len(found) == 1 and "every cell must run clean" in found[0], found


def test_an_untagged_cell_may_not_raise_no_device_error():
    found = problems(executed(raised(NO_DEVICE_ERROR)), gpu=False)
    assert len(found) == 1 and f"raised {NO_DEVICE_ERROR}" in found[0], found


def test_a_gpu_cell_may_not_raise_another_error_without_a_gpu():
    found = problems(executed(raised("NameError"), tags=GPU_TAGS), gpu=False)
    assert len(found) == 1 and "raised NameError" in found[0], found


def test_a_gpu_cell_that_runs_clean_without_a_gpu_is_wrongly_tagged():
    found = problems(executed(printed("done\n"), tags=GPU_TAGS), gpu=False)
    assert len(found) == 1 and "untag it" in found[0], found


def test_a_gpu_cell_that_skipped_for_a_missing_library_need_not_raise():
    skipped = executed(printed(f"CuPy {SKIP_MARK}\n"), tags=GPU_TAGS, expect_gpu=["CuPy checked"], needs=["cupy"])
    assert problems(skipped, gpu=False) == []
    assert problems(skipped, gpu=True) == []


def test_a_gpu_cell_shows_what_it_printed_before_the_error():
    cell = executed(printed("signature\n"), raised(NO_DEVICE_ERROR), tags=GPU_TAGS, expect=["signature"],
                    expect_gpu=["launch checked"])
    assert problems(cell, gpu=False) == []
    assert len(problems(executed(raised(NO_DEVICE_ERROR), tags=GPU_TAGS, expect=["signature"]), gpu=False)) == 1


def test_gpu_and_raises_exception_tags_go_together():
    def tagged(*tags):
        return tag_problems(new_notebook(cells=[executed(tags=tags)]))

    assert tagged(*GPU_TAGS) == [] and tagged() == []
    assert len(tagged("gpu")) == 1
    assert len(tagged("raises-exception")) == 1
