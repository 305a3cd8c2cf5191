"""The answers of every shipped question and of the test configs, recorded to check that a change of code
leaves them untouched (answer sentences, every table, the report's figures and tables). A table is recorded
as a digest of its columns, its types and its values, floats to ``DIGITS`` significant digits.

``python -m tests.golden_answers --write`` records them into ``tests/data/golden_answers.json``;
``tests/test_answers_golden.py`` replays every config and compares. Re-record only when a change is
meant to change results (an engine or a strategy that plays differently), never to make a refactoring pass.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import tempfile

import polars as pl

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, "tests", "data", "golden_answers.json")


def _focus(**extra):
    raw = {"title": "t", "question": "q", "game": "sen", "players": 3, "games": 40, "seed": 5,
           "lineup": {"focus": "threshold", "field": "threshold:wake=10"}, "sweep": {"focus.wake": [7, 10]}}
    raw.update(extra)
    return {k: v for k, v in raw.items() if v is not None}


#: (name, config path or dict, games override): small sizes, every answer kind
CONFIGS = [
    ("sen_wake_threshold", "experiments/sen_wake_threshold.toml", 30),
    ("sen_variants", "experiments/sen_variants.toml", 30),
    ("sensu_balance", "experiments/sensu_balance.toml", 40),
    ("sensu_sticks_calibration", "experiments/sensu_sticks_calibration.toml", 40),
    ("fan_and_mallet_balance", "experiments/fan_and_mallet_balance.toml", 30),
    ("senshi_elimination", "experiments/senshi_elimination.toml", 8),
    ("senshi_seats", "experiments/senshi_seats.toml", 20),
    ("best", _focus(), None),
    ("best_score_min", _focus(sweep={"focus.wake": [6, 9, 12], "rules.penalty": [5, 15]},
                              report={"metric": "mean_score", "goal": "min", "over": "focus.wake"}), None),
    ("best_turns_seats", _focus(lineup={"seats": ["threshold", "random"]}, players=2,
                                sweep={"seat0.wake": [6, 12]}, report={"metric": "mean_turns"}), None),
    ("effect", _focus(sweep={"rules.know_what_i_have": [False, True]},
                      lineup={"focus": "threshold:wake=8", "field": "threshold"},
                      report={"answer": "effect", "over": "rules.know_what_i_have", "baseline": False}), None),
    ("sprt", _focus(players=2, games=50, lineup={"focus": "threshold", "field": "random:p_wake=0.3"},
                    sweep={}, sprt={"h0": 0.0, "h1": 0.1, "max_games": 2000}), None),
    ("ratings", {"title": "t", "question": "q", "game": "sen", "players": 2, "games": 60, "seed": 2,
                 "lineup": {"tournament": ["random", "threshold", "counter"]}}, None),
    ("summary_per_game", _focus(games=10, sweep={}, report={"per_game": True}), None),
    ("summary_not_rotated", _focus(games=20, sweep={"players": [2, 4]}, players=None,
                                   lineup={"focus": "threshold:wake=7", "field": "threshold", "rotate": False}), None),
    ("summary_seats", _focus(games=20, sweep={}, lineup={"seats": ["threshold", "random", "threshold"]}), None),
    ("report_two_axes", {"title": "Report test", "question": "Which wake is best?", "game": "sen", "players": 2,
                         "games": 20, "seed": 3, "lineup": {"focus": "threshold", "field": "threshold:wake=10"},
                         "sweep": {"focus.wake": [8, 12], "rules.penalty": [5, 15]},
                         "report": {"over": "focus.wake"}}, None),
]


#: significant digits of the float columns in a table's digest: a fit done by linear algebra (the ratings'
#: binomial GLM) differs in its last bits from one CPU to another (OpenBLAS chooses its kernels by CPU,
#: and different kernels sum in different orders), while every figure to ten digits does not
DIGITS = 10


def _digest(df: pl.DataFrame) -> str:
    import polars.selectors as cs

    df = df.with_columns(cs.float().round_sig_figs(DIGITS))
    text = json.dumps([df.columns, [str(t) for t in df.dtypes]]) + df.write_csv()
    return hashlib.sha256(text.encode()).hexdigest()


def _report_parts(page: str) -> dict:
    """The report's figure captions (titles and texts) and its tables section (HTML)."""
    caps = re.findall(r"<figcaption>(.*?)</figcaption>", page, re.S)
    alts = re.findall(r'<img src="data:image/png;base64,[^"]*" alt="([^"]*)"', page)
    m = re.search(r'<section id="tables">(.*?)</section>', page, re.S)
    bal = re.search(r'<section id="balance">(.*?)</section>', page, re.S)
    return {"figures": caps, "alts": alts,
            "tables_sha256": hashlib.sha256((m.group(1) if m else "").encode()).hexdigest(),
            "balance_sha256": hashlib.sha256((bal.group(1) if bal else "").encode()).hexdigest()}


def collect(name: str, source, games) -> dict:
    from experiments import run_experiment
    from reports import build_report

    if isinstance(source, str):
        source = os.path.join(ROOT, source)
    res = run_experiment(source, games=games)
    tables = {}
    for key, df in sorted(res.tables.items()):
        if key == "cells" and "seconds" in df.columns:
            df = df.drop("seconds")
        tables[key] = _digest(df)
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = res.write(tmp)
        with open(build_report(run_dir, index=False), encoding="utf-8") as fh:
            page = fh.read()
        with open(os.path.join(run_dir, "summary.json"), encoding="utf-8") as fh:
            summary = json.load(fh)
    summary.pop("answer", None)
    return {"answer": res.answer, "tables": tables, "summary": summary, "report": _report_parts(page)}


def main(argv: list[str]) -> int:
    if argv != ["--write"]:
        print(__doc__)
        return 2
    out = {name: collect(name, src, games) for name, src, games in CONFIGS}
    os.makedirs(os.path.dirname(GOLDEN), exist_ok=True)
    with open(GOLDEN, "w", encoding="utf-8") as fh:
        json.dump(out, fh, indent=1, sort_keys=True)
        fh.write("\n")
    print(f"recorded {len(out)} configs into {GOLDEN}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
