#!/usr/bin/env python3
"""Prints an executed notebook as a reader wants it in a terminal (.ci/quickstart uses it).

Markdown cells as their text; code cells whole, as `In [n]: ` and the code (continuation lines
aligned under it); then the outputs, indented: stream text, `Out[n]: ` and the text/plain of
results and displays. Where text/plain is only a placeholder (`<IPython.core.display.HTML
object>`), the HTML says what there is: its tables as text tables, its other text as lines.
Images and charts are a note that the HTML file shows them; errors are `ename: evalue`.

    python3 .ci/show_notebook.py NOTEBOOK.ipynb [--html PATH]

Reads the notebook as JSON (nbformat 4), so it needs nothing beyond the standard library.
"""

import argparse
import json
import re
import sys
import textwrap
from html.parser import HTMLParser

INDENT = "    "
CHART_NOTE = "(chart: see the HTML file)"
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# A repr that says only what kind of object it is: `<IPython.core.display.HTML object>`,
# `<Figure size 640x480 with 1 Axes>`, `<foo.Bar object at 0x7f...>`.
_PLACEHOLDER = re.compile(r"^<[^<>\n]*>$")
_IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/svg+xml")
_CHART_HTML = re.compile(r"<(svg|img|canvas)\b", re.IGNORECASE)
_BLOCK_TAGS = {"p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "hr", "section"}
_SKIP_TAGS = {"style", "script", "head", "title"}


def _text(value):
    """A notebook's multi-line string: a str or a list of lines."""
    return "".join(value) if isinstance(value, list) else (value or "")


def _terminal_text(text):
    """Without ANSI colours, and with each line as a terminal leaves it after carriage returns."""
    lines = _ANSI.sub("", text).split("\n")
    return "\n".join(line.rstrip("\r").split("\r")[-1] for line in lines)


def format_table(rows, caption=None):
    """rows: lists of (text, is_header) cells. A text table: columns padded to their widest
    cell, numbers right-aligned, a rule under a leading row of header cells."""
    if not rows:
        return caption or ""
    width = max(len(row) for row in rows)
    texts = [[text for text, _ in row] + [""] * (width - len(row)) for row in rows]
    widths = [max(len(row[i]) for row in texts) for i in range(width)]
    number = re.compile(r"^[-+]?[\d,.]+\s*(%|[a-zA-Z]{1,3}/?s?|x)?$")
    lines = [caption] if caption else []
    for r, row in enumerate(texts):
        cells = [cell.rjust(w) if number.match(cell) else cell.ljust(w) for cell, w in zip(row, widths)]
        lines.append("  ".join(cells).rstrip())
        if r == 0 and len(rows) > 1 and all(is_header for _, is_header in rows[0]):
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


class _HtmlText(HTMLParser):
    """The text of an HTML fragment: its tables as text tables (format_table), the rest as lines
    broken where block elements are."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.blocks = []     # finished pieces of text, in order
        self.line = []       # text of the current line outside tables
        self.tables = []     # a stack: {"rows", "row", "cell", "caption", "in_caption"}
        self.skip = 0
        self.charts = 0

    def _flush_line(self):
        text = " ".join("".join(self.line).split())
        if text:
            self.blocks.append(text)
        self.line = []

    def handle_starttag(self, tag, attrs):
        if tag in _SKIP_TAGS:
            self.skip += 1
        elif tag in ("svg", "img", "canvas"):
            self.charts += 1
        elif tag == "table":
            self._flush_line()
            self.tables.append({"rows": [], "row": None, "cell": None, "caption": [], "in_caption": False})
        elif self.tables:
            table = self.tables[-1]
            if tag == "tr":
                table["row"] = []
            elif tag in ("td", "th"):
                if table["row"] is None:
                    table["row"] = []
                table["cell"] = ([], tag == "th")
            elif tag == "caption":
                table["in_caption"] = True
            elif tag == "br" and table["cell"] is not None:
                table["cell"][0].append(" ")
        elif tag in _BLOCK_TAGS:
            self._flush_line()

    def handle_endtag(self, tag):
        if tag in _SKIP_TAGS:
            self.skip = max(0, self.skip - 1)
        elif tag == "table" and self.tables:
            table = self.tables.pop()
            self._end_cell(table)
            self._end_row(table)
            caption = " ".join("".join(table["caption"]).split()) or None
            text = format_table(table["rows"], caption)
            if self.tables and self.tables[-1]["cell"] is not None:  # a table in a cell: flattened
                self.tables[-1]["cell"][0].append(" ".join(text.split()))
            elif text:
                self.blocks.append(text)
        elif self.tables:
            table = self.tables[-1]
            if tag in ("td", "th"):
                self._end_cell(table)
            elif tag == "tr":
                self._end_cell(table)
                self._end_row(table)
            elif tag == "caption":
                table["in_caption"] = False
        elif tag in _BLOCK_TAGS:
            self._flush_line()

    @staticmethod
    def _end_cell(table):
        if table["cell"] is not None and table["row"] is not None:
            parts, is_header = table["cell"]
            table["row"].append((" ".join("".join(parts).split()), is_header))
        table["cell"] = None

    @staticmethod
    def _end_row(table):
        if table["row"]:
            table["rows"].append(table["row"])
        table["row"] = None

    def handle_data(self, data):
        if self.skip:
            return
        if self.tables:
            table = self.tables[-1]
            if table["cell"] is not None:
                table["cell"][0].append(data)
            elif table["in_caption"]:
                table["caption"].append(data)
        else:
            self.line.append(data)

    def text(self):
        self.close()
        self._flush_line()
        return "\n".join(self.blocks)


def html_to_text(html):
    """(text, has_chart): the HTML's tables as text tables and its other text as lines."""
    parser = _HtmlText()
    parser.feed(html)
    return parser.text(), parser.charts > 0


def _indent(text, first=INDENT, rest=INDENT):
    lines = text.rstrip("\n").split("\n")
    return "\n".join([first + lines[0]] + [rest + line if line else "" for line in lines[1:]])


def format_output(output, execution_count=None):
    """One output of a code cell as indented text ("" for one with nothing to show)."""
    kind = output.get("output_type")
    if kind == "stream":
        text = _terminal_text(_text(output.get("text")))
        return _indent(text) if text.strip() else ""
    if kind == "error":
        return _indent(_terminal_text(f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"))
    if kind not in ("execute_result", "display_data"):
        return ""
    data = output.get("data", {})
    plain = _terminal_text(_text(data.get("text/plain"))).rstrip("\n")
    html = _text(data.get("text/html"))
    chart = any(kind_ in data for kind_ in _IMAGE_TYPES) or bool(_CHART_HTML.search(html))
    if plain and not _PLACEHOLDER.match(plain.strip()):
        text = plain
    elif html:
        text, _ = html_to_text(html)
    elif "text/markdown" in data:
        text = _text(data["text/markdown"])
    elif "text/latex" in data:
        text = _text(data["text/latex"])
    else:
        text = "" if chart else plain
    if chart:
        text = (text + "\n" if text else "") + CHART_NOTE
    if not text.strip():
        return ""
    if kind == "execute_result":
        label = f"Out[{execution_count if execution_count is not None else ' '}]: "
        return _indent(text, first=INDENT + label, rest=INDENT + " " * len(label))
    return _indent(text)


def wrap_markdown(source, width=100):
    """Long paragraph and list lines wrapped at `width`; code blocks, tables and indented lines
    as they are."""
    out, fenced = [], False
    for line in source.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        list_item = re.match(r"^([-*+]|\d+[.)]) ", line)
        if fenced or len(line) <= width or line.startswith((" ", "\t", "|", "#")):
            out.append(line)
        else:
            rest = " " * len(list_item.group(0)) if list_item else ""
            out.append(textwrap.fill(line, width, subsequent_indent=rest, break_on_hyphens=False,
                                     break_long_words=False))
    return "\n".join(out)


def format_cell(cell):
    source = _text(cell.get("source")).rstrip("\n")
    kind = cell.get("cell_type")
    if kind == "markdown":
        return wrap_markdown(source)
    if kind != "code":
        return ""
    count = cell.get("execution_count")
    label = f"In [{count if count is not None else ' '}]: "
    parts = [_indent(source or "", first=label, rest=" " * len(label))]
    for output in cell.get("outputs", []):
        text = format_output(output, count)
        if text:
            parts.append(text)
    return "\n".join(parts)


def format_notebook(notebook):
    """The whole notebook (a dict as read from its JSON) as text."""
    cells = (format_cell(cell) for cell in notebook.get("cells", []))
    return "\n\n".join(cell for cell in cells if cell) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook")
    parser.add_argument("--html", help="the notebook's HTML version, named at the end")
    args = parser.parse_args(argv)
    with open(args.notebook, encoding="utf-8") as f:
        notebook = json.load(f)
    sys.stdout.write(format_notebook(notebook))
    if args.html:
        print(f"\nThe notebook as HTML, charts and tables as the browser shows them: {args.html}")


if __name__ == "__main__":
    main()
