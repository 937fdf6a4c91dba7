"""The quickstart's printer (.ci/show_notebook.py) on a small made-up executed notebook: whole
cells, stream text, an HTML table as a text table, a chart as a note, an error as one line."""

import importlib.util
import json
import pathlib
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / ".ci" / "show_notebook.py"


def _load():
    spec = importlib.util.spec_from_file_location("show_notebook", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


show = _load()

TABLE_HTML = (
    "<div class='report'><style>.report td{padding:2px}</style>"
    "<table><caption>Resources</caption>"
    "<thead><tr><th>Kernel</th><th>Registers</th><th>Occupancy</th></tr></thead>"
    "<tbody><tr><td>saxpy</td><td>8</td><td>100%</td></tr>"
    "<tr><td>tiled_matmul</td><td>40</td><td>62.5%</td></tr></tbody></table>"
    "<p>Limits from the <b>built-in</b> table.</p></div>"
)

NOTEBOOK = {
    "nbformat": 4,
    "nbformat_minor": 5,
    "metadata": {},
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# A title\n", "\n", "Some prose."]},
        {
            "cell_type": "code",
            "execution_count": 1,
            "metadata": {},
            "source": ["%%cuda\n", 'extern "C" __global__ void k(int* p) {\n', "    p[0] = 1;\n", "}"],
            "outputs": [],
        },
        {
            "cell_type": "code",
            "execution_count": 2,
            "metadata": {},
            "source": "print('hello')\nprint('\\x1b[31mred\\x1b[0m')",
            "outputs": [{"output_type": "stream", "name": "stdout", "text": ["hello\n", "\x1b[31mred\x1b[0m\n"]}],
        },
        {
            "cell_type": "code",
            "execution_count": 3,
            "metadata": {},
            "source": "report",
            "outputs": [
                {
                    "output_type": "execute_result",
                    "execution_count": 3,
                    "metadata": {},
                    "data": {"text/html": TABLE_HTML, "text/plain": "<IPython.core.display.HTML object>"},
                }
            ],
        },
        {
            "cell_type": "code",
            "execution_count": 4,
            "metadata": {},
            "source": "plt.plot([1, 2])",
            "outputs": [
                {
                    "output_type": "display_data",
                    "metadata": {},
                    "data": {"image/png": "iVBORw0KGgo=", "text/plain": "<Figure size 640x480 with 1 Axes>"},
                }
            ],
        },
        {
            "cell_type": "code",
            "execution_count": 5,
            "metadata": {},
            "source": "1 / 0",
            "outputs": [
                {
                    "output_type": "error",
                    "ename": "ZeroDivisionError",
                    "evalue": "division by zero",
                    "traceback": ["\x1b[0;31m---------\x1b[0m", "Traceback (most recent call last)", "..."],
                }
            ],
        },
        {
            "cell_type": "code",
            "execution_count": 6,
            "metadata": {},
            "source": "x",
            "outputs": [
                {"output_type": "execute_result", "execution_count": 6, "metadata": {}, "data": {"text/plain": "42"}}
            ],
        },
    ],
}


def test_whole_notebook_as_text():
    text = show.format_notebook(NOTEBOOK)
    expected = "\n".join([
        "# A title",
        "",
        "Some prose.",
        "",
        "In [1]: %%cuda",
        '        extern "C" __global__ void k(int* p) {',
        "            p[0] = 1;",
        "        }",
        "",
        "In [2]: print('hello')",
        "        print('\\x1b[31mred\\x1b[0m')",
        "    hello",
        "    red",
        "",
        "In [3]: report",
        "    Out[3]: Resources",
        "            Kernel        Registers  Occupancy",
        "            ------------  ---------  ---------",
        "            saxpy                 8       100%",
        "            tiled_matmul         40      62.5%",
        "            Limits from the built-in table.",
        "",
        "In [4]: plt.plot([1, 2])",
        "    (chart: see the HTML file)",
        "",
        "In [5]: 1 / 0",
        "    ZeroDivisionError: division by zero",
        "",
        "In [6]: x",
        "    Out[6]: 42",
        "",
    ])
    assert text == expected


def test_useful_text_plain_is_kept_and_chart_in_html_noted():
    output = {
        "output_type": "display_data",
        "data": {
            "text/plain": "Roofline: saxpy is memory-bound",
            "text/html": "<div><svg width='10'></svg><table><tr><td>x</td></tr></table></div>",
        },
    }
    assert show.format_output(output) == "    Roofline: saxpy is memory-bound\n    (chart: see the HTML file)"


def test_html_without_table_is_its_text():
    text, chart = show.html_to_text("<b>xcuda</b> renders <i>rich</i> output<br>second line")
    assert (text, chart) == ("xcuda renders rich output\nsecond line", False)


def test_row_headers_and_ragged_rows():
    text, _ = show.html_to_text("<table><tr><th>kernel</th><td>xcuda</td></tr><tr><th>arch</th></tr></table>")
    assert text == "kernel  xcuda\narch"


def test_command_line_names_the_html(tmp_path):
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(NOTEBOOK))
    result = subprocess.run([sys.executable, str(SCRIPT), str(path), "--html", "/x/quickstart.html"],
                            capture_output=True, text=True, check=True)
    assert "    ZeroDivisionError: division by zero" in result.stdout
    assert result.stdout.rstrip().endswith("/x/quickstart.html")
