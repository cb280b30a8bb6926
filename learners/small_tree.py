"""Small weighted decision tree: a CART classifier with a cap on its number of nodes."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

__all__ = ["SmallTree"]


class SmallTree(ClassifierMixin, BaseEstimator):
    r"""Binary CART tree (weighted Gini, best-first) with at most `max_nodes` nodes.

    A binary tree with $L$ leaves has $2L - 1$ nodes, so the cap is scikit-learn's
    `max_leaf_nodes` $= \lfloor (\text{max\_nodes} + 1) / 2 \rfloor$: the "trees of at most 20
    nodes" of Nock & Mansour's experiments have at most 10 leaves. `max_nodes=3` is a stump.
    Like `WeightedStump`, its `decision_function` is $\pm 1$ (+1 means `classes_[1]`), never 0.

    Parameters
    ----------
    max_nodes
        Largest number of nodes, internal and leaves ($\ge 3$).
    random_state
        Seed of scikit-learn's feature permutation (it breaks ties between equal splits).

    Examples
    --------
    >>> import numpy as np
    >>> from learners import SmallTree
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2))
    >>> y = ((X[:, 0] > 0) & (X[:, 1] > 0)).astype(int)  # a quadrant: two splits needed
    >>> tree = SmallTree(max_nodes=7, random_state=0).fit(X, y)
    >>> tree.tree_.tree_.node_count <= 7, float(tree.score(X, y))
    (True, 1.0)
    >>> sorted(set(tree.decision_function(X).tolist()))
    [-1.0, 1.0]
    """

    def __init__(self, max_nodes: int = 20, random_state=None):
        self.max_nodes = max_nodes
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def fit(self, X, y, sample_weight=None):
        if (
            isinstance(self.max_nodes, bool)
            or not isinstance(self.max_nodes, numbers.Integral)
            or self.max_nodes < 3
        ):
            raise ValueError(f"max_nodes must be an integer >= 3, got {self.max_nodes!r}")
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite=True)
        check_classification_targets(y)
        y_type = type_of_target(y, input_name="y")
        if y_type not in ("binary", "unknown") and len(np.unique(y)) > 2:
            raise ValueError(
                f"Only binary classification is supported. The type of the target is {y_type}."
            )
        tree = DecisionTreeClassifier(
            max_leaf_nodes=(self.max_nodes + 1) // 2, random_state=self.random_state
        )
        self.tree_ = tree.fit(X, y, sample_weight=sample_weight)
        self.classes_ = self.tree_.classes_
        return self

    def decision_function(self, X):
        """$\\pm 1$: +1 where the tree predicts `classes_[1]`."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        if len(self.classes_) == 1:
            return np.full(X.shape[0], -1.0)
        return np.where(self.tree_.predict(X) == self.classes_[1], 1.0, -1.0)

    def predict(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self.tree_.predict(X)
