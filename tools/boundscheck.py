"""Check that the project's compiled code never indexes an array out of its bounds, negative indices included.

The project's own kernels index arrays without Python's negative-index wrap-around (see
``simcore/compiled.py``, ``_index_without_wraparound``), which is only right if no index is ever negative.
This compiles everything afresh in a fresh cache folder with numba's bounds checks on (``NUMBA_BOUNDSCHECK=1``:
every index is checked against 0 and the length, and a bad one raises IndexError) and with
``SENSEI_NEGATIVE_INDEX_AUDIT`` set (a negative index in a file marked ``# sensei: no negative indices``
raises an IndexError naming its file and line), then plays

* every case of the fingerprint suite (``tests/fingerprints.py``: every built-in strategy, every player
  count, every rule option, mixed lineups) in both lanes, checking that each plays the recorded games;
* a few games of the search player (``ismcts``) in every game, which determinizes and steps copies of
  games through the engines' ``sample``, ``step`` and ``legal``. These play in a second process,
  compiled with the bounds checks but without the audit: a negative index in a marked file still
  raises (numba's check against 0, with no wrap-around before it), as "index is out of bounds" without
  the file and line. (With the audit's checks added, LLVM worked on Sensu's search for about 20 minutes
  without finishing; without them it takes under 5.)

The cache folder is removed at the end.

``python tools/boundscheck.py [--cases N]`` (or ``make boundscheck``) (N: only the first N cases of each game, for a quick look).
It takes some minutes, most of it compiling. Exit status 0 when every game is played without an
IndexError and as recorded, 1 otherwise.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile


#: simcore.compiled.NEGATIVE_INDEX_AUDIT (named here: numba must not be imported before the checks are set)
AUDIT = "SENSEI_NEGATIVE_INDEX_AUDIT"


def _reexec() -> None:
    """numba reads NUMBA_BOUNDSCHECK when it is imported: start again with it set, in a fresh cache."""
    if os.environ.get("NUMBA_BOUNDSCHECK") == "1" and os.environ.get("SENSEI_BOUNDSCHECK_CACHE"):
        return
    folder = tempfile.mkdtemp(prefix="sensei-boundscheck-")
    env = {**os.environ, "NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": folder, "SENSEI_BOUNDSCHECK_CACHE": folder,
           AUDIT: "1"}
    os.execve(sys.executable, [sys.executable, os.path.abspath(__file__), *sys.argv[1:]], env)


SEARCHES = (("sen", 3), ("senshi", 3), ("sensu", 3), ("sensu", 1), ("fan-and-mallet", 2))


def _searches() -> list[str]:
    """Play the search player in every game (this process: bounds checks, no audit); the problems found."""
    from simcore.runner import simulate
    from strategies.registry import lineup

    bad = []
    for game, players in SEARCHES:
        try:
            simulate(game, lineup(game, ["ismcts:iterations=16"], players), players, n_games=3, seed=5)
            print(f"{game} {players}p ismcts: checked", file=sys.stderr)
        except IndexError as exc:
            bad.append(f"{game} {players}p ismcts: IndexError: {exc}")
            print(bad[-1], file=sys.stderr)
    return bad


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=0, help="only the first N fingerprint cases of each game")
    ap.add_argument("--searches-only", action="store_true", help=argparse.SUPPRESS)  # the second process
    args = ap.parse_args(argv)
    _reexec()
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if args.searches_only:
        return 1 if _searches() else 0

    from tests.fingerprints import CASES, PATH, case_id, fingerprint

    with open(PATH) as fh:
        recorded = json.load(fh)
    bad = []
    seen: dict[str, int] = {}
    for case in CASES:
        seen[case["game"]] = seen.get(case["game"], 0) + 1
        if args.cases and seen[case["game"]] > args.cases:
            continue
        for compiled in (True, False):
            try:
                ok = fingerprint(case, compiled=compiled) == recorded[case_id(case)]
                what = "" if ok else "plays other games than recorded"
            except IndexError as exc:
                ok, what = False, f"IndexError: {exc}"
            if not ok:
                bad.append(f"{case_id(case)} ({'compiled' if compiled else 'batch'} lane): {what}")
                print(bad[-1], file=sys.stderr)
        print(f"{case['game']} {case['players']}p {' '.join(case['strategies'])} {case['rules'] or ''}: checked",
              file=sys.stderr)
    # the searches in a process of their own, without the audit, in a cache folder of their own (machine
    # code compiled with the audit's checks is neither linked into them nor loaded from the cache)
    env = {k: v for k, v in os.environ.items() if k != AUDIT}
    env["NUMBA_CACHE_DIR"] = os.path.join(os.environ["SENSEI_BOUNDSCHECK_CACHE"], "searches")
    run = subprocess.run([sys.executable, os.path.abspath(__file__), "--searches-only"], env=env)
    if run.returncode:
        bad.append("the search player (see above)")
    print(f"{len(bad)} problems" if bad else "every game played within bounds and as recorded")
    return 1 if bad else 0


if __name__ == "__main__":
    try:
        status = main()
    finally:
        folder = os.environ.get("SENSEI_BOUNDSCHECK_CACHE")
        if folder and "--searches-only" not in sys.argv and os.path.basename(folder).startswith("sensei-boundscheck-"):
            import shutil

            shutil.rmtree(folder, ignore_errors=True)
    sys.exit(status)
