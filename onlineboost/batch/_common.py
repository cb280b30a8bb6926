"""Helpers shared by the batch boosters: binary targets and parameter checks."""

from __future__ import annotations

import numpy as np
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_X_y, validate_data

from onlineboost._checks import check_int, check_real

__all__ = ["binary_targets", "check_int", "check_real", "validate_binary"]


def validate_binary(estimator, X, y):
    """Checked `X`, the two classes and labels in $\\{-1, +1\\}$; every check runs before
    `validate_data` records `n_features_in_`, so bad input leaves `estimator` as it was.

    Examples
    --------
    >>> from sklearn.base import BaseEstimator
    >>> X, classes, y_pm = validate_binary(BaseEstimator(), [[0.0], [1.0]], ["a", "b"])
    >>> X.shape, y_pm
    ((2, 1), array([-1.,  1.]))
    """
    _, y_checked = check_X_y(X, y, dtype=np.float64, ensure_all_finite=True)
    classes, y_pm = binary_targets(y_checked)
    X, _ = validate_data(estimator, X, y, dtype=np.float64, ensure_all_finite=True)
    return X, classes, y_pm


def binary_targets(y) -> tuple[np.ndarray, np.ndarray]:
    """Sorted classes and labels in $\\{-1, +1\\}$ (+1 is `classes_[1]`).

    Examples
    --------
    >>> binary_targets(["b", "a", "b"])
    (array(['a', 'b'], dtype='<U1'), array([ 1., -1.,  1.]))
    """
    check_classification_targets(y)
    y_type = type_of_target(y, input_name="y", raise_unknown=True)
    if y_type not in ("binary", "unknown"):
        raise ValueError(
            f"Only binary classification is supported. The type of the target is {y_type}."
        )
    classes, y_idx = np.unique(y, return_inverse=True)
    if len(classes) != 2:
        raise ValueError(f"y must contain exactly two classes, got {len(classes)} class")
    return classes, np.where(y_idx == 1, 1.0, -1.0)
