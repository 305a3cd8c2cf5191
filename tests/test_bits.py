"""simcore.bits: the lowest set bit and the number of set bits, against Python's own integers."""
import numba
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore.bits import popcount, trailing_zeros


@numba.njit(cache=True)
def _both(x):
    return trailing_zeros(x), popcount(x)  # compiled once per integer type


def _want(x: int, width: int) -> tuple[int, int]:
    u = x & ((1 << width) - 1)  # two's complement of a negative value
    tz = width if u == 0 else (u & -u).bit_length() - 1
    return tz, bin(u).count("1")


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=-(2 ** 63), max_value=2 ** 63 - 1))
def test_int64(x):
    assert tuple(int(v) for v in _both(np.int64(x))) == _want(x, 64)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=-(2 ** 15), max_value=2 ** 15 - 1))
def test_int16(x):
    assert tuple(int(v) for v in _both(np.int16(x))) == _want(x, 16)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=2 ** 64 - 1))
def test_uint64(x):
    assert tuple(int(v) for v in _both(np.uint64(x))) == _want(x, 64)


def test_edges():
    for x in (0, 1, 2, 3, 1 << 11, (1 << 12) - 1, 1 << 62, -1, -(2 ** 63)):
        assert tuple(int(v) for v in _both(np.int64(x))) == _want(x, 64)


def test_landing_house_takes_the_first_free_house_clockwise():
    """Fan & Mallet's placement search (which takes the lowest set bit) against a plain scan of the ring."""
    from simcore.games.fan_and_mallet import N_HOUSES, landing_house

    rng = np.random.default_rng(3)
    for _ in range(2000):
        free = int(rng.integers(0, 1 << N_HOUSES))
        pawn = int(rng.integers(0, N_HOUSES))
        want = -1
        for k in range(1, N_HOUSES + 1):  # from the house after the pawn, the pawn's own house last
            h = (pawn + k) % N_HOUSES
            if (free >> h) & 1:
                want = h
                break
        assert landing_house(free, pawn) == want
