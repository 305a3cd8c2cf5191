"""``make docs``: regenerate the generated blocks of the docs from the code's own descriptions.

A generated block sits between two marker comments in a Markdown file::

    <!-- generated: rules sen -->
    ... (written by this script) ...
    <!-- end generated -->

Kinds: ``rules GAME`` (the rule options, as ``sensei games`` prints them), ``strategies GAME`` (the
strategies shipped with sensei and their parameters, as ``sensei strategies GAME`` prints them) and
``reserved axes`` (the names a named sweep axis may not take).
``python tools/gendocs.py`` rewrites every block in place; ``--check`` only says which files would
change (exit status 1), as ``tests/test_docs_generated.py`` does.
"""
from __future__ import annotations

import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

BLOCK = re.compile(r"(<!-- generated: (\w+) ([\w-]+) -->\n)(.*?)(<!-- end generated -->)", re.S)


def _show(v) -> str:
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, tuple):
        return ",".join(map(str, v))
    return str(v)


def _cell(text: str) -> str:
    """One table cell: rST literals as Markdown ones, one line, pipes escaped."""
    text = re.sub(r"\s*\((?:``)?docs/games/[\w-]+\.md(?:``)?\)", "", text)
    text = text.replace("``", "`")
    text = re.sub(r":\w+:`~?([^`]+)`", r"`\1`", text)  # rST roles (:func:`evaluate`)
    return " ".join(text.split()).replace("|", "\\|")


def rules_block(game: str) -> str:
    from simcore.registry import get_game

    eng = get_game(game)
    d = eng.describe()
    lo, hi = d["players"]
    players = f"{lo} player{'s' if lo != 1 else ''}" if lo == hi else f"{lo}-{hi} players (default {eng.default_players})"
    lines = [f"{d['title']}: {players}. `sensei play {eng.name} --rule KEY=VALUE` sets an option "
             "(`sensei games` lists them).", "",
             "| rule option | type | default | meaning |", "|---|---|---|---|"]
    for r in d["rules"]:
        kind = r["type"] + (f" ({', '.join(map(_show, r['choices']))})" if r["choices"] else "")
        lines.append(f"| `{r['name']}` | {kind} | `{_show(r['default'])}` | {_cell(r['help'])} |")
    return "\n".join(lines) + "\n"


def strategies_block(game: str) -> str:
    from simcore.registry import get_game
    from strategies.registry import default_strategy, describe_strategies

    eng = get_game(game)
    shipped = [s for s in describe_strategies(eng.name) if s["origin"] == "sensei"]
    lines = [f"Shipped strategies (`sensei strategies {eng.name}`; the default is `{default_strategy(eng.name)}`):", "",
             "| strategy | what it does |", "|---|---|"]
    for s in shipped:
        lines.append(f"| `{s['name']}` | {_cell(s['doc'])} |")
    lines += ["", "| strategy | parameter | type | default | meaning |", "|---|---|---|---|---|"]
    for s in shipped:
        for p in s["params"]:
            lines.append(f"| `{s['name']}` | `{p['name']}` | {p['type']} | `{_show(p['default'])}` | {_cell(p['help'])} |")
    return "\n".join(lines) + "\n"


def reserved_block(what: str) -> str:
    """The names a named sweep axis may not take (``experiments.config.RESULT_COLUMNS``: the run's own columns)."""
    from experiments.config import RESULT_COLUMNS

    if what != "axes":
        raise SystemExit(f"unknown reserved block {what!r} (known: axes)")
    return ("The names a named axis may not take, the columns of the run's own tables: "
            + ", ".join(f"`{c}`" for c in sorted(RESULT_COLUMNS)) + ".\n")


KINDS = {"rules": rules_block, "strategies": strategies_block, "reserved": reserved_block}


def render(text: str) -> str:
    """``text`` with every generated block made afresh."""
    def one(m: re.Match) -> str:
        kind, arg = m.group(2), m.group(3)
        if kind not in KINDS:
            raise SystemExit(f"unknown generated block {kind!r} (known: {', '.join(KINDS)})")
        return m.group(1) + KINDS[kind](arg) + m.group(5)
    return BLOCK.sub(one, text)


def files() -> list[str]:
    return sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True)) + [os.path.join(ROOT, "README.md")]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    check = "--check" in argv
    stale = []
    for path in files():
        text = open(path, encoding="utf-8").read()
        new = render(text)
        if new != text:
            stale.append(os.path.relpath(path, ROOT))
            if not check:
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(new)
    verb = "out of date" if check else "regenerated"
    for p in stale:
        print(f"{verb}: {p}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
