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


# -- the contract's details (surviving mutants of the twenty-ninth session's mutation pass) --


class SeededRecorder(Recorder):
    """A river regressor with a `seed` parameter and no stacked form (the clone path)."""

    def __init__(self, value: float = 0.0, seed: int | None = None):
        super().__init__(value)
        self.seed = seed


def test_before_learning_the_centroid_is_played_not_the_regressors_projection():
    # on this box the regressor's constant 5 projects to (1, 4), not to the centroid (0.5, 1)
    K = sets.Box([0.0, -2.0], [1.0, 4.0])
    learner = RegressorOCO(Recorder(value=5.0), K)
    np.testing.assert_array_equal(learner.predict_one({"c": 1.0}), [0.5, 1.0])
    learner.learn_one({"c": 1.0}, np.zeros(2))
    np.testing.assert_array_equal(learner.predict_one({"c": 1.0}), [1.0, 4.0])


def test_coordinate_seeds_are_the_seed_then_a_hash_of_seed_and_coordinate():
    from learners.reduction import coordinate_seed

    assert coordinate_seed(None, 0) is None and coordinate_seed(None, 3) is None
    assert coordinate_seed(7, 0) == 7
    hashed = [coordinate_seed(7, k) for k in (1, 2, 3)]
    assert hashed == [int(np.random.SeedSequence([7, k]).generate_state(1)[0])
                      for k in (1, 2, 3)]
    assert len({7, *hashed}) == 4 and coordinate_seed(8, 1) != hashed[0]


def test_a_seed_reseeds_each_coordinates_clone_and_none_keeps_the_regressors_own():
    from learners.reduction import coordinate_seed

    K = sets.Box([0.0, 0.0], [1.0, 1.0])
    rows = RegressorOCO(SeededRecorder(seed=9), K, seed=3)._stack._models[0]
    assert [r.seed for r in rows] == [3, coordinate_seed(3, 1)]
    rows = RegressorOCO(SeededRecorder(seed=9), K)._stack._models[0]
    assert [r.seed for r in rows] == [9, 9]
    # scikit-learn: the seed is the clones' random_state; without one, theirs is kept
    rows = RegressorOCO(SGDRegressor(random_state=5), K, seed=3)._stack._models[0]
    assert [r.estimator.random_state for r in rows] == [3, coordinate_seed(3, 1)]
    rows = RegressorOCO(SGDRegressor(random_state=5), K)._stack._models[0]
    assert [r.estimator.random_state for r in rows] == [5, 5]


def test_a_stacked_regressors_coordinates_get_the_seed_then_its_hash():
    from learners import TinyMLP
    from learners.reduction import coordinate_seed

    K = sets.Box([-3.0, -3.0], [3.0, 3.0])  # wide enough that no prediction is projected
    learner = RegressorOCO(TinyMLP(), K, seed=3)  # TinyMLP's own stack, one a coordinate
    learner.learn_one({"c": 0.0}, np.zeros(2))  # the target is the centroid 0
    for k, seed in enumerate((3, coordinate_seed(3, 1))):
        alone = TinyMLP(seed=seed)
        alone.learn_one({"c": 0.0}, 0.0)
        assert learner.predict_one({"c": 0.5})[k] == alone.predict_one({"c": 0.5})


def test_a_sklearn_regressors_missing_features_count_as_zero():
    learner = RegressorOCO(SGDRegressor(random_state=0, learning_rate="constant", eta0=0.1),
                           sets.Interval(-5.0, 5.0), seed=0)
    rng = np.random.default_rng(0)
    for _ in range(30):
        a, b = rng.normal(size=2)
        learner.learn_one({"a": a, "b": b}, np.array([-(a - 2 * b)]))
    est = learner._stack._models[0][0].estimator
    assert abs(est.coef_[1]) > 0.1  # b matters, so a 0 put in its place is seen
    assert learner.predict_one({"a": 0.7}) == learner.predict_one({"a": 0.7, "b": 0.0})
    assert learner.predict_one({"a": 0.7}) != learner.predict_one({"a": 0.7, "b": 0.5})


def test_a_regressor_needs_both_learn_one_and_predict_one():
    class LearnOnly:
        def learn_one(self, x, y):
            pass

    class PredictOnly:
        def predict_one(self, x):
            return 0.0

    for reg in (LearnOnly(), PredictOnly()):
        with pytest.raises(ValueError, match="regressor"):
            RegressorOCO(reg)


def test_the_stacks_default_lambda_is_one():
    from learners import RegressorOCOStack

    stack = RegressorOCOStack(1, Recorder(), sets.Box([0.0], [2.0]))  # centroid 1
    stack.learn({"c": 1.0}, np.array([[0.4]]))
    assert stack._models[0][0].targets == [1.0 - 0.4]
