r"""B4CO: boosting for stochastic contextual optimisation (Hazan & Singh 2021, Algorithm 3)."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.utils.validation import check_is_fitted, check_random_state, validate_data

from . import losses, sets
from .booco import _step_sizes
from .extension import Extension

__all__ = ["B4CO"]


class B4CO(RegressorMixin, BaseEstimator):
    r"""Boosting for contextual optimisation (Algorithm 3): a batch regressor from weak regressors.

    The targets are mapped affinely onto $K = [-1, 1]$ (the rows' $y$ range), the loss is
    $f_j(a) = \tfrac12 (a - y_j)^2$ and $\hat f_j = X_{K,\delta,\kappa}[f_j]$ its extension. From
    $h^0 = \mu$ (the centre of K), for $i = 1, \dots, N$:

    1. linearise: $g_j = \nabla \hat f_j(h^{i-1}(c_j))$ for every row (Algorithm 3, step 4);
    2. weak optimiser: a clone of `estimator` fit to $\mu - g_j/\lambda_i$, the minimiser of
       $\langle g_j, a\rangle + \tfrac{\lambda_i}{2}|a - \mu|^2$, clipped to K (step 5: the
       regression reduction of `learners.RegressorOCO`, batch form; $\lambda_i = \eta_i/\gamma$);
    3. $h^i = (1 - \eta_i) h^{i-1} + \eta_i \mu + \tfrac{\eta_i}{\gamma}(W_i - \mu)$ (step 6);

    and predicts $\Pi_K(h^N(c))$ mapped back (step 8). `estimator` is the weak optimiser,
    `n_estimators` is $N$, `gamma` is $\gamma$, `step_size` gives $\eta_i$, `delta` is $\delta$ and
    `kappa` is $\kappa$ (default $G = \max_{a \in K, j} |a - y_j|$, as the paper's $\kappa = G$).

    Parameters
    ----------
    estimator
        A scikit-learn regressor, cloned for every stage; default a depth-1 `DecisionTreeRegressor`.
    n_estimators
        $N \ge 1$.
    gamma
        The edge $\gamma \in (0, 1]$.
    step_size
        `"theory"` ($\eta_i = \min(2/i, 1)$), a number in $(0, 1]$ or $N$ numbers.
    delta
        $\delta > 0$, or `"theory"`: $\sqrt{D^2/(\gamma N)}$ with $D = 2$ the diameter of K.
    kappa
        $\kappa \ge 0$, or `None` for $G$.
    random_state
        Seeds the clones' `random_state` (one seed per stage) when they have one.

    Attributes
    ----------
    estimators_
        The $N$ fitted weak regressors.
    train_score_
        Training mean squared error of $\Pi_K(h^i)$ after every stage (original units).

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from sklearn.model_selection import cross_val_score
    >>> from sklearn.tree import DecisionTreeRegressor
    >>> from onlineboost import B4CO
    >>> X, y = load_diabetes(return_X_y=True)
    >>> stump = DecisionTreeRegressor(max_depth=1)
    >>> round(float(cross_val_score(stump, X, y, cv=5).mean()), 3)  # one stump: R^2
    0.173
    >>> model = B4CO(stump, n_estimators=50, random_state=0)
    >>> round(float(cross_val_score(model, X, y, cv=5).mean()), 3)
    0.431

    References
    ----------
    [^1]: Hazan, E. and Singh, K., 2021. Boosting for Online Convex Optimization. ICML 2021,
    arXiv:2102.09305v1, Algorithm 3 and Theorem 13.
    """

    def __init__(self, estimator=None, n_estimators: int = 10, gamma: float = 0.5,
                 step_size="theory", delta="theory", kappa=None, random_state=None):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.gamma = gamma
        self.step_size = step_size
        self.delta = delta
        self.kappa = kappa
        self.random_state = random_state

    def _check_params(self):
        if isinstance(self.n_estimators, bool) or not isinstance(
                self.n_estimators, numbers.Integral) or self.n_estimators < 1:
            raise ValueError(f"n_estimators must be an integer >= 1, got {self.n_estimators!r}")
        if not (isinstance(self.gamma, numbers.Real) and 0 < self.gamma <= 1):
            raise ValueError(f"gamma must lie in (0, 1], got {self.gamma!r}")
        if not (self.delta == "theory" or (isinstance(self.delta, numbers.Real)
                                           and np.isfinite(self.delta) and self.delta > 0)):
            raise ValueError(f"delta must be 'theory' or a number > 0, got {self.delta!r}")
        if not (self.kappa is None or (isinstance(self.kappa, numbers.Real)
                                       and np.isfinite(self.kappa) and self.kappa >= 0)):
            raise ValueError(f"kappa must be None or a number >= 0, got {self.kappa!r}")
        return _step_sizes(self.step_size, self.n_estimators)

    def _weak(self):
        if self.estimator is not None:
            return self.estimator
        from sklearn.tree import DecisionTreeRegressor

        return DecisionTreeRegressor(max_depth=1)

    def fit(self, X, y):
        """Run Algorithm 3 on the rows `X` and targets `y`; returns `self`."""
        eta = self._check_params()
        X, y = validate_data(self, X, y, y_numeric=True)
        y = y.astype(np.float64)
        lo, hi = float(y.min()), float(y.max())
        self._mid, self._half = 0.5 * (lo + hi), max(0.5 * (hi - lo), 1e-12)
        z = (y - self._mid) / self._half  # targets in K = [-1, 1]
        K, mu, gamma, N = sets.Interval(-1.0, 1.0), 0.0, float(self.gamma), self.n_estimators
        delta = float(np.sqrt(4.0 / (gamma * N))) if self.delta == "theory" else self.delta
        kappa = float(np.max(np.abs(z)) + 1.0) if self.kappa is None else float(self.kappa)
        ext = Extension(losses.Squared(), K, delta, kappa)
        rng = check_random_state(self.random_state)
        self.estimators_, self.train_score_ = [], []
        h = np.full(len(z), mu)  # h^0 = mu
        for i in range(N):
            g = ext.gradient(h[:, None], z[:, None])[:, 0]  # step 4: grad f^_j(h^{i-1}(c_j))
            lam_i = eta[i] / gamma
            weak = clone(self._weak())
            if "random_state" in weak.get_params():
                weak.set_params(random_state=int(rng.randint(np.iinfo(np.int32).max)))
            weak.fit(X, mu - g / lam_i)  # step 5, by the regression reduction
            W = np.clip(weak.predict(X), -1.0, 1.0)
            h = (1.0 - eta[i]) * h + eta[i] * mu + (eta[i] / gamma) * (W - mu)  # step 6
            self.estimators_.append(weak)
            self.train_score_.append(float(np.mean((self._unscale(h) - y) ** 2)))
        self._eta = eta
        return self

    def _unscale(self, h):
        return self._mid + self._half * np.clip(h, -1.0, 1.0)  # step 8: Pi_K, back to y units

    def staged_predict(self, X):
        """Yield $\\Pi_K(h^i(c))$ for $i = 1, \\dots, N$ (original units)."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        h, gamma = np.zeros(X.shape[0]), float(self.gamma)
        for eta_i, weak in zip(self._eta, self.estimators_):
            W = np.clip(weak.predict(X), -1.0, 1.0)
            h = (1.0 - eta_i) * h + (eta_i / gamma) * W
            yield self._unscale(h)

    def predict(self, X):
        """$\\Pi_K(h^N(c))$ for every row (original units)."""
        *_, last = self.staged_predict(X)
        return last
