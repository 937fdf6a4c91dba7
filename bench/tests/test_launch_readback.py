"""Which readback the xcuda-native round trip uses (no GPU needed): .get(out=, stream=) when
DeviceArray.get takes both keywords, .get(stream=) when only that, else synchronise + .get()."""
import os
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from launch import readback_form  # noqa: E402

NP = types.SimpleNamespace(zeros=lambda n, dtype: [0.0] * n, empty=lambda n, dtype: [None] * n, float32="float32")


def fake_xcuda(get):
    array = types.SimpleNamespace(get=get)
    return types.SimpleNamespace(to_device=lambda host: array)


def test_out_and_stream_keywords_are_used_when_get_takes_them():
    seen = {}

    def get(out=None, stream=None):
        seen.update(out=out, stream=stream)
        return out
    assert readback_form(fake_xcuda(get), NP, "s") == "out+stream"
    assert seen["stream"] == "s" and seen["out"] == [None]


def test_stream_alone_when_get_takes_no_out():
    def get(stream=None):
        return [0.0]
    assert readback_form(fake_xcuda(get), NP, "s") == "stream"


def test_plain_get_means_synchronise_first():
    def get():
        return [0.0]
    assert readback_form(fake_xcuda(get), NP, "s") == "sync+get"


def test_an_error_other_than_an_unknown_keyword_is_not_hidden():
    def get(out=None, stream=None):
        raise RuntimeError("CUDA error: an illegal memory access was encountered")
    try:
        readback_form(fake_xcuda(get), NP, "s")
    except RuntimeError as exc:
        assert "illegal memory access" in str(exc)
    else:
        raise AssertionError("a device error during the probe must reach the row")
