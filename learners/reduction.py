r"""The reduction from online linear optimisation over $K$ to online regression."""

from __future__ import annotations

import copy
import sys

import numpy as np
from river import base

from onlineboost._checks import check_real, check_seed

from ._features import check_features, check_stack, check_targets
from .linear_ogd import check_decision_set

__all__ = ["RegressorOCO", "RegressorOCOStack"]


class _PartialFitRegressor:
    """A scikit-learn estimator with `partial_fit`, fed feature dicts one at a time.

    The feature order is fixed by the first dict learnt on (sorted keys); later keys are
    ignored and missing ones count as 0. Before the first fit it predicts `None`.
    """

    def __init__(self, estimator):
        self.estimator = estimator
        self._names: list | None = None

    def _row(self, x: dict) -> np.ndarray:
        return np.array([[float(x.get(k, 0.0)) for k in self._names]])

    def learn_one(self, x: dict, y: float) -> None:
        if self._names is None:
            self._names = sorted(x, key=lambda k: (type(k).__name__, repr(k)))
        self.estimator.partial_fit(self._row(x), np.array([y]))

    def predict_one(self, x: dict):
        if self._names is None:
            return None
        return float(self.estimator.predict(self._row(x))[0])


def _kind(regressor) -> str:
    if hasattr(regressor, "learn_one") and hasattr(regressor, "predict_one"):
        return "river"
    # a scikit-learn estimator exists only once scikit-learn is imported: no import here
    sk = sys.modules.get("sklearn.base")
    if sk is not None and isinstance(regressor, sk.BaseEstimator) and hasattr(regressor,
                                                                             "partial_fit"):
        return "sklearn"
    raise ValueError(
        "regressor must be a river regressor (learn_one/predict_one) or a scikit-learn "
        f"estimator with partial_fit, got {regressor!r}"
    )


def coordinate_seed(seed, k: int):
    """Seed of coordinate `k`: `seed` itself for `k = 0`, a hash of `(seed, k)` otherwise."""
    if seed is None or k == 0:
        return seed
    return int(np.random.SeedSequence([int(seed), k]).generate_state(1)[0])


def _fresh(regressor, seed):
    """A fresh copy of `regressor`, reseeded with `seed` unless `seed` is None."""
    if _kind(regressor) == "sklearn":
        import sklearn.base

        est = sklearn.base.clone(regressor)
        if seed is not None and "random_state" in est.get_params():
            est.set_params(random_state=int(seed))
        return _PartialFitRegressor(est)
    if isinstance(regressor, base.Base):
        if seed is not None and "seed" in regressor._get_params():
            return regressor.clone({"seed": seed})
        return regressor.clone()
    return copy.deepcopy(regressor)


class RegressorOCOStack:
    r"""$n$ copies of `RegressorOCO` on one context stream.

    Uses the regressor's own stacked form (`regressor.stack(n, seeds)`, one per coordinate of
    $K$) when it has one, else a list of $n \times \dim$ regressor clones.

    Parameters
    ----------
    n
        Number of copies.
    regressor, decision_set, lam
        As in `RegressorOCO`.
    seeds
        One seed a copy; copy $i$ behaves as `RegressorOCO(..., seed=seeds[i])`.

    Examples
    --------
    >>> import numpy as np
    >>> from learners import OnlineRidge, RegressorOCOStack
    >>> stack = RegressorOCOStack(2, OnlineRidge(), None, lam=1.0)
    >>> stack.predict({"c": 1.0})  # before any learning: the centroid
    array([[0.],
           [0.]])
    >>> stack.learn({"c": 1.0}, np.array([[0.6], [-3.0]]))  # targets -0.6 and 3.0
    >>> stack.predict({"c": 1.0})  # ridge shrinks them, then the projection onto [-1, 1]
    array([[-0.4],
           [ 1. ]])
    """

    def __init__(self, n: int, regressor, decision_set, lam: float = 1.0,
                 seeds: list | None = None):
        seeds = check_stack(n, seeds)
        self.n = int(n)
        self.regressor = regressor
        self.decision_set = check_decision_set(decision_set)
        self.lam = lam
        self._mu = np.asarray(self.decision_set.centroid, dtype=np.float64)
        dim = self.decision_set.dim
        self._n_learnt = 0
        self._stacked = hasattr(regressor, "stack")
        own = getattr(regressor, "seed", None)
        if self._stacked:  # one stacked regressor per coordinate of K
            self._models = [
                regressor.stack(self.n, [own if s is None else coordinate_seed(s, k)
                                         for s in seeds])
                for k in range(dim)
            ]
        else:  # _models[i][k] learns coordinate k of copy i
            self._models = [
                [_fresh(regressor, coordinate_seed(s, k)) for k in range(dim)] for s in seeds
            ]

    def _raw(self, x: dict) -> np.ndarray:
        if self._stacked:
            return np.stack([m.predict(x) for m in self._models], axis=1)
        r = np.tile(self._mu, (self.n, 1))
        for i, row in enumerate(self._models):
            for k, model in enumerate(row):
                p = model.predict_one(x)
                if p is not None:
                    r[i, k] = p
        return r

    def predict(self, x: dict) -> np.ndarray:
        """The $n$ points $\\Pi_K(\\hat a_i(x))$, shape `(n, dim)`; the centroid before any
        learning."""
        check_features(x)
        if self._n_learnt == 0:
            return np.tile(self._mu, (self.n, 1))
        r = self._raw(x)
        if not np.all(np.isfinite(r)):
            raise ValueError("the regressor predicted a non-finite value")
        return self.decision_set._project(r)  # finite, checked just above

    def learn(self, x: dict, G) -> None:
        """Train copy $i$ toward the target $\\mu - g_i / \\lambda$; `G` has shape `(n, dim)`."""
        check_features(x)
        G = check_targets(G, (self.n, self.decision_set.dim), "g")
        Y = self._mu - G / self.lam  # minimiser of <g, a> + (lam / 2) |a - mu|^2
        if self._stacked:
            for k, model in enumerate(self._models):
                model.learn(x, Y[:, k])
        else:
            for i, row in enumerate(self._models):
                for k, model in enumerate(row):
                    model.learn_one(x, float(Y[i, k]))
        self._n_learnt += 1


class RegressorOCO(base.Estimator):
    r"""Weak OCO learner from any online regressor: regress toward the regularised minimiser.

    Given the linear loss $a \mapsto \langle g_t, a\rangle$, the minimiser of
    $$\langle g_t, a\rangle + \tfrac{\lambda}{2}\|a - \mu\|_2^2 \quad\text{is}\quad
    a^\star_t = \mu - g_t / \lambda,$$
    so each round the regressor is trained on the pair $(c_t, a^\star_t)$ (one regressor a
    coordinate of $K$) and the learner plays the projection $\Pi_K(\hat a(c))$ of its
    prediction. $\mu$ is the centroid of $K$, `lam` is $\lambda$. Before the first update it
    plays $\mu$.

    The default $\lambda = 1$ makes the target a residual: for the squared loss
    $\tfrac12(a - y)^2$ the gradient at the booster's partial prediction $x^{i-1}$ is
    $x^{i-1} - y$, and $a^\star = \mu + (y - x^{i-1})$ — the regressor fits the residual, as in
    gradient boosting. For a loss whose gradients are of scale $G$ on a set of diameter $D$, a
    $\lambda$ near $2G/D$ keeps the targets inside $K$'s scale.

    Parameters
    ----------
    regressor
        A river regressor (`learn_one(x, y)` / `predict_one(x)`, e.g. `OnlineRidge`,
        `OnlineStump`, `TinyMLP`, a `river.compose.Pipeline`) or a scikit-learn estimator with
        `partial_fit` (e.g. `SGDRegressor`), whose feature order is fixed by the first
        context learnt on. It is cloned, one clone a coordinate; the argument is not trained.
    decision_set
        The convex set $K$ (`onlineboost.sets`); `None` means `Interval(-1, 1)`.
    lam
        $\lambda > 0$, the weight of the proximal term.
    seed
        If set, reseeds the regressor clones (their `seed`, or `random_state` for
        scikit-learn): coordinate 0 gets `seed`, coordinate $k$ a hash of `(seed, k)`. `None`
        keeps the regressor's own seed.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost import sets
    >>> from learners import OnlineRidge, RegressorOCO
    >>> rng = np.random.default_rng(0)
    >>> learner = RegressorOCO(OnlineRidge(), sets.Interval(-1.0, 1.0))
    >>> for _ in range(300):  # gradient of (a - c)^2 / 2 at a = 0: the target is 0 - g = c
    ...     c = float(rng.uniform(-1, 1))
    ...     learner.learn_one({"c": c}, np.array([0.0 - c]))
    >>> learner.predict_one({"c": 0.5}), learner.predict_one({"c": 3.0})
    (array([0.49...]), array([1.]))
    """

    def __init__(self, regressor, decision_set: object = None, lam: float = 1.0,
                 seed: int | None = None):
        _kind(regressor)
        check_decision_set(decision_set)
        check_real("lam", lam, 0.0, low_open=True)
        check_seed(seed)
        self.regressor = regressor
        self.decision_set = decision_set
        self.lam = lam
        self.seed = seed
        self._stack = self.stack(1, [seed])

    @classmethod
    def _unit_test_params(cls):
        from sklearn.linear_model import SGDRegressor

        from onlineboost import sets

        from .ridge import OnlineRidge

        yield {"regressor": OnlineRidge()}
        yield {"regressor": OnlineRidge(), "decision_set": sets.Simplex(3), "lam": 2.0}
        yield {"regressor": SGDRegressor(), "seed": 1}

    def stack(self, n: int, seeds: list | None = None) -> RegressorOCOStack:
        """$n$ fresh copies; copy $i$ behaves as `self.clone({"seed": seeds[i]})` (all as
        `self.clone()` when `seeds` is None)."""
        seeds = check_stack(n, seeds)
        if all(s is None for s in seeds):
            seeds = [self.seed] * len(seeds)
        return RegressorOCOStack(n, self.regressor, self.decision_set, float(self.lam), seeds)

    def predict_one(self, x: dict) -> np.ndarray:
        """The point $\\Pi_K(\\hat a(x))$ of $K$, shape `(dim,)`."""
        return self._stack.predict(x)[0]

    def learn_one(self, x: dict, g) -> None:
        """Train toward $\\mu - g/\\lambda$; `g` has shape `(dim,)`."""
        dim = self._stack.decision_set.dim
        self._stack.learn(x, check_targets(g, (dim,), "g")[None, :])
