from __future__ import annotations

import numpy as np
import pytest

from learners import WeightedStump


def _brute_force_error(X, y_pm, w):
    best = (w * (y_pm != 1)).sum(), (w * (y_pm != -1)).sum()
    best = min(best)
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        for a, b in zip(values[:-1], values[1:]):
            theta = 0.5 * (a + b)
            for s in (-1.0, 1.0):
                h = np.where(X[:, j] > theta, s, -s)
                best = min(best, (w * (h != y_pm)).sum())
    return best


@pytest.mark.parametrize("seed", range(20))
def test_stump_is_the_exact_weighted_minimiser(seed):
    rng = np.random.default_rng(seed)
    n, d = rng.integers(2, 40), rng.integers(1, 5)
    X = rng.integers(0, 6, size=(n, d)).astype(float)  # many ties
    y = rng.choice([-1, 1], size=n)
    w = rng.random(n)
    stump = WeightedStump().fit(X, y, sample_weight=w)
    y_pm = np.where(y == stump.classes_[-1], 1.0, -1.0)
    err = (w * (stump.decision_function(X) != y_pm)).sum()
    assert err == pytest.approx(_brute_force_error(X, y_pm, w), abs=1e-12)
    assert stump.weighted_error_ == pytest.approx(err / w.sum(), abs=1e-12)


def test_stump_rejects_bad_weights():
    X, y = np.zeros((3, 1)), np.array([0, 1, 1])
    with pytest.raises(ValueError, match="(?i)negative"):
        WeightedStump().fit(X, y, sample_weight=[1.0, -1.0, 1.0])
