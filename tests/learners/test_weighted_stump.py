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


def test_predictions_are_the_labels_of_the_sides_of_the_threshold():
    # h = s above theta, -s at or below it; +1 is classes_[1]
    X = np.array([[0.0, 5.0], [1.0, 5.0], [2.0, 5.0], [3.0, 5.0]])
    y = np.array(["yes", "yes", "no", "no"])  # "yes" below: s = -1 on feature 0
    stump = WeightedStump().fit(X, y)
    assert (stump.feature_, stump.threshold_, stump.sign_) == (0, 1.5, -1.0)
    assert list(stump.classes_) == ["no", "yes"] and stump.weighted_error_ == 0.0
    Z = np.array([[1.5, 0.0], [1.5000001, 0.0], [-9.0, 0.0], [9.0, 0.0]])
    np.testing.assert_array_equal(stump.decision_function(Z), [1.0, -1.0, 1.0, -1.0])
    np.testing.assert_array_equal(stump.predict(Z), ["yes", "no", "yes", "no"])


def test_ties_go_to_the_constant_stump_then_the_lowest_feature_and_threshold():
    # balanced weights and no split better than the constant: predict classes_[1] everywhere
    X = np.array([[1.0], [1.0], [1.0], [1.0]])
    constant = WeightedStump().fit(X, [0, 1, 0, 1])
    assert constant.threshold_ == -np.inf and constant.sign_ == 1.0
    np.testing.assert_array_equal(constant.predict(X), [1, 1, 1, 1])
    assert constant.weighted_error_ == 0.5
    # two features that split the labels equally well: the first; two thresholds: the lowest
    X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    y = np.array([0, 1, 1, 1])
    w = np.array([1.0, 1.0, 0.0, 1.0])  # (split at 0.5 or at 1.5: both perfect)
    stump = WeightedStump().fit(X, y, sample_weight=w)
    assert (stump.feature_, stump.threshold_) == (0, 0.5)
    one = WeightedStump().fit(X, ["a"] * 4)  # one class: answered everywhere
    np.testing.assert_array_equal(one.predict(X), ["a"] * 4)


@pytest.mark.parametrize("y, w, match", [
    ([0, 1, 2], None, "at most two classes, got 3"),
    ([0, 1, 1], [0.0, 0.0, 0.0], "(?i)non-zero|not all zero"),
    ([0, 1, 1], [1.0, np.inf, 1.0], "(?i)finite|infinity"),
])
def test_stump_refuses_what_it_cannot_fit(y, w, match):
    with pytest.raises(ValueError, match=match):
        WeightedStump().fit(np.arange(3.0).reshape(-1, 1), y, sample_weight=w)


@pytest.mark.parametrize("seed", range(5))
def test_the_stump_does_not_depend_on_the_weights_scale(seed):
    rng = np.random.default_rng(100 + seed)
    X = rng.normal(size=(30, 3))
    y = (X[:, 1] + 0.5 * rng.normal(size=30) > 0).astype(int)
    w = rng.random(30)
    fits = [WeightedStump().fit(X, y, sample_weight=w * scale) for scale in (1.0, 1e-4, 1e4)]
    for stump in fits[1:]:
        assert (stump.feature_, stump.threshold_, stump.sign_) == (
            fits[0].feature_, fits[0].threshold_, fits[0].sign_)
        assert stump.weighted_error_ == pytest.approx(fits[0].weighted_error_, rel=1e-9)
    assert fits[0].sign_ == 1.0  # (the positive class above: the case a scale could flip)
