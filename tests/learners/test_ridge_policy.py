"""RidgePolicy: per-arm online ridge equals the batch ridge solution, stacks equal copies,
softmax of the predicted costs, bad input changes nothing."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from learners import RidgePolicy
from onlineboost import sets


def rounds(n, seed, d=3, k=4):
    rng = np.random.default_rng(seed)
    C = rng.normal(size=(n, d))
    G = rng.normal(size=(n, k))
    return C, G


def test_recursive_least_squares_equals_batch_ridge():
    """After t rounds every arm's weights are (l2 I + sum c~ c~^T)^{-1} sum g(a) c~, c~ = (1, c),
    and the played point is softmax(-costs / temperature)."""
    C, G = rounds(300, 0)
    policy = RidgePolicy(sets.Simplex(4), l2=0.7, temperature=0.3)
    for c, g in zip(C, G):
        policy.learn_one({f"x{j}": v for j, v in enumerate(c)}, g)
    Ce = np.hstack([np.ones((len(C), 1)), C])
    theta = np.linalg.solve(0.7 * np.eye(4) + Ce.T @ Ce, Ce.T @ G).T  # (k, 1 + d)
    c = np.array([0.3, -1.0, 2.0])
    costs = theta @ np.concatenate([[1.0], c])
    expected = np.exp(-(costs - costs.min()) / 0.3)
    expected /= expected.sum()
    np.testing.assert_allclose(policy.predict_one({"x0": 0.3, "x1": -1.0, "x2": 2.0}), expected,
                               rtol=1e-9, atol=1e-12)


def test_stack_equals_independent_copies_and_new_features_start_at_zero():
    C, G = rounds(200, 1, d=3, k=3)
    proto = RidgePolicy(sets.Simplex(3), l2=1.0, temperature=0.5)
    stack = proto.stack(2)
    singles = [proto.clone(), proto.clone()]
    for t, (c, g) in enumerate(zip(C, G)):
        x = {"a": c[0], "b": c[1]} if t < 50 else {"a": c[0], "b": c[1], "c": c[2]}
        G2 = np.vstack([g, -g])
        stack.learn(x, G2)
        for w, row in zip(singles, G2):
            w.learn_one(x, row)
        probe = {"a": 0.5, "b": -0.2, "c": 1.0}
        np.testing.assert_allclose(stack.predict(probe),
                                   np.vstack([w.predict_one(probe) for w in singles]),
                                   rtol=1e-12, atol=1e-15)


def test_vector_path_equals_dict_path():
    C, G = rounds(100, 2, d=2, k=3)
    a = RidgePolicy(sets.Simplex(3)).stack(3)
    b = RidgePolicy(sets.Simplex(3)).stack(3)
    for c, g in zip(C, G):
        G3 = np.vstack([g, 2 * g, -g])
        np.testing.assert_array_equal(a.predict({"u": c[0], "v": c[1]}), b.predict_vector(c))
        a.learn({"u": c[0], "v": c[1]}, G3)
        b.learn_vector(c, G3)


def test_points_on_the_simplex_for_large_costs():
    policy = RidgePolicy(sets.Simplex(3), temperature=1e-3)
    policy.learn_one({"x": 1.0}, np.array([1e6, -1e6, 0.0]))
    p = policy.predict_one({"x": 1.0})
    assert np.all(np.isfinite(p)) and np.isclose(p.sum(), 1.0) and p.argmax() == 1


@pytest.mark.parametrize("x, g, match", [
    ({"x": float("nan")}, [0.0, 0.0], "x"), ({"x": None}, [0.0, 0.0], "x"),
    ({"x": 1.0}, [0.0, float("inf")], "g"), ({"x": 1.0}, [0.0, 0.0, 0.0], "g"),
])
def test_bad_input_changes_nothing(x, g, match):
    policy = RidgePolicy()
    policy.learn_one({"x": 0.5}, np.array([0.2, 0.4]))
    before = pickle.dumps(policy)
    with pytest.raises(ValueError, match=match):
        policy.learn_one(x, g)
    assert pickle.dumps(policy) == before


@pytest.mark.parametrize("kwargs", [{"l2": 0.0}, {"temperature": -1.0}, {"l2": True},
                                    {"decision_set": sets.Ball([0.0, 0.0], 1.0)}])
def test_bad_parameters(kwargs):
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        RidgePolicy(**kwargs)


def test_forgetting_equals_discounted_batch_ridge():
    """forget = rho: the weights minimise sum_s rho^(T-s) (g_s(a) - <theta, c~_s>)^2
    + rho^T l2 |theta|^2, recursive least squares with exponential forgetting."""
    C, G = rounds(150, 3, d=2, k=3)
    rho, lam = 0.97, 2.0
    policy = RidgePolicy(sets.Simplex(3), l2=lam, temperature=1.0, forget=rho)
    for c, g in zip(C, G):
        policy.learn_one({"x0": c[0], "x1": c[1]}, g)
    T = len(C)
    w = rho ** np.arange(T - 1, -1, -1)
    Ce = np.hstack([np.ones((T, 1)), C])
    theta = np.linalg.solve(rho**T * lam * np.eye(3) + (Ce * w[:, None]).T @ Ce,
                            (Ce * w[:, None]).T @ G).T
    np.testing.assert_allclose(policy._stack.predicted_costs(np.array([0.4, -0.3])),
                               (theta @ np.array([1.0, 0.4, -0.3]))[None, :], rtol=1e-8)


@pytest.mark.parametrize("n, k", [(1, 5), (1, 12), (3, 10), (1, 80)])
def test_softmax_of_the_costs_in_plain_floats_and_numpy_agree(n, k):
    """One copy with a few arms takes plain floats, more the vectorised kernel: both are
    softmax(-costs / temperature) with the log-domain shift, for costs far apart (no overflow
    when they differ by 1e300 / temperature) or nearly equal."""
    from learners import RidgePolicyStack

    rng = np.random.default_rng(0)
    stack = RidgePolicyStack(n, sets.Simplex(k), l2=1.0, temperature=0.02)
    for scale in (1e-3, 1.0, 1e300):
        costs = rng.normal(size=(n, k)) * scale
        z = -(costs - costs.min(axis=1, keepdims=True)) / 0.02
        want = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
        got = stack._softmax(costs)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=1e-15)


def test_the_documented_defaults():
    # Simplex(2), l2 1, temperature 0.1, no forgetting: one round of costs (1, 0) on the bias
    # alone predicts costs (1/2, 0) and plays softmax(-(1/2, 0) / 0.1)
    policy = RidgePolicy()
    policy.learn_one({}, np.array([1.0, 0.0]))
    expected = np.exp(-np.array([0.5, 0.0]) / 0.1)
    np.testing.assert_allclose(policy.predict_one({}), expected / expected.sum(), rtol=1e-12)
    assert policy.forget == 1.0
