from __future__ import annotations

import pickle

import numpy as np
import pytest
from river import preprocessing

from learners import MLPStack, TinyMLP
from streams import StumpMixture


def _f(params, x):
    w, b, a, c = params
    return a * np.tanh(w @ x + b) + c


def test_one_step_is_gradient_descent_on_half_squared_error():
    """The update equals theta - lr * grad, with grad by central finite differences."""
    rng = np.random.default_rng(0)
    stack = MLPStack(1, lr=0.3, seeds=[5])
    for _ in range(3):  # move away from w = 0 first
        stack.learn({"u": rng.normal(), "v": rng.normal()}, [rng.normal()])
    x, y = np.array([0.7, -1.3]), 0.4
    theta = np.concatenate([stack._w[0], [stack._b[0], stack._a[0], stack._c[0]]])

    def loss(t):
        return 0.5 * (_f((t[:2], t[2], t[3], t[4]), x) - y) ** 2

    eps = 1e-6
    grad = np.array([(loss(theta + eps * e) - loss(theta - eps * e)) / (2 * eps)
                     for e in np.eye(5)])
    stack.learn({"u": 0.7, "v": -1.3}, [y])
    after = np.concatenate([stack._w[0], [stack._b[0], stack._a[0], stack._c[0]]])
    np.testing.assert_allclose(after, theta - 0.3 * grad, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_reduces_squared_error_on_a_seeded_stream(seed):
    stream = StumpMixture(n_features=4, n_stumps=3, noise=0.1, seed=seed)
    model = preprocessing.StandardScaler() | TinyMLP(seed=seed)
    rng = np.random.default_rng(seed)
    X = rng.random((500, 4))
    truth = stream.predict_array(X)

    def mse():
        pred = [model.predict_one({f"x{j}": v for j, v in enumerate(r)}) for r in X]
        return np.mean((np.array(pred) - truth) ** 2)

    for x, y in stream.take(50):
        model.learn_one(x, y)
    early = mse()
    for x, y in stream.take(3000):
        model.learn_one(x, y)
    assert mse() < 0.5 * early
    assert mse() < 0.6 * truth.var()  # better than the best constant by a margin


def test_seed_fixes_the_initialisation():
    x = {"a": 1.0}
    assert TinyMLP(seed=3).predict_one(x) == TinyMLP(seed=3).predict_one(x)
    assert TinyMLP(seed=3).predict_one(x) != TinyMLP(seed=4).predict_one(x)
    a, b = MLPStack(2, seeds=[3, 4]).predict(x)
    assert (a, b) == (TinyMLP(seed=3).predict_one(x), TinyMLP(seed=4).predict_one(x))


@pytest.mark.parametrize("x, y, name", [({"a": np.nan}, 1.0, "x"), ({"a": 1.0}, -np.inf, "y"),
                                        ({"a": 1.0}, "high", "y")])
def test_bad_input_raises_and_leaves_state(x, y, name):
    model = TinyMLP(seed=0)
    model.learn_one({"a": 0.3}, 0.2)
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match=name):
        model.learn_one(x, y)
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("params", [{"lr": 0.0}, {"lr": np.nan}, {"seed": 1.5}])
def test_invalid_parameters(params):
    with pytest.raises(ValueError, match=next(iter(params))):
        TinyMLP(**params)


def test_the_initialisation_is_the_documented_draws():
    # a ~ U[-1, 1] and b ~ U[-1/2, 1/2] from the seed's generator (its first two uniforms),
    # c = 0, and w = 0 for a feature's first appearance
    for seed in (0, 3, 11):
        u = np.random.default_rng(seed).uniform(-1.0, 1.0, size=2)
        stack = MLPStack(1, seeds=[seed])
        assert (stack._a[0], stack._b[0], stack._c[0]) == (u[0], 0.5 * u[1], 0.0)
        assert stack.predict({"x": 2.0})[0] == u[0] * np.tanh(0.5 * u[1])


def test_the_default_step_is_0_05():
    x, y = {"u": 0.7, "v": -1.3}, [0.4]
    for default, explicit in ((MLPStack(1, seeds=[5]), MLPStack(1, lr=0.05, seeds=[5])),
                              (TinyMLP(seed=5)._stack, TinyMLP(lr=0.05, seed=5)._stack)):
        for model in (default, explicit):
            for _ in range(3):
                model.learn(x, y)
        assert default.predict(x)[0] == explicit.predict(x)[0]


def test_a_stack_without_seeds_repeats_the_learners_own_seed():
    stack = TinyMLP(lr=0.2, seed=4).stack(3)
    assert stack.lr == 0.2
    np.testing.assert_array_equal(stack.predict({"x": 1.0}),
                                  [TinyMLP(seed=4).predict_one({"x": 1.0})] * 3)
