"""xcuda._toolkit finds NVRTC, its headers, nvJitLink and CUPTI where Python users have them, in
the order of preference: $CUDA_HOME, NVIDIA's wheels in sys.path (CUDA 13's nvidia/cu13 layout,
then CUDA 12's nvidia/<piece> one), $CONDA_PREFIX, a system toolkit. The trees here are made up in
a temporary directory with the files the real wheels install (their RECORDs, 13.5 and 12.9), so
nothing of the machine's own toolkit takes part."""
from xcuda._toolkit import Place, find_compute_sanitizer, find_places


def touch(path, text=""):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)


def cu13_wheels(site, cccl=True, runtime=True, nvjitlink=True, cupti=True):
    """site-packages after `pip install nvidia-cuda-nvrtc [nvidia-cuda-runtime nvidia-cuda-cccl ...]`."""
    root = site / "nvidia" / "cu13"
    touch(root / "lib" / "libnvrtc.so.13")
    touch(root / "lib" / "libnvrtc-builtins.so.13.5")
    touch(root / "include" / "nvrtc.h")
    if runtime:
        touch(root / "include" / "cuda_fp16.h")
        touch(root / "include" / "cuda.h", "#define CUDA_VERSION 13050\n")
    if cccl:
        touch(root / "include" / "cccl" / "cuda" / "std" / "version")
    if nvjitlink:
        touch(root / "lib" / "libnvJitLink.so.13")
    if cupti:
        touch(root / "lib" / "libcupti.so.13")
    return root


def cu12_wheels(site):
    """site-packages after `pip install nvidia-cuda-nvrtc-cu12 nvidia-cuda-runtime-cu12 ...`."""
    nvidia = site / "nvidia"
    touch(nvidia / "cuda_nvrtc" / "lib" / "libnvrtc.so.12")
    touch(nvidia / "cuda_nvrtc" / "lib" / "libnvrtc.alt.so.12")
    touch(nvidia / "cuda_runtime" / "include" / "cuda_fp16.h")
    touch(nvidia / "cuda_cccl" / "include" / "cuda" / "std" / "version")
    touch(nvidia / "nvjitlink" / "lib" / "libnvJitLink.so.12")
    touch(nvidia / "cuda_cupti" / "lib" / "libcupti.so.12")
    return nvidia


def toolkit(root, major=13, lib="lib64"):
    """A CUDA Toolkit's tree: <root>/lib64 (or lib), include/, include/cccl for CUDA 13."""
    touch(root / lib / f"libnvrtc.so.{major}")
    touch(root / lib / f"libnvJitLink.so.{major}")
    touch(root / "include" / "cuda_fp16.h")
    touch(root / "include" / ("cccl/cuda/std/version" if major >= 13 else "cuda/std/version"))
    touch(root / "extras" / "CUPTI" / "lib64" / f"libcupti.so.{major}")
    return root


def places(tmp_path, environ=None, search_path=(), system=()):
    return find_places(environ=environ or {}, search_path=[str(p) for p in search_path],
                       system_roots=[str(p) for p in system])


def test_cuda13_wheels_are_found_with_every_piece_in_nvidia_cu13(tmp_path):
    site = tmp_path / "site-packages"
    root = cu13_wheels(site)
    (found,) = places(tmp_path, search_path=[site])
    assert found == Place(origin=f"pip: NVIDIA's CUDA 13 wheels in {site}", cuda_major=13,
                          nvrtc=str(root / "lib" / "libnvrtc.so.13"), include_dir=str(root / "include"),
                          cccl_dir=str(root / "include" / "cccl"), nvjitlink=str(root / "lib" / "libnvJitLink.so.13"),
                          cupti=str(root / "lib" / "libcupti.so.13"))


def test_cuda12_wheels_are_found_each_in_its_own_folder(tmp_path):
    site = tmp_path / "site-packages"
    nvidia = cu12_wheels(site)
    (found,) = places(tmp_path, search_path=[site])
    assert found == Place(origin=f"pip: NVIDIA's CUDA 12 wheels in {site}", cuda_major=12,
                          nvrtc=str(nvidia / "cuda_nvrtc" / "lib" / "libnvrtc.so.12"),
                          include_dir=str(nvidia / "cuda_runtime" / "include"),
                          cccl_dir=str(nvidia / "cuda_cccl" / "include"),
                          nvjitlink=str(nvidia / "nvjitlink" / "lib" / "libnvJitLink.so.12"),
                          cupti=str(nvidia / "cuda_cupti" / "lib" / "libcupti.so.12"))


def test_nvrtc_alone_is_found_and_the_pieces_it_lacks_are_empty(tmp_path):
    site = tmp_path / "site-packages"
    cu13_wheels(site, cccl=False, runtime=False, nvjitlink=False, cupti=False)
    (found,) = places(tmp_path, search_path=[site])
    assert found.nvrtc.endswith("nvidia/cu13/lib/libnvrtc.so.13")
    assert (found.include_dir, found.cccl_dir, found.nvjitlink, found.cupti) == ("", "", "", "")


def test_both_layouts_in_one_site_packages_put_cuda13_first(tmp_path):
    site = tmp_path / "site-packages"
    cu12_wheels(site)
    cu13_wheels(site)
    assert [p.cuda_major for p in places(tmp_path, search_path=[site])] == [13, 12]


def test_the_order_is_cuda_home_then_wheels_in_sys_path_order_then_conda_then_the_system(tmp_path):
    home = toolkit(tmp_path / "home-cuda")
    venv, user = tmp_path / "venv-site", tmp_path / "user-site"
    cu12_wheels(venv)
    cu13_wheels(user)
    conda = toolkit(tmp_path / "conda", major=12, lib="lib")
    system = toolkit(tmp_path / "usr-local-cuda")
    found = places(tmp_path, environ={"CUDA_HOME": str(home), "CONDA_PREFIX": str(conda)},
                   search_path=[venv, tmp_path / "no-such-dir", user], system=[system])
    assert [p.origin for p in found] == [
        f"CUDA_HOME={home}",
        f"pip: NVIDIA's CUDA 12 wheels in {venv}",
        f"pip: NVIDIA's CUDA 13 wheels in {user}",
        f"conda: CONDA_PREFIX={conda}",
        f"system toolkit: {system}",
    ]
    assert found[0].cupti == str(home / "extras" / "CUPTI" / "lib64" / "libcupti.so.13")
    assert found[3].nvrtc == str(conda / "lib" / "libnvrtc.so.12") and found[3].cccl_dir == str(conda / "include")


def test_cuda_path_serves_where_cuda_home_is_unset(tmp_path):
    root = toolkit(tmp_path / "cuda")
    (found,) = places(tmp_path, environ={"CUDA_PATH": str(root)})
    assert found.origin == f"CUDA_PATH={root}" and found.cuda_major == 13


def test_a_conda_prefix_with_headers_but_no_nvrtc_takes_its_major_from_cuda_h(tmp_path):
    prefix = tmp_path / "conda"
    touch(prefix / "targets" / "x86_64-linux" / "include" / "cuda_fp16.h")
    touch(prefix / "targets" / "x86_64-linux" / "include" / "cuda.h", "#define CUDA_VERSION 12040\n")
    touch(prefix / "targets" / "x86_64-linux" / "include" / "cuda" / "std" / "version")
    (found,) = places(tmp_path, environ={"CONDA_PREFIX": str(prefix)})
    assert (found.cuda_major, found.nvrtc) == (12, "")
    assert found.include_dir == found.cccl_dir == str(prefix / "targets" / "x86_64-linux" / "include")


def test_system_toolkits_come_newest_first_and_a_link_to_one_is_listed_once(tmp_path):
    old = toolkit(tmp_path / "cuda-12.4", major=12)
    new = toolkit(tmp_path / "cuda-13.0")
    (tmp_path / "cuda").symlink_to(new)
    found = places(tmp_path, system=[tmp_path / "cuda", tmp_path / "cuda-*"])
    assert [p.origin for p in found] == [f"system toolkit: {tmp_path / 'cuda'}", f"system toolkit: {old}"]


def test_places_without_any_piece_are_left_out(tmp_path):
    empty_home, site = tmp_path / "empty", tmp_path / "site"
    empty_home.mkdir()
    (site / "nvidia" / "cublas" / "lib").mkdir(parents=True)  # another NVIDIA wheel, no NVRTC piece
    assert places(tmp_path, environ={"CUDA_HOME": str(empty_home)}, search_path=[site]) == []


def executable(path):
    touch(path, "#!/bin/sh\n")
    path.chmod(0o755)
    return str(path)


def test_compute_sanitizer_is_found_in_the_same_places_in_the_same_order(tmp_path):
    site = tmp_path / "site-packages"
    cu12 = executable(site / "nvidia" / "cuda_sanitizer_api" / "bin" / "compute-sanitizer")
    search = dict(search_path=[str(site)], system_roots=[])
    assert find_compute_sanitizer(environ={}, **search) == (cu12, f"pip: NVIDIA's CUDA 12 wheels in {site}")
    cu13 = executable(site / "nvidia" / "cu13" / "bin" / "compute-sanitizer")
    assert find_compute_sanitizer(environ={}, **search) == (cu13, f"pip: NVIDIA's CUDA 13 wheels in {site}")
    home = tmp_path / "cuda"
    named = executable(home / "bin" / "compute-sanitizer")
    assert find_compute_sanitizer(environ={"CUDA_HOME": str(home)}, **search) == (named, f"CUDA_HOME={home}")
    (home / "bin" / "compute-sanitizer").chmod(0o644)  # not executable: not the tool
    assert find_compute_sanitizer(environ={"CUDA_HOME": str(home)}, **search)[0] == cu13
    assert find_compute_sanitizer(environ={}, search_path=[], system_roots=[]) is None
