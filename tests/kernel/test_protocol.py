"""jupyter_kernel_test's KernelTests, every attribute filled: the 12 protocol checks."""

import jupyter_kernel_test


class XcudaKernelTests(jupyter_kernel_test.KernelTests):
    kernel_name = "xcuda"
    language_name = "python"
    file_extension = ".py"

    code_hello_world = "print('hello, world')"
    code_stderr = "import sys; print('test', file=sys.stderr)"
    code_generate_error = "raise ValueError('boom')"
    code_execute_result = [
        {"code": "6 * 7", "result": "42"},
        {"code": "'a' + 'b'", "result": "'ab'"},
        {"code": "from IPython.display import HTML; HTML('<b>x</b>')", "mime": "text/html",
         "result": "<b>x</b>"},
    ]
    code_display_data = [
        {"code": "from IPython.display import HTML, display; display(HTML('<b>x</b>'))",
         "mime": "text/html"},
        {"code": "from IPython.display import Math, display; display(Math('x^2'))",
         "mime": "text/latex"},
    ]
    code_clear_output = "from IPython.display import clear_output; clear_output()"
    code_page_something = "print?"
    code_inspect_sample = "zip"
    completion_samples = [
        {"text": "zi", "matches": {"zip"}},
        {"text": "import collections; collections.OrderedDi", "matches": {"OrderedDict"}},
    ]
    complete_code_samples = ["1", "print('hello, world')", "def f(x):\n    return x * 2\n\n"]
    incomplete_code_samples = ["print('''hello", "def f(x):\n    x * 2"]
    invalid_code_samples = ["import = 7q"]
    code_history_pattern = "6*7"
    supported_history_operations = ("tail", "range", "search")
