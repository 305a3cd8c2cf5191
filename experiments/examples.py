"""Example games of a run: for the cells an answer is about, one short game traced (``examples.parquet``),
with the ``sensei trace`` command that prints it again.

A cell's games are those ``sensei play`` plays with the cell's lineup in base seat order (rotation 0),
its rules and the experiment's seed: deal K of the cell is ``sensei trace ... --seed SEED --game K``.
The example is the shortest of the cell's first :data:`SCAN` deals (the earliest of equal length) that
did not time out. Which cells: those the answer's estimates name one by one (scope ``cell``), else every
cell; at most :data:`MAX_CELLS`, spread evenly over them (the first, the last and between), in cell order,
so that a grid's groups (player counts, rule settings) are all seen, not only its first cells.
"""
from __future__ import annotations

import shlex
from typing import Any, Sequence

import polars as pl

#: cells traced at most
MAX_CELLS = 6
#: deals of a cell looked at for the shortest game
SCAN = 16


def example_cells(tables: dict[str, pl.DataFrame], n_cells: int) -> list[int]:
    """The cells (positions in the cells table) the answer is about."""
    est = tables.get("estimates")
    if est is not None and est.height and {"scope", "cell"} <= set(est.columns):
        ids = [int(c) for c in est.filter(pl.col("scope") == "cell")["cell"].drop_nulls().unique(maintain_order=True)
               .to_list() if 0 <= int(c) < n_cells]
        if ids:
            return _spread(sorted(ids))
    return _spread(list(range(n_cells)))


def _spread(ids: list[int]) -> list[int]:
    """At most MAX_CELLS of ``ids``, evenly spaced from the first to the last."""
    if len(ids) <= MAX_CELLS:
        return ids
    return sorted({ids[round(j * (len(ids) - 1) / (MAX_CELLS - 1))] for j in range(MAX_CELLS)})


def _value(v: Any) -> str:
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def trace_command(game: str, players: int, specs: Sequence[str], rules: dict[str, Any], defaults: dict[str, Any],
                  seed: int, k: int, deals: int, files: Sequence[str] = ()) -> str:
    """The ``sensei trace`` command line of deal ``k`` of a lineup (rules given where not at their defaults)."""
    parts = ["sensei", "trace", game, "--players", str(players)]
    if len(set(specs)) == 1:
        parts += ["--strategy", specs[0]]
    else:
        for s in specs:
            parts += ["--strategy", s]
    for key, v in rules.items():
        if defaults.get(key) != v:
            parts += ["--rule", f"{key}={_value(v)}"]
    for f in files:
        parts += ["--strategies", f]
    parts += ["--seed", str(seed), "--game", str(k), "--games", str(deals)]
    return " ".join(shlex.quote(p) for p in parts)


def example_games(game: str, seed: int, runs: Sequence[Any], tables: dict[str, pl.DataFrame],
                  files: Sequence[str] = ()) -> pl.DataFrame:
    """One traced game per cell the answer is about: columns cell, game (the deal K), turns, command, text."""
    from simcore.registry import get_game
    from simcore.runner import simulate
    from simcore.tracing import render, trace_game

    eng = get_game(game)
    defaults = eng.make_rules({}).as_dict()
    rows = []
    for i in example_cells(tables, len(runs)):
        run = runs[i]
        c = run.cell
        deals = int(run.deals) or 1
        scan = min(SCAN, deals)
        games = simulate(eng, c.agents, players=c.players, rules=c.rules, n_games=scan, seed=seed,
                         keep_games=True).games()
        per_game = games.filter(pl.col("seat") == 0).select("game", "turns", "timeout")
        short = per_game.filter(~pl.col("timeout")).sort(["turns", "game"])
        pick = short if short.height else per_game.sort(["turns", "game"])
        k, turns = int(pick["game"][0]), int(pick["turns"][0])
        text = render(trace_game(eng, c.agents, c.players, c.rules, seed=seed, game=k))
        specs = [a.spec() if hasattr(a, "spec") else repr(a) for a in c.agents]
        rows.append({"cell": i, "game": k, "turns": turns,
                     "command": trace_command(eng.name, c.players, specs, c.rules.as_dict(), defaults, seed, k, deals,
                                              files),
                     "text": text})
    schema = {"cell": pl.Int64, "game": pl.Int64, "turns": pl.Int64, "command": pl.Utf8, "text": pl.Utf8}
    return pl.DataFrame(rows, schema=schema)
