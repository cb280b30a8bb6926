from __future__ import annotations

import pickle

import numpy as np
import pytest
from river import base, linear_model, optim, preprocessing
from sklearn.linear_model import SGDRegressor

from learners import OnlineRidge, RegressorOCO
from onlineboost import sets


class Recorder(base.Regressor):
    """Records the targets it is trained on; predicts a fixed value."""

    def __init__(self, value: float = 0.0):
        self.value = value
        self.targets = []

    def learn_one(self, x, y):
        self.targets.append(y)

    def predict_one(self, x):
        return self.value


@pytest.mark.parametrize("lam", [1.0, 0.5, 3.0])
def test_target_is_mu_minus_g_over_lambda(lam):
    K = sets.Box([0.0, -2.0], [1.0, 4.0])  # centroid (0.5, 1)
    learner = RegressorOCO(Recorder(), K, lam=lam)
    rng = np.random.default_rng(0)
    G = rng.normal(size=(5, 2))
    for g in G:
        learner.learn_one({"c": 1.0}, g)
    rows = learner._stack._models[0]  # the two coordinate regressors of the single copy
    for k in range(2):
        np.testing.assert_allclose(rows[k].targets, K.centroid[k] - G[:, k] / lam, rtol=1e-15)


def test_prediction_is_projected_and_centroid_before_learning():
    K = sets.Simplex(3)
    learner = RegressorOCO(Recorder(value=5.0), K)
    np.testing.assert_allclose(learner.predict_one({"c": 1.0}), K.centroid)  # mu first
    learner.learn_one({"c": 1.0}, np.zeros(3))
    np.testing.assert_allclose(learner.predict_one({"c": 1.0}), K.project([5.0, 5.0, 5.0]))


def _fit_identity(learner, T=400, seed=0):
    """Feed the gradient of (a - y)^2 / 2 at a = 0, y = 2c - 0.5: the target is y itself."""
    rng = np.random.default_rng(seed)
    for _ in range(T):
        c = float(rng.uniform(-0.5, 0.5))
        learner.learn_one({"c": c}, np.array([0.0 - (2 * c - 0.5)]))
    queries = np.linspace(-0.5, 0.5, 11)
    got = np.array([learner.predict_one({"c": q})[0] for q in queries])
    return np.abs(got - np.clip(2 * queries - 0.5, -1, 1)).max()


def test_works_with_river_linear_regression():
    reg = linear_model.LinearRegression(optimizer=optim.SGD(0.1), intercept_lr=0.1)
    assert _fit_identity(RegressorOCO(reg)) < 0.05


def test_works_with_river_pipeline():
    reg = preprocessing.StandardScaler() | linear_model.LinearRegression(intercept_lr=0.1)
    assert _fit_identity(RegressorOCO(reg)) < 0.05


def test_works_with_sklearn_sgd_regressor():
    reg = SGDRegressor(penalty="l2", alpha=1e-4, learning_rate="constant", eta0=0.3)
    assert _fit_identity(RegressorOCO(reg, seed=0)) < 0.05


def test_works_with_online_ridge():
    assert _fit_identity(RegressorOCO(OnlineRidge(alpha=0.1))) < 0.01


def test_sklearn_feature_order_fixed_by_first_context():
    learner = RegressorOCO(SGDRegressor(random_state=0), seed=0)
    learner.learn_one({"b": 1.0, "a": 2.0}, np.array([0.5]))
    est = learner._stack._models[0][0]
    assert est._names == ["a", "b"]
    learner.learn_one({"a": 1.0, "z": 3.0}, np.array([0.5]))  # new key ignored, b -> 0
    assert est.estimator.n_features_in_ == 2
    assert K_contains(learner.predict_one({"zz": 1.0}))


def K_contains(a):
    return sets.Interval(-1, 1).contains(a)


def test_the_argument_regressor_is_not_trained():
    reg = Recorder()
    learner = RegressorOCO(reg)
    learner.learn_one({"c": 1.0}, np.array([0.2]))
    assert reg.targets == []


@pytest.mark.parametrize("g, x, name", [(np.array([1.0, 2.0]), {"a": 1.0}, "g"),
                                        (np.array([np.inf]), {"a": 1.0}, "g"),
                                        (np.array([1.0]), {"a": np.nan}, "x")])
def test_bad_input_raises_and_leaves_state(g, x, name):
    learner = RegressorOCO(OnlineRidge())
    learner.learn_one({"a": 0.5}, np.array([0.3]))
    before = pickle.dumps(learner)
    with pytest.raises(ValueError, match=name):
        learner.learn_one(x, g)
    assert pickle.dumps(learner) == before


@pytest.mark.parametrize("params", [{"regressor": object()}, {"lam": 0.0}, {"lam": np.inf},
                                    {"decision_set": 3}, {"seed": "x"}])
def test_invalid_parameters(params):
    kwargs = {"regressor": OnlineRidge(), **params}
    with pytest.raises(ValueError, match=next(iter(params))):
        RegressorOCO(**kwargs)
