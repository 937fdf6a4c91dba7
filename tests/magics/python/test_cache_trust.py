"""The compile cache trusts only its owner: what a user sees when the cache
directory holds something they did not write. Each case is a fresh process, as a restarted
kernel is: the cache directory is fixed at a process's first compile."""
import os
import shutil
import subprocess
import sys
import textwrap

CELL = 'extern "C" __global__ void trusted(int* p) { p[0] = 7; }'


def compile_in_child(cache_home, times=1):
    """Compiles CELL `times` times in a new process; returns (cache levels, stderr)."""
    code = textwrap.dedent(f'''
        import xcuda
        for _ in range({times}):
            print(xcuda.compile({CELL!r}, arch="sm_90").cache)
    ''')
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, XDG_CACHE_HOME=str(cache_home)))
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout.split(), p.stderr


def entry_of(cache_home):
    entries = list((cache_home / "xcuda").glob("*.xcc"))
    assert len(entries) == 1, entries
    return entries[0]


def test_a_restarted_kernel_reads_its_own_entries(tmp_path):
    assert compile_in_child(tmp_path) == (["none"], "")
    assert compile_in_child(tmp_path) == (["disk"], "")
    assert oct((tmp_path / "xcuda" / ".hmac-key").stat().st_mode & 0o777) == "0o600"


def test_an_entry_planted_from_another_cache_is_compiled_over(tmp_path):
    theirs, mine = tmp_path / "theirs", tmp_path / "mine"
    compile_in_child(theirs)
    compile_in_child(mine)
    # the attacker's entry for the same cell, with a valid layout but tagged under their key
    shutil.copyfile(entry_of(theirs), entry_of(mine))
    levels, err = compile_in_child(mine)
    assert levels == ["none"], err
    assert compile_in_child(mine)[0] == ["disk"]  # the compile replaced it with a trusted entry


def test_an_entry_others_can_write_is_not_loaded_and_the_cell_says_so_once(tmp_path):
    compile_in_child(tmp_path)
    entry_of(tmp_path).chmod(0o666)
    levels, err = compile_in_child(tmp_path, times=2)
    assert levels == ["none", "memory"]
    assert err.count("ignored the compile cache entry") == 1, err
    assert "others can write" in err and "%cuda_cache clear" in err


def test_a_cache_directory_open_to_everyone_is_closed_before_use(tmp_path):
    (tmp_path / "xcuda").mkdir(mode=0o777)
    os.chmod(tmp_path / "xcuda", 0o777)
    assert compile_in_child(tmp_path) == (["none"], "")
    assert oct((tmp_path / "xcuda").stat().st_mode & 0o777) == "0o700"


def test_an_unusable_cache_directory_is_said_once_and_cells_still_compile(tmp_path):
    (tmp_path / "xcuda").write_text("a file where the directory should be")
    levels, err = compile_in_child(tmp_path, times=2)
    assert levels == ["none", "memory"]
    assert err.count("is not used") == 1, err
    assert "memory only" in err and "XDG_CACHE_HOME" in err
