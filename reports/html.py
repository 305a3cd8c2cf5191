"""Self-contained HTML reports of run folders, and the index page listing every run.

A report reads a run folder (parquet tables, ``summary.json``, ``manifest.json``, ``config.toml``) and
writes ``report.html`` into it: the question, the answer sentences with their intervals, plots (inline
base64 PNG), balance figures, tables, and what is needed to reproduce the run. Nothing is fetched from
the network and no game is played. The index page (``index.html`` next to the run folders) lists every
run with its answer.
"""
from __future__ import annotations

import html
import json
import math
import os
import re
from typing import Any

import jinja2
import polars as pl

from experiments.answers import REGISTRY
from experiments.answers.base import ReportContext
from experiments.answers.common import by_symmetry, is_share
from simcore.errors import SenseiError
from simcore.files import atomic_write, read_limited
from simcore.registry import get_game

from . import plots

_HERE = os.path.dirname(os.path.abspath(__file__))
_TEMPLATES = os.path.join(_HERE, "templates")
TABLES = ("cells", "seats", "turns", "scores", "paired", "ratings", "sprt", "estimates", "race", "confirm",
          "equilibrium", "regrets", "path", "metagame", "examples")

#: tables every finished run writes (empty when the run has none of their rows): one missing is a damaged folder
REQUIRED_TABLES = ("cells", "seats", "turns", "scores", "paired", "ratings", "sprt")

#: tables of the searching answers: (name, title, caption), shown when the run has them
EXTRA_TABLES = (
    ("equilibrium", "Equilibria", "one row per group, solution and strategy in its support: probability with its "
     "bootstrap 95% interval over deals, the strategy's regret against the equilibrium (its win share against a "
     "field drawn from it minus the equilibrium's own) and, with an event, its event rate against that field; a "
     "symmetric fixed point is one pure strategy (tied: the settings that its last best-response race did not rule "
     "out)"),
    ("regrets", "Regrets", "every member's regret against every solution of a meta-game (its win share against a "
     "field drawn from the solution minus the solution's own), in the solution's support or not, with its bootstrap "
     "95% interval, and with search.confirm its regret on the fresh deals (fresh_regret)"),
    ("path", "Iterations", "iterated best response: the field at each step, the race's winner and the settings "
     "still in the race with it"),
    ("race", "Races", "every raced setting per group (and per field): deals played, mean with its 95% interval, "
     "the round it was dropped in, the paired difference from the best on the same deals"),
    ("confirm", "Confirmation", "the race's best setting per group on fresh deals that none of the choices saw "
     "(search.confirm): mean with its 95% interval beside its mean in the race (race_value), and the closest "
     "rival's there with its paired difference from the best (rival - best)"),
    ("metagame", "Meta-game", "the payoff table: each strategy's win share per lineup, seats rotated, with its 95% t interval over "
                              "deals (each deal's seats averaged first)"),
)


#: words of the answers that a designer may not know: (the term, its plain definition, the phrases that show
#: the answer uses it); a report lists those its answer uses (looked for without regard to case, each phrase
#: at the start of a word: "elo" in "Elo +89", not in "below")
TERMS = (
    ("focus, field", "the focus is the strategy the question studies, in one seat (rotated through every seat "
     "unless the config says otherwise); the field is the strategy in every other seat", ("focus", "the field")),
    ("paired difference", "the difference between two settings on the same deals (the same shuffles), which "
     "takes the luck of the cards out of the comparison; its 95% interval is a paired one",
     ("paired", "on the same deals")),
    ("best response", "the setting that wins most often against a given table (every other seat fixed)",
     ("best response",)),
    ("fixed point", "a setting that is its own best response: against a table playing it, no other setting "
     "of the grid does clearly better; a table of it has no reason to move. A symmetric equilibrium",
     ("fixed point",)),
    ("weak fixed point", "a fixed point that the race kept although the best deviation's own 95% interval "
     "lies above it: the race corrects for having picked the best of many settings, a single interval does not",
     ("weak fixed point",)),
    ("the race", "settings are played on the same deals in rounds of more and more deals, and a setting is "
     "dropped once it is clearly worse than the leader of its round (the best so far); the settings still in the race at the end are the ones "
     "the deals could not tell apart from the best", ("raced", "the race", "in the race")),
    ("corrected for picking among N settings", "the race drops a setting only when it is clearly worse after "
     "allowing for the luck of picking the best of that many settings (the best of many is also the luckiest)",
     ("corrected for picking among",)),
    ("Bonferroni, Holm's correction", "corrections of p-values or intervals for making many comparisons at "
     "once, so that one comparison in twenty does not pass for a finding by chance", ("bonferroni", "holm")),
    ("chi-square test", "a test of whether every seat wins equally often: a small p (below 0.05) says the seats "
     "differ by more than chance would", ("chi-square",)),
    ("fresh deals", "deals that played no part in finding the answer, on which it is checked again",
     ("fresh deals",)),
    ("meta-game", "the table of win shares of every lineup of the strategies considered, measured by "
     "simulation; its equilibria are mixes of those strategies", ("meta-game",)),
    ("Nash", "a mix of strategies that no strategy beats: against a table playing the mix, switching to any "
     "one strategy gains nothing", ("nash",)),
    ("regret", "what a strategy would gain (win share) by being played against a table of the mix instead of "
     "the mix itself; below 0 it would lose, so it has no reason to switch. Measured on the deals that found "
     "the mix, it flatters the mix (an equilibrium of those deals leaves no member a gain there, by its "
     "construction): the regrets on fresh deals (search.confirm) are the check", ("regret",)),
    ("alpha-rank", "a ranking of strategies by how much of the time a population that keeps copying whoever "
     "does better spends playing each; its shares move in steps as the order of the payoffs changes, so where "
     "the deals leave that order clear its interval over resampled deals is narrow, and a share may sit at "
     "one end of its interval", ("alpha-rank",)),
    ("replicator dynamics", "a mix that grows the share of every strategy that beats the mix and shrinks the "
     "others, step by step, until it stops changing", ("replicator dynamics",)),
    ("search of supports", "a numerical search for mixes in which every strategy played earns the same and "
     "none left out earns more", ("search of supports",)),
    ("Elo, Bradley-Terry", "ratings fitted to every pairing's results (Bradley-Terry) on the Elo scale: with "
     "two players, 100 Elo apart means the higher rated wins about 64% of their games; with more players a "
     "rating orders the strategies but is not a win share at the table", ("elo", "bradley-terry")),
    ("equilibrium stakes", "at a table playing the equilibrium, what a seat gains by playing it rather than a "
     "setting drawn at random from the grid: how much knowing the equilibrium is worth (another grid gives "
     "other stakes)", ("equilibrium stakes",)),
)


def answer_terms(sentences: list[str]) -> list[tuple[str, str]]:
    """The terms of :data:`TERMS` that ``sentences`` use, in the table's order, with their definitions."""
    text = " ".join(sentences).lower()
    return [(t, d) for t, d, phrases in TERMS if any(re.search(r"\b" + re.escape(p), text) for p in phrases)]


class ReportError(ValueError):
    """A run folder that cannot be reported on (missing or unreadable files); the message is one line."""


def ratings_caption(ratings: pl.DataFrame) -> str:
    """The Ratings table's caption, saying how its intervals were made (a run folder written before the
    ``interval`` column was kept has Wald intervals over games)."""
    from simcore.stats import MIN_DEALS_WON

    kinds = set(ratings["interval"].to_list()) if "interval" in ratings.columns else {"Wald over games"}
    if kinds == {"clustered over deals"}:
        how = ("95% intervals clustered over deals (every match-up replays the same deals, each once per seat "
               "rotation: a deal's games count as one unit; a match-up where a side won on fewer than "
               f"{MIN_DEALS_WON} deals adds its model variance instead, each deal's games still one unit)")
    elif kinds == {"Wald over games"}:
        how = ("Wald 95% intervals over games (they count every game as independent, though every match-up "
               "replays the same deals: the run kept no per-deal values)")
    else:
        how = "95% intervals, clustered over deals or Wald over games as the interval column says"
    return f"Bradley-Terry ratings on the Elo scale with {how}; win share per seat occupied, against the fair share 1/P"


def _env() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(_TEMPLATES), autoescape=jinja2.select_autoescape(["j2"]),
                              undefined=jinja2.StrictUndefined)


def _css() -> str:
    with open(os.path.join(_TEMPLATES, "style.css"), encoding="utf-8") as fh:
        return fh.read()


def read_run(run_dir: str) -> dict[str, Any]:
    """The files of a run folder: tables (polars), summary, manifest and config text."""
    if not os.path.isdir(run_dir):
        raise ReportError(f"{run_dir}: not a run folder")
    out: dict[str, Any] = {"tables": {}}
    for name in ("summary", "manifest"):
        p = os.path.join(run_dir, f"{name}.json")
        try:
            out[name] = json.loads(read_limited(p))
        except FileNotFoundError:
            raise ReportError(f"{run_dir}: no {name}.json (not a run folder)") from None
        except (OSError, ValueError) as exc:  # (a pipe or a huge file: ValueError, as is bad JSON)
            raise ReportError(f"{p}: unreadable: {exc}") from None
        if not isinstance(out[name], dict):
            raise ReportError(f"{p}: damaged: a JSON object is expected, not {type(out[name]).__name__}")
    _check_manifest(os.path.join(run_dir, "manifest.json"), out["manifest"])
    written = out["manifest"].get("tables")  # what the run wrote (a run folder made before it was kept: None)
    required = set(REQUIRED_TABLES) | (set(written) & set(TABLES) if isinstance(written, list) else set())
    for name in TABLES:
        p = os.path.join(run_dir, f"{name}.parquet")
        if name in required and not os.path.isfile(p):
            what = ("not a run folder" if name == "cells" else
                    "every finished run writes it; run the config again" if name in REQUIRED_TABLES else
                    "the run wrote it, manifest.json says; run the config again")
            raise ReportError(f"{run_dir}: {name}.parquet is missing ({what})")
        try:
            if os.path.isfile(p):
                with open(p, "rb") as fh:  # (a handle: polars cannot open a path that is not UTF-8)
                    out["tables"][name] = pl.read_parquet(fh)
            else:
                out["tables"][name] = pl.DataFrame()
        except Exception as exc:  # a damaged parquet file may fail in many ways; report it on one line
            raise ReportError(f"{p}: unreadable: {exc}") from None
    if out["tables"]["cells"].height == 0:
        raise ReportError(f"{run_dir}: cells.parquet is empty")
    try:
        out["config_text"] = read_limited(os.path.join(run_dir, "config.toml")).decode("utf-8")
    except FileNotFoundError:
        out["config_text"] = "(config.toml missing)"
    except (OSError, ValueError) as exc:  # (a pipe, a huge file, or not UTF-8)
        raise ReportError(f"{os.path.join(run_dir, 'config.toml')}: unreadable: {exc}") from None
    else:
        _check_config_copy(run_dir, out["config_text"], out["manifest"])
    return out


#: manifest.json's fields that the report shows or compares, with their JSON types (a hand-edited or damaged
#: manifest's "seed": NaN blamed config.toml, "cells": "two" was shown as it stood)
_MANIFEST_TYPES = {"seed": int, "cells": int, "games_per_cell": int, "game": str, "command": str,
                   "fingerprint": dict, "tables": list}


def _check_manifest(path: str, manifest: dict[str, Any]) -> None:
    """ReportError naming the first field of ``manifest.json`` that is not of its type (a field a run folder
    made by an earlier version lacks is no damage)."""
    for key, tp in _MANIFEST_TYPES.items():
        if key not in manifest:
            continue
        v = manifest[key]
        if not isinstance(v, tp) or (tp is int and isinstance(v, bool)):
            word = {int: "a whole number", str: "text", dict: "an object", list: "a list"}[tp]
            raise ReportError(f"{path}: damaged: {key} is {json.dumps(v)[:40]}, not {word}")
    if "game" in manifest:
        try:
            get_game(manifest["game"])
        except SenseiError:
            raise ReportError(f"{path}: damaged: game {manifest['game']!r} is no game sensei knows") from None


def _check_config_copy(run_dir: str, text: str, manifest: dict[str, Any]) -> None:
    """The report shows ``config.toml`` as the exact configuration: refuse a copy that is not the config
    the tables were made with (its digest and seed against the manifest's fingerprint)."""
    import tomllib

    from experiments.experiment import config_digest

    fp = manifest.get("fingerprint")
    if not isinstance(fp, dict) or "config_sha256" not in fp:
        return  # a run folder made before manifests kept the fingerprint: nothing to compare with
    p = os.path.join(run_dir, "config.toml")
    try:
        raw = tomllib.loads(text.removeprefix("\ufeff"))
    except ValueError as exc:
        raise ReportError(f"{p}: unreadable TOML ({exc}); it is not the config this run was made with") from None
    # its games too (the digest leaves games out, which --games may override; an edited games = 70 was shown
    # as the exact configuration): against the config's own games the manifest keeps, or without --games
    # the games per cell played (a manifest written before it kept them)
    then = manifest["config_games"] if "config_games" in manifest else (
        manifest.get("games_per_cell") if manifest.get("games_override") is None and "games" in raw else raw.get("games"))
    if raw.get("games") != then:
        raise ReportError(f"{p}: not the config this run was made with (its games changed since the run, "
                          f"{then!r} then, {raw.get('games')!r} now; the report shows it as the exact "
                          "configuration): restore it or run the config again")
    if config_digest(raw) != fp["config_sha256"] or raw.get("seed", fp.get("seed")) != fp.get("seed"):
        raise ReportError(f"{p}: not the config this run was made with (it changed since the run; the report "
                          "shows it as the exact configuration): restore it or run the config again")


# ------------------------------------------------------------------------------------ tables as HTML
#: columns that hold a strategy (a spec): shown by short label, linked to the full spec
STRATEGY_COLUMNS = ("focus", "field", "a", "b", "strategy", "reference", "white", "black")


def _is_strategy_col(col: str) -> bool:
    return col in STRATEGY_COLUMNS or (col.startswith("seat") and col[4:].isdigit())


def _spec_anchor(spec: str, specs: dict[str, tuple[str, int]]) -> str | None:
    hit = specs.get(spec)
    if hit is None:
        return None
    label, i = hit
    return (f"<a class='spec' href='#spec-{i}' title='{html.escape(spec, quote=True)}'>{html.escape(label)}</a>")


#: {text: (short label, number of its full spec)} of the report being written (see strategy_index)
_SPECS: dict[str, tuple[str, int]] = {}


#: words that make a column (or a row's metric) a share, shown in %
_PCT_WORDS = ("share", "completion", "advantage", "spread", "_rate", "probability", "regret", "success",
              "first_possession", "winner_won")
#: columns whose unit is the row's metric (``metric`` or ``figure`` column) where the table names one
_BY_ROW = {"value", "diff", "lo", "hi", "band_lo", "band_hi", "distance", "diff_vs_best", "diff_lo", "diff_hi",
           "objective_diff_vs_best", "objective_diff_lo", "objective_diff_hi", "race_value", "rival_value",
           "rival_value_lo", "rival_value_hi", "rival_diff", "rival_lo", "rival_hi"}
_BOUND_SUFFIXES = ("_lo", "_hi", "_low", "_high")


def _pct_name(name: str) -> bool:
    """Whether a column (or metric) named so holds shares: never a parameter (``focus.wake``) or a score."""
    head, dot, tail = name.partition(".")
    if dot and head not in ("metric", "mean"):
        return False
    return any(w in name for w in _PCT_WORDS) and not any(w in name for w in ("score", "turns", "elo"))


def _units(cols: list[str]) -> dict[str, str]:
    """Each column's unit: ``pct``, ``num``, ``p`` (a p-value) or ``row`` (the row's metric decides), so that a
    row's bounds are shown in the unit of the figure they bound."""
    row_key = next((c for c in ("metric", "figure") if c in cols), None)
    out: dict[str, str] = {}
    for i, c in enumerate(cols):
        if c in ("p_value", "seat_balance_p", "rival_p_value"):
            out[c] = "p"
        elif c in ("elo", "elo_lo", "elo_hi"):  # Elo points, whole, as the answer gives them
            out[c] = "elo"
        elif row_key is not None and c in _BY_ROW and not (c == "value" and "over" in cols):
            out[c] = "row"
        elif c in ("lo", "hi", "ci_low", "ci_high"):  # the bounds of the figure before them
            prev = [b for b in cols[:i] if b not in ("lo", "hi", "ci_low", "ci_high")]
            out[c] = out.get(prev[-1], "num") if prev else "num"
        elif c.endswith(_BOUND_SUFFIXES):
            base = c.rsplit("_", 1)[0]
            out[c] = "pct" if _pct_name(base) or any(b.startswith(base) and _pct_name(b) and not b.endswith(
                _BOUND_SUFFIXES) for b in cols) else "num"
        else:
            out[c] = "pct" if _pct_name(c) else "num"
    return out


def _cell(v: Any, col: str, unit: str = "num", metric: Any = None) -> str:
    if v is None:
        return ""
    if isinstance(v, str) and _is_strategy_col(col):
        link = _spec_anchor(v, _SPECS)
        if link is not None:
            return link
    if isinstance(v, bool):  # a rule option on or off, as the sentences say it; any other flag true or false
        return ("on" if v else "off") if col.startswith("rules.") else ("true" if v else "false")
    if isinstance(v, float):
        if not math.isfinite(v):
            return ""
        if unit == "row":
            unit = "pct" if isinstance(metric, str) and (_pct_name(metric) or is_share(metric)
                                                         or metric in ("nobody_eliminated", "equilibrium_stakes")) \
                else "num"
        v = v + 0.0  # no -0.0
        if unit == "pct":
            text = f"{v * 100:.2f}%"
            return "0.00%" if text == "-0.00%" else text
        if unit == "p":
            return f"{v:.3g}"
        if unit == "elo":
            return f"{round(v):,}"
        text = f"{v:,.3f}" if abs(v) < 1000 else f"{v:,.1f}"
        return text[1:] if text.startswith("-") and not text.strip("-0.,") else text
    if isinstance(v, int):
        return f"{v:,}" if col not in ("players", "seat", "cell", "rotation") else str(v)
    return html.escape(str(v))


def html_table(df: pl.DataFrame, max_rows: int = 400) -> str:
    if df.height == 0:
        return "<p class='small'>(no rows)</p>"
    cols = df.columns
    head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    body = []
    units = _units(cols)
    row_key = next((c for c in ("metric", "figure") if c in cols), None)
    for row in df.head(max_rows).iter_rows(named=True):
        metric = row[row_key] if row_key is not None else None
        body.append("<tr>" + "".join(f"<td>{_cell(row[c], c, units[c], metric)}</td>" for c in cols) + "</tr>")
    more = f"<p class='small'>first {max_rows} of {df.height:,} rows; all rows are in the parquet file</p>" \
        if df.height > max_rows else ""
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>{more}"


def strategy_index(labels: dict[str, str], aliases: dict[str, str] | None = None
                   ) -> tuple[dict[str, tuple[str, int]], pl.DataFrame]:
    """Every full spec of a run with its short label: ``{text: (label, n)}`` for the table cells (a full
    spec, or a strategy as the config writes it) and the table of labels and full specs (row n is spec n).
    ``aliases`` (a search's own names of its members, ``{text: name}``) link to the same row where the
    config's label of that spec differs (a family's ``wake=10`` is the config's field ``threshold``); the
    row shows both."""
    by_label: dict[str, str] = {}
    for t in labels:  # the longest text of a label is its full spec
        if len(t) > len(by_label.get(labels[t], "")):
            by_label[labels[t]] = t
    order = list(dict.fromkeys(labels[t] for t in labels))
    number = {lab: i for i, lab in enumerate(order)}
    index = {t: (labels[t], number[labels[t]]) for t in labels}
    for lab in order:  # a table that already shows the label links it too
        index.setdefault(lab, (lab, number[lab]))
    also: dict[str, list[str]] = {}
    for t, alias in (aliases or {}).items():
        lab = labels.get(t)
        if lab is not None and alias != lab and alias not in number:
            index.setdefault(alias, (alias, number[lab]))
            also.setdefault(lab, []).append(alias)
    shown = [lab + (f" (also {', '.join(dict.fromkeys(also[lab]))})" if lab in also else "") for lab in order]
    table = pl.DataFrame({"label": shown, "full spec": [by_label.get(lab, lab) for lab in order]},
                         schema={"label": pl.String, "full spec": pl.String})
    return index, table


def _spec_table(table: pl.DataFrame, game: str | None = None) -> str:
    # a full spec may break after each comma (between parameters) before it breaks anywhere else
    rows = "".join(f"<tr id='spec-{i}'><td>{html.escape(lab)}</td>"
                   f"<td class='fullspec'>{html.escape(spec).replace(',', ',<wbr>')}</td>"
                   f"<td class='plays'>{_plays_cell(_what_it_plays(game, spec))}</td></tr>"
                   for i, (lab, spec) in enumerate(table.iter_rows()))
    return ("<table><thead><tr><th>label</th><th>full spec</th><th>what it plays</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>")


#: a description longer than this shows its first words, the whole of it a click away
PLAYS_SHOWN = 320


def _plays_cell(text: str) -> str:
    """A strategy's description for the Strategies table: whole, or its first words with the rest folded."""
    if len(text) <= PLAYS_SHOWN:
        return html.escape(text)
    cut = text.rfind(" ", 0, PLAYS_SHOWN - 40)
    if cut <= 0:  # no space to cut at: a hard cut
        cut = PLAYS_SHOWN - 40
        return f"<details><summary>{html.escape(text[:cut])} ...</summary>{html.escape(text[cut:])}</details>"
    return (f"<details><summary>{html.escape(text[:cut])} ...</summary>{html.escape(text[cut + 1:])}</details>")


def _what_it_plays(game: str | None, spec: str) -> str:
    """The first sentence of a strategy's description (its class's docstring), for a designer who does not
    know the names (``strongest`` is a naive reference policy, not the strongest player); empty where the
    strategy is not known here (a user's file that is not registered)."""

    from strategies.registry import lookup

    try:
        cls = lookup(game, str(spec).split(":", 1)[0]) if game else None
    except Exception:  # noqa: BLE001 - a report never fails for a description
        cls = None
    doc = " ".join((getattr(cls, "__doc__", None) or "").replace("``", "").split())
    # the first sentence: up to a full stop (Sen's "says WAKE UP! when ..." goes on past its exclamation mark)
    return re.split(r"(?<=\.)\s", doc, maxsplit=1)[0] if doc else ""


def _present(df: pl.DataFrame, cols: list[str]) -> list[str]:
    return [c for c in cols if c in df.columns]


def _lineup_cols(cells: pl.DataFrame) -> list[str]:
    return _present(cells, ["a", "b"]) or _present(cells, ["focus", "field"]) or \
        [c for c in cells.columns if c.startswith("seat") and c[4:].isdigit()]


def _balance(cells: pl.DataFrame, axes: list[str]) -> tuple[str, bool]:
    """Balance figures per group of cells: first-seat advantage, spread, completion, game length."""
    if "seat0_win_share" in cells.columns and cells["seat0_win_share"].null_count() < cells.height:
        cells = cells.filter(pl.col("seat0_win_share").is_not_null())  # solo cells have no seats to balance
    df = plots.group_labels(cells, axes)
    w = pl.col("games")
    aggs = [w.sum().alias("games"),
            ((pl.col("seat0_win_share") * w).sum() / w.sum()).alias("seat0_win_share"),
            ((pl.col("seat_advantage") * w).sum() / w.sum()).alias("first_seat_advantage"),
            ((pl.col("seat_spread") * w).sum() / w.sum()).alias("seat_spread"),
            ((pl.col("mean_turns") * w).sum() / w.sum()).alias("mean_turns"),
            pl.col("timeouts").sum().alias("timeouts"),
            (1 - pl.col("timeouts").sum() / w.sum()).alias("completion")]
    if "seat_balance_p" in df.columns:
        # the group's cells tested together: the smallest p-value times the number of cells tested
        # (Bonferroni, at most 1), a test at its level that every cell's seats win equally often
        p = pl.col("seat_balance_p")
        aggs.append(pl.when(p.count() > 0).then(pl.min_horizontal(p.min() * p.count(), pl.lit(1.0)))
                    .otherwise(None).alias("seat_balance_p"))
        aggs.append(p.count().alias("seat_balance_cells"))  # the cells it tests (a sweep's rotated cells have none)
    has_lead = "mean.lead_changes" in df.columns
    if has_lead:
        aggs.append(((pl.col("mean.lead_changes") * w).sum() / w.sum()).alias("lead_changes"))
    for c in BALANCE_METRICS:
        if c in df.columns:
            aggs.append(((pl.col(c) * w).sum() / w.sum()).alias(c.split(".", 1)[1]))
    agg = df.group_by("group", maintain_order=True).agg(aggs)
    return html_table(agg), has_lead


#: the game metrics the Balance table shows where a run has them (Sen's)
BALANCE_METRICS = ("metric.mean_rounds", "metric.wake_rate", "metric.caller_success")


def _balance_words(cells: pl.DataFrame, game: str) -> str:
    """The Balance caption's words on the game metrics its table shows: each one's meaning, from the game's
    own description of it (``wake_rate: share of rounds ended by WAKE UP! ...``)."""
    try:
        metrics = {m.name: m.meaning for m in get_game(game).ratio_metrics}
    except SenseiError:  # (an unknown game in the run's summary: the columns go without words)
        return ""
    words = [f"{c.split('.', 1)[1]}: {metrics[c.split('.', 1)[1]]}" for c in BALANCE_METRICS
             if c in cells.columns and metrics.get(c.split(".", 1)[1])]
    return ("; ".join(words) + ".") if words else ""


def _searched_rules(cells: pl.DataFrame, axes: list[str], taken: list[str]) -> list[str]:
    """The rule options that differ between cells of the same sweep values: a search's settings (``design``),
    not the options a named case sets (``variant = {ravens = ...}``), which the case's own axis tells apart."""
    by = [a for a in axes if a in cells.columns]
    out = []
    for c in cells.columns:
        if not c.startswith("rules.") or c in axes or c in taken or cells[c].n_unique() < 2:
            continue
        spread = cells.group_by(by).agg(pl.col(c).n_unique()).get_column(c).max() if by else cells[c].n_unique()
        if spread > 1:
            out.append(c)
    return out


def build_report(run_dir: str, index: bool = True) -> str:
    """Write ``RUN_DIR/report.html`` (and refresh the index next to the run); returns the report's path."""
    run = read_run(run_dir)
    global _SPECS
    try:
        specs, spec_table = strategy_index(run["summary"].get("labels") or {}, run["summary"].get("member_labels"))
        _SPECS = specs
        with plots.use_labels(run["summary"].get("labels")):
            return _build_report(run_dir, run, index, spec_table)
    except ReportError:
        raise
    except (KeyError, TypeError, AttributeError, ValueError, IndexError, pl.exceptions.PolarsError,
            jinja2.UndefinedError) as exc:  # files that parse but lack what a finished run writes
        if os.environ.get("SENSEI_DEBUG"):
            raise
        text = " ".join(str(exc).split())[:200]
        raise ReportError(f"{run_dir}: damaged run folder: summary.json, manifest.json or a table lacks what a "
                          f"finished run writes ({type(exc).__name__}: {text}); if its files are as the run wrote "
                          "them, this is a fault in sensei: SENSEI_DEBUG=1 shows where") from None
    finally:
        _SPECS = {}


def _build_report(run_dir: str, run: dict[str, Any], index: bool, spec_table: pl.DataFrame) -> str:
    s, m, t = run["summary"], run["manifest"], run["tables"]
    cells = t["cells"]
    axes, gaxes, over = s["axes"], s["group_axes"], s.get("over")
    figures: list[plots.Figure] = []
    kind = REGISTRY.get(s["answer_kind"])
    ctx = ReportContext(s, t, cells, axes, gaxes, over)
    if kind is not None and kind.lead_figures is not None:
        figures += kind.lead_figures(ctx)
    if kind is not None and kind.figures is not None and kind.lead_figures is None:
        figures += kind.figures(ctx)  # the kind's own figures come first: the first one follows the answer
    if t["paired"].height and (kind is None or kind.paired_plot):
        figures.append(plots.paired_plot(t["paired"], gaxes))
    if t["ratings"].height:
        figures.append(plots.ratings_plot(t["ratings"], axes))
        figures.extend(plots.win_matrices(cells, axes, s["strategies"]))
    if t["sprt"].height:
        figures.append(plots.sprt_plot(t["sprt"]))
    if kind is not None and kind.figures is not None and kind.lead_figures is not None:
        figures += kind.figures(ctx)
    if kind is not None and kind.dist is not None:
        dist_cells, dist_axes, with_scores = kind.dist(ctx)
    else:
        dist_cells, dist_axes, with_scores = cells, gaxes if kind is not None and kind.dist_by_group else axes, True
    # a search's rule settings (design) kept apart, as in the Balance table: pooled, the figures described no
    # setting (sen_penalty_design's games of 28 to 172 turns drawn as one "all")
    dist_axes = list(dist_axes) + _searched_rules(dist_cells, axes, dist_axes)
    if dist_cells.height:
        figures.append(plots.turns_distribution(t["turns"], dist_cells, dist_axes))
        if with_scores:
            figures.append(plots.score_distribution(t["scores"], dist_cells, dist_axes,
                                                    "focus" if s["lineup"] == "focus" else "all"))
        figures.append(plots.seat_shares(t["seats"], dist_cells, dist_axes))
        figures.append(plots.lead_changes_plot(dist_cells, dist_axes))
    figures = [f for f in figures if f is not None]
    answer = list(s.get("answer") or [])
    headline = list(s.get("headline") or (answer if len(answer) <= 3 else answer[:1]))
    folded = headline != answer  # the answer in full goes under the headline, folded
    lead_df = kind.lead_table(ctx) if kind is not None and kind.lead_table is not None else None
    lead_table = html_table(lead_df) if lead_df is not None and lead_df.height else None

    # a rule option that differs between cells without being a sweep axis (a search's settings) is shown too,
    # and the Balance table keeps its settings apart (a pooled figure of several rule settings means nothing)
    searched = [c for c in cells.columns if c.startswith("rules.") and c not in axes and cells[c].n_unique() > 1]
    balance, has_lead = _balance(cells, (gaxes if kind is not None and kind.balance_by_group else axes) + searched)
    key = _present(cells, ["cell", "players"]) + [a for a in axes if a != "players" and a in cells.columns]
    key += [c for c in searched if c not in key]
    lineup = [c for c in _lineup_cols(cells) if c not in key]
    figs = ["deals", "rotations", "games", "focus_win_share", "focus_win_lo", "focus_win_hi", "focus_mean_score",
            "focus_score_lo", "focus_score_hi", "mean_turns", "seat_advantage", "completion", "mean.lead_changes",
            "sprt"]
    if s["lineup"] == "seats":
        figs = [f for f in figs if not f.startswith("focus")]
    shown = _present(cells, figs)
    caption = "one row per cell (every parameter and figure is in cells.parquet)"
    if "a" in lineup and "b" in lineup:
        caption += ("; a: the entrant, b: the strategy it plays against (with 3 or more players, a alone against "
                    "copies of b)")
    over_deals = s.get("per_deal", False)  # per-deal values were kept: the intervals are over deals
    if "focus_win_share" in shown:
        who = {"focus": "the studied seat", "tournament": "the entrant alone against a field of another"}.get(
            s["lineup"], "the cell's first strategy")
        caption += (f"; focus = {who}, " + (
            "its win share and mean score, the game length and seat 0's share with 95% intervals over deals "
            "(each deal's games averaged first: the games of one deal are not independent; a share's is Wilson's "
            "with the deals' effective number of games)" if over_deals else
            "win share with its Wilson 95% interval over games, mean score with its t interval over games (the "
            "answer's sentences give intervals over deals, each deal's games averaged first, so theirs may "
            "differ)"))
    if t["confirm"].height or ("fresh_regret" in t["regrets"].columns):
        caption += ("; a lineup that search.confirm played again on fresh deals pools them here with the deals of "
                    "its race, so its figures are neither the race's nor the confirmation's (the answer gives both)")
    table = cells.select(key + lineup + shown)
    if "focus_win_lo" in shown:
        # a self-play cell's win share is its fair share by symmetry, not an estimate: no interval to print
        # (it read 50.00% [50.00%, 50.00%])
        exact = pl.Series([by_symmetry(r) for r in cells.iter_rows(named=True)], dtype=pl.Boolean)
        if exact.any():
            table = table.with_columns([pl.when(exact).then(None).otherwise(pl.col(c)).alias(c)
                                        for c in ("focus_win_lo", "focus_win_hi")])
            caption += ("; a cell of the same strategy in every seat wins its fair share by symmetry: its win share "
                        "is exact, without an interval")
    tables = [{"title": "Cells", "caption": caption, "html": html_table(table)}]
    if t["paired"].height:
        tables.append({"title": "Paired differences", "caption": "value minus versus, on the same deals: mean, "
                       "95% interval, paired t-test p-value, correlation of the pairs (rho)",
                       "html": html_table(t["paired"])})
    est = t["estimates"]
    if est.height:
        tables.append({"title": "Estimates", "caption": "every figure of the answer with its 95% interval over deals "
                       "(scope cell: one cell; group: the cells of a group pooled deal by deal; all: every cell); "
                       "band: what the calibration criterion asks of the figure", "html": html_table(est)})
    for name, title, caption in EXTRA_TABLES:
        if t[name].height:
            tables.append({"title": title, "caption": caption, "html": html_table(t[name])})
    if t["ratings"].height:
        tables.append({"title": "Ratings", "caption": ratings_caption(t["ratings"]), "html": html_table(t["ratings"])})
    if t["sprt"].height:
        cols = _present(t["sprt"], ["cell", "players", "focus", "field", "deals", "llr", "lower", "upper",
                                    "decision", "h0", "h1"])
        tables.append({"title": "Sequential tests", "caption": "SPRT of the focus seat's win share advantage "
                       "over the fair share: H0 advantage = h0, H1 advantage = h1", "html": html_table(t["sprt"].select(cols))})
    seat_cols = _present(t["seats"], ["cell", "rotation", "seat", "strategy", "role", "games", "win_share", "win_lo",
                                      "win_hi", "mean_score", "score_lo", "score_hi"])
    tables.append({"title": "Seats", "caption": "one row per cell, rotation and seat", "html":
                   html_table(t["seats"].select(seat_cols), max_rows=200)})
    if spec_table.height:
        tables.insert(0, {"title": "Strategies", "caption": "every strategy of the run: its short label (its name "
                          "and the parameters that differ among the strategies of that name) and its full spec; "
                          "a label in any table links here; what each plays, from its description",
                          "html": _spec_table(spec_table, s.get("game"))})

    page = _env().get_template("report.html.j2").render(
        s=s, m=m, css=_css(), lead_figure=figures[0] if figures else None, figures=figures[1:], tables=tables,
        balance=balance, has_lead=has_lead, balance_words=_balance_words(cells, s.get("game", "")),
        headline=headline, answer=answer, folded=folded, lead_table=lead_table,
        size_note=run_size_note(run["config_text"], m),
        config_text=run["config_text"], examples=example_games(t["examples"], cells, axes),
        terms=answer_terms(answer), pooled_fresh=bool(t["confirm"].height or "fresh_regret" in t["regrets"].columns))
    path = os.path.join(run_dir, "report.html")
    # (a path of bytes that are not UTF-8, which the page names, is shown with a replacement character)
    atomic_write(path, lambda fh: fh.write(page.encode("utf-8", "replace")))
    if index:
        build_index(os.path.dirname(os.path.abspath(run_dir)))
    return path


def run_size_note(config_text: str, manifest: dict[str, Any]) -> str | None:
    """A sentence for a run played with fewer deals than its config asks (``--games``, as ``make demo`` plays
    its slow questions): its intervals are wider than a run of the config as written would give, by about the
    square root of the ratio. None where the run played the config's own number, or more."""
    import math
    import tomllib

    from experiments.config import DEFAULT_GAMES

    played = manifest.get("games_override")
    try:
        raw = tomllib.loads(config_text)
    except (tomllib.TOMLDecodeError, ValueError):
        return None
    if "sprt" in raw:  # there games is the deals between the test's looks, not the run's size
        return None
    asked = raw.get("games", DEFAULT_GAMES)
    if not (isinstance(played, int) and isinstance(asked, int)) or isinstance(asked, bool) or not 0 < played < asked:
        return None
    # (the size given for the run: sensei run's --games, or run_experiment's games argument)
    return (f"This run was played with games = {played} (given for this run), where its config asks for games = "
            f"{asked}" + ("" if "games" in raw else " (the default: it sets none)") + ": its "
            f"intervals are about {math.sqrt(asked / played):.1f} times as wide as a run of the config as written "
            "would give, and a figure not clearly different from another here may be told apart there.")


def example_games(examples: pl.DataFrame, cells: pl.DataFrame, axes: list[str]) -> list[dict[str, Any]]:
    """The "example games" section: one traced game per cell the answer is about (``examples.parquet``,
    written by the run; a run folder without it has no such section), each labelled by its cell's values
    of the sweep ``axes`` and of a search's rule settings, and its lineup by short labels, with the
    ``sensei trace`` command that prints it again."""
    if not examples.height:
        return []
    searched = [c for c in cells.columns if c.startswith("rules.") and c not in axes and cells[c].n_unique() > 1]
    lineup = _lineup_cols(cells)
    out = []
    for row in examples.iter_rows(named=True):
        label = f"cell {row['cell']}"
        match = cells.filter(pl.col("cell") == row["cell"]) if "cell" in cells.columns else cells.head(0)
        if match.height:
            rec = match.row(0, named=True)
            bits = [f"{a}={rec[a]}" for a in axes + searched if a in rec and rec[a] is not None and a not in lineup]
            who = [_SPECS.get(str(rec[c]), (str(rec[c]), 0))[0] for c in lineup if rec.get(c) is not None]
            if who:
                bits.append(" / ".join(who))
            if bits:
                label += " (" + ", ".join(bits) + ")"
        out.append({**row, "label": label})
    return out


def build_index(out_dir: str) -> str:
    """Write ``OUT_DIR/index.html`` listing every run folder in it: the newest run of each question first (newest
    questions first), the earlier runs of the same question (the same game, run folder stem and title) folded
    under it."""
    runs = []
    for name in sorted(os.listdir(out_dir)):
        d = os.path.join(out_dir, name)
        if not os.path.isfile(os.path.join(d, "summary.json")):
            continue
        try:
            s = json.loads(read_limited(os.path.join(d, "summary.json")))
            m = json.loads(read_limited(os.path.join(d, "manifest.json")))
        except (OSError, ValueError):  # (a pipe or a huge file too: read_limited neither waits nor fills memory)
            continue
        if not isinstance(s, dict) or not isinstance(m, dict):  # a damaged folder is left out, not fatal
            continue
        cells, games = m.get("cells", 0), m.get("games_total", m.get("games_played", 0))
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (cells, games)):
            continue
        try:
            config_text = read_limited(os.path.join(d, "config.toml")).decode("utf-8", "replace")
        except (OSError, ValueError):
            config_text = ""
        try:
            answer = [str(x) for x in (s.get("answer") or [])]
            headline = [str(x) for x in (s.get("headline") or answer[:1])]
            runs.append({"name": name, "title": str(s.get("title", "")), "question": str(s.get("question", "")),
                         "game": str(s.get("game", "")), "cells": cells,
                         "games": games, "started": str(m.get("started", "")),
                         "headline": headline, "answer": answer, "folded": answer != headline,
                         "size_note": run_size_note(config_text, m),
                         "report": os.path.isfile(os.path.join(d, "report.html"))})
        except TypeError:  # an answer that is not a list, say
            continue
    runs.sort(key=lambda r: r["started"], reverse=True)
    # the runs of one question (the same game, folder stem, which is the config's name, and title: a question
    # reworded between runs stays one) under its newest run, the earlier ones folded
    questions: dict[tuple[str, str, str], dict] = {}
    for r in runs:
        key = (r["game"], re.sub(r"-\d{8}-\d{6}(-\d+)?$", "", r["name"]), r["title"])
        if key in questions:
            questions[key]["earlier"].append(r)
        else:
            questions[key] = {**r, "earlier": []}
    page = _env().get_template("index.html.j2").render(runs=list(questions.values()), total=len(runs), css=_css(),
                                                        where=os.path.abspath(out_dir))
    path = os.path.join(out_dir, "index.html")
    # (a path of bytes that are not UTF-8, which the page names, is shown with a replacement character)
    atomic_write(path, lambda fh: fh.write(page.encode("utf-8", "replace")))
    return path
