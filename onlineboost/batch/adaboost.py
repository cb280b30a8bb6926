"""AdaBoost.M1 (ESL Algorithm 10.1), edge cases included."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted, has_fit_parameter, validate_data

from ._common import check_int, validate_binary

__all__ = ["AdaBoostM1", "WeakLearningWarning"]


class WeakLearningWarning(UserWarning):
    """A booster stopped because the weak learner did no better than chance."""


class AdaBoostM1(ClassifierMixin, BaseEstimator):
    r"""AdaBoost.M1 for two classes, exactly as ESL Algorithm 10.1 states it.

    $$e_m = \sum_i w_i^{(m)} [h_m(x_i) \ne y_i], \quad a_m = \tfrac12 \log\frac{1 - e_m}{e_m},
    \quad Z_m = 2\sqrt{e_m(1 - e_m)}, \quad
    w_i^{(m+1)} = w_i^{(m)} e^{-a_m y_i h_m(x_i)} / Z_m$$

    with $w_i^{(1)} = 1/N$ and $F_M = \sum_m a_m h_m$; the classifier is
    $\operatorname{sign}_+(F_M)$, ties going to the positive class `classes_[1]`.
    `n_estimators` is $M$ (0 is allowed: $F_0 = 0$ predicts the positive class) and `estimator`
    is the weak learner. Two edge cases halt the loop, each with a recorded `stop_reason_`:

    * $e_m = 0$ (`"perfect"`): $h_m$ itself becomes the classifier (no infinite coefficient);
    * $e_m \ge 1/2$ (`"weak_learning_failed"`): $h_m$ is discarded, a `WeakLearningWarning`
      is issued and the rounds completed so far make the classifier.

    Otherwise `stop_reason_` is `"completed"`. Parameters are validated by `fit` (scikit-learn
    forbids raising in `__init__`); an invalid one raises `ValueError` naming it.

    Parameters
    ----------
    estimator
        Any binary classifier whose `fit` takes `sample_weight`; cloned each round. Default:
        `learners.WeightedStump()`.
    n_estimators
        Round limit $M \ge 0$.

    Attributes
    ----------
    estimators_
        The weak classifiers $h_1, \dots, h_{M'}$ of the completed rounds.
    estimator_weights_
        Their coefficients $a_m$ (half-log convention).
    estimator_errors_
        The weighted errors $e_m$, including the one of a halting round.
    normalizers_
        The $Z_m$ of the completed rounds; $\sum_i e^{-y_i F_M(x_i)} = N \prod_m Z_m$.
    perfect_estimator_
        $h_m$ when a round had $e_m = 0$, else `None`.
    stop_reason_
        `"completed"`, `"perfect"` or `"weak_learning_failed"`.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost.batch import AdaBoostM1
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2))
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)  # diagonal: no single stump does it
    >>> model = AdaBoostM1(n_estimators=30).fit(X, y)
    >>> model.stop_reason_, len(model.estimators_)
    ('completed', 30)
    >>> float(np.mean(model.predict(X) == y)) > 0.9
    True
    >>> bound = float(np.prod(model.normalizers_))  # training error <= prod Z_m
    >>> float(np.mean(model.predict(X) != y)) <= bound
    True

    References
    ----------
    [^1]: Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*, 2nd ed.,
        Algorithm 10.1 and eqs. (10.8)-(10.15).
    """

    def __init__(self, estimator=None, n_estimators: int = 50):
        self.estimator = estimator
        self.n_estimators = n_estimators

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _weak_learner(self):
        if self.estimator is None:
            from learners import WeightedStump  # the default weak learner (DESIGN §2)

            return WeightedStump()
        if not has_fit_parameter(self.estimator, "sample_weight"):
            raise ValueError("estimator must accept sample_weight in fit")
        return self.estimator

    def _h(self, learner, X) -> np.ndarray:
        """$h(x) \\in \\{-1, +1\\}$: +1 where the weak classifier predicts `classes_[1]`."""
        return np.where(learner.predict(X) == self.classes_[1], 1.0, -1.0)

    def fit(self, X, y):
        M = check_int("n_estimators", self.n_estimators, 0)
        prototype = self._weak_learner()
        X, classes, y_pm = validate_binary(self, X, y)
        self.classes_ = classes
        N = X.shape[0]
        w = np.full(N, 1.0 / N)  # w_i^(1) = 1/N
        self.estimators_, self.estimator_weights_ = [], []
        self.estimator_errors_, self.normalizers_ = [], []
        self.perfect_estimator_, self.stop_reason_ = None, "completed"
        for m in range(M):
            h_m = clone(prototype).fit(X, y, sample_weight=w)
            h = self._h(h_m, X)
            e_m = float(np.sum(w[h != y_pm]))  # weighted error (w sums to 1)
            self.estimator_errors_.append(e_m)
            if e_m <= 0.0:  # perfect: return h_m itself, no infinite coefficient
                self.perfect_estimator_, self.stop_reason_ = h_m, "perfect"
                break
            if e_m >= 0.5:
                self.stop_reason_ = "weak_learning_failed"
                warnings.warn(
                    f"AdaBoost.M1 stopped at round {m + 1}: weighted error {e_m:.6g} >= 1/2, "
                    "the weak-learning condition failed",
                    WeakLearningWarning,
                    stacklevel=2,
                )
                break
            a_m = 0.5 * np.log((1.0 - e_m) / e_m)
            Z_m = 2.0 * np.sqrt(e_m * (1.0 - e_m))
            w = w * np.exp(-a_m * y_pm * h) / Z_m  # Algorithm 10.1, weight update
            self.estimators_.append(h_m)
            self.estimator_weights_.append(float(a_m))
            self.normalizers_.append(float(Z_m))
        self.estimator_weights_ = np.asarray(self.estimator_weights_, dtype=np.float64)
        self.estimator_errors_ = np.asarray(self.estimator_errors_, dtype=np.float64)
        self.normalizers_ = np.asarray(self.normalizers_, dtype=np.float64)
        return self

    def decision_function(self, X):
        """$F_M(x) = \\sum_m a_m h_m(x)$, or $h_m(x) \\in \\{-1, +1\\}$ after a perfect round."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        if self.perfect_estimator_ is not None:
            return self._h(self.perfect_estimator_, X)
        F = np.zeros(X.shape[0])
        for a_m, h_m in zip(self.estimator_weights_, self.estimators_):
            F += a_m * self._h(h_m, X)
        return F

    def predict(self, X):
        """$\\operatorname{sign}_+(F_M(x))$ as class labels; $F_M(x) = 0$ goes to `classes_[1]`."""
        F = self.decision_function(X)
        return self.classes_[(F >= 0).astype(int)]
