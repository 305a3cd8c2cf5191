"""Figures that docs/experiments.md quotes from the answers of small worked examples are what the tool
prints for them: each example's config is run here and every quoted fragment must appear both in the page
(its lines joined) and in the answer."""
import os
import re

import pytest

from experiments import run_experiment

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

EXAMPLES = {
    "best_response confirmed": (
        {"game": "sen", "players": 2, "games": 120, "seed": 7,
         "lineup": {"focus": "threshold", "field": "threshold:wake=10"},
         "search": {"focus.wake": {"min": 4, "max": 20, "step": 4}, "confirm": 200},
         "report": {"answer": "best_response"}},
        ["wake=16, win share 61.5% [56.3%, 66.3%] over 120 deals (fair 50.0%)",
         "from 120: none of them helped choose it): 58.2% [54.4%, 62.0%]",
         "60.6% [56.7%, 64.4%], a paired difference of +2.4% [-2.7%, +7.4%] from the best"]),
    "best_response against a tournament field": (
        {"game": "sen", "players": 3, "games": 120, "seed": 1,
         "lineup": {"tournament": ["counter", "watcher", "swapper", "threshold"]},
         "search": {"threshold.wake": {"min": 4, "max": 28, "step": 4}},
         "report": {"answer": "best_response"}},
        ["wake=20, win share 32.8% [29.4%, 36.3%] over 120 deals (fair 33.3%); against each table: counter 33.3% "
         "[29.4%, 37.6%], watcher 33.2% [29.5%, 37.1%], swapper 31.8% [28.3%, 35.5%]"]),
    "equilibrium confirmed": (
        {"game": "sen", "players": 2, "games": 80, "seed": 3,
         "lineup": {"focus": "threshold", "field": "threshold:wake=8"},
         "search": {"focus.wake": {"min": 4, "max": 24, "step": 2}, "confirm": 100},
         "report": {"answer": "equilibrium"}},
        ["the best measured deviation, wake=20, wins 57.8% [52.0%, 63.3%]"]),
}


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_quoted_answers_are_what_the_tool_prints(name, tmp_path):
    raw, fragments = EXAMPLES[name]
    with open(os.path.join(ROOT, "docs", "experiments.md"), encoding="utf-8") as f:
        page = _flat(f.read())
    res = run_experiment({"title": name, "question": name, **raw})
    answer = _flat(" ".join(res.answer))
    for frag in fragments:
        assert frag in page, f"docs/experiments.md no longer quotes: {frag}"
        assert frag in answer, f"the answer no longer says: {frag}"
