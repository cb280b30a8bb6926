"""SoftmaxPolicy: exponentiated gradient in closed form, stacked == looped, in the simplex."""

from __future__ import annotations

import numpy as np
import pytest

import learners
from onlineboost import sets


@pytest.mark.parametrize("decay", ["constant", "sqrt"])
def test_without_context_it_is_exponentiated_gradient(decay):
    # the logits are minus the step-weighted sum of the costs: lr each (constant, the
    # default), lr / sqrt(t) at the t-th step (sqrt)
    rng = np.random.default_rng(0)
    K = sets.Simplex(5)
    policy = learners.SoftmaxPolicy(K, lr=0.3, decay=decay)
    assert learners.SoftmaxPolicy(K).decay == "constant" and learners.SoftmaxPolicy(K).lr == 0.1
    total = np.zeros(5)
    for t in range(1, 51):
        g = rng.normal(scale=3.0, size=5)
        policy.learn_one({}, g)
        total += g * (1.0 if decay == "constant" else 1.0 / np.sqrt(t))
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


def test_gradient_update_is_the_chain_rule_through_the_softmax():
    """update="gradient" moves the logits by -lr J^T g: a first-order decrease of <g, x> that
    matches a finite-difference gradient of (Theta, b) -> <g, softmax(Theta c + b)>."""
    rng = np.random.default_rng(3)
    K = sets.Simplex(4)
    policy = learners.SoftmaxPolicy(K, lr=1e-6, update="gradient")
    for _ in range(20):  # somewhere away from the uniform start
        policy.learn_one({"u": float(rng.normal()), "v": float(rng.normal())},
                         rng.normal(size=4) * 1e5)
    x, g = {"u": 0.7, "v": -1.3}, rng.normal(size=4)
    c = np.array([0.7, -1.3, 1.0])  # the context and the bias' constant 1
    stack = policy._stack
    theta, b = stack._theta.copy(), stack._b.copy()

    def value(th, bb):
        z = th[0] @ c[:2] + bb[0]
        e = np.exp(z - z.max())
        return float(g @ (e / e.sum()))

    eps, grad = 1e-6, np.zeros((4, 3))
    for j in range(4):
        for m in range(3):
            th, bb = theta.copy(), b.copy()
            if m < 2:
                th[0, j, m] += eps
            else:
                bb[0, j] += eps
            th2, bb2 = theta.copy(), b.copy()
            if m < 2:
                th2[0, j, m] -= eps
            else:
                bb2[0, j] -= eps
            grad[j, m] = (value(th, bb) - value(th2, bb2)) / (2 * eps)
    policy.learn_one(x, g)
    np.testing.assert_allclose((theta[0] - stack._theta[0]) / 1e-6, grad[:, :2], rtol=1e-5,
                               atol=1e-8)
    np.testing.assert_allclose((b[0] - stack._b[0]) / 1e-6, grad[:, 2], rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("update", ["exponentiated", "gradient"])
def test_vector_methods_equal_dict_methods(update):
    rng = np.random.default_rng(4)
    proto = learners.SoftmaxPolicy(sets.Simplex(3), lr=0.3, update=update)
    by_dict, by_vector = proto.stack(2), proto.stack(2)
    for t in range(100):
        p = 1 + min(t // 20, 3)  # a feature appears every 20 rounds
        c = rng.normal(size=p)
        x = {f"f{j}": float(c[j]) for j in range(p)}  # names sort in column order
        np.testing.assert_allclose(by_vector.predict_vector(c), by_dict.predict(x),
                                   rtol=1e-12, atol=1e-14)
        G = rng.normal(size=(2, 3))
        by_dict.learn(x, G)
        by_vector.learn_vector(c, G)
