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


def test_parameter_tuples_are_shared_classes_found_by_name():
    import pickle
    import subprocess
    import sys

    from simcore import params

    cls = params.params_class(["wake", "risk"])
    assert cls is params.params_class(("wake", "risk")) and cls._fields == ("wake", "risk")
    assert cls.__name__ == "P__wake__risk" and pickle.loads(pickle.dumps(cls)) is cls
    assert params.params_class([])._fields == ()
    assert not params.shareable(["_x"]) and not params.shareable(["a__b"]) and not params.shareable(["x_"])
    code = "import pickle, sys; from simcore import params; print(pickle.loads(sys.stdin.buffer.read())._fields)"
    r = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(cls), capture_output=True)
    assert r.stdout.decode().strip() == "('wake', 'risk')", r.stderr   # a fresh process finds it by name


SUBCLASS = '''
import dataclasses
from typing import ClassVar
from strategies.base import decision
from strategies.fan_and_mallet import Closer


@dataclasses.dataclass(frozen=True)
class Bolder(Closer):
    name: ClassVar[str] = "bolder"
    feed: float = 0.1


@decision
def first_card(obs, prm, rng):
    for j in range(obs.hand.shape[0]):
        if obs.hand[j] >= 0:
            return j
    return -1


@dataclasses.dataclass(frozen=True)
class Firsty(Closer):
    name: ClassVar[str] = "firsty"
    play = first_card
'''
COUNT_COMPILES = '''
import sys
from numba.core import event
from simcore.runner import simulate
from strategies.registry import lineup
from simcore.lineup import load_source_module
names = []
class L(event.Listener):
    def on_start(self, ev):
        names.append(getattr(getattr(ev.data.get("dispatcher"), "py_func", None), "__qualname__", ""))
    def on_end(self, ev):
        pass
if sys.argv[2] == "builtin":
    simulate("fan-and-mallet", lineup("fan-and-mallet", ["closer"], 2), players=2, n_games=4, seed=0)
else:
    mod = load_source_module(sys.argv[1], "bolder_strategies")
    event.register("numba:compile", L())
    seats = [mod.Bolder(), mod.Bolder()] if sys.argv[2] == "subclass" else [mod.Bolder(), mod.Firsty()]
    simulate("fan-and-mallet", seats, players=2, n_games=4, seed=0)
    print(",".join(names))
'''


def test_a_new_lineup_module_reuses_the_cached_decisions_of_built_in_strategies(tmp_path):
    """A subclass of a built-in strategy (other parameter values, same fields) in a file of its own plays
    the built-in's lineup module: a fresh process compiles nothing for it. Beside a decision written in
    the file, it gets a lineup module of its own; compiling that loads the built-in decision's machine
    code from the cache instead of compiling the decision again."""
    import subprocess
    import sys

    path = tmp_path / "bolder.py"
    path.write_text(SUBCLASS + f"# {tmp_path}\n")  # a module of its own for every run of this test
    compiled = {}
    for which in ("builtin", "subclass", "mixed"):
        r = subprocess.run([sys.executable, "-c", COUNT_COMPILES, str(path), which], capture_output=True, text=True,
                           timeout=600)
        assert r.returncode == 0, r.stderr
        compiled[which] = [n for n in r.stdout.strip().split(",") if n]
    assert compiled["subclass"] == []                      # the built-in's module, loaded from the cache
    assert "play" in compiled["mixed"]                     # a new module's loop compiles ...
    assert "first_card" in compiled["mixed"]               # ... with the file's own decision ...
    assert "_heuristic_play" not in compiled["mixed"]      # ... and the built-in decision is loaded


ODD = '''
import dataclasses
from typing import ClassVar
from strategies.base import param
from strategies.fan_and_mallet import RandomPlay


@dataclasses.dataclass(frozen=True)
class {name}(RandomPlay):
    name: ClassVar[str] = "{field}"
    {field}: float = param(0.5, "a parameter")
'''


def test_parameters_no_shared_class_can_spell_leave_the_cached_decisions_loadable(tmp_path):
    """A class whose parameter names cannot be spelt in a shared class name gets a tuple class of its
    lineup module; the built-in decisions it inherits are compiled as copies in that module, and a
    generated module can always be imported by name, so the decisions' own cache never names a class that
    another process cannot find: a lineup compiled in a later process (another file) still loads and plays."""
    import subprocess
    import sys

    sensei = os.path.join(os.path.dirname(sys.executable), "sensei")
    for name, field in (("Odd", "bold_"), ("Even", "bold")):
        path = tmp_path / f"{name.lower()}.py"
        path.write_text(ODD.format(name=name, field=field) + f"# {tmp_path}\n")
        r = subprocess.run([sensei, "play", "fan-and-mallet", "--strategy", f"{path}:{name}", "--games", "20", "--json"],
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr
        assert r.stdout.startswith("{")


def test_the_compile_timer_counts_each_outermost_compilation_once():
    """compile_timer: a first call that compiles a function and the function it calls counts once (not
    more than the call took); a call that compiles nothing adds nothing, and a timer leaves no listener."""
    import time

    @numba.njit
    def inner(x):
        s = 0.0
        for i in range(x):
            s += (i * 0.5) ** 2 - i
        return s

    @numba.njit
    def outer(x):
        return inner(x) + inner(x + 1)

    with compiled.compile_timer() as t:
        start = time.perf_counter()
        outer(3)
        took = time.perf_counter() - start
    assert 0 < t.seconds <= took
    counted = t.seconds
    outer(2.5)  # a compilation after the block
    assert t.seconds == counted
    with compiled.compile_timer() as again:
        outer(5)  # the same types: compiled already
    assert again.seconds == 0.0
