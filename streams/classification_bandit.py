"""Supervised-to-bandit conversion: a classification data set as a contextual bandit."""

from __future__ import annotations

import numpy as np

from onlineboost._checks import check_seed

from ._bandit import BanditStream

__all__ = ["ClassificationBandit"]


def _materialise(dataset) -> tuple[list, list]:
    """Contexts (dicts) and labels from a river data set, a scikit-learn `Bunch` or `(X, y)`."""
    if isinstance(dataset, tuple) and len(dataset) == 2:
        X, y = dataset
        names = None
    elif hasattr(dataset, "data") and hasattr(dataset, "target"):  # scikit-learn Bunch
        X, y = dataset.data, dataset.target
        names = getattr(dataset, "feature_names", None)
    elif hasattr(dataset, "__iter__"):  # river data set: an iterable of (dict, label)
        pairs = list(dataset)
        if not pairs or not all(isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], dict)
                                for p in pairs):
            raise ValueError("dataset must yield (dict, label) pairs")
        return [p[0] for p in pairs], [p[1] for p in pairs]
    else:
        raise ValueError(f"dataset must be a river data set, a scikit-learn Bunch or (X, y), "
                         f"got {type(dataset).__name__}")
    X = np.asarray(X, dtype=np.float64)
    y = list(np.asarray(y).tolist())
    if X.ndim != 2 or X.shape[0] != len(y) or not len(y):
        raise ValueError(f"dataset: X must be 2-D with one row per label, got {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("dataset: X must be finite (no NaN or inf)")
    names = list(names) if names is not None else [f"x{j}" for j in range(X.shape[1])]
    return [dict(zip(names, row)) for row in X.tolist()], y


class ClassificationBandit(BanditStream):
    r"""A classification data set as a $k$-armed contextual bandit (the standard conversion).

    Each example becomes a round: the context is its features, the arms are the classes, and
    pulling arm $a$ earns reward $r_t(a) = \mathbb{1}[a = y_t]$. The policy only learns the reward
    of the arm it played (`reward(arm_id)` answers once per round). The rows are visited once,
    in an order shuffled by `seed` (`None` keeps the data set's order); two passes with the same
    seed are identical.

    Parameters
    ----------
    dataset
        A river classification data set (e.g. `river.datasets.ImageSegments()`), a
        scikit-learn `Bunch` (e.g. `sklearn.datasets.load_digits()`) or a pair `(X, y)`.
    seed
        Seed of the row order.

    Attributes
    ----------
    arm_ids
        The classes, sorted.
    n_rounds
        The number of rows.

    Examples
    --------
    >>> from river import datasets
    >>> from streams import ClassificationBandit
    >>> stream = ClassificationBandit(datasets.ImageSegments(), seed=0)
    >>> stream.arm_ids, stream.n_rounds
    (['brickface', 'cement', 'foliage', 'grass', 'path', 'sky', 'window'], 2310)
    >>> total = 0.0
    >>> for context, arm_ids in stream:
    ...     total += stream.reward(arm_ids[0])  # always play "brickface"
    >>> total / stream.n_rounds  # one class in seven
    0.142857...
    """

    def __init__(self, dataset, seed: int | None = None):
        check_seed(seed)
        self.dataset = dataset
        self.seed = seed
        self._contexts, self._labels = _materialise(dataset)
        try:
            self.arm_ids = sorted(set(self._labels))
        except TypeError:
            self.arm_ids = sorted(set(self._labels), key=repr)
        label_index = {arm: i for i, arm in enumerate(self.arm_ids)}
        self._y = np.array([label_index[lab] for lab in self._labels])
        self.n_rounds = len(self._labels)

    def __repr__(self) -> str:
        return (f"ClassificationBandit({type(self.dataset).__name__}, {len(self.arm_ids)} arms, "
                f"{self.n_rounds} rounds, seed={self.seed})")

    def _rounds(self):
        order = (np.arange(self.n_rounds) if self.seed is None
                 else np.random.default_rng(self.seed).permutation(self.n_rounds))
        eye = np.eye(len(self.arm_ids))
        for i in order:
            yield dict(self._contexts[i]), eye[self._y[i]], None
