"""AdaBoost.M1: the exponential-loss identity, the training-error bound, every edge case of the
specification, and agreement with scikit-learn's SAMME."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.dummy import DummyClassifier
from sklearn.ensemble import AdaBoostClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier

from learners import WeightedStump
from onlineboost.batch import AdaBoostM1, WeakLearningWarning


def _random_problem(rng):
    n = int(rng.integers(5, 120))
    d = int(rng.integers(1, 6))
    X = rng.normal(size=(n, d)) * rng.choice([1e-3, 1.0, 1e3])
    w = rng.normal(size=d)
    y = np.where(X @ w + rng.normal(scale=rng.uniform(0, 2), size=n) > 0, "pos", "neg")
    y[:2] = ["pos", "neg"]  # both classes present
    return X, y


def test_exponential_loss_identity_and_training_error_bound():
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(150):
        X, y = _random_problem(rng)
        M = int(rng.integers(0, 40))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", WeakLearningWarning)
            model = AdaBoostM1(n_estimators=M).fit(X, y)
        if model.perfect_estimator_ is not None:
            continue
        y_pm = np.where(y == model.classes_[1], 1.0, -1.0)
        F = model.decision_function(X)
        prod_Z = float(np.prod(model.normalizers_))  # empty product = 1 when M = 0
        np.testing.assert_allclose(np.sum(np.exp(-y_pm * F)), len(y) * prod_Z, rtol=1e-10)
        assert np.mean(model.predict(X) != y) <= prod_Z + 1e-12
        assert np.mean(y_pm * F <= 0) <= prod_Z + 1e-12
        checked += 1
    assert checked > 100


def test_coefficients_follow_the_half_log_convention():
    rng = np.random.default_rng(1)
    X, y = _random_problem(rng)
    model = AdaBoostM1(n_estimators=10).fit(X, y)
    e = model.estimator_errors_[: len(model.estimator_weights_)]
    np.testing.assert_allclose(model.estimator_weights_, 0.5 * np.log((1 - e) / e))
    np.testing.assert_allclose(model.normalizers_, 2 * np.sqrt(e * (1 - e)))
    assert np.all((0 < e) & (e < 0.5))


def test_zero_error_returns_the_weak_classifier_itself():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    model = AdaBoostM1(n_estimators=5).fit(X, y)
    assert model.stop_reason_ == "perfect"
    assert model.estimator_errors_.tolist() == [0.0]
    assert len(model.estimators_) == 0 and len(model.estimator_weights_) == 0
    assert isinstance(model.perfect_estimator_, WeightedStump)
    X_test = np.array([[-5.0], [1.4], [1.6], [9.0]])
    np.testing.assert_array_equal(model.predict(X_test), model.perfect_estimator_.predict(X_test))
    assert np.all(np.isfinite(model.decision_function(X_test)))
    np.testing.assert_array_equal(model.predict(X), y)


def test_error_of_one_half_stops_with_a_warning_and_ties_go_positive():
    X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])  # XOR: every stump errs 1/2
    y = np.array(["b", "b", "a", "a"])
    with pytest.warns(WeakLearningWarning, match="weak-learning condition failed"):
        model = AdaBoostM1(n_estimators=5).fit(X, y)
    assert model.stop_reason_ == "weak_learning_failed"
    assert model.estimator_errors_.tolist() == [0.5]
    assert len(model.estimators_) == 0
    np.testing.assert_array_equal(model.decision_function(X), 0.0)
    np.testing.assert_array_equal(model.predict(X), ["b"] * 4)  # sign_+(0) = +1 = classes_[1]


class _GoodThenBad(ClassifierMixin, BaseEstimator):
    """A stump under uniform weights, the lighter class everywhere otherwise (error > 1/2)."""

    def fit(self, X, y, sample_weight=None):
        if np.allclose(sample_weight, sample_weight[0]):
            self.model_ = WeightedStump().fit(X, y, sample_weight=sample_weight)
        else:
            classes = np.unique(y)
            mass = [sample_weight[y == c].sum() for c in classes]
            self.model_ = DummyClassifier(strategy="constant", constant=classes[np.argmin(mass)])
            self.model_.fit(X, y)
        return self

    def predict(self, X):
        return self.model_.predict(X)


def test_weak_learning_failure_after_some_rounds_keeps_the_completed_rounds():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] > 0).astype(int)
    y[:6] = 1 - y[:6]  # noise so no stump is perfect
    with pytest.warns(WeakLearningWarning,
                      match=r"stopped at round 2: weighted error 0\.\d+ >= 1/2"):
        model = AdaBoostM1(_GoodThenBad(), n_estimators=10).fit(X, y)
    assert model.stop_reason_ == "weak_learning_failed"
    assert len(model.estimators_) == 1 and len(model.estimator_errors_) == 2
    assert model.estimator_errors_[0] < 0.5 < model.estimator_errors_[1]
    stump = model.estimators_[0].model_
    np.testing.assert_array_equal(model.predict(X), stump.predict(X))  # F_1 = a_1 h_1


def test_error_above_one_half_from_a_bad_learner():
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]])
    y = np.array([0, 0, 0, 1, 1])
    learner = DummyClassifier(strategy="constant", constant=1)  # error 3/5
    with pytest.warns(WeakLearningWarning):
        model = AdaBoostM1(learner, n_estimators=3).fit(X, y)
    np.testing.assert_allclose(model.estimator_errors_, [0.6])
    assert model.stop_reason_ == "weak_learning_failed"


def test_zero_rounds_predicts_the_positive_class():
    X = np.array([[0.0], [1.0], [2.0]])
    model = AdaBoostM1(n_estimators=0).fit(X, np.array([3, 7, 3]))
    assert model.stop_reason_ == "completed"
    np.testing.assert_array_equal(model.decision_function(X), 0.0)
    np.testing.assert_array_equal(model.predict(X), [7, 7, 7])


@pytest.mark.parametrize("seed", range(5))
def test_agrees_with_scikit_learn_samme(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(150, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] ** 2 + rng.normal(scale=0.5, size=150) > 0.3).astype(int)
    stump = DecisionTreeClassifier(max_depth=1, random_state=0)
    ours = AdaBoostM1(stump, n_estimators=25).fit(X, y)
    ref = AdaBoostClassifier(stump, n_estimators=25, learning_rate=1.0, random_state=0).fit(X, y)
    assert ours.stop_reason_ == "completed" and len(ref.estimators_) == 25
    np.testing.assert_allclose(ref.estimator_errors_, ours.estimator_errors_, rtol=1e-9)
    np.testing.assert_allclose(ref.estimator_weights_, 2 * ours.estimator_weights_, rtol=1e-9)
    X_test = rng.normal(size=(300, 4))
    F = ours.decision_function(X_test)
    # scikit-learn's binary decision function is 2 sum(2 a_m h_m) / sum(2 a_m) = 2 F / sum(a_m)
    np.testing.assert_allclose(ref.decision_function(X_test), 2 * F / ours.estimator_weights_.sum())
    np.testing.assert_array_equal(ref.predict(X_test), ours.predict(X_test))


def test_invalid_parameters_and_input_leave_the_model_unchanged():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match="n_estimators"):
        AdaBoostM1(n_estimators=-1).fit(X, y)
    with pytest.raises(ValueError, match="sample_weight"):
        AdaBoostM1(KNeighborsClassifier()).fit(X, y)
    with pytest.raises(ValueError, match="class"):
        AdaBoostM1().fit(X, np.array([0, 1, 2, 1]))
    model = AdaBoostM1(n_estimators=3).fit(X, y)
    before = (model.estimator_weights_.copy(), model.n_features_in_, len(model.estimators_))
    with pytest.raises(ValueError):
        model.fit(np.array([[np.nan, 1.0], [1.0, 2.0]]), np.array([0, 1]))
    with pytest.raises(ValueError, match="class"):
        model.fit(np.ones((3, 2)), np.array([0, 1, 2]))
    np.testing.assert_array_equal(model.estimator_weights_, before[0])
    assert (model.n_features_in_, len(model.estimators_)) == before[1:]


def test_the_documented_defaults():
    # fifty rounds of learners.WeightedStump
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 2))
    y = (X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=300) > 0).astype(int)  # no stump is perfect
    model = AdaBoostM1().fit(X, y)
    assert model.stop_reason_ == "completed" and len(model.estimators_) == 50
    assert all(type(h) is WeightedStump for h in model.estimators_)
