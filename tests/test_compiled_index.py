"""Marked files of the project's compiled code index arrays without negative wrap-around
(simcore/compiled.py); code written anywhere else keeps numba's meaning of a negative index
(``hand[-1]`` is the last slot), also a user's decision that the game loop inlines."""
import os
import textwrap

import numpy as np
import pytest

from simcore import compiled
from simcore.compiled import NO_NEGATIVE_INDEX_MARK, _marked, _statement_without_wraparound, exec_file_module
from simcore.runner import simulate
from strategies.registry import lineup

USER = textwrap.dedent('''
    import dataclasses
    from typing import ClassVar

    import numba

    from strategies.base import Strategy, decision


    @decision
    def _last_negative(obs, prm, rng):
        """The last slot holding a card, counted from the end with negative indices."""
        j = -1
        while obs.hand[j] < 0:
            j -= 1
        return 6 + j


    @numba.njit(inline="always")   # numba inlines its statements into the lineup's decision dispatch
    def _last_inlined(obs, prm, rng):
        j = -1
        while obs.hand[j] < 0:
            j -= 1
        return 6 + j


    @decision
    def _last_positive(obs, prm, rng):
        j = 5
        while obs.hand[j] < 0:
            j -= 1
        return j


    @dataclasses.dataclass(frozen=True)
    class LastNegative(Strategy):
        name: ClassVar[str] = "last_negative"
        game: ClassVar[str] = "fan-and-mallet"
        play = _last_negative


    @dataclasses.dataclass(frozen=True)
    class LastInlined(Strategy):
        name: ClassVar[str] = "last_inlined"
        game: ClassVar[str] = "fan-and-mallet"
        play = decision(_last_inlined)


    @dataclasses.dataclass(frozen=True)
    class LastPositive(Strategy):
        name: ClassVar[str] = "last_positive"
        game: ClassVar[str] = "fan-and-mallet"
        play = _last_positive
''')


def test_a_users_negative_indices_keep_their_meaning_in_the_game_loop(tmp_path):
    path = tmp_path / "last_card.py"
    path.write_text(USER)
    # mixed lineups of one file share one compiled module; every seat plays the last card it holds
    summaries = []
    for pair in (("LastPositive", "LastPositive"), ("LastNegative", "LastInlined"), ("LastInlined", "LastNegative")):
        if pair[0] == pair[1]:
            agents = lineup("fan-and-mallet", [f"{path}:{pair[0]}"], 2)
        else:
            agents = lineup("fan-and-mallet", [f"{path}:{c}" for c in pair], 2)
        s = simulate("fan-and-mallet", agents, n_games=200, seed=3).summary()
        summaries.append((s["win_share"], s["mean_turns"], s["metrics"]))
    assert summaries[1] == summaries[0] and summaries[2] == summaries[0]


def test_a_function_outside_the_project_wraps_negative_indices(tmp_path):
    path = tmp_path / "outside.py"
    path.write_text("import numba\n\n@numba.njit\ndef last(a, i):\n    return a[i]\n")
    mod = exec_file_module("sensei_test_outside_index", str(path))
    a = np.arange(5, dtype=np.int64) * 10
    assert mod.last(a, -1) == 40 and mod.last(a, -5) == 0 and mod.last(a, 2) == 20


def test_which_files_index_without_wraparound(tmp_path):
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for game in ("sen", "senshi", "sensu", "fan_and_mallet"):
        for name in (f"simcore/games/{game}.py", f"strategies/{game}.py"):
            assert _marked(os.path.join(here, name)), name
    assert _marked(os.path.join(here, "simcore/rng.py"))
    # the search's files are not marked
    assert not _marked(os.path.join(here, "simcore/search.py"))
    assert not _marked(os.path.join(here, "strategies/ismcts.py"))
    # a file outside the project's compiled sources never counts, even with the mark
    user = tmp_path / "mine.py"
    user.write_text(f"{NO_NEGATIVE_INDEX_MARK}\nimport numba\n")
    assert not _marked(str(user))
    # outside numba's lowering there is no statement at all
    assert _statement_without_wraparound() is None


READ = "import numba\n\n\n@numba.njit\ndef read(a, i):\n    return a[i]\n"


@pytest.mark.parametrize("audit", ["", "1", "log"])
def test_a_marked_file_indexes_as_it_is_and_the_audit_names_a_negative_index(tmp_path, monkeypatch, capfd, audit):
    big = np.arange(10, dtype=np.int64) * 10
    view = big[1:]    # a view: the entry before its first one is big[0]
    marked, plain = tmp_path / f"marked_{audit}.py", tmp_path / f"plain_{audit}.py"
    marked.write_text(READ)
    plain.write_text(READ)
    monkeypatch.setitem(compiled._MARKED, str(marked), True)   # as if it were a marked file of the project
    monkeypatch.setenv(compiled.NEGATIVE_INDEX_AUDIT, audit)
    m = exec_file_module(f"sensei_test_marked_{audit}", str(marked))
    u = exec_file_module(f"sensei_test_plain_{audit}", str(plain))
    assert m.read(view, 3) == 40 and u.read(view, 3) == 40
    assert u.read(view, -1) == 90          # numba's meaning: the last entry
    where = f"negative index ({os.path.relpath(str(marked))}, line 6)"
    if audit == "1":
        with pytest.raises(IndexError) as exc:
            m.read(view, -1)
        assert str(exc.value) == where
    elif audit == "log":                   # says where, then reads with numba's meaning
        capfd.readouterr()
        assert m.read(view, -1) == 90
        assert capfd.readouterr().out.strip() == where
    else:
        assert m.read(view, -1) == 0       # used as it is: the entry before the view's first


def test_make_boundscheck_sets_the_audit_this_module_reads():
    import importlib.util

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    spec = importlib.util.spec_from_file_location("sensei_boundscheck_tool", os.path.join(here, "tools", "boundscheck.py"))
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert tool.AUDIT == compiled.NEGATIVE_INDEX_AUDIT
