"""Weighted decision stump: the default weak learner of the batch boosters."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

__all__ = ["WeightedStump"]


class WeightedStump(ClassifierMixin, BaseEstimator):
    r"""Binary decision stump that minimises the weighted 0-1 error exactly.

    $$h(x) = \begin{cases} s & x_j > \theta \\ -s & x_j \le \theta \end{cases}, \qquad
    (j, \theta, s) = \arg\min \sum_i w_i \, [h(x_i) \ne y_i]$$

    Every feature and every threshold halfway between two consecutive distinct values is tried
    (plus the constant stumps), in one sort per feature and cumulative sums, so a fit costs
    $O(n d \log n)$. Ties in the error go to the constant stump (predicting `classes_[1]` when
    the two classes weigh the same), then to the lowest feature index, then the lowest threshold.

    Attributes
    ----------
    classes_
        The two class labels, sorted; `classes_[1]` is the positive class (+1).
    feature_
        Index $j$ of the feature the stump splits on.
    threshold_
        Threshold $\theta$; `-inf` for a constant stump.
    sign_
        $s \in \{-1, +1\}$: the label predicted above the threshold.

    Examples
    --------
    >>> import numpy as np
    >>> from learners import WeightedStump
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> stump = WeightedStump().fit(X, y)
    >>> stump.threshold_, stump.predict([[0.5], [2.5]])
    (1.5, array([0, 1]))
    >>> stump.fit(X, y, sample_weight=[1, 1, 0, 0]).predict([[2.5]])  # the only weighted class
    array([0])
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def fit(self, X, y, sample_weight=None):
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite=True)
        check_classification_targets(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        if len(self.classes_) > 2:
            raise ValueError(
                "Only binary classification is supported: y must have at most two classes, "
                f"got {len(self.classes_)}"
            )
        y_pm = np.where(y_idx == 1, 1.0, -1.0)
        w = _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        if not np.all(np.isfinite(w)) or w.sum() <= 0:
            raise ValueError("sample_weight must be finite and not all zero")
        total = w.sum()
        wy = w * y_pm
        # Constant stump: predict s everywhere; weighted error (total - s * sum(wy)) / 2.
        best_err = (total - abs(wy.sum())) / 2.0
        best = (0, -np.inf, 1.0 if wy.sum() >= 0 else -1.0)
        order = np.argsort(X, axis=0, kind="stable")
        Xs = np.take_along_axis(X, order, axis=0)
        left = np.cumsum(wy[order], axis=0)[:-1]  # sum of w*y at or below each split point
        right = wy.sum() - left
        # Predict s above the split, -s below: error = (total - s * (right - left)) / 2.
        margin = right - left
        valid = Xs[1:] > Xs[:-1]
        err = np.where(valid, (total - np.abs(margin)) / 2.0, np.inf)
        if err.size and np.isfinite(err).any():
            k = np.unravel_index(np.argmin(err.T), err.T.shape)  # feature-major order for ties
            j, r = int(k[0]), int(k[1])
            if err[r, j] < best_err - 1e-12 * max(total, 1.0):
                best_err = err[r, j]
                best = (j, 0.5 * (Xs[r, j] + Xs[r + 1, j]), 1.0 if margin[r, j] >= 0 else -1.0)
        self.feature_, self.threshold_, self.sign_ = best
        self.threshold_ = float(self.threshold_)
        self.weighted_error_ = float(best_err / total) if total > 0 else 0.0
        return self

    def decision_function(self, X):
        """The stump's output in $\\{-1, +1\\}$ (+1 means `classes_[1]`)."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        above = X[:, self.feature_] > self.threshold_
        return np.where(above, self.sign_, -self.sign_)

    def predict(self, X):
        h = self.decision_function(X)
        if len(self.classes_) == 1:
            return np.full(h.shape, self.classes_[0])
        return self.classes_[(h > 0).astype(int)]
