"""``sensei check``: the conformance checks of the test suite, run on a table of one's own strategies from
the command line; one line per check, exit status 0 when all pass and 1 when one fails, and the usual one
line with exit status 2 for bad input."""
import os
import textwrap

import pytest
from typer.testing import CliRunner

from experiments.cli import app
from tests.test_user_strategies import one_error_line

cli = CliRunner()
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _check(*args):
    return cli.invoke(app, ["check", *args])


def _verdicts(r):
    return [ln for ln in r.stdout.splitlines() if ln.startswith(("ok ", "FAIL "))]


def test_a_conforming_table_passes_every_check():
    example = os.path.join(ROOT, "examples", "strategies", "sen_threshold.py") + ":Threshold"
    r = _check("sen", "-s", example, "-n", "8")
    assert r.exit_code == 0, r.output
    lines = _verdicts(r)
    assert len(lines) == 4 and all(ln.startswith("ok ") for ln in lines), r.output
    assert "the same games in the compiled lane" in lines[0]
    assert r.stdout.splitlines()[-1] == "4 of 4 checks passed"
    assert r.stdout.startswith("sensei check sen, 4 players, rules as default: seat 0 ")


def test_a_decision_that_reads_another_players_memory_fails_the_leak_probe():
    cheat = os.path.join(HERE, "strategies_for_tests.py") + ":PeekingSen"
    r = _check("sen", "-s", cheat, "-s", "threshold", "-s", "threshold", "-s", "threshold", "-n", "8")
    assert r.exit_code == 1, r.output
    fail = [ln for ln in _verdicts(r) if ln.startswith("FAIL ")]
    assert len(fail) == 1 and "no decision reads what its seat may not see" in fail[0]
    assert "seat 0 (" in fail[0] and "PeekingSen" in fail[0] and "decision 'start'" in fail[0]
    assert r.stdout.splitlines()[-1] == "3 of 4 checks passed"


@pytest.mark.parametrize("cheat, words", [
    ("WipingSen", "writes into the game's state when it decides: score"),
    ("JinxingSen", "moves another seat's random stream when it decides"),
])
def test_a_decision_that_writes_into_the_game_fails_the_leak_probe(cheat, words):
    """A compiled view is the state itself: a decision that sets its score back, or another seat's random
    stream, keeps every invariant (cards and memories stay true) and must still fail."""
    path = os.path.join(HERE, "strategies_for_tests.py") + ":" + cheat
    r = _check("sen", "-p", "2", "-s", path, "-s", "random", "-n", "8")
    assert r.exit_code == 1, r.output
    fail = [ln for ln in _verdicts(r) if ln.startswith("FAIL ")]
    assert len(fail) == 1 and words in fail[0] and f"seat 0 ({path}" in fail[0], r.output


def test_a_strategy_with_a_random_source_of_its_own_fails_replay_and_batches(tmp_path):
    path = tmp_path / "noisy.py"
    path.write_text(textwrap.dedent(f"""\
        import dataclasses, sys
        import numpy as np
        sys.path.insert(0, {os.path.join(ROOT, "examples", "strategies")!r})
        from sen_numpy import Cautious
        from simcore.games.sen import Start


        @dataclasses.dataclass(frozen=True)
        class Noisy(Cautious):
            def start(self, obs, rng):  # np.random, not its rng: WAKE UP! or a draw at random
                return np.where(np.random.random(len(obs.me)) < 0.5, Start.WAKE, Start.DRAW)
        """))
    r = _check("sen", "-p", "2", "-s", f"{path}:Noisy", "-s", "threshold", "-n", "8")
    assert r.exit_code == 1, r.output
    lines = _verdicts(r)
    assert lines[0].startswith("ok ") and "the batch lane: a decision is numpy" in lines[0]
    assert all(ln.startswith("FAIL ") for ln in lines[1:]), r.output
    assert "played again with the same seed" in lines[2]
    assert "asked again in the same state" in lines[3] and "a random source other than the rng" in lines[3]


@pytest.mark.parametrize("args,words", [
    (["sen", "-n", "0"], "--games must be a positive integer"),
    (["sen", "-n", "5000"], "--games must be at most 2,000 for sensei check"),
    (["sen", "--seed", "-1"], "--seed must be a non-negative integer"),
    (["chess"], "chess"),
    (["sen", "-s", "nosuch"], "nosuch"),
    (["sen", "-p", "9"], "9"),
])
def test_bad_input_is_one_line(args, words):
    one_error_line(_check(*args), words)


def test_a_decision_that_raises_fails_each_check_naming_it(tmp_path):
    from tests.test_strategy_mistakes import COMPILED
    path = tmp_path / "compiled_mistakes.py"
    path.write_text(COMPILED)
    r = _check("fan-and-mallet", "-s", f"{path}:Boom", "-s", "strongest", "-n", "5")
    assert r.exit_code == 1, r.output
    lines = _verdicts(r)
    assert len(lines) == 4 and all(ln.startswith("FAIL ") for ln in lines), r.output
    assert all(":Boom failed in its decision 'play': ValueError: boom" in ln for ln in lines), r.output
    assert r.stdout.splitlines()[-1] == "0 of 4 checks passed"


def test_bounds_names_an_index_out_of_bounds_where_it_would_crash(tmp_path):
    # without --bounds this decision writes far outside its array (a crash, or memory spoilt silently);
    # with it, the checks run in a process compiled with numba's bounds checks and each one fails, named
    import subprocess
    import sys
    from tests.test_strategy_mistakes import WILD
    path = tmp_path / "wild.py"
    path.write_text(WILD)
    r = subprocess.run([sys.executable, "-m", "experiments.cli", "check", "fan-and-mallet", "-s", f"{path}:Wild",
                        "-s", "strongest", "-n", "4", "--bounds"], capture_output=True, text=True, timeout=900,
                       cwd=ROOT)
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith(("ok ", "FAIL "))]
    assert len(lines) == 4 and all(ln.startswith("FAIL ") for ln in lines), r.stdout
    assert all(":Wild failed in its decision 'play': IndexError: index is out of bounds" in ln for ln in lines)
    assert r.stderr.startswith("checking with numba's bounds checks"), r.stderr
    assert "error" not in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_an_abort_in_compiled_code_is_one_line():
    # a write out of range can spoil malloc's records, and glibc then aborts: the same one line as a crash
    import signal
    import subprocess
    import sys
    code = ("import os, signal; from experiments import crash; assert crash.install(); "
            "os.kill(os.getpid(), signal.SIGABRT)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 1 and r.returncode != -signal.SIGABRT, (r.returncode, r.stderr)
    assert r.stderr.startswith("error: sensei crashed in compiled code (a segmentation fault, bus error or abort)")
    assert "--bounds" in r.stderr and r.stderr.count("\n") == 1



def test_an_abort_under_an_address_space_limit_says_it_is_most_likely_out_of_memory():
    # polars' Rust runtime aborts the process when the system refuses it memory ("memory allocation of 256
    # bytes failed"), as it does under a tight ulimit -v: the line says so before it speaks of strategies
    import resource
    import signal
    import subprocess
    import sys
    code = ("import os, signal; from experiments import crash; assert crash.install(); "
            "os.kill(os.getpid(), signal.SIGABRT)")

    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT,
                       preexec_fn=limited)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert r.stderr.startswith("error: sensei crashed (a segmentation fault, bus error or abort) under an "
                               "address-space limit (ulimit -v): most likely out of memory"), r.stderr
    assert "--bounds" in r.stderr and r.stderr.count("\n") == 1


SPIN = """\
import dataclasses
from strategies.base import decision, param
from strategies.fan_and_mallet import Strongest, strongest_slot


@decision
def spin_play(obs, prm, rng):
    x = 1
    while prm.spin and x > 0:   # with spin=1, a loop that never ends
        x = (x * 3) % 1000003 + 1
    return strongest_slot(obs.hand)


@dataclasses.dataclass(frozen=True)
class Spin(Strongest):
    spin: int = param(0, "1: loop for ever in the decision")
    play = spin_play
"""


@pytest.mark.parametrize("command", ["check", "trace"])
def test_ctrl_c_stops_a_decision_that_loops_for_ever(tmp_path, command):
    # compiled code does not return to Python while it loops, so a Python handler of Ctrl-C never runs;
    # check and trace keep nothing they would lose, and stop at once with their one line
    import signal
    import subprocess
    import sys
    import time
    path = tmp_path / "spin.py"
    path.write_text(SPIN)
    base = [sys.executable, "-m", "experiments.cli", command, "fan-and-mallet", "-n", "2"]
    warm = subprocess.run(base + ["-s", f"{path}:Spin:spin=0"], capture_output=True, text=True, timeout=600,
                          cwd=ROOT)  # compiles the lineup, which the looping run then loads from the cache
    assert warm.returncode == 0, warm.stderr
    child = subprocess.Popen(base + ["-s", f"{path}:Spin:spin=1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, cwd=ROOT,  # (SIGINT at its default, as in a terminal, not a background job's)
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(6)
    assert child.poll() is None, "the decision loops for ever"
    child.send_signal(signal.SIGINT)
    try:
        out, err = child.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        child.kill()
        raise AssertionError("Ctrl-C did not stop a decision that loops for ever") from None
    assert child.returncode == 130 and err.splitlines()[-1] == "interrupted", (child.returncode, err)
    assert "Traceback" not in err


def test_check_strategies_is_sensei_check_from_python():
    """sensei check had no documented Python form (conformance's four functions take positional arguments):
    check_strategies takes what simulate takes and gives one result per check, a failure recorded."""
    from experiments import cli as cli_module
    from simcore import conformance as C
    from simcore.errors import SenseiError
    from strategies.registry import lineup
    from tests.strategies_for_tests import PeekingSen
    assert cli_module.CHECK_MAX_GAMES == C.CHECK_MAX_GAMES
    ok = C.check_strategies("sen", lineup("sen", "threshold", 4), games=8)
    assert [c.name for c in ok] == ["invariants", "batch_of_one", "replayed", "leak_probe"]
    assert all(c.passed and c.message == "" for c in ok) and ok[3].compared > 0
    assert "the same games in the compiled lane" in ok[0].what
    r = _check("sen", "-s", "threshold", "-n", "8")  # the same checks, in the same words, as the command's
    assert _verdicts(r) == [f"ok    {c.what}" for c in ok[:3]] + [
        f"ok    {ok[3].what} ({ok[3].compared:,} decisions compared)"]
    bad = C.check_strategies("sen", [PeekingSen(), *lineup("sen", "threshold", 3)], games=8, seed=0)
    assert [c.passed for c in bad] == [True, True, True, False]
    assert "seat 0 (" in bad[3].message and "decision 'start'" in bad[3].message and "\n" not in bad[3].message
    for kw, words in [({"games": 0}, "games must be a positive integer"),
                      ({"games": 5000}, "games must be at most 2,000 for the conformance checks"),
                      ({"seed": -1}, "seed must be a non-negative integer"),
                      ({"players": 3}, "4 strategies for 3 seats"),
                      ({"rules": {"penalty": -1}}, "sen.penalty: must be at least 0")]:
        with pytest.raises(SenseiError, match=words):
            C.check_strategies("sen", lineup("sen", "threshold", 4), **kw)
    with pytest.raises(SenseiError, match="got 'threshold' for seat 0"):
        C.check_strategies("sen", ["threshold"] * 4)
