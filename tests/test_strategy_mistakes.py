"""A designer's strategy that gets something wrong stops the run with one line naming the problem (exit
status 2), never a traceback, a silent exit or an answer quietly rounded: answers that are not integer
options (numpy and compiled), exceptions raised in compiled code, ``sys.exit()`` in a strategy, prints
under ``--json``, a broken class beside a working one in the same file, and Ctrl-C while compiled code
runs on one job."""
import json
import os
import signal
import textwrap
import threading
import time

import numba
import pytest
from typer.testing import CliRunner

from experiments.cli import app
from simcore import runner as R
from simcore.lineup import Lineup
from simcore.registry import get_game
from tests.test_user_strategies import one_error_line

cli = CliRunner()

# per game: the base class, the numpy decision overridden, the batch size of an observation
NUMPY = {
    "sen": ("from strategies.sen import Threshold as Base", "start", "len(obs.me)", 2),
    "senshi": ("from strategies.senshi import Greedy as Base", "setup_take", "len(obs.me)", 2),
    "sensu": ("from strategies.sensu import Random as Base", "turn", "len(obs.seat)", 2),
    "fan-and-mallet": ("from strategies.fan_and_mallet import Strongest as Base", "play", "len(obs.me)", 2),
}
ANSWERS = {  # an answer that is no integer option -> words of the one line
    "np.full(M, 1.0)": "of type float64",
    "np.full(M, np.nan)": "of type float64",
    "np.ones(M, dtype=bool)": "of type bool",
    "None": "of type NoneType",
    "['x'] * M": "of type str",
    "[2 ** 70] * M": "too large for an option",
    "np.full(M, 1 + 0j)": "of type complex128",
}


def _numpy_file(tmp_path, game, body, name="mine.py"):
    base, decision, size, _ = NUMPY[game]
    path = tmp_path / name
    path.write_text(textwrap.dedent(f"""\
        import dataclasses, sys
        from typing import ClassVar
        import numpy as np
        {base}


        @dataclasses.dataclass(frozen=True)
        class Mine(Base):
            def {decision}(self, obs, rng):
                M = {size}
        """) + textwrap.indent(textwrap.dedent(body), " " * 8))
    return str(path)


@pytest.mark.parametrize("game", sorted(NUMPY))
@pytest.mark.parametrize("answer", sorted(ANSWERS))
def test_numpy_answers_that_are_not_integers_are_one_line(tmp_path, game, answer):
    path = _numpy_file(tmp_path, game, f"return {answer}\n")
    r = cli.invoke(app, ["play", game, "-s", f"{path}:Mine", "-s", "random" if game != "sen" else "threshold",
                         "-p", str(NUMPY[game][3]), "-n", "10", "--no-progress"])
    one_error_line(r, "Mine", f"made an illegal {NUMPY[game][1]}", ANSWERS[answer])


@pytest.mark.parametrize("answer,words", [
    ("obs.me", ["2 arrays (player, slot) are expected", "an array of shape"]),
    ("None", ["2 arrays (player, slot) are expected", "not None"]),
    ("(obs.me, obs.me, obs.me)", ["not a tuple of 3"]),
    ("(obs.me, obs.me + 0.5)", ["of type float64"]),
    ("((obs.me + 1) % 2, obs.me * 0 + 7)", ["(player ", ", slot 7)"]),  # no slot 7: named, not only coded
])
def test_answers_of_several_arrays_must_be_that_many_integer_arrays(tmp_path, answer, words):
    path = tmp_path / "peeker.py"
    path.write_text(textwrap.dedent(f"""\
        import dataclasses
        import numpy as np
        from strategies.sen import Threshold


        @dataclasses.dataclass(frozen=True)
        class Mine(Threshold):
            def peek(self, obs, rng):
                return {answer}
        """))
    r = cli.invoke(app, ["play", "sen", "-s", f"{path}:Mine", "-p", "2", "-n", "200", "--no-progress"])
    one_error_line(r, "made an illegal peek", *words)


COMPILED = """\
import dataclasses
from typing import ClassVar
import numpy as np
from strategies.base import decision
from strategies.fan_and_mallet import Strongest


@decision
def floaty(obs, prm, rng):
    return 0.0


@decision
def no_return_sometimes(obs, prm, rng):
    if obs.me >= 0:
        return 0


@decision
def boom(obs, prm, rng):
    if obs.me >= 0:
        raise ValueError("boom")
    return 0


@dataclasses.dataclass(frozen=True)
class Floaty(Strongest):
    play = floaty


@dataclasses.dataclass(frozen=True)
class Sometimes(Strongest):
    play = no_return_sometimes


@dataclasses.dataclass(frozen=True)
class Boom(Strongest):
    play = boom


@decision
def sentinel(obs, prm, rng):
    return -(1 << 62)


@dataclasses.dataclass(frozen=True)
class Sentinel(Strongest):
    play = sentinel


@dataclasses.dataclass(frozen=True)
class SentinelNumpy(Strongest):
    def play(self, obs, rng):
        return np.full(len(obs.me), -(1 << 62), dtype=np.int64)


@decision
def draft(obs, prm, rng):
    return obs.not_a_field


@dataclasses.dataclass(frozen=True)
class Draft(Strongest):
    play = draft
"""


@pytest.mark.parametrize("cls,words", [
    ("Floaty", ["compiled_mistakes.py:Floaty, decision 'play'", "returns float64, not an integer option"]),
    ("Sometimes", ["compiled_mistakes.py:Sometimes, decision 'play'", "returns int64 or None"]),
])
def test_a_compiled_decision_that_returns_no_integer_is_refused_naming_it(tmp_path, cls, words):
    path = tmp_path / "compiled_mistakes.py"
    path.write_text(COMPILED)
    r = cli.invoke(app, ["play", "fan-and-mallet", "-s", f"{path}:{cls}", "-n", "10", "--no-progress"])
    # the strategy named as the spec names it, the file as given (the file's name alone read as another
    # strategy beside the other messages, which say the path)
    line = one_error_line(r, f"strategy {path}:{cls}, decision 'play'", *words)
    assert "fan_and_mallet.py" not in line  # not the engine's line that the option reaches


@pytest.mark.parametrize("cls", ["Sentinel", "SentinelNumpy"])
def test_an_option_equal_to_the_no_decision_mark_is_an_illegal_option(tmp_path, cls):
    # the generated dispatch marks a seat without the decision by -(1 << 62); a strategy that returns
    # that number has the decision and made an illegal option, whichever lane plays it
    path = tmp_path / "compiled_mistakes.py"
    path.write_text(COMPILED)
    r = cli.invoke(app, ["play", "fan-and-mallet", "-s", f"{path}:{cls}", "-n", "10", "--no-progress"])
    line = one_error_line(r, f"{cls} (seat 0) made an illegal play: option {-(1 << 62)}")
    assert "no decision" not in line


ALLOCATING = """
import dataclasses
import numpy as np
from strategies.base import decision
from strategies.fan_and_mallet import Strongest, strongest_slot


def _copy_then_choose(obs, prm, rng):
    hand = np.empty(obs.hand.shape[0], dtype=np.int64)   # an array made here: allowed with refcount=True
    for j in range(hand.shape[0]):
        hand[j] = obs.hand[j]
    return strongest_slot(hand)


# one function, two decisions: each found again by the name the file gives it
copy_then_choose = decision(refcount=True)(_copy_then_choose)
copy_then_choose_inline = decision(refcount=True, inline=True)(_copy_then_choose)


@dataclasses.dataclass(frozen=True)
class Copying(Strongest):
    play = copy_then_choose


@dataclasses.dataclass(frozen=True)
class CopyingInline(Strongest):
    play = copy_then_choose_inline
"""


@pytest.mark.parametrize("compiled, cls", [(True, "Copying"), (False, "Copying"), (True, "CopyingInline")])
def test_a_decision_marked_refcount_may_allocate_in_both_lanes(tmp_path, compiled, cls):
    """@decision(refcount=True) is compiled with reference counting of its own, even when the game loop that
    calls it is compiled without (a decision that leaves the option unset would inherit the loop's)."""
    from simcore.lineup import load_source_module
    from strategies.registry import lineup

    path = tmp_path / "allocating.py"
    path.write_text(ALLOCATING)
    mod = load_source_module(str(path), f"allocating_{compiled}_{cls}")
    mine = R.simulate("fan-and-mallet", [getattr(mod, cls)(), getattr(mod, cls)()], n_games=200, seed=3, jobs=1,
                      compiled=compiled).summary()
    ref = R.simulate("fan-and-mallet", lineup("fan-and-mallet", ["strongest"], 2), n_games=200, seed=3, jobs=1,
                     compiled=compiled).summary()
    assert mine["win_share"] == ref["win_share"] and mine["mean_turns"] == ref["mean_turns"]


MISNAMED = """
import dataclasses
from strategies.base import decision, param
from strategies.fan_and_mallet import Strongest, strongest_slot
from strategies.sen import Threshold


@decision
def first_slot(obs, prm, rng):
    return strongest_slot(obs.hand)


@dataclasses.dataclass(frozen=True)
class NumpyTypo(Strongest):
    def pley(self, obs, rng):          # meant: play
        return obs.me * 0


@dataclasses.dataclass(frozen=True)
class CompiledTypo(Strongest):
    strat = first_slot                 # a compiled decision under a name fan-and-mallet does not ask for


@dataclasses.dataclass(frozen=True)
class SenTypo(Threshold):
    def drawnn(self, obs, rng):        # meant: drawn
        return obs.me * 0


def forgot_the_decorator(obs, prm, rng):
    return strongest_slot(obs.hand)


@dataclasses.dataclass(frozen=True)
class Undecorated(Strongest):
    play = forgot_the_decorator


class NotADataclass(Threshold):       # meant to change the default wake: no @dataclass, so it would not
    wake: int = param(4, "the wake")  # (the inherited default 10 would stay)


@dataclasses.dataclass(frozen=True)
class FaceUp(Threshold):
    def face_up(self, obs, rng):       # meant: face_up_slot (part of its name)
        return obs.me * 0


@dataclasses.dataclass(frozen=True)
class ByItsLook(Threshold):
    def wake_or_not(self, obs, rng):   # a decision by its signature's names, under no decision's name
        return obs.me * 0


@dataclasses.dataclass(frozen=True)
class Helper(Strongest):
    def score_of(self, hand):          # a helper method with a name of its own: fine
        return 0

    def played(self, hand):            # close to 'play', but not a decision's signature: fine
        return 0

    def _look(self, obs, rng):         # a helper of a decision's signature, named as a helper: fine
        return 0
"""


@pytest.mark.parametrize("game, cls, words", [
    ("fan-and-mallet", "NumpyTypo", ["misnamed.py:NumpyTypo: a method named 'pley' is no decision of fan-and-mallet",
                                     "did you mean 'play'?"]),
    ("fan-and-mallet", "CompiledTypo", ["misnamed.py:CompiledTypo: a compiled decision named 'strat' is no decision"]),
    ("sen", "SenTypo", ["misnamed.py:SenTypo: a method named 'drawnn' is no decision of sen", "did you mean 'drawn'?"]),
    ("sen", "FaceUp", ["misnamed.py:FaceUp: a method named 'face_up' is no decision of sen",
                       "did you mean 'face_up_slot'?"]),
    ("sen", "ByItsLook", ["misnamed.py:ByItsLook: a method named 'wake_or_not' is no decision of sen (its decisions: "
                          "start, face_up_slot", "a helper method's name starts with '_'"]),
    ("sen", "NotADataclass", ["misnamed.py:NotADataclass: parameter 'wake' is declared with param(...) in class "
                              "NotADataclass, which is not a dataclass"]),
    ("fan-and-mallet", "Undecorated", ["misnamed.py:Undecorated: decision 'play' is a plain function of (obs, prm, rng)",
                                       "mark it @decision"]),
])
def test_a_misnamed_decision_is_one_line_not_the_inherited_one_played_silently(tmp_path, game, cls, words):
    path = tmp_path / "misnamed.py"
    path.write_text(MISNAMED)
    r = cli.invoke(app, ["play", game, "-s", f"{path}:{cls}", "-n", "10", "--no-progress"])
    one_error_line(r, *words)


SHAPES = """
import dataclasses
import numpy as np
from simcore.games.senshi import Kind
from strategies.sen import Threshold
from strategies.senshi import Greedy
from strategies.sensu import Random


@dataclasses.dataclass(frozen=True)
class SenOneTooMany(Threshold):
    def start(self, obs, rng):
        return np.full(len(obs.me) + 1, 2)


@dataclasses.dataclass(frozen=True)
class SenshiFarStudy(Greedy):
    def act(self, obs, rng):
        return np.full(len(obs.me), int(Kind.STUDY)), np.full(len(obs.me), 99)


@dataclasses.dataclass(frozen=True)
class SensuShortOrder(Random):
    def arrange(self, obs, rng):
        return np.full((len(obs.seat), 5), -1)


@dataclasses.dataclass(frozen=True)
class SenChooseCube(Threshold):
    def start(self, obs, rng):
        return rng.choose(np.ones((len(obs.me), 3, 2), bool))
"""


@pytest.mark.parametrize("game, cls, words", [
    ("sen", "SenOneTooMany", [":SenOneTooMany", "(seat 0) made an illegal start: answers of shape (11,) for 10 games",
                              "one option per game"]),
    ("senshi", "SenshiFarStudy", ["SenshiFarStudy (seat 0) made an illegal act: (kind, argument) = (1, 99)",
                                  "arguments 0.."]),
    ("sensu", "SensuShortOrder", ["SensuShortOrder (seat 0) made an illegal arrange: slot orders of shape (",
                                  "one row of 6 per game is expected"]),
    # (numpy's "operands could not be broadcast together with shapes (10,) (10,2)" before)
    ("sen", "SenChooseCube", [":SenChooseCube", "choose(mask) needs one row of options per game, a mask of shape "
                              "(10, options), got shape (10, 3, 2)"]),
])
def test_numpy_answers_of_the_wrong_shape_or_range_say_what_came(tmp_path, game, cls, words):
    path = tmp_path / "shapes.py"
    path.write_text(SHAPES)
    r = cli.invoke(app, ["play", game, "-s", f"{path}:{cls}", "-n", "10", "--no-progress"])
    line = one_error_line(r, *words)
    assert "option -1" not in line


@pytest.mark.parametrize("cls,field,expected", [
    ("Wordy", 'param("ten", "the wake value")',
     "error: strategy {path}:Wordy: the default of parameter 'wake' does not fit it: expected an integer, got 'ten'"),
    ("Far", 'param(80, min=0, max=20, help="the wake value")',
     "error: strategy {path}:Far: the default of parameter 'wake' does not fit it: must be at most 20, got 80"),
])
def test_a_parameter_whose_default_does_not_fit_it_is_one_line_in_plain_words(tmp_path, cls, field, expected):
    path = tmp_path / "defaults.py"
    path.write_text(textwrap.dedent(f"""\
        import dataclasses
        from typing import ClassVar
        from strategies.base import param
        from strategies.sen import Threshold


        @dataclasses.dataclass(frozen=True)
        class {cls}(Threshold):
            name: ClassVar[str] = "{cls.lower()}"
            wake: int = {field}
        """))
    r = cli.invoke(app, ["play", "sen", "-s", f"{path}:{cls}", "-n", "10", "--no-progress"])
    line = one_error_line(r)
    assert "sen.py" not in line and "strategy strategy" not in line
    assert line == expected.format(path=path), line


def test_a_helper_method_with_a_name_of_its_own_is_no_mistake(tmp_path):
    path = tmp_path / "misnamed.py"
    path.write_text(MISNAMED)
    r = cli.invoke(app, ["play", "fan-and-mallet", "-s", f"{path}:Helper", "-n", "10", "--no-progress", "--json"])
    assert r.exit_code == 0, r.output


def test_a_decision_made_by_calling_decision_on_a_function_of_another_name_plays(tmp_path):
    """``play = decision(f)``-style definitions (the decision under another name than its function's): the
    generated module finds the decision by the name its file gives it, and it plays as its function does."""
    path = tmp_path / "shared.py"
    path.write_text(textwrap.dedent("""\
        import dataclasses
        from strategies.base import decision
        from strategies.fan_and_mallet import Strongest, strongest_slot


        def _choose(obs, prm, rng):
            return strongest_slot(obs.hand)


        choose = decision(_choose)


        @dataclasses.dataclass(frozen=True)
        class Shared(Strongest):
            play = choose
        """))
    mine = cli.invoke(app, ["play", "fan-and-mallet", "-s", f"{path}:Shared", "-n", "200", "--json", "--no-progress"])
    ref = cli.invoke(app, ["play", "fan-and-mallet", "-s", "strongest", "-n", "200", "--json", "--no-progress"])
    assert mine.exit_code == 0, mine.output
    a, b = json.loads(mine.stdout), json.loads(ref.stdout)
    assert a["win_share"] == b["win_share"] and a["mean_turns"] == b["mean_turns"]


def test_an_exception_raised_in_compiled_code_is_one_line(tmp_path):
    path = tmp_path / "compiled_mistakes.py"
    path.write_text(COMPILED)
    r = cli.invoke(app, ["play", "fan-and-mallet", "-s", f"{path}:Boom", "-n", "10", "--no-progress"])
    # the compiled loop does not say which decision raised: the same games in the batch lane name it
    one_error_line(r, "strategy ", ":Boom failed in its decision 'play': ValueError: boom", "--debug")


def test_an_exception_in_one_compiled_strategy_of_a_mixed_table_names_that_one(tmp_path):
    path = tmp_path / "compiled_mistakes.py"
    path.write_text(COMPILED)
    r = cli.invoke(app, ["play", "fan-and-mallet", "-s", "strongest", "-s", f"{path}:Boom", "-n", "10",
                         "--no-progress"])
    line = one_error_line(r, ":Boom failed in its decision 'play': ValueError: boom")
    assert "Strongest" not in line and "strongest" not in line


def test_a_broken_class_beside_a_working_one_does_not_enter_a_mixed_lineup(tmp_path):
    """A mixed lineup's module takes every class of the built-in strategies' module, but from a user's
    file only the lineup's own classes: the file's Draft (which does not compile) stays out."""
    from strategies.registry import resolve

    path = tmp_path / "compiled_mistakes.py"
    path.write_text(COMPILED)
    eng = get_game("fan-and-mallet")
    lu = Lineup(eng, [resolve("fan-and-mallet", f"{path}:Floaty"), resolve("fan-and-mallet", "random")])
    names = [p.qualname for p in lu.plans]
    assert "Floaty" in names and "RandomPlay" in names and "Draft" not in names and "Boom" not in names, names


@pytest.mark.parametrize("where", ["decision", "import"])
def test_sys_exit_in_a_strategy_is_one_line_not_the_end_of_sensei(tmp_path, where):
    if where == "decision":
        path = _numpy_file(tmp_path, "sen", "sys.exit(0)\n")
        words = ["Mine", "tried to end the program in its decision 'start'", "sys.exit(0)"]
    else:
        path = _numpy_file(tmp_path, "sen", "return np.full(M, 2)\n")
        with open(path, "a") as fh:
            fh.write("\nsys.exit(3)\n")
        words = ["failed to load", "it called sys.exit(3)"]
    r = cli.invoke(app, ["play", "sen", "-s", f"{path}:Mine", "-s", "threshold", "-p", "2", "-n", "10",
                         "--no-progress", "--json"])
    one_error_line(r, *words)
    assert r.stdout == ""


def test_what_a_strategy_prints_goes_to_stderr_under_json(tmp_path):
    path = _numpy_file(tmp_path, "sen", "print('thinking...')\nreturn np.full(M, 2)\n")
    with open(path, "a") as fh:
        fh.write("\nprint('loaded')\n")
    r = cli.invoke(app, ["play", "sen", "-s", f"{path}:Mine", "-s", "threshold", "-p", "2", "-n", "10",
                         "--no-progress", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["games"] == 10
    assert "thinking..." in r.stderr and "loaded" in r.stderr


def test_files_named_by_folders_or_paths_with_a_colon(tmp_path):
    folder = tmp_path / "mine.py"
    folder.mkdir()
    r = cli.invoke(app, ["play", "sen", "-s", f"{folder}:Mine", "-n", "10", "--no-progress"])
    one_error_line(r, "is a folder, not a Python file")
    odd = tmp_path / "v1:old"
    odd.mkdir()
    path = _numpy_file(odd, "sen", "return np.full(M, 2)\n")
    r = cli.invoke(app, ["play", "sen", "-s", f"{path}:Mine:wake=9", "-s", "threshold", "-p", "2", "-n", "10",
                         "--no-progress", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["strategies"][0] == f"{path}:Mine:wake=9"


@numba.njit(nogil=True, cache=False)
def _spin(n):
    x = 88172645463325252
    for _ in range(n):  # xorshift: nothing the compiler can fold
        x ^= (x << 13) & 0xFFFFFFFFFFFF
        x ^= x >> 7
        x ^= (x << 17) & 0xFFFFFFFFFFFF
    return x


def _spinning(i, finished):
    _spin(1_500_000_000 if i == 1 else 1)  # chunk 1: compiled code that runs for seconds without the GIL
    finished.append(i)
    return i


def test_ctrl_c_stops_a_one_job_run_while_compiled_code_plays():
    """With one job the runner plays each chunk in a kept thread and waits on it, so Ctrl-C (in the main
    thread) stops the run at once, even while a chunk runs compiled code that never looks for signals (a
    compiled strategy's endless loop): the run stops while that chunk still runs."""
    _spin(1)  # compiled before the run
    finished, got = [], []
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            R.run_chunks(((_spinning, (i, finished)) for i in range(3)), 1, lambda i, r: got.append(r))
        assert finished == [0] and got == [0]  # chunk 1 still spins in its thread
        assert R.chunks_playing()
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    while R.chunks_playing():  # leave the pool idle for the next test (a wait, not a timed assertion)
        time.sleep(0.1)


WILD = """\
import dataclasses
from strategies.base import decision
from strategies.fan_and_mallet import Strongest


@decision
def wild(obs, prm, rng):
    obs.hand[1 << 40] = 1   # far outside the hand: compiled code does not check bounds
    return 0


@dataclasses.dataclass(frozen=True)
class Wild(Strongest):
    play = wild
"""


def test_a_crash_in_compiled_code_is_one_line_from_the_command_line(tmp_path):
    # a segmentation fault ends the process; the command line's handler says so in one line (exit 1)
    import subprocess
    import sys
    path = tmp_path / "wild.py"
    path.write_text(WILD)
    r = subprocess.run([sys.executable, "-c", "from experiments.cli import main; main()", "play", "fan-and-mallet",
                        "-s", f"{path}:Wild", "-n", "10", "--no-progress"], capture_output=True, text=True,
                       timeout=600, cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    lines = [ln for ln in r.stderr.splitlines() if ln.strip() and not ln.startswith("compiling ")]
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert len(lines) == 1 and lines[0].startswith("error: sensei crashed in compiled code"), r.stderr
    assert "NUMBA_BOUNDSCHECK=1" in lines[0] and r.stdout == ""


def test_a_strategy_that_raises_when_it_is_made_is_one_line(tmp_path):
    path = tmp_path / "bad_init.py"
    path.write_text(textwrap.dedent("""\
        import dataclasses
        from strategies.sen import Threshold


        @dataclasses.dataclass(frozen=True)
        class BadInit(Threshold):
            def __post_init__(self):
                raise RuntimeError("post init")
        """))
    for command in ("play", "check"):
        r = cli.invoke(app, [command, "sen", "-s", f"{path}:BadInit", "-n", "5"])
        one_error_line(r, f"strategy {path}:BadInit failed when it was made (in its __post_init__, say): RuntimeError: "
                          "post init")


def test_integers_in_an_array_of_objects_are_integers():
    """np.array([0, 1], dtype=object) holds integers: they are answers (they read "too large for an option")."""
    from simcore.errors import IllegalAction
    import numpy as np

    from simcore.game import answer_integers

    out = answer_integers(np.array([0, 1, 2], dtype=object), "start")
    assert out.dtype == np.int64 and out.tolist() == [0, 1, 2]
    with pytest.raises(IllegalAction, match=r"an answer of 1180591620717411303424 \(too large for an option\)"):
        answer_integers(np.array([0, 2 ** 70], dtype=object), "start")


def test_a_masked_array_with_masked_entries_is_an_illegal_answer():
    """np.asarray reads a masked entry as the value under its mask: an answer nobody gave, played silently."""
    from simcore.errors import IllegalAction
    import numpy as np

    from simcore.game import answer_integers

    masked = np.ma.masked_array([0, 2, 1], mask=[False, True, False])
    with pytest.raises(IllegalAction, match=r"made an illegal start: answers with masked entries"):
        answer_integers(masked, "start")
    # a masked array with nothing masked is its values
    assert answer_integers(np.ma.masked_array([0, 2, 1]), "start").tolist() == [0, 2, 1]


def test_a_parameter_missing_from_prm_says_where_prm_comes_from():
    """A subclass of a built-in heuristic whose compiled_values() has a layout of its own: a new parameter of
    the subclass is not in prm, and numba's "Unknown attribute 'wild_keep' of type P__code__..." said nothing
    of compiled_values()."""
    from simcore.lineup import _compiler_message

    exc = Exception("Failed in nopython mode pipeline (step: nopython frontend)\n"
                    "Unknown attribute 'wild_keep' of type P__code__close_bonus__play_min\n\n"
                    'File "/tmp/mine.py", line 16:\n')
    text = _compiler_message(exc)
    assert text.startswith("prm has no 'wild_keep': prm holds what the strategy's compiled_values() gives")
    assert text.endswith("(mine.py, line 16)")
    other = Exception("Unknown attribute 'random' of type Stream(keys=array)\n")
    assert _compiler_message(other).startswith("Unknown attribute 'random' of type Stream")


def test_a_compile_error_inside_a_sensei_helper_names_the_helper():
    """``integer(rng, obs.hand_n[obs.g])`` (a row where a number was meant) failed with "... bool(array(bool, 1d,
    C)) (rng.py, line 169)": numba names no line of the decision then, only the helper's, which left the user
    guessing which call it was. The helper is named now."""
    import inspect

    import simcore.rng as rng
    from simcore.lineup import _compiler_message

    src, first = inspect.getsourcelines(rng.integer.py_func)
    line = first + len(src) - 1  # the helper's last line
    exc = Exception("No implementation of function Function(<class 'bool'>) found for signature:\n \n"
                    " >>> bool(array(bool, 1d, C))\n"
                    f"During: typing of call at {rng.__file__} ({line})\n"
                    f'File "{os.path.relpath(rng.__file__)}", line {line}:\n')
    assert _compiler_message(exc) == (
        f"No implementation of function Function(<class 'bool'>) found for signature: bool(array(bool, 1d, C)) "
        f"(rng.py, line {line}, in sensei's integer(): check what the decision gives it)")
    mine = Exception("Unknown attribute 'x' of type int64\n" 'File "/tmp/mine.py", line 9:\n')
    assert _compiler_message(mine) == "Unknown attribute 'x' of type int64 (mine.py, line 9)"


def test_a_decision_called_from_another_says_to_call_its_compiled_function():
    """Calling a built-in decision (a CompiledDecision) inside one's own gave numba's "Untyped global name
    '_heuristic_turn': Cannot determine Numba type of <class '...CompiledDecision'>", which does not say how."""
    from simcore.lineup import _compiler_message

    exc = Exception("Failed in nopython mode pipeline (step: nopython frontend)\n"
                    "Untyped global name '_threshold_start_d': Cannot determine Numba type of <class "
                    "'simcore.compiled.CompiledDecision'>\n\n" 'File "/tmp/mine.py", line 10:\n')
    assert _compiler_message(exc) == (
        "_threshold_start_d is a decision (@decision), which compiled code calls through its compiled function: "
        "write `_threshold_start_d_fn = _threshold_start_d.fn` at the module's level and call "
        "`_threshold_start_d_fn(obs, prm, rng)` (mine.py, line 10)")


def test_a_draw_below_1_raises_in_both_forms():
    """integers(0) returned -1, which the engine refused as an illegal move, blaming the move."""
    import numba
    import numpy as np

    from simcore.rng import Draws, Stream, integer

    d = Draws(np.arange(3, dtype=np.uint64) + 7)
    with pytest.raises(ValueError, match=r"integers\(high\) needs high >= 1"):
        d.integers(np.arange(3), np.array([2, 0, 3]))
    assert d.integers(np.arange(3), 1).tolist() == [0, 0, 0]
    # a number that is not whole (integers(2.5) drew from [0, 2) without a word); a whole float is that integer
    with pytest.raises(ValueError, match=r"integers\(high\) needs whole numbers .*got 2.5"):
        d.integers(np.arange(3), 2.5)
    a, b = (Draws(np.arange(3, dtype=np.uint64) + 7) for _ in range(2))
    assert a.integers(np.arange(3), 4.0).tolist() == b.integers(np.arange(3), 4).tolist()

    @numba.njit
    def draw(rng, high):
        return integer(rng, high)

    rng = Stream(np.arange(2, dtype=np.uint64) + 7, np.zeros(2, dtype=np.int64), 1,
                 np.zeros((16, 64)), np.zeros((16, 64), dtype=np.int64))
    assert 0 <= draw(rng, 5) < 5
    with pytest.raises(ValueError, match=r"integer\(rng, high\) needs high >= 1"):
        draw(rng, 0)


CALLS_A_PROPERTY = """
import dataclasses
from typing import ClassVar
import numpy as np
from strategies.base import Strategy

@dataclasses.dataclass(frozen=True)
class Calls(Strategy):
    game: ClassVar[str] = "fan-and-mallet"
    def play(self, obs, rng):
        first = obs.landing[:, 0]
        legal = obs.legal()
        return np.argmax(legal, axis=1)
"""


def test_an_exception_in_a_numpy_strategy_names_its_file_and_line(tmp_path):
    """obs.legal is a property: calling it raises in the strategy's own line 12, which the one line names
    (the engine's frames and numpy's are passed over)."""
    path = tmp_path / "calls.py"
    path.write_text(CALLS_A_PROPERTY)
    r = cli.invoke(app, ["play", "fan-and-mallet", "-s", f"{path}:Calls", "-n", "10", "--no-progress"])
    one_error_line(r, "failed in its decision 'play': TypeError: 'numpy.ndarray' object is not callable "
                      "(at calls.py, line 12)")
