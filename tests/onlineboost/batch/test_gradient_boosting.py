"""Gradient tree boosting: monotone training loss for every loss, exact constant and leaf
minimisers (against scipy), and agreement with scikit-learn for the squared loss."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize
from sklearn.ensemble import GradientBoostingRegressor

from onlineboost.batch import (
    GradientTreeBoostingClassifier,
    GradientTreeBoostingRegressor,
    gb_losses,
)

LOG_COSH = gb_losses.CustomLoss(
    lambda y, f: np.logaddexp(y - f, f - y) - np.log(2.0), lambda y, f: -np.tanh(y - f)
)
REGRESSION = ["squared_error", "absolute_error", "huber", gb_losses.Huber(0.3), LOG_COSH]
CLASSIFICATION = ["log_loss", "exponential"]


def _regression(seed, n=120):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, 3))
    y = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + rng.standard_t(2, size=n)  # heavy tails
    return X, y


def _classification(seed, n=150):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] ** 2 + X[:, 1] + rng.normal(scale=0.7, size=n) > 0.8).astype(int)
    return X, y


def _loss_id(loss) -> str:
    """A test id that is the same in every process (the custom loss's repr names its lambdas'
    addresses, which differ between pytest-xdist's workers)."""
    return "log-cosh" if loss is LOG_COSH else str(loss)


@pytest.mark.parametrize("loss", REGRESSION, ids=_loss_id)
@pytest.mark.parametrize("depth", [0, 1, 3])
def test_regression_training_loss_never_increases(loss, depth):
    for seed in range(3):
        X, y = _regression(seed)
        model = GradientTreeBoostingRegressor(loss, n_estimators=25, max_depth=depth).fit(X, y)
        L = model.train_loss_
        assert len(L) == 26
        assert np.all(np.diff(L) <= 1e-12 * L[0]), np.diff(L).max()
        # the recorded loss is the loss of the model's own predictions
        np.testing.assert_allclose(L[-1], np.mean(model.loss_.value(y, model.predict(X))))
        if depth > 0:
            assert L[-1] < L[0]


@pytest.mark.parametrize("loss", CLASSIFICATION)
@pytest.mark.parametrize("depth", [0, 1, 3])
def test_classification_training_loss_never_increases(loss, depth):
    for seed in range(3):
        X, y = _classification(seed)
        model = GradientTreeBoostingClassifier(loss, n_estimators=25, max_depth=depth).fit(X, y)
        L = model.train_loss_
        assert np.all(np.diff(L) <= 1e-12 * L[0]), np.diff(L).max()
        np.testing.assert_allclose(
            L[-1], np.mean(model.loss_.value(y, model.decision_function(X))), rtol=1e-10
        )
        assert np.all(np.isfinite(model.predict_proba(X)))


@pytest.mark.parametrize("depth", [1, 2, 3, 5])
def test_squared_loss_matches_scikit_learn(depth):
    X, y = _regression(depth, n=200)
    X_test = np.random.default_rng(99).uniform(-2, 2, size=(300, 3))
    ours = GradientTreeBoostingRegressor(n_estimators=30, max_depth=depth, random_state=0)
    ref = GradientBoostingRegressor(
        learning_rate=1.0, subsample=1.0, max_depth=depth, n_estimators=30, random_state=0
    )
    ours.fit(X, y)
    ref.fit(X, y)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=0, atol=1e-8)
    np.testing.assert_allclose(ours.predict(X_test), ref.predict(X_test), rtol=0, atol=1e-8)


def _brute_force_minimum(fun, lo=-60.0, hi=60.0):
    grid = np.linspace(lo, hi, 4001)
    k = int(np.argmin([fun(g) for g in grid]))
    res = optimize.minimize_scalar(fun, bounds=(grid[max(k - 1, 0)], grid[min(k + 1, 4000)]),
                                   method="bounded", options={"xatol": 1e-12})
    return min(res.fun, fun(grid[k]))


@pytest.mark.parametrize(
    "loss",
    [gb_losses.SquaredError(), gb_losses.AbsoluteError(), gb_losses.Huber(0.5), LOG_COSH,
     gb_losses.BinomialDeviance(), gb_losses.ExponentialLoss()],
    ids=lambda loss: type(loss).__name__,
)
def test_constant_and_line_minimisers_are_exact(loss):
    rng = np.random.default_rng(3)
    for _ in range(20):
        n = int(rng.integers(1, 30))
        if loss.is_classifier:
            y = (rng.uniform(size=n) < rng.uniform()).astype(float)
        else:
            y = rng.standard_t(2, size=n) * rng.choice([0.1, 1.0, 10.0])
        f = rng.normal(size=n)
        for offset in (np.zeros(n), f):
            gamma = loss.line_minimiser(y, offset)
            ours = float(np.sum(loss.value(y, offset + gamma)))
            best = _brute_force_minimum(lambda g: float(np.sum(loss.value(y, offset + g))))
            assert ours <= best + 1e-9 * max(1.0, abs(best))
        assert loss.init(y) == loss.line_minimiser(y, np.zeros(n))


def test_closed_forms():
    y = np.array([1.0, 2.0, 4.0, 10.0])
    assert gb_losses.SquaredError().init(y) == 4.25
    assert gb_losses.AbsoluteError().init(y) == 3.0
    labels = np.array([1.0, 1.0, 1.0, 0.0])
    assert np.isclose(gb_losses.BinomialDeviance().init(labels), np.log(3.0))
    assert np.isclose(gb_losses.ExponentialLoss().init(labels), 0.5 * np.log(3.0))


def test_depth_zero_is_a_single_leaf():
    X, y = _regression(0)
    model = GradientTreeBoostingRegressor("absolute_error", n_estimators=5, max_depth=0).fit(X, y)
    assert model.trees_ == [None] * 5
    np.testing.assert_allclose(model.predict(X), np.median(y))  # f_0 is already optimal


def test_unattained_minimum_is_bounded():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])  # separable: every leaf is pure after the first split
    model = GradientTreeBoostingClassifier(n_estimators=3, max_depth=1).fit(X, y)
    assert np.all(np.isfinite(model.decision_function(X)))
    assert np.abs(model.leaf_values_[0]).max() <= model.loss_.bound
    np.testing.assert_array_equal(model.predict(X), y)


def test_shrinkage_and_subsampling_are_options():
    X, y = _regression(5)
    exact = GradientTreeBoostingRegressor(n_estimators=10).fit(X, y)
    shrunk = GradientTreeBoostingRegressor(n_estimators=10, learning_rate=0.1).fit(X, y)
    assert shrunk.train_loss_[-1] > exact.train_loss_[-1]
    np.testing.assert_allclose(shrunk.leaf_values_[0], 0.1 * exact.leaf_values_[0])
    a = GradientTreeBoostingRegressor(n_estimators=10, subsample=0.5, random_state=1).fit(X, y)
    b = GradientTreeBoostingRegressor(n_estimators=10, subsample=0.5, random_state=1).fit(X, y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert not np.allclose(a.predict(X), exact.predict(X))


@pytest.mark.parametrize(
    "params, name",
    [({"n_estimators": -1}, "n_estimators"), ({"max_depth": -2}, "max_depth"),
     ({"learning_rate": 0.0}, "learning_rate"), ({"subsample": 1.5}, "subsample"),
     ({"max_leaf_nodes": 1}, "max_leaf_nodes"), ({"loss": "log_loss"}, "loss"),
     ({"loss": "nope"}, "loss")],
)
def test_invalid_parameters(params, name):
    X, y = _regression(0, n=20)
    with pytest.raises(ValueError, match=name):
        GradientTreeBoostingRegressor(**params).fit(X, y)


def test_bad_input_leaves_the_model_unchanged():
    X, y = _regression(0, n=20)
    model = GradientTreeBoostingRegressor(n_estimators=3).fit(X, y)
    before = model.predict(X)
    with pytest.raises(ValueError):
        model.fit(np.full((5, 2), np.inf), np.zeros(5))
    with pytest.raises(ValueError, match="loss"):
        GradientTreeBoostingClassifier("squared_error").fit(X, y > 0)
    np.testing.assert_array_equal(model.predict(X), before)


@pytest.mark.parametrize("loss", CLASSIFICATION)
def test_probabilities_are_the_losses_link_of_the_score(loss):
    # log_loss: f is the log-odds, P(classes_[1]) = sigma(f); the exponential loss's
    # population minimiser is half the log-odds, so P = sigma(2 f); the class is classes_[1]
    # where f >= 0, the argmax of the probabilities
    X, y = _classification(3)
    labels = np.where(y == 1, "yes", "no")
    model = GradientTreeBoostingClassifier(loss, n_estimators=8, max_depth=2).fit(X, labels)
    f = model.decision_function(X)
    scale = 2.0 if loss == "exponential" else 1.0
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba[:, 1], 1.0 / (1.0 + np.exp(-scale * f)), rtol=1e-12)
    np.testing.assert_allclose(proba[:, 0], 1.0 - proba[:, 1], rtol=0, atol=0)  # (as sklearn)
    np.testing.assert_allclose(proba[:, 0], 1.0 / (1.0 + np.exp(scale * f)), atol=1e-15)
    np.testing.assert_array_equal(model.predict(X), np.where(f >= 0, "yes", "no"))
    assert list(model.classes_) == ["no", "yes"] and 0.2 < np.mean(f >= 0) < 0.8


@pytest.mark.parametrize("loss", CLASSIFICATION)
def test_a_score_of_zero_goes_to_the_positive_class(loss):
    # balanced labels: f_0 = 0 (both losses' constant minimiser), no rounds: every score is
    # exactly 0, every probability 1/2, every answer classes_[1]
    X = np.arange(8.0).reshape(-1, 1)
    y = np.array(["a", "b"] * 4)
    model = GradientTreeBoostingClassifier(loss, n_estimators=0).fit(X, y)
    assert model.init_ == 0.0
    np.testing.assert_array_equal(model.predict_proba(X), 0.5)
    np.testing.assert_array_equal(model.predict(X), ["b"] * 8)


@pytest.mark.parametrize("cls, data", [(GradientTreeBoostingRegressor, _regression),
                                       (GradientTreeBoostingClassifier, _classification)])
def test_the_documented_defaults(cls, data):
    # the exact variant: 100 rounds of depth-3 CART trees fitted on every row, unshrunk
    X, y = data(4)
    model = cls().fit(X, y)
    assert len(model.trees_) == 100 and len(model.train_loss_) == 101
    depths = [tree.get_depth() for tree in model.trees_]
    assert max(depths) == 3
    assert all(tree.tree_.n_node_samples[0] == len(X) for tree in model.trees_)
    assert cls().learning_rate == 1.0 and cls().max_leaf_nodes is None
    assert cls().loss == ("squared_error" if cls is GradientTreeBoostingRegressor else "log_loss")


def test_parameters_at_the_edge_of_their_range_are_taken():
    # zero rounds (f_0 alone), two leaves a tree, and a subsample so small that it rounds to
    # no row: each tree is then fitted on one row, drawn afresh every round
    X, y = _regression(6, n=30)
    none = GradientTreeBoostingRegressor(n_estimators=0).fit(X, y)
    np.testing.assert_allclose(none.predict(X), np.mean(y))
    stumps = GradientTreeBoostingRegressor(n_estimators=4, max_depth=None,
                                           max_leaf_nodes=2).fit(X, y)
    assert all(tree.get_n_leaves() == 2 for tree in stumps.trees_)
    tiny = GradientTreeBoostingRegressor(n_estimators=6, subsample=0.01, random_state=0).fit(X, y)
    assert [tree.tree_.n_node_samples[0] for tree in tiny.trees_] == [1] * 6


@pytest.mark.parametrize("loss, closed_form", [
    (gb_losses.SquaredError(), lambda y, f: 0.5 * (y - f) ** 2),
    (gb_losses.AbsoluteError(), lambda y, f: np.abs(y - f)),
    (gb_losses.Huber(), lambda y, f: np.where(np.abs(y - f) <= 1.0, 0.5 * (y - f) ** 2,
                                              np.abs(y - f) - 0.5)),  # delta 1 by default
    (gb_losses.Huber(0.3), lambda y, f: np.where(np.abs(y - f) <= 0.3, 0.5 * (y - f) ** 2,
                                                 0.3 * (np.abs(y - f) - 0.15))),
    (gb_losses.BinomialDeviance(), lambda y, f: np.log1p(np.exp(f)) - y * f),
    (gb_losses.ExponentialLoss(), lambda y, f: np.exp(-(2 * y - 1) * f)),
], ids=lambda v: type(v).__name__ if isinstance(v, gb_losses.GBLoss) else "")
def test_each_losses_value_is_its_formula_and_its_derivative_the_slope(loss, closed_form):
    # the values as the docstrings write them, and derivative = d value / d f by central
    # differences, away from the kinks (the pseudo-residuals are minus this derivative)
    rng = np.random.default_rng(9)
    y = ((rng.uniform(size=200) < 0.5).astype(float) if loss.is_classifier
         else rng.normal(scale=2.0, size=200))
    f = rng.normal(scale=1.5, size=200)
    np.testing.assert_allclose(loss.value(y, f), closed_form(y, f), rtol=1e-12, atol=1e-15)
    r = np.abs(y - f)
    smooth = (r > 1e-3) & (np.abs(r - getattr(loss, "delta", -1.0)) > 1e-3)
    h = 1e-6
    slope = (loss.value(y, f + h) - loss.value(y, f - h)) / (2 * h)
    np.testing.assert_allclose(loss.derivative(y, f)[smooth], slope[smooth], atol=1e-6)


@pytest.mark.parametrize("loss, residual", [
    ("absolute_error", lambda y, f: np.sign(y - f)),
    ("huber", lambda y, f: np.clip(y - f, -1.0, 1.0)),
])
def test_the_first_tree_is_cart_on_the_pseudo_residuals(loss, residual):
    # step 2 of Algorithm 10.3: the regions are a CART regression tree fitted to
    # r_i = -d l(y_i, f_0) / df (written out here), with the booster's random state
    from sklearn.tree import DecisionTreeRegressor

    X, y = _regression(7)
    model = GradientTreeBoostingRegressor(loss, n_estimators=1, max_depth=2,
                                          random_state=0).fit(X, y)
    r = residual(y, np.full(len(y), model.init_))
    oracle = DecisionTreeRegressor(max_depth=2, random_state=np.random.RandomState(0)).fit(X, r)
    ours = model.trees_[0].tree_
    np.testing.assert_array_equal(ours.feature, oracle.tree_.feature)
    np.testing.assert_array_equal(ours.threshold, oracle.tree_.threshold)


def test_huber_needs_a_positive_delta():
    with pytest.raises(ValueError, match="delta"):
        gb_losses.Huber(0.0)
    assert gb_losses.Huber().delta == 1.0
