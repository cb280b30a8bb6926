r"""Online use of any scikit-learn regressor: refit it on everything seen, on a schedule."""

from __future__ import annotations

import numpy as np
import sklearn.base

from onlineboost._checks import check_int, check_seed

from ._features import FeatureIndex, check_stack, check_targets
from ._single import OneCopyRegressor

__all__ = ["RefitRegressor", "RefitStack"]


def _check_schedule(every, window):
    if every is not None:
        check_int("every", every, 1)
    if window is not None:
        check_int("window", window, 1)


class RefitStack:
    r"""$n$ `RefitRegressor` copies on one feature stream: the rows are stored once, the
    targets as an $n$-column table; at a refit every copy's estimator is fitted on its column.

    Parameters
    ----------
    n
        Number of copies.
    estimator, every, window
        As in `RefitRegressor`.
    seeds
        One seed a copy: the `random_state` of its estimator (`None` leaves it as is).

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeRegressor
    >>> from learners import RefitStack
    >>> stack = RefitStack(2, DecisionTreeRegressor(max_depth=1))
    >>> for v in [0.1, 0.2, 0.8, 0.9]:  # refits after samples 1, 2 and 4
    ...     stack.learn({"a": v}, [float(v > 0.5), -1.0])
    >>> stack.predict({"a": 0.95}), stack.n_fits
    (array([ 1., -1.]), 3)
    """

    def __init__(self, n: int, estimator, every: int | None = None, window: int | None = None,
                 seeds: list | None = None):
        seeds = check_stack(n, seeds)
        self.n = int(n)
        self.estimator = estimator
        self.every = every
        self.window = window
        self._seeds = seeds
        self._index = FeatureIndex()
        self._rows: list[np.ndarray] = []  # stored feature vectors (length grows with p)
        self._targets: list[np.ndarray] = []  # (n,) targets of each stored row
        self._t = 0  # samples seen
        self._next = 1  # sample count of the next geometric refit
        self._models: list | None = None  # fitted estimators, one a copy
        self._p_fit = 0  # number of columns at the last fit
        self.n_fits = 0

    def predict(self, x: dict) -> np.ndarray:
        """The $n$ predictions, shape `(n,)`; 0 before the first fit."""
        v, _ = self._index.read(x, grow=False)
        if self._models is None:
            return np.zeros(self.n)
        row = v[None, : self._p_fit]
        return np.array([float(np.ravel(m.predict(row))[0]) for m in self._models])

    def learn(self, x: dict, y) -> None:
        """Store the sample; refit all copies when the schedule says so. `y` has shape
        `(n,)`."""
        v, new = self._index.read(x)
        y = check_targets(y, (self.n,), "y")
        self._index.add(new)
        self._rows.append(v)
        self._targets.append(y.copy())
        if self.window is not None and len(self._rows) > self.window:
            del self._rows[0], self._targets[0]
        self._t += 1
        if self.every is None:
            due = self._t >= self._next
            if due:
                self._next *= 2
        else:
            due = self._t % self.every == 0 or self._t == 1
        if due:
            self._refit()

    def _refit(self) -> None:
        p = len(self._index)
        X = np.zeros((len(self._rows), p))
        for r, v in enumerate(self._rows):
            X[r, : len(v)] = v
        Y = np.array(self._targets)
        models = []
        for i, seed in enumerate(self._seeds):
            est = sklearn.base.clone(self.estimator)
            if seed is not None and "random_state" in est.get_params():
                est.set_params(random_state=int(seed))
            models.append(est.fit(X, Y[:, i]))
        self._models, self._p_fit = models, p
        self.n_fits += 1


class RefitRegressor(OneCopyRegressor):
    r"""A scikit-learn regressor made online by refitting it on the samples seen so far.

    After sample $t$ the estimator is refitted on all stored samples when $t$ reaches the
    next power of 2 ($t = 1, 2, 4, 8, \dots$: $O(\log T)$ refits whose total cost is about
    twice one fit on the whole stream), or, with `every=k`, when $t$ is a multiple of $k$. In
    between it predicts with the last fit (0 before the first). Features first seen after the
    last fit are ignored until the next one; missing features count as 0. This is how batch
    learners such as `DecisionTreeRegressor(max_depth=1)` (the paper's decision stumps) serve
    as weak online learners, e.g. through `RegressorOCO`.

    Parameters
    ----------
    estimator
        A scikit-learn regressor (`fit`/`predict`); cloned at every refit, never fitted itself.
    every
        `None` for the geometric schedule, else refit every `every` samples (and after the
        first).
    window
        If set, keep only the last `window` samples (bounded memory and refit cost).
    seed
        If set, the `random_state` of the estimator at every refit.

    Examples
    --------
    >>> from river import evaluate, metrics
    >>> from sklearn.tree import DecisionTreeRegressor
    >>> from learners import RefitRegressor
    >>> from streams import StumpMixture
    >>> model = RefitRegressor(DecisionTreeRegressor(max_depth=1), seed=0)
    >>> evaluate.progressive_val_score(StumpMixture(n_stumps=1, seed=3).take(500), model,
    ...                                metrics.MAE())
    MAE: 0.014
    >>> model._stack.n_fits  # after samples 1, 2, 4, ..., 256
    9
    """

    def __init__(self, estimator, every: int | None = None, window: int | None = None,
                 seed: int | None = None):
        if not (isinstance(estimator, sklearn.base.BaseEstimator) and hasattr(estimator, "fit")
                and hasattr(estimator, "predict")):
            raise ValueError(f"estimator must be a scikit-learn regressor, got {estimator!r}")
        _check_schedule(every, window)
        check_seed(seed)
        self.estimator = estimator
        self.every = every
        self.window = window
        self.seed = seed
        self._stack = RefitStack(1, estimator, every, window, [seed])

    @classmethod
    def _unit_test_params(cls):
        from sklearn.linear_model import Ridge
        from sklearn.tree import DecisionTreeRegressor

        yield {"estimator": DecisionTreeRegressor(max_depth=1), "seed": 0}
        yield {"estimator": Ridge(), "every": 10, "window": 50}

    def stack(self, n: int, seeds: list | None = None) -> RefitStack:
        """$n$ fresh copies sharing the stored rows; copy $i$ is
        `self.clone({"seed": seeds[i]})` (all `self.seed` when `seeds` is None)."""
        seeds = [self.seed] * len(check_stack(n, None)) if seeds is None else check_stack(n, seeds)
        return RefitStack(n, self.estimator, self.every, self.window, seeds)
