"""Counter-based randomness: the compiled draws equal the array formula, shuffles are permutations."""
import numpy as np

from simcore.rng import Draws, game_keys, permutations, root_key, uniforms


def test_compiled_draws_equal_the_formula_and_advance_counters():
    keys = game_keys(root_key(3), np.arange(50))
    d = Draws(keys)
    idx = np.array([4, 9, 0, 33])
    a = d.random(idx, 5)
    np.testing.assert_array_equal(a, uniforms(keys[idx], np.zeros(4, dtype=np.int64), 5))
    b = d.random(idx)
    np.testing.assert_array_equal(b, uniforms(keys[idx], np.ones(4, dtype=np.int64), 1)[:, 0])
    assert d.counter[idx].tolist() == [2, 2, 2, 2] and d.counter[1] == 0
    assert ((a >= 0) & (a < 1)).all()


def test_permutations_are_uniform_permutations():
    keys = game_keys(root_key(1), np.arange(60000))
    p = permutations(keys, np.zeros(len(keys), dtype=np.int64), 4)
    assert (np.sort(p, axis=1) == np.arange(4)).all()
    counts = np.unique(p, axis=0, return_counts=True)[1]
    assert len(counts) == 24
    expected = len(keys) / 24
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 60  # 23 degrees of freedom: p < 1e-4 beyond this


def test_seed_changes_everything_and_game_keys_are_distinct():
    a = game_keys(root_key(1), np.arange(1000))
    b = game_keys(root_key(2), np.arange(1000))
    assert len(set(a.tolist())) == 1000 and not (a == b).any()
