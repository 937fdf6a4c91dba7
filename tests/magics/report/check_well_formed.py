"""Every HTML fragment and SVG the report samples wrote must be well-formed XML (so the
markup is balanced and every user string was escaped), SVGs must be SVG with a <title>,
and no sample may contain a live <script> element."""
import pathlib
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"


def main(directory: str) -> int:
    root = pathlib.Path(directory)
    fragments = sorted(root.glob("*.fragment.html"))
    svgs = sorted(root.glob("*.svg"))
    if not fragments or not svgs:
        print(f"no samples in {root}: run xcuda-report-samples first", file=sys.stderr)
        return 1
    failures = 0
    for path in fragments + svgs:
        text = path.read_text(encoding="utf-8")
        try:
            element = ET.fromstring(text)
        except ET.ParseError as error:
            print(f"{path.name}: not well-formed: {error}", file=sys.stderr)
            failures += 1
            continue
        if "<script" in text:
            print(f"{path.name}: contains an unescaped <script", file=sys.stderr)
            failures += 1
        if path.suffix == ".svg":
            if element.tag != SVG + "svg" or element.find(SVG + "title") is None:
                print(f"{path.name}: root is {element.tag}, or it has no <title>", file=sys.stderr)
                failures += 1
        print(f"ok {path.name}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
