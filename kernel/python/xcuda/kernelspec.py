"""`python -m xcuda install`: writes the kernelspec that starts the xcuda kernel hosted by the
Python running this command (sys.executable), so the kernel's cells see that environment's
packages (torch, CuPy, RAPIDS...)."""

import argparse
import json
import os
import re
import shutil
import sys
import tempfile

from xcuda import _python_debugger

DEFAULT_NAME = "xcuda"
DEFAULT_DISPLAY_NAME = "Python 3 (xcuda)"
LOGOS = ("logo-32x32.png", "logo-64x64.png", "logo-svg.svg")
# What jupyter_client accepts as a kernel name.
_VALID_NAME = re.compile(r"^[a-z0-9._-]+$", re.IGNORECASE)


class InstallError(Exception):
    """A kernelspec that cannot be written; the message says why and what to do."""


def user_data_dir():
    """Jupyter's per-user data directory, as jupyter_core computes it."""
    try:
        from jupyter_core.paths import jupyter_data_dir
    except ImportError:  # jupyter_core is not needed to run the kernel: the same rule by hand
        if os.environ.get("JUPYTER_DATA_DIR"):
            return os.environ["JUPYTER_DATA_DIR"]
        home = os.path.expanduser("~")
        if sys.platform == "darwin":
            return os.path.join(home, "Library", "Jupyter")
        if os.name == "nt":
            return os.path.join(os.environ.get("APPDATA", home), "jupyter")
        return os.path.join(os.environ.get("XDG_DATA_HOME") or os.path.join(home, ".local", "share"), "jupyter")
    return jupyter_data_dir()


def jupyter_search_path():
    """Where Jupyter looks for kernelspecs, first match wins."""
    try:
        from jupyter_core.paths import jupyter_path
    except ImportError:
        extra = [p for p in os.environ.get("JUPYTER_PATH", "").split(os.pathsep) if p]
        system = ["/usr/local/share/jupyter", "/usr/share/jupyter"] if os.name != "nt" else []
        return extra + [user_data_dir(), os.path.join(sys.prefix, "share", "jupyter")] + system
    return jupyter_path()


def kernelspec(display_name):
    return {
        "argv": [sys.executable, "-m", "xcuda", "-f", "{connection_file}"],
        "display_name": display_name,
        "language": "python",
        # SIGINT interrupts a running cell (also inside GPU waits and input()).
        "interrupt_mode": "signal",
        # JupyterLab offers its debugger where the kernel's Python has debugpy.
        "metadata": {"debugger": _python_debugger.installed()},
    }


def _python_of(spec_dir):
    """The Python an existing kernelspec starts, or None when it cannot be read."""
    try:
        with open(os.path.join(spec_dir, "kernel.json"), encoding="utf-8") as f:
            argv = json.load(f).get("argv") or [None]
        return argv[0]
    except (OSError, ValueError, AttributeError):
        return None


def install(data_dir, name=DEFAULT_NAME, display_name=DEFAULT_DISPLAY_NAME, out=sys.stdout):
    """Writes DATA_DIR/kernels/NAME whole or not at all; returns its path."""
    if not _VALID_NAME.match(name):
        raise InstallError(f"the kernel name {name!r} is not valid: use letters, digits, '.', '-' and '_' "
                           f"(for example --name xcuda-{os.path.basename(sys.prefix) or 'env'})")
    kernels = os.path.join(data_dir, "kernels")
    destination = os.path.join(kernels, name)
    logo_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "resources")
    try:
        os.makedirs(kernels, exist_ok=True)
        staging = tempfile.mkdtemp(prefix=f".{name}-", dir=kernels)
    except OSError as e:
        raise InstallError(f"cannot write the kernelspec to {destination}: {e.strerror or e}; "
                           "choose a directory you can write (--user, --sys-prefix in an environment "
                           "you own, or --prefix PREFIX)") from None
    previous = _python_of(destination) if os.path.isdir(destination) else None
    retired = None
    try:
        with open(os.path.join(staging, "kernel.json"), "w", encoding="utf-8") as f:
            json.dump(kernelspec(display_name), f, indent=2)
            f.write("\n")
        for logo in LOGOS:
            shutil.copyfile(os.path.join(logo_dir, logo), os.path.join(staging, logo))
        os.chmod(staging, 0o755)
        if os.path.isdir(destination):
            retired = tempfile.mkdtemp(prefix=f".{name}-old-", dir=kernels)
            os.rename(destination, os.path.join(retired, name))
        os.rename(staging, destination)
    except OSError as e:
        shutil.rmtree(staging, ignore_errors=True)
        if retired is not None and not os.path.exists(destination):
            os.rename(os.path.join(retired, name), destination)  # the old one back as it was
        raise InstallError(f"cannot write the kernelspec to {destination}: {e.strerror or e}") from None
    finally:
        if retired is not None:
            shutil.rmtree(retired, ignore_errors=True)
    print(f"Installed kernelspec {name} in {destination} (runs {sys.executable} -m xcuda)", file=out)
    if previous is not None and previous != sys.executable:
        print(f"It replaced the kernelspec {name} that started {previous}.", file=out)
    _warn_if_shadowed(name, destination, out)
    return destination


def _warn_if_shadowed(name, destination, out):
    # Jupyter takes the first kernelspec of a name along its path: one found before ours wins.
    for data_dir in jupyter_search_path():
        candidate = os.path.join(data_dir, "kernels", name)
        if os.path.realpath(candidate) == os.path.realpath(destination):
            return
        if os.path.isfile(os.path.join(candidate, "kernel.json")):
            print(f"Note: Jupyter finds the kernelspec {name} in {candidate} first (it starts "
                  f"{_python_of(candidate)}); remove it, or install this one with --name another-name.",
                  file=out)
            return


def parse(argv):
    parser = argparse.ArgumentParser(
        prog="python -m xcuda install",
        description="Install the xcuda kernelspec for this Python "
                    f"({sys.executable}): Jupyter then starts the kernel with it.")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true",
                       help="for the current user, in Jupyter's user data directory (the default)")
    where.add_argument("--sys-prefix", action="store_true",
                       help=f"in this environment: {os.path.join(sys.prefix, 'share', 'jupyter')}")
    where.add_argument("--prefix", metavar="PREFIX", help="in PREFIX/share/jupyter")
    parser.add_argument("--name", default=DEFAULT_NAME, help=f"kernel name (default {DEFAULT_NAME})")
    parser.add_argument("--display-name", default=DEFAULT_DISPLAY_NAME,
                        help=f"name shown in Jupyter (default {DEFAULT_DISPLAY_NAME!r})")
    return parser.parse_args(argv)


def main(argv):
    args = parse(argv)
    if args.prefix is not None:
        data_dir = os.path.join(os.path.abspath(args.prefix), "share", "jupyter")
    elif args.sys_prefix:
        data_dir = os.path.join(sys.prefix, "share", "jupyter")
    else:
        data_dir = user_data_dir()
    try:
        install(data_dir, args.name, args.display_name)
    except InstallError as e:
        print(f"xcuda install: {e}", file=sys.stderr)
        return 1
    return 0
