from __future__ import annotations

import pickle

import numpy as np
import pytest

from learners import OnlineRidge, RidgeStack


def _stream(seed, T=60, d=4):
    """Rows whose features appear over time and are sometimes missing."""
    rng = np.random.default_rng(seed)
    names = [f"f{j}" for j in range(d)]
    rows = []
    for t in range(T):
        present = [n for j, n in enumerate(names) if t >= 5 * j and rng.random() < 0.8]
        rows.append(({n: float(rng.normal(scale=3)) for n in present}, float(rng.normal())))
    return rows


def _closed_form(rows, alpha, intercept, names):
    X = np.array([[x.get(n, 0.0) for n in names] for x, _ in rows])
    if intercept:
        X = np.hstack([np.ones((len(rows), 1)), X])
    y = np.array([y for _, y in rows])
    return np.linalg.solve(alpha * np.eye(X.shape[1]) + X.T @ X, X.T @ y)


@pytest.mark.parametrize("alpha, intercept", [(1.0, True), (0.01, False), (10.0, True)])
def test_online_ridge_equals_batch_closed_form_after_every_step(alpha, intercept):
    rows = _stream(seed=int(alpha * 100))
    model = OnlineRidge(alpha=alpha, intercept=intercept)
    for t in range(len(rows)):
        model.learn_one(*rows[t])
        names = list(model.weights)
        w = _closed_form(rows[: t + 1], alpha, intercept, names)
        got = np.array([model.bias] * intercept + [model.weights[n] for n in names])
        np.testing.assert_allclose(got, w, rtol=1e-8, atol=1e-10)
        x_query = {n: 1.0 + i for i, n in enumerate(names)}
        expected = (w[0] if intercept else 0.0) + sum(
            (1.0 + i) * w[i + intercept] for i in range(len(names))
        )
        assert model.predict_one(x_query) == pytest.approx(expected, rel=1e-8, abs=1e-10)


def test_ridge_stack_shares_the_features_and_solves_each_target():
    rng = np.random.default_rng(3)
    rows = _stream(seed=3, T=40)
    Y = rng.normal(size=(40, 3))
    stack = RidgeStack(3, alpha=0.5)
    for (x, _), y in zip(rows, Y):
        stack.learn(x, y)
    names = stack._index.names
    for i in range(3):
        w = _closed_form([(x, y) for (x, _), y in zip(rows, Y[:, i])], 0.5, True, names)
        x_query = {n: 0.5 for n in names}
        assert stack.predict(x_query)[i] == pytest.approx(w[0] + 0.5 * w[1:].sum(), rel=1e-9)


@pytest.mark.parametrize(
    "x, y, name",
    [({"a": float("nan")}, 1.0, "x"), ({"a": 1.0}, float("inf"), "y"), ({"a": "s"}, 1.0, "x"),
     ({"b": 1.0}, [1.0, 2.0], "y")],
)
def test_bad_input_raises_and_leaves_state(x, y, name):
    model = OnlineRidge()
    model.learn_one({"a": 1.0}, 0.5)
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match=name):
        model.learn_one(x, y)
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("params", [{"alpha": 0.0}, {"alpha": -1.0}, {"alpha": float("nan")},
                                    {"intercept": "yes"}])
def test_invalid_parameters(params):
    with pytest.raises(ValueError, match=next(iter(params))):
        OnlineRidge(**params)


def test_pipeline_with_scaler():
    from river import preprocessing

    rng = np.random.default_rng(0)
    model = preprocessing.StandardScaler() | OnlineRidge(alpha=0.1)
    for _ in range(300):
        x = {"a": rng.normal(10, 5), "b": rng.normal(-3, 0.1)}
        model.learn_one(x, 2.0 * x["a"] - 1.0)
    # the scaler's statistics drift early on, so the fit is close but not exact
    assert model.predict_one({"a": 12.0, "b": -3.0}) == pytest.approx(23.0, abs=0.5)


def test_the_documented_defaults_and_no_intercept():
    # alpha 1 with an intercept: one example (x, y) = ({a: 1}, 3) gives the ridge solution of
    # [[2, 1], [1, 2]] w = [3, 3], w = (1, 1); without an intercept the bias is 0
    model = OnlineRidge()
    model.learn_one({"a": 1.0}, 3.0)
    assert model.bias == pytest.approx(1.0) and model.weights == {"a": pytest.approx(1.0)}
    plain = OnlineRidge(intercept=False)
    plain.learn_one({"a": 1.0}, 3.0)
    assert plain.bias == 0.0 and plain.weights == {"a": pytest.approx(1.5)}
    wide = OnlineRidge()  # at most 1,000 features: the first ones met
    wide.learn_one({f"f{j}": 1.0 for j in range(1001)}, 1.0)
    assert len(wide.weights) == 1000
