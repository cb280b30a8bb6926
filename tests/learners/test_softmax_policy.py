"""SoftmaxPolicy: exponentiated gradient in closed form, stacked == looped, in the simplex."""

from __future__ import annotations

import numpy as np
import pytest

import learners
from onlineboost import sets


def test_without_context_it_is_exponentiated_gradient():
    rng = np.random.default_rng(0)
    K = sets.Simplex(5)
    policy = learners.SoftmaxPolicy(K, lr=0.3)
    total = np.zeros(5)
    for _ in range(50):
        g = rng.normal(scale=3.0, size=5)
        policy.learn_one({}, g)
        total += g
        w = np.exp(-0.3 * total - (-0.3 * total).max())
        np.testing.assert_allclose(policy.predict_one({}), w / w.sum(), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("decay", ["constant", "sqrt"])
def test_stacked_equals_looped_and_stays_in_simplex(decay):
    rng = np.random.default_rng(1)
    K = sets.Simplex(4)
    proto = learners.SoftmaxPolicy(K, lr=0.7, decay=decay)
    stack = proto.stack(3, [1, 2, 3])
    loop = [proto.clone() for _ in range(3)]
    for t in range(100):
        x = {f"f{j}": float(rng.normal(scale=5.0)) for j in range(3) if t >= 10 * j}
        P = stack.predict(x)
        for i in range(3):
            np.testing.assert_allclose(P[i], loop[i].predict_one(x), rtol=0, atol=1e-12)
        assert np.all(K.contains(P)) and np.allclose(P.sum(axis=1), 1.0)
        G = rng.normal(scale=10.0, size=(3, 4))
        stack.learn(x, G)
        for i in range(3):
            loop[i].learn_one(x, G[i])


def test_learns_a_contextual_argmin():
    rng = np.random.default_rng(2)
    policy = learners.SoftmaxPolicy(sets.Simplex(3), lr=0.2)
    centres = np.eye(3)
    for _ in range(2000):
        c = rng.normal(size=3)
        policy.learn_one(dict(enumerate(c)), -(centres @ c))  # arm j is good when c_j is large
    hits = [np.argmax(policy.predict_one(dict(enumerate(c)))) == np.argmax(c)
            for c in rng.normal(size=(200, 3))]
    assert np.mean(hits) > 0.95


def test_bad_input_leaves_state_unchanged():
    policy = learners.SoftmaxPolicy(sets.Simplex(3), lr=0.5)
    policy.learn_one({"a": 1.0}, [1.0, 0.0, 0.0])
    before = policy.predict_one({"a": 1.0, "b": 1.0})
    for x, g in [({"a": np.nan}, [0, 0, 1]), ({"b": 1.0}, [0, 1]), ({"b": 1.0}, [0, np.inf, 0])]:
        with pytest.raises(ValueError):
            policy.learn_one(x, g)
    np.testing.assert_array_equal(policy.predict_one({"a": 1.0, "b": 1.0}), before)
    assert policy._stack._theta.shape == (1, 3, 1)
    for kwargs in [{"lr": 0}, {"decay": "x"}, {"decision_set": sets.Interval()}]:
        with pytest.raises(ValueError, match=next(iter(kwargs))):
            learners.SoftmaxPolicy(**kwargs)
