"""%cuda_restart outside the xcuda kernel (here: IPython with the extension, as ipykernel runs
it): it cannot replace a process it does not own, and says what to do instead."""
import pytest
from IPython.core.error import UsageError


def test_cuda_restart_outside_the_xcuda_kernel_says_to_restart_from_the_frontend(ip):
    with pytest.raises(UsageError, match="only in that kernel.*restart from the frontend"):
        ip.run_line_magic("cuda_restart", "")


def test_cuda_restart_help_says_what_it_keeps(ip, capsys):
    ip.run_line_magic("cuda_restart", "-h")
    assert "saves the\nnamespace" in capsys.readouterr().out
