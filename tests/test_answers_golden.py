"""Every shipped question and every answer kind's test config gives the recorded answer: the same sentences,
the same tables (column by column), the same summary, and a report with the same figures and tables.

The record is ``tests/data/golden_answers.json`` (``python -m tests.golden_answers --write``)."""
import json

import pytest

from tests.golden_answers import CONFIGS, GOLDEN, collect

with open(GOLDEN, encoding="utf-8") as _fh:
    RECORD = json.load(_fh)


def test_every_config_is_recorded():
    assert sorted(RECORD) == sorted(name for name, _, _ in CONFIGS)


@pytest.mark.parametrize("name,source,games", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_answer_is_unchanged(name, source, games):
    got, want = collect(name, source, games), RECORD[name]
    assert got["answer"] == want["answer"]
    assert got["tables"] == want["tables"]
    assert got["summary"] == want["summary"]
    assert got["report"] == want["report"]
