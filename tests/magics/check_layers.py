"""The C++ folders are layers: a file may include headers of its own folder and of the folders
below it, never above, always by folder/name. Run as a script it checks magics/python and the CPU
device and prints each include that goes up; test_layers.py runs it in ctest.

magics/python's order, bottom to top, is magics/CMakeLists.txt's: session, display, launch,
kernels, profiling, ipython, then the top level (module.cpp). The CPU device's
(cuda-runtime/cpu-device/DESIGN.md): include (what the runtime sees), ptx, check, exec, driver;
a file's layer is its top folder there (exec/ops/ is exec)."""
import pathlib
import re
import sys

LAYERS = ["session", "display", "launch", "kernels", "profiling", "ipython", "."]
CPU_DEVICE_LAYERS = ["include", "ptx", "check", "exec", "driver"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def upward_includes(root, layers=LAYERS, by_top_folder=False):
    """(file, included header, why) for every include in `root` that breaks the layering.
    by_top_folder: a file's layer is the first folder of its path (sub-folders belong to it)."""
    root = pathlib.Path(root)
    rank = {name: i for i, name in enumerate(layers)}
    problems = []
    for path in sorted(root.rglob("*")):
        if path.suffix not in (".cpp", ".hpp"):
            continue
        folder = path.parent.relative_to(root).as_posix()
        if by_top_folder:
            folder = folder.split("/")[0]
        if folder not in rank:
            problems.append((path.relative_to(root).as_posix(), "", f"folder {folder!r} is not a layer"))
            continue
        for header in INCLUDE.findall(path.read_text()):
            target = header.split("/")[0] if "/" in header else None
            if target is None:
                if not (path.parent / header).exists():
                    continue  # not one of ours (a system or library header in quotes)
                problems.append((path.relative_to(root).as_posix(), header, "include by folder/name"))
            elif target not in rank:
                continue  # another library's header (xcuda/rt/..., say)
            elif rank[target] > rank[folder]:
                problems.append((path.relative_to(root).as_posix(), header, f"{target}/ is above {folder}/"))
    return problems


def main(argv):
    repo = pathlib.Path(__file__).resolve().parents[2]
    if len(argv) > 1:
        problems = upward_includes(argv[1])
    else:
        problems = upward_includes(repo / "magics" / "python")
        problems += upward_includes(repo / "cuda-runtime" / "cpu-device", CPU_DEVICE_LAYERS, by_top_folder=True)
    for file, header, why in problems:
        print(f"{file}: #include \"{header}\": {why}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
