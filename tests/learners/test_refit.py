from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.tree import DecisionTreeRegressor

from learners import RefitRegressor, RegressorOCO, paper_weak_learners
from streams import StumpMixture


def _xy(T, seed):
    stream = StumpMixture(n_features=3, n_stumps=3, noise=0.1, seed=seed)
    return list(stream.take(T)), stream


@pytest.mark.parametrize("every, window", [(None, None), (7, None), (None, 20), (5, 12), (1, 1)])
def test_predictions_equal_a_batch_fit_on_the_scheduled_samples(every, window):
    rows, _ = _xy(100, seed=1)
    model = RefitRegressor(Ridge(alpha=0.3), every=every, window=window)
    last_fit = None
    n_fits = 0
    for t, (x, y) in enumerate(rows, start=1):
        model.learn_one(x, y)
        due = (t & (t - 1)) == 0 if every is None else (t % every == 0 or t == 1)
        if due:
            last_fit = t
            n_fits += 1
        seen = rows[:last_fit][-window:] if window else rows[:last_fit]
        X = np.array([[r[0][f"x{j}"] for j in range(3)] for r in seen])
        oracle = Ridge(alpha=0.3).fit(X, [r[1] for r in seen])
        q = {"x0": 0.3, "x1": 0.6, "x2": 0.9}
        assert model.predict_one(q) == pytest.approx(oracle.predict([[0.3, 0.6, 0.9]])[0],
                                                     rel=1e-10)
    assert model._stack.n_fits == n_fits  # geometric: after 1, 2, 4, ..., 64 (7 fits)
    assert n_fits == {None: 7, 7: 15, 5: 21, 1: 100}[every]


def test_decision_stump_refits_learn_the_mixture():
    rows, stream = _xy(2000, seed=2)
    model = RefitRegressor(DecisionTreeRegressor(max_depth=3), seed=0)
    for x, y in rows:
        model.learn_one(x, y)
    X = np.random.default_rng(0).random((500, 3))
    pred = np.array([model.predict_one({f"x{j}": v for j, v in enumerate(r)}) for r in X])
    truth = stream.predict_array(X)
    assert np.mean((pred - truth) ** 2) < 0.1 * truth.var()


def test_predicts_zero_before_the_first_fit_and_ignores_unseen_features():
    model = RefitRegressor(Ridge())
    assert model.predict_one({"a": 1.0}) == 0.0
    model.learn_one({"a": 1.0}, 2.0)
    assert model.predict_one({"a": 1.0, "new": 5.0}) == model.predict_one({"a": 1.0})


@pytest.mark.parametrize("x, y, name", [({"a": np.nan}, 1.0, "x"), ({"a": 1.0}, np.inf, "y")])
def test_bad_input_raises_and_leaves_state(x, y, name):
    model = RefitRegressor(Ridge())
    model.learn_one({"a": 0.3}, 0.2)
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match=name):
        model.learn_one(x, y)
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("params", [{"estimator": object()}, {"every": 0}, {"window": 1.5},
                                    {"seed": "s"}])
def test_invalid_parameters(params):
    kwargs = {"estimator": Ridge(), **params}
    with pytest.raises(ValueError, match=next(iter(params))):
        RefitRegressor(**kwargs)


@pytest.mark.parametrize("source", ["online", "sklearn"])
@pytest.mark.parametrize("name", ["stump", "ridge", "mlp"])
def test_paper_weak_learners_learn_through_the_reduction(source, name):
    """Fed the squared-loss gradient at a = 0, each weak learner's prediction moves toward y."""
    rows, stream = _xy(1500, seed=3)
    learner = RegressorOCO(paper_weak_learners(source, seed=0)[name])
    for x, y in rows:
        learner.learn_one(x, np.array([0.0 - y]))
    X = np.random.default_rng(1).random((300, 3))
    truth = stream.predict_array(X)
    pred = np.array([learner.predict_one({f"x{j}": v for j, v in enumerate(r)})[0] for r in X])
    assert np.all(np.abs(pred) <= 1.0)
    # the gain over playing the centroid 0 (= the loss of a random guess, the paper's baseline)
    assert np.mean((pred - truth) ** 2) < 0.9 * np.mean(truth**2)


def test_invalid_source():
    with pytest.raises(ValueError, match="source"):
        paper_weak_learners("torch")


def test_an_estimator_must_be_a_scikit_learn_regressor_not_a_look_alike():
    class LookAlike:  # fit and predict, but not a scikit-learn estimator (no clone)
        def fit(self, X, y):
            return self

        def predict(self, X):
            return np.zeros(len(X))

    with pytest.raises(ValueError, match="estimator"):
        RefitRegressor(LookAlike())


def test_a_stack_without_seeds_gives_every_copy_the_learners_seed():
    model = RefitRegressor(DecisionTreeRegressor(max_depth=2), every=3, seed=7)
    stack = model.stack(3)
    stack.learn({"a": 0.5}, [1.0, 2.0, 3.0])
    assert [m.random_state for m in stack._models] == [7, 7, 7]
    assert (stack.every, stack.window) == (3, None)
