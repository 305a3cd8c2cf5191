"""The same seeds give the same games: per-game outcomes of many lineups, player counts and rule options
in both lanes match the fingerprints recorded before the engines were reshaped (tests/fingerprints.py)."""
import json

import pytest

from tests.fingerprints import CASES, PATH, case_id, fingerprint

with open(PATH) as fh:
    RECORDED = json.load(fh)


def test_every_case_is_recorded():
    assert sorted(RECORDED) == sorted(case_id(c) for c in CASES)


@pytest.mark.parametrize("lane", ["compiled", "batch"])
@pytest.mark.parametrize("game", ["sen", "senshi", "sensu", "fan-and-mallet"])
def test_same_games_as_recorded(game, lane):
    wrong = []
    for case in CASES:
        if case["game"] != game:
            continue
        got = fingerprint(case, compiled=lane == "compiled")
        if got != RECORDED[case_id(case)]:
            wrong.append(case_id(case))
    assert not wrong, f"{len(wrong)} cases play other games than recorded, e.g. {wrong[:3]}"
