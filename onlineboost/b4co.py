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

    **Samples per stage.** Algorithm 3 calls the weak optimiser on a distribution $D_i$ whose
    sampling oracle draws a fresh $(f, c) \sim D$ at every stage. By default (`subsample=None`)
    every stage is fit on all the rows, i.e. the empirical distribution is reused by every stage
    (lower variance; the weak optimisers are then not independent of one another). The paper's
    form is offered by `subsample`: a float $q \in (0, 1]$ draws a fresh random subset of
    $\lceil q n \rceil$ rows (without replacement) for every stage, and `"disjoint"` splits the
    rows at random into $N$ disjoint parts, one per stage, so that each stage's sample is
    independent of every earlier stage when the rows are i.i.d. from $D$. The draws come from
    `random_state`. The gradients $g_j$ and `train_score_` are always over all rows.

    **The choice of $\delta$.** Theorem 13 (like Theorem 6) prints $\delta = \sqrt{D^2/(\gamma
    N)}$ (`delta="theory"`, the default). The proof bounds the excess risk by $2\delta G^2 +
    2D^2/(\delta\gamma^2 N)$ plus the weak optimisers' term, whose minimiser is $\delta =
    D/(\gamma G \sqrt N)$ (`delta="proof"`); the two differ unless $\gamma G^2 = 1$. Here
    $D = 2$ and $G = \max_j \max_{a \in K} |a - y_j| = 2$ (targets scaled onto $[-1, 1]$), so
    "theory" is $2/\sqrt{\gamma N}$ and "proof" is $1/(\gamma\sqrt N)$.

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
        $\delta > 0$; `"theory"`: $\sqrt{D^2/(\gamma N)}$ as printed in Theorem 13, with $D = 2$
        the diameter of K; `"proof"`: $D/(\gamma G \sqrt N)$, the minimiser of the proof's bound.
    kappa
        $\kappa \ge 0$, or `None` for $G$.
    subsample
        `None` (every stage sees all rows), a float in $(0, 1]$ (a fresh random fraction of the
        rows for every stage, as Algorithm 3's fresh draws from $D$), or `"disjoint"` (the rows
        split at random into $N$ disjoint parts, one per stage; needs at least $N$ rows).
    random_state
        Seeds the clones' `random_state` (one seed per stage) when they have one, and the
        per-stage samples of `subsample`.

    Attributes
    ----------
    estimators_
        The $N$ fitted weak regressors.
    train_score_
        Training mean squared error of $\Pi_K(h^i)$ after every stage (original units).
    delta_
        The $\delta$ in use (the number that `"theory"` or `"proof"` stands for).

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

    Algorithm 3's own form, a fresh half of the rows for every stage:

    >>> fresh = B4CO(stump, n_estimators=50, subsample=0.5, random_state=0)
    >>> round(float(cross_val_score(fresh, X, y, cv=5).mean()), 3)
    0.442
    >>> B4CO(stump, n_estimators=50, delta="proof").fit(X, y).delta_  # 1 / (gamma sqrt(N))
    0.282842712474619

    References
    ----------
    [^1]: Hazan, E. and Singh, K., 2021. Boosting for Online Convex Optimization. ICML 2021,
    arXiv:2102.09305v1, Algorithm 3 and Theorem 13.
    """

    def __init__(self, estimator=None, n_estimators: int = 10, gamma: float = 0.5,
                 step_size="theory", delta="theory", kappa=None, subsample=None,
                 random_state=None):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.gamma = gamma
        self.step_size = step_size
        self.delta = delta
        self.kappa = kappa
        self.subsample = subsample
        self.random_state = random_state

    def _check_params(self):
        if isinstance(self.n_estimators, bool) or not isinstance(
                self.n_estimators, numbers.Integral) or self.n_estimators < 1:
            raise ValueError(f"n_estimators must be an integer >= 1, got {self.n_estimators!r}")
        if not (isinstance(self.gamma, numbers.Real) and 0 < self.gamma <= 1):
            raise ValueError(f"gamma must lie in (0, 1], got {self.gamma!r}")
        if not (self.delta in ("theory", "proof") or (
                isinstance(self.delta, numbers.Real) and not isinstance(self.delta, bool)
                and np.isfinite(self.delta) and self.delta > 0)):
            raise ValueError(
                f"delta must be 'theory', 'proof' or a number > 0, got {self.delta!r}")
        if not (self.subsample is None or self.subsample == "disjoint" or (
                isinstance(self.subsample, numbers.Real) and not isinstance(self.subsample, bool)
                and 0 < self.subsample <= 1)):
            raise ValueError(
                f"subsample must be None, 'disjoint' or a number in (0, 1], got {self.subsample!r}")
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
        D, G = 2.0, float(np.max(np.abs(z)) + 1.0)  # diameter of K; max_j max_{a in K} |a - z_j|
        if self.delta == "theory":
            delta = float(np.sqrt(D**2 / (gamma * N)))  # as printed in Theorem 13
        elif self.delta == "proof":
            delta = float(D / (gamma * G * np.sqrt(N)))  # the minimiser of the proof's bound
        else:
            delta = float(self.delta)
        kappa = G if self.kappa is None else float(self.kappa)
        ext = Extension(losses.Squared(), K, delta, kappa)
        rng = check_random_state(self.random_state)
        stages = self._stage_rows(len(z), N, rng)
        self.estimators_, self.train_score_ = [], []
        h = np.full(len(z), mu)  # h^0 = mu
        for i in range(N):
            g = ext.gradient(h[:, None], z[:, None])[:, 0]  # step 4: grad f^_j(h^{i-1}(c_j))
            lam_i = eta[i] / gamma
            weak = clone(self._weak())
            if "random_state" in weak.get_params():
                weak.set_params(random_state=int(rng.randint(np.iinfo(np.int32).max)))
            rows = stages(i)  # step 4's sample for stage i (all rows unless `subsample`)
            weak.fit(X[rows], (mu - g / lam_i)[rows])  # step 5, by the regression reduction
            W = np.clip(weak.predict(X), -1.0, 1.0)
            h = (1.0 - eta[i]) * h + eta[i] * mu + (eta[i] / gamma) * (W - mu)  # step 6
            self.estimators_.append(weak)
            self.train_score_.append(float(np.mean((self._unscale(h) - y) ** 2)))
        self._eta, self.delta_ = eta, delta
        return self

    def _stage_rows(self, n: int, N: int, rng):
        """A function of the stage index giving the rows of that stage's sample."""
        if self.subsample is None:
            return lambda i: slice(None)
        if self.subsample == "disjoint":
            if n < N:
                raise ValueError(f"subsample='disjoint' needs at least n_estimators = {N} rows, "
                                 f"got {n}")
            parts = np.array_split(np.random.default_rng(rng.randint(2**31 - 1)).permutation(n),
                                   N)
            return lambda i: np.sort(parts[i])
        m = max(1, int(np.ceil(self.subsample * n)))
        sampler = np.random.default_rng(rng.randint(2**31 - 1))
        return lambda i: np.sort(sampler.choice(n, m, replace=False))

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
