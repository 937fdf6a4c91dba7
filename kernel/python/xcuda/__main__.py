"""`python -m xcuda`: runs the xcuda kernel as Jupyter starts it (the kernelspec's argv), or
installs that kernelspec for the Python running this."""

import os
import sys

USAGE = """\
usage: python -m xcuda install [--user | --sys-prefix | --prefix PREFIX] [--name NAME] [--display-name TEXT]
       python -m xcuda -f CONNECTION_FILE    (what Jupyter runs; see the kernelspec)
       python -m xcuda --version"""


def _connection_file(argv):
    """The value of -f (`-f FILE` or `-f=FILE`, as ipykernel takes it), or None."""
    for i, arg in enumerate(argv):
        if arg in ("-f", "--f") and i + 1 < len(argv):
            return argv[i + 1]
        for prefix in ("-f=", "--f="):
            if arg.startswith(prefix):
                return arg[len(prefix):]
    return None


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["install"]:
        from xcuda.kernelspec import main as install

        return install(argv[1:])
    if argv[:1] in (["--version"], ["-V"]):
        from xcuda import __version__

        print(f"xcuda {__version__} (Python {sys.version.split()[0]} at {sys.executable})")
        return 0
    if argv[:1] in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    connection_file = _connection_file(argv)
    if connection_file is None:
        print(f"{USAGE}\n\nxcuda is a Jupyter kernel: install its kernelspec (python -m xcuda install) "
              "and pick it in Jupyter.", file=sys.stderr)
        return 2
    if not os.path.isfile(connection_file):
        print(f"xcuda: the connection file {connection_file!r} does not exist; Jupyter writes it "
              "before it starts the kernel (run the kernel from Jupyter, or pass an existing file)",
              file=sys.stderr)
        return 2
    from xcuda import _kernel

    return _kernel.run(connection_file)


if __name__ == "__main__":
    sys.exit(main())
