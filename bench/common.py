"""Shared benchmark helpers: alternate engine and oracle runs so that load changes hit both alike,
speed-up of 2 workers over 1, and peak memory of a process tree."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from typing import Callable


def alternate(engine: Callable[[], int], oracle: Callable[[], int], seconds: float) -> tuple[float, float]:
    """Games per second of ``engine`` and ``oracle`` (each returns the games it played), interleaved."""
    eng_n = ora_n = 0
    eng_t = ora_t = 0.0
    t_end = time.perf_counter() + seconds
    while time.perf_counter() < t_end or not (eng_n and ora_n):
        t0 = time.perf_counter()
        eng_n += engine()
        t1 = time.perf_counter()
        ora_n += oracle()
        t2 = time.perf_counter()
        eng_t += t1 - t0
        ora_t += t2 - t1
    return eng_n / eng_t, ora_n / ora_t


def engine_vs_oracle(game: str, players: int, policy: str, oracle: Callable[[int, int], object],
                     seconds: float, batch: int = 65536, small: int = 500, chunk_size: int | None = None,
                     compiled: bool = True) -> dict:
    """Full games per second of the engine (``simulate``, one worker) and of the plain-Python oracle
    (``oracle(n_games, seed)``), measured alternately in this process, and their ratio.
    ``compiled=False`` measures the turn-by-turn lane even where the lineup has a compiled one."""
    from simcore.runner import simulate
    from strategies.registry import lineup

    agents = lineup(game, [policy], players)
    simulate(game, agents, n_games=512, seed=0, compiled=compiled)  # compile / load the kernels
    seed = [0]

    def engine() -> int:
        seed[0] += 1
        simulate(game, agents, n_games=batch, seed=seed[0], jobs=1, chunk_size=chunk_size, compiled=compiled)
        return batch

    def run_oracle() -> int:
        seed[0] += 1
        oracle(small, seed[0])
        return small

    eng, ora = alternate(engine, run_oracle, seconds)
    from simcore.registry import get_game
    eng_obj = get_game(game)
    fast = compiled and eng_obj.lineup(agents).all_compiled  # the compiled lane: every decision compiled
    return {"game": game, "players": players, "policy": policy, "lane": "compiled" if fast else "batch",
            "engine_games_per_s": round(eng),
            "oracle_games_per_s": round(ora), "ratio": round(eng / ora, 1)}


def shares(game: str, names, reference: str, players: int, seconds: float, n: int = 16384,
           n_reference: int = 65536) -> list[dict]:
    """Games per second of each strategy of ``names`` (in every seat) and of ``reference`` (in every
    seat), measured alternately in this process (``simulate``, one worker), and their ratio: a heuristic's
    speed as a share of its game's reference policy's."""
    from simcore.runner import simulate
    from strategies.registry import lineup

    ref = lineup(game, [reference], players)
    simulate(game, ref, players=players, n_games=512, seed=0)   # compile / load the kernels
    seed = [0]

    def runner(agents, k):
        def run() -> int:
            seed[0] += 1
            simulate(game, agents, players=players, n_games=k, seed=seed[0], jobs=1)
            return k
        return run

    rows = []
    for name in names:
        agents = lineup(game, [name], players)
        simulate(game, agents, players=players, n_games=512, seed=0)
        speed, ref_speed = alternate(runner(agents, n), runner(ref, n_reference), seconds)
        rows.append({"game": game, "players": players, "strategy": name, "games_per_s": round(speed),
                     "reference": reference, "reference_games_per_s": round(ref_speed),
                     "share_of_reference": round(speed / ref_speed, 3)})
    return rows


def same_speed(game: str, a: str, b: str, players: int, seconds: float, n: int = 32768) -> dict:
    """Games per second of lineup ``a`` and lineup ``b`` (one spec in every seat), measured alternately, and
    their ratio; e.g. a built-in strategy and the same strategy written in a user's file."""
    from simcore.runner import simulate
    from strategies.registry import lineup

    la, lb = lineup(game, [a], players), lineup(game, [b], players)
    for agents in (la, lb):
        simulate(game, agents, players=players, n_games=512, seed=0)
    seed = [0]

    def runner(agents):
        def run() -> int:
            seed[0] += 1
            simulate(game, agents, players=players, n_games=n, seed=seed[0], jobs=1)
            return n
        return run

    sa, sb = alternate(runner(la), runner(lb), seconds)
    return {"game": game, "players": players, "a": a, "b": b, "a_games_per_s": round(sa), "b_games_per_s": round(sb),
            "ratio": round(sb / sa, 3)}


def startup(game: str, repeats: int = 3) -> float:
    """Best wall time (s) of ``sensei play GAME --games 10 --json`` out of ``repeats``, after one run that
    warms the compiled-code cache."""
    cmd = sensei_cmd() + ["play", game, "--games", "10", "--json"]
    # as a user's shell runs it: Python keeps the compiled bytecode of the project's files
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(cmd, capture_output=True, check=True, env=env)
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True, env=env)
        best = min(best, time.perf_counter() - t0)
    return best


def jobs_speedup(game: str, specs: list[str], players: int, n_games: int, rules: dict | None = None,
                 compiled: bool = True, repeats: int = 1) -> float:
    """Wall-time ratio of jobs=1 over jobs=2 for the same run (workers started before timing): the
    median of ``repeats`` timings of each, taken alternately (a run of a few tens of milliseconds moves
    by a third from one timing to the next on a busy machine)."""
    import statistics

    from simcore.runner import simulate
    from strategies.registry import lineup

    agents = lineup(game, specs, players)
    simulate(game, agents, n_games=4096, seed=0, jobs=2, rules=rules, compiled=compiled)  # start the workers
    one, two = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        simulate(game, agents, n_games=n_games, seed=1, jobs=1, rules=rules, compiled=compiled)
        t1 = time.perf_counter()
        simulate(game, agents, n_games=n_games, seed=1, jobs=2, rules=rules, compiled=compiled)
        t2 = time.perf_counter()
        one.append(t1 - t0)
        two.append(t2 - t1)
    return statistics.median(one) / statistics.median(two)


def _tree_rss(pid: int) -> int:
    """Resident set size (bytes) of a process and all its descendants, from /proc."""
    total = 0
    stack = [pid]
    while stack:
        p = stack.pop()
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
                        break
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    stack.extend(int(c) for c in f.read().split())
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
    return total


def peak_memory(args: list[str], poll: float = 0.1) -> tuple[int, float, str]:
    """Run ``args`` (a command line); return (peak tree RSS in bytes, seconds, stdout)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    peak = [0]
    done = threading.Event()

    def watch():
        while not done.is_set():
            peak[0] = max(peak[0], _tree_rss(proc.pid))
            time.sleep(poll)

    th = threading.Thread(target=watch, daemon=True)
    th.start()
    out, _ = proc.communicate()
    done.set()
    th.join()
    return peak[0], time.perf_counter() - t0, out


def sensei_cmd() -> list[str]:
    return [sys.executable, "-m", "experiments.cli"]
