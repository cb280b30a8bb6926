"""FeaturePolicy's later copies (`later_features`, `later_fit`): copy 1 of the two-part stack is
bit for bit the one-copy learner, the later copies are ridge on their own random features fitted
on their gradient rows or on the residual of copy 1's target, and bad options are refused."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from learners import FeaturePolicy
from learners.feature_policy import FeaturePolicyBoostStack, FeaturePolicyStack
from onlineboost import sets

_P = dict(l2=2.0, temperature=0.1, forget=0.99, n_features=0, residual=True, on_model=True)


class _Model:
    """A cost model with `costs(c)`: fixed per-arm linear costs (what BoBLO hands its stack)."""

    def __init__(self, k, p, seed=0):
        self.theta = np.random.default_rng(seed).normal(size=(k, p)) / 3

    def costs(self, c):
        return self.theta @ c


def rounds(n, seed, d=3, k=4):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), rng.normal(size=(n, k))


def test_stack_type_follows_the_options():
    K = sets.Simplex(3)
    assert type(FeaturePolicy(K, **_P).stack(4)) is FeaturePolicyStack
    assert type(FeaturePolicy(K, **_P, later_features=8).stack(1)) is FeaturePolicyStack
    boost = FeaturePolicy(K, **_P, later_features=8).stack(4, seeds=[1, 2, 3, 4])
    assert type(boost) is FeaturePolicyBoostStack and boost.n == 4
    assert boost.first.n_features == 0 and boost.rest.n_features == 8 and boost.rest.n == 3
    assert type(FeaturePolicy(K, **_P, later_fit="residual").stack(2)) is FeaturePolicyBoostStack


@pytest.mark.parametrize("fit", ["gradient", "residual"])
def test_copy_one_is_the_one_copy_learner_bit_for_bit(fit):
    """Stage 1 of the two-part stack plays and learns exactly what a one-copy stack does, with
    the model handed over (BoBLO's N = 5 then plays what N = 1 plays until its aggregator
    switches)."""
    C, G = rounds(150, 1)
    model = _Model(4, 3)
    one = FeaturePolicy(sets.Simplex(4), **_P).stack(1, seeds=[5])
    five = FeaturePolicy(sets.Simplex(4), **_P, later_features=16, later_fit=fit).stack(
        5, seeds=[5, 6, 7, 8, 9])
    one.model = five.model = model
    rng = np.random.default_rng(2)
    for c, g in zip(C, G):
        np.testing.assert_array_equal(five.predict_vector(c)[0], one.predict_vector(c)[0])
        one.learn_vector(c, g[None, :])
        five.learn_vector(c, np.vstack([g, rng.normal(size=(4, 4))]))  # later rows: anything
    np.testing.assert_array_equal(five.first._theta, one._theta)
    np.testing.assert_array_equal(five.first._P, one._P)


def test_later_copies_fit_their_gradient_rows_on_their_own_features():
    """`later_fit="gradient"`: copies 2..N are a FeaturePolicyStack of N - 1 copies with
    `later_features` trained on rows 2..N of G, untouched by the model (residual stack)."""
    C, G = rounds(120, 3)
    model = _Model(4, 3, seed=1)
    boost = FeaturePolicy(sets.Simplex(4), **_P, later_features=8).stack(3, seeds=[1, 2, 3])
    boost.model = model
    rest = FeaturePolicyStack(2, sets.Simplex(4), 2.0, 0.1, 0.99, 8, seeds=[2, 3])
    for c, g in zip(C, G):
        rows = np.vstack([g, 2 * g, -g])
        boost.learn_vector(c, rows)
        rest.learn_vector(c, rows[1:])
    probe = np.array([0.2, -0.4, 1.0])
    raw = np.vstack([boost.first.predicted_costs(probe), rest.predicted_costs(probe)])
    np.testing.assert_allclose(boost.predicted_costs(probe),
                               np.cumsum(raw, axis=0) + model.costs(probe), rtol=0, atol=1e-12)


def test_residual_fit_is_copy_ones_target_minus_the_earlier_predictions():
    """`later_fit="residual"`: copy i >= 2 fits (G_1 - m(c)) - sum_{j < i} g_j(c), with every
    g_j predicted before the round's update (a transcription with separate stacks)."""
    C, G = rounds(120, 4)
    model = _Model(4, 3, seed=2)
    boost = FeaturePolicy(sets.Simplex(4), **_P, later_features=8, later_fit="residual").stack(
        3, seeds=[1, 2, 3])
    boost.model = model
    first = FeaturePolicyStack(1, sets.Simplex(4), 2.0, 0.1, 0.99, 0, seeds=[1])
    rest = FeaturePolicyStack(2, sets.Simplex(4), 2.0, 0.1, 0.99, 8, seeds=[2, 3])
    for c, g in zip(C, G):
        boost.predict_vector(c)  # (the round's play: its cache must not change the update)
        g1 = first.predicted_costs(c)[0]
        g2 = rest.predicted_costs(c)[0]
        target = g - model.costs(c)
        boost.learn_vector(c, np.vstack([g, np.full((2, 4), 9.0)]))  # rows 2-3 ignored
        first.learn_vector(c, target[None, :])
        rest.learn_vector(c, np.vstack([target - g1, target - g1 - g2]))
    np.testing.assert_allclose(boost.rest._theta, rest._theta, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(boost.first._theta, first._theta)


def test_dict_entry_points_and_pickle():
    K = sets.Simplex(3)
    policy = FeaturePolicy(K, **_P, later_features=4)
    stack = policy.stack(3, seeds=[0, 1, 2])
    stack.learn({"a": 1.0, "b": -0.5}, np.array([[1.0, 0.0, 0.5]] * 3))
    P = stack.predict({"a": 1.0, "b": -0.5})
    assert P.shape == (3, 3) and np.allclose(P.sum(axis=1), 1.0) and np.all(P >= 0)
    again = pickle.loads(pickle.dumps(stack))
    np.testing.assert_array_equal(again.predict({"a": 1.0, "b": -0.5}), P)
    with pytest.raises(ValueError, match="g"):  # a bad G changes nothing
        stack.learn({"a": 1.0, "c": 2.0}, np.ones((2, 3)))
    np.testing.assert_array_equal(stack.predict({"a": 1.0, "b": -0.5}), P)


@pytest.mark.parametrize("kwargs, name", [
    ({"later_features": -1}, "later_features"), ({"later_features": 2.5}, "later_features"),
    ({"later_fit": "boost"}, "later_fit")])
def test_bad_options_are_refused_by_name(kwargs, name):
    with pytest.raises(ValueError, match=name):
        FeaturePolicy(**kwargs)
