"""numba's compiled-code cache is keyed by a fingerprint of every engine and strategy source, so that a
change in one file (say rng.py) can never leave stale machine code in the kernels of another."""
import os

import numba

from simcore import compiled


def test_fingerprint_follows_every_source_file(tmp_path):
    a, b = tmp_path / "simcore", tmp_path / "strategies"
    (a / "games").mkdir(parents=True)
    b.mkdir()
    (a / "rng.py").write_text("import numba\nX = 1\n")
    (a / "games" / "sen.py").write_text("import numba\nY = 2\n")
    (b / "sen.py").write_text("import numba\nZ = 3\n")
    (b / "plain.py").write_text("Z = 3\n")             # no compiled code can come from it
    (a / "notes.txt").write_text("not a source")
    dirs = (str(a), str(b))
    first = compiled.source_fingerprint(dirs)
    assert first == compiled.source_fingerprint(dirs)
    (a / "notes.txt").write_text("changed, still not a source")
    assert compiled.source_fingerprint(dirs) == first
    (b / "plain.py").write_text("Z = 4\n")
    assert compiled.source_fingerprint(dirs) == first
    (a / "rng.py").write_text("import numba\nX = 10\n")        # a called module changes
    second = compiled.source_fingerprint(dirs)
    assert second != first
    (a / "games" / "sen.py").rename(a / "games" / "sen2.py")  # a renamed file counts too
    assert compiled.source_fingerprint(dirs) not in (first, second)


def test_the_cache_folder_is_the_fingerprinted_one():
    if os.environ.get("NUMBA_CACHE_DIR"):
        assert numba.config.CACHE_DIR == os.environ["NUMBA_CACHE_DIR"]
    else:
        fingerprint = compiled.source_fingerprint()
        assert numba.config.CACHE_DIR.endswith(os.path.join("", fingerprint))
        if compiled._writable(compiled.cache_folder(fingerprint)):
            assert numba.config.CACHE_DIR == compiled.cache_folder(fingerprint)
    assert len(compiled.SOURCE_DIRS) == 2 and all(os.path.isdir(d) for d in compiled.SOURCE_DIRS)


_KERNEL = '''
import numba


@numba.njit(cache=True)
def kernel(n):
    total = 0
    for i in range(n):
        total += i * i % 7
    return total
'''

_WORKER = '''
import json, sys
sys.path.insert(0, sys.argv[1])
from simcore import compiled
import kernel_mod
compiled.compile_once(kernel_mod.kernel, (5,))
stats = kernel_mod.kernel.stats
print(json.dumps({"hits": sum(stats.cache_hits.values()), "misses": sum(stats.cache_misses.values()),
                  "lock": compiled.lock_path(kernel_mod.kernel)}))
'''


def test_a_function_another_process_is_compiling_is_loaded_from_its_cache(tmp_path):
    """compile_once: while one process holds a function's lock (it is compiling it), another waits for it
    and then loads the machine code from the cache instead of compiling it again."""
    import fcntl
    import json
    import subprocess
    import sys
    import time

    (tmp_path / "kernel_mod.py").write_text(_KERNEL)
    cache = tmp_path / "cache"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": os.getcwd()}
    # the kernel's lock file, as a process with that cache folder works it out
    probe = subprocess.run([sys.executable, "-c", "import sys, json; sys.path.insert(0, sys.argv[1]);"
                            "from simcore import compiled; import kernel_mod;"
                            "print(compiled.lock_path(kernel_mod.kernel))", str(tmp_path)],
                           env=env, capture_output=True, text=True, check=True)
    lock = probe.stdout.strip()
    os.makedirs(os.path.dirname(lock), exist_ok=True)
    with open(lock, "a") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)  # "compiling" here
        waiting = subprocess.Popen([sys.executable, "-c", _WORKER, str(tmp_path)], env=env,
                                   stdout=subprocess.PIPE, text=True)
        time.sleep(3)
        assert waiting.poll() is None  # it waits for the lock
        # compile and cache the kernel as the lock holder would
        subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); import kernel_mod;"
                        "kernel_mod.kernel(5)", str(tmp_path)], env=env, check=True)
        fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
    out, _ = waiting.communicate(timeout=120)
    found = json.loads(out)
    assert found["lock"] == lock
    assert found["misses"] == 0 and found["hits"] == 1  # loaded, not compiled again
    # without anyone holding the lock a first process compiles it itself
    fresh = {**env, "NUMBA_CACHE_DIR": str(tmp_path / "other")}
    again = json.loads(subprocess.run([sys.executable, "-c", _WORKER, str(tmp_path)], env=fresh,
                                      capture_output=True, text=True, check=True).stdout)
    assert again["misses"] == 1 and again["hits"] == 0
