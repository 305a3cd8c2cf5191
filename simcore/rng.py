"""Counter-based randomness keyed by game.

All randomness of a run comes from one root seed. ``numpy.random.SeedSequence(seed)`` turns it into a
64-bit root key; each game gets its own key from the root and its **global game index**; each random
draw is a hash (splitmix64) of the game key, a stream number and a per-game counter. Consequences:

* a game's deals and random choices depend only on (seed, game index, what happened in that game), not
  on which chunk, batch, worker or backend played it, so results are identical for any ``n_jobs``,
  any chunk size, batch-of-1 or batch-of-N;
* every experiment cell that uses the same seed replays the same deals for the same game index (common
  random numbers): the deal stream is separate from the strategies' streams, and deals are keyed by
  (game, round), so a strategy change never shifts the cards of a later round.

Everything here works on whole arrays of games at once.
"""
# The compiled code of this file never indexes an array with a negative number, so numba leaves out
# Python's wrap-around of negative indices here (simcore/compiled.py; checked by make boundscheck):
# sensei: no negative indices
from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np

from .compiled import NO_REFCOUNT

_U64 = np.uint64
_GOLDEN = _U64(0x9E3779B97F4A7C15)
_C1 = _U64(0xBF58476D1CE4E5B9)
_C2 = _U64(0x94D049BB133111EB)
_INV53 = 1.0 / float(1 << 53)

# stream numbers (any distinct constants)
STREAM_DEAL = 0x5EA1
STREAM_ENGINE = 0xE461
STREAM_SEAT = 0x5EA7


def mix64(z: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser, elementwise on uint64 (wrapping arithmetic)."""
    z = np.array(z, dtype=_U64, ndmin=1)
    z = (z ^ (z >> _U64(30))) * _C1
    z = (z ^ (z >> _U64(27))) * _C2
    return z ^ (z >> _U64(31))


def root_key(seed: int) -> np.uint64:
    """The 64-bit root key of a run, from ``SeedSequence(seed)``."""
    state = np.random.SeedSequence(int(seed)).generate_state(2, np.uint64)
    return _U64(mix64(state[:1] ^ mix64(state[1:]))[0])


def game_keys(root: np.uint64, game_ids: np.ndarray) -> np.ndarray:
    """One key per game from the root key and the games' global indices."""
    ids = np.asarray(game_ids, dtype=np.int64).astype(_U64)
    return mix64(mix64(ids * _GOLDEN + _U64(root)) ^ _U64(root))


def stream_keys(keys: np.ndarray, stream: int, sub: np.ndarray | int = 0) -> np.ndarray:
    """Keys of a sub-stream (e.g. the deal stream, or seat s's decision stream)."""
    sub = np.array(sub, dtype=np.int64, ndmin=1).astype(_U64)
    salt = mix64(np.array([stream], dtype=_U64) * _GOLDEN + sub * _C1 + _U64(1))
    return mix64(keys ^ salt)


def uniforms(keys: np.ndarray, counter: np.ndarray, k: int) -> np.ndarray:
    """``(len(keys), k)`` uniform floats in [0, 1) for draw number ``counter`` of each key."""
    base = mix64(np.asarray(keys, dtype=_U64) + np.asarray(counter, dtype=np.int64).astype(_U64) * _C2)
    j = (np.arange(1, k + 1, dtype=_U64) * _GOLDEN)[None, :]
    bits = mix64(base[:, None] ^ j)
    return (bits >> _U64(11)).astype(np.float64) * _INV53


@numba.njit(cache=True, inline="always")
def _mix_scalar(z):
    z = (z ^ (z >> numba.uint64(30))) * numba.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> numba.uint64(27))) * numba.uint64(0x94D049BB133111EB)
    return z ^ (z >> numba.uint64(31))


@numba.njit(cache=True, inline="always")
def permutation_into(key, counter, out):
    """Fill ``out`` (length n) with the permutation of ``range(n)`` of ``key`` at draw number
    ``counter`` (scalar form of :func:`permutations`, for compiled engines)."""
    golden = numba.uint64(0x9E3779B97F4A7C15)
    c2 = numba.uint64(0x94D049BB133111EB)
    low = numba.uint64(0xFFFFFFFF)
    n = out.shape[0]
    base = _mix_scalar(key + numba.uint64(counter) * c2)
    for j in range(n):
        out[j] = j
    # Fisher-Yates; each 64-bit hash gives two 32-bit draws, k = floor(u * (j + 1)) by multiply-shift
    z = numba.uint64(0)
    for j in range(n - 1, 0, -1):
        if (n - 1 - j) % 2 == 0:
            z = _mix_scalar(base ^ (numba.uint64(j + 1) * golden))
            u = z & low
        else:
            u = z >> numba.uint64(32)
        k = int((u * numba.uint64(j + 1)) >> numba.uint64(32))
        t = out[j]
        out[j] = out[k]
        out[k] = t


@numba.njit(**NO_REFCOUNT)
def _permutations(keys, counter, n, out):
    for i in range(keys.shape[0]):
        permutation_into(keys[i], counter[i], out[i])


@numba.njit(cache=True, inline="always")
def draw_base(keys, counter, f):
    """Start draw number ``counter[f]`` of stream ``f`` (advancing the counter); the draw's uniforms are
    ``uniform_at(base, j)`` for j = 0..k-1 (scalar form of :meth:`Draws.random`)."""
    c2 = numba.uint64(0x94D049BB133111EB)
    base = _mix_scalar(keys[f] + numba.uint64(counter[f]) * c2)
    counter[f] += 1
    return base


@numba.njit(cache=True, inline="always")
def uniform_at(base, j):
    golden = numba.uint64(0x9E3779B97F4A7C15)
    z = _mix_scalar(base ^ (numba.uint64(j + 1) * golden))
    return float(z >> numba.uint64(11)) * (1.0 / 9007199254740992.0)


@numba.njit(cache=True, inline="always")
def integer_below(u, high):
    """``Draws.integers`` for one uniform: min(floor(u * high), high - 1)."""
    k = int(u * high)
    return k if k < high - 1 else high - 1


@numba.njit(**NO_REFCOUNT)
def _draw(keys, counter, idx, k, out):
    """Rows of ``uniforms`` for keys ``keys[idx]`` at their counters, advancing those counters."""
    for i in range(idx.shape[0]):
        base = draw_base(keys, counter, idx[i])
        for j in range(k):
            out[i, j] = uniform_at(base, j)


#: a compiled strategy's random stream: the (game, seat) streams of the batch (``keys``, ``counter``), the
#: position ``f`` of the deciding seat's stream, and scratch arrays (``fw`` float64, ``iw`` int64, both
#: 16 x 64) the decision may use freely (their contents are not kept between decisions)
Stream = namedtuple("Stream", ["keys", "counter", "f", "fw", "iw"])


@numba.njit(cache=True, inline="always")
def draw(rng):
    """Start one draw of the stream (the counter advances once); its uniforms are ``uniform_at(base, j)``
    for j = 0, 1, ... (the numbers ``AgentRandom.random(k)`` gives in the batch lane)."""
    return draw_base(rng.keys, rng.counter, rng.f)


@numba.njit(cache=True, inline="always")
def random(rng):
    """One uniform float in [0, 1) (one draw: ``AgentRandom.random()``)."""
    return uniform_at(draw_base(rng.keys, rng.counter, rng.f), 0)


@numba.njit(cache=True, inline="always")
def integer(rng, high):
    """A uniform integer in [0, high) (one draw: ``AgentRandom.integers(high)``); ``high`` below 1 raises
    (it returned -1, which the engine then refused as an illegal move, blaming the move)."""
    if high < 1:
        raise ValueError("integer(rng, high) needs high >= 1 (a uniform integer in [0, high))")
    return integer_below(uniform_at(draw_base(rng.keys, rng.counter, rng.f), 0), high)


def permutations(keys: np.ndarray, counter: np.ndarray, n: int) -> np.ndarray:
    """A uniformly random permutation of ``range(n)`` per key (Fisher-Yates driven by the key's hash
    stream at draw number ``counter``; for shuffling decks)."""
    keys = np.ascontiguousarray(keys, dtype=_U64)
    out = np.empty((len(keys), n), dtype=np.int64)
    _permutations(keys, np.ascontiguousarray(counter, dtype=np.int64), n, out)
    return out


def choose(u: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Index of a uniformly chosen True entry per row of ``mask``, given one uniform ``u`` per row.

    Rows with no True entry give -1.
    """
    mask = np.asarray(mask, dtype=bool)
    count = mask.sum(axis=1)
    k = np.minimum((u * count).astype(np.int64), np.maximum(count - 1, 0))
    pos = np.argmax(np.cumsum(mask, axis=1) > k[:, None], axis=1)
    return np.where(count > 0, pos, -1)


class Draws:
    """A per-game random stream with its own counters: ``random``, ``integers``, ``choose``, ``permutation``.

    ``keys`` holds one stream key per game of a batch; methods take the batch positions ``idx`` of the
    games that draw and advance only those games' counters.
    """

    def __init__(self, keys: np.ndarray):
        self.keys = np.asarray(keys, dtype=_U64)
        self.counter = np.zeros(len(self.keys), dtype=np.int64)

    def _next(self, idx: np.ndarray) -> np.ndarray:
        c = self.counter[idx]
        self.counter[idx] += 1
        return c

    def random(self, idx: np.ndarray, k: int | None = None) -> np.ndarray:
        """Uniform floats: shape ``(len(idx),)`` if k is None, else ``(len(idx), k)`` (the same numbers
        as :func:`uniforms` at each game's counter; ``idx`` must not repeat a game)."""
        idx = np.asarray(idx, dtype=np.int64)
        out = np.empty((len(idx), 1 if k is None else k), dtype=np.float64)
        _draw(self.keys, self.counter, idx, out.shape[1], out)
        return out[:, 0] if k is None else out

    def integers(self, idx: np.ndarray, high) -> np.ndarray:
        """Uniform integers in ``[0, high)`` (``high`` a scalar or one value per game, >= 1; below 1 raises:
        it returned -1, which the engine then refused as an illegal move, blaming the move)."""
        given = np.asarray(high)
        if given.dtype.kind == "f" and given.size:  # (integers(2.5) drew from [0, 2) without a word)
            flat = given.ravel()
            whole = np.isfinite(flat) & (flat == np.floor(flat))
            if not whole.all():
                raise ValueError(f"integers(high) needs whole numbers (a uniform integer in [0, high)), got "
                                 f"{float(flat[~whole][0])!r}")
        elif given.dtype.kind not in "iub":
            raise ValueError(f"integers(high) needs whole numbers (a uniform integer in [0, high)), got {high!r}")
        high = given.astype(np.int64)
        if high.size and int(high.min()) < 1:
            raise ValueError(f"integers(high) needs high >= 1 (a uniform integer in [0, high)), got {int(high.min())}")
        u = self.random(idx)
        return np.minimum((u * high).astype(np.int64), high - 1)

    def choose(self, idx: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Uniform choice among the True entries of each row of ``mask`` (-1 where none)."""
        mask = np.asarray(mask)
        n = len(idx)
        if mask.ndim != 2 or mask.shape[0] != n:
            # (a mask of another shape failed in numpy: "operands could not be broadcast together")
            raise ValueError(f"choose(mask) needs one row of options per game, a mask of shape ({n}, options), "
                             f"got shape {mask.shape}")
        return choose(self.random(idx), mask)

    def permutation(self, idx: np.ndarray, n: int) -> np.ndarray:
        return permutations(self.keys[idx], self._next(idx), n)


class AgentRandom:
    """The random source handed to a strategy for one decision: a view of the acting games' stream.

    ``random(k=None)``, ``integers(high)``, ``choose(mask)`` return one value (or row) per observed game.
    """

    __slots__ = ("_draws", "_idx", "_actor", "_players", "_flat_cache")

    def __init__(self, draws: Draws, idx: np.ndarray, actor: np.ndarray | None = None, players: int = 1):
        """``draws`` streams at positions ``idx * players + actor`` (or ``idx`` itself without ``actor``)."""
        self._draws = draws
        self._idx, self._actor, self._players = idx, actor, players
        self._flat_cache = idx if actor is None else None

    @property
    def _flat(self) -> np.ndarray:
        """Positions of the acting (game, seat) streams, built on first use."""
        if self._flat_cache is None:
            self._flat_cache = self._idx * self._players + self._actor
        return self._flat_cache

    def random(self, k: int | None = None) -> np.ndarray:
        return self._draws.random(self._flat, k)

    def integers(self, high) -> np.ndarray:
        return self._draws.integers(self._flat, high)

    def choose(self, mask: np.ndarray) -> np.ndarray:
        return self._draws.choose(self._flat, mask)

    def __len__(self) -> int:
        return len(self._idx)
