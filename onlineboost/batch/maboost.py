r"""MABoost: boosting whose example weights follow mirror descent (Naghibi & Pfister, 2014).

Round $t$: train $h_t$ on the weights $w_t$, take the loss vector $d_t = [-a_i h_t(x_i)]_i$ and
the edge $\gamma_t = -\langle w_t, d_t \rangle$, step $\eta_t = \gamma_t / L$, and update
$w_{t+1}$ with `onlineboost.mirror.MirrorDescent`. The output is
$f = \operatorname{sign}(\sum_t \eta_t h_t)$.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from onlineboost import mirror

__all__ = ["MABoostClassifier"]  # the presets live in maboost_presets

_REGULARISERS = {"entropy": mirror.NegativeEntropy, "quadratic": mirror.Quadratic}


class _MABoost(ClassifierMixin, BaseEstimator):
    """The fit / predict loop shared by MABoost and its presets; subclasses give `_spec()`."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _updater(self, n: int):
        regulariser, constraint, mode, step, kappa = self._spec()
        if isinstance(regulariser, str):
            if regulariser not in _REGULARISERS:
                raise ValueError(f"regulariser must be one of {sorted(_REGULARISERS)} or a "
                                 f"mirror.Regulariser, got {regulariser!r}")
            regulariser = _REGULARISERS[regulariser]()
        if step not in ("theory", "max-margin"):
            raise ValueError(f"step must be 'theory' or 'max-margin', got {step!r}")
        if not (isinstance(self.n_estimators, (int, np.integer)) and self.n_estimators >= 1):
            raise ValueError(f"n_estimators must be an integer >= 1, got {self.n_estimators!r}")
        if constraint in ("capped", "box-simplex") and not (np.isfinite(kappa)
                                                            and 0 < kappa <= 1):
            raise ValueError(f"kappa must be in (0, 1], got {kappa!r}")
        cap = 1.0 / (kappa * n) if constraint != "simplex" else 1.0
        if constraint == "simplex":
            return mirror.MirrorDescent(regulariser, mirror.Simplex(), mode), step
        if constraint == "capped":
            S = mirror.CappedSimplex(min(cap, 1.0))
            return mirror.MirrorDescent(regulariser, S, mode), step
        if constraint == "box-simplex":
            return mirror.MirrorDescent(regulariser, mirror.Simplex(), mode,
                                        pre_constraint=mirror.Box(0.0, cap)), step
        if constraint == "madaboost":  # the box at the start z_1 = grad R*(0) = e^{-1}
            if not isinstance(regulariser, mirror.NegativeEntropy) or mode != "lazy":
                raise ValueError("constraint='madaboost' needs regulariser='entropy' and "
                                 "mode='lazy'")
            return mirror.MirrorDescent(regulariser, mirror.Simplex(), mode,
                                        pre_constraint=mirror.Box(0.0, float(np.exp(-1.0)))), step
        raise ValueError(f"constraint must be 'simplex', 'capped', 'box-simplex' or 'madaboost', "
                         f"got {constraint!r}")

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite=True)
        check_classification_targets(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        if len(self.classes_) > 2:
            raise ValueError("Only binary classification is supported: y must have at most two "
                             f"classes, got {len(self.classes_)}")
        a = np.where(y_idx == 1, 1.0, -1.0)
        n = len(a)
        updater, step = self._updater(n)
        L = updater.regulariser.dual_bound(n)
        if self.estimator is None:
            from learners import WeightedStump  # the default weak learner only

            prototype = WeightedStump()
        else:
            prototype = self.estimator
        rng = check_random_state(self.random_state)
        state = updater.init(n)
        self.estimators_, edges, etas, weights, support_sizes = [], [], [], [], []
        for t in range(1, self.n_estimators + 1):
            w = state.w
            support = w > 0  # SparseBoost: the weak learner only sees the support of w_t
            if np.unique(a[support]).size < 2 <= np.unique(a).size:
                support = np.ones(n, dtype=bool)  # one-class support: let zeros pad it
            h_est = clone(prototype)
            if "random_state" in h_est.get_params():
                h_est.set_params(random_state=int(rng.randint(np.iinfo(np.int32).max)))
            h_est.fit(X[support], a[support], sample_weight=w[support])
            h = np.asarray(h_est.predict(X), dtype=np.float64)
            d = -a * h  # loss vector of Algorithm 1
            gamma = -float(w @ d)  # edge
            if gamma <= 0:  # weak learning failed: h_t would not help, stop here
                break
            eta = gamma / L if step == "theory" else gamma / (L * np.sqrt(t))  # Theorem 1 / 2
            self.estimators_.append(h_est)
            edges.append(gamma)
            etas.append(eta)
            support_sizes.append(int(support.sum()))
            if self.record_weights:
                weights.append(w)
            state = updater.update(state, d, eta)
        self.edges_ = np.array(edges)
        self.etas_ = np.array(etas)
        self.support_sizes_ = np.array(support_sizes, dtype=int)
        self.weights_ = np.array(weights).reshape(-1, n) if self.record_weights else None
        self.dual_bound_ = L
        return self

    def staged_decision_function(self, X):
        r"""Yield $F_T(x) = \sum_{t \le T} \eta_t h_t(x)$ after each round $T$."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        F = np.zeros(X.shape[0])
        for eta, h_est in zip(self.etas_, self.estimators_):
            F = F + eta * np.asarray(h_est.predict(X), dtype=np.float64)
            yield F

    def decision_function(self, X):
        r"""$F(x) = \sum_t \eta_t h_t(x)$; positive means `classes_[1]`."""
        F = np.zeros(validate_data(self, X, dtype=np.float64, reset=False).shape[0])
        for F in self.staged_decision_function(X):
            pass
        return F

    def predict(self, X):
        F = self.decision_function(X)
        if len(self.classes_) == 1:
            return np.full(F.shape, self.classes_[0])
        return self.classes_[(F >= 0).astype(int)]  # ties go to the positive class


class MABoostClassifier(_MABoost):
    r"""Mirror Ascent Boosting (MABoost), binary, with any regulariser and constraint.

    $$\nabla R(z_{t+1}) = \nabla R(w_t \text{ or } z_t) + \eta_t d_t, \quad
    w_{t+1} = \Pi_S(z_{t+1}), \quad \eta_t = \gamma_t / L, \quad f = \operatorname{sign}
    \Big(\sum_t \eta_t h_t\Big)$$

    `regulariser` is $R$; `constraint` names $S$. $L = \max \|d_t\|_*^2$ is 1 for the negative
    entropy ($\ell_1$-strongly convex) and $N$ (the number of examples) for the quadratic one.

    Parameters
    ----------
    estimator
        Weak learner prototype: a scikit-learn classifier whose `fit` takes `sample_weight`;
        cloned each round. Default `learners.WeightedStump()`.
    n_estimators
        Number of boosting rounds $T$ (fewer if a weak hypothesis has edge $\gamma_t \le 0$).
    regulariser
        `"entropy"` (AdaBoost-like), `"quadratic"` (SparseBoost on the simplex) or a
        `mirror.Regulariser`.
    constraint
        `"simplex"`; `"capped"`, the capped simplex $w_i \le 1/(\kappa N)$ (smooth boosting);
        `"box-simplex"`, the double projection onto $[0, 1/(\kappa N)]^N$ then the simplex
        (Lemma 4; the lazy mode is allowed with the entropy only, MadaBoost's case);
        `"madaboost"`, MadaBoost's weights $w_i \propto \min(1, e^{-a_i F(x_i)})$ (entropy,
        lazy: the box is at the starting point $e^{-1}$), as `MadaBoostClassifier`.
    mode
        `"active"` or `"lazy"` mirror descent.
    step
        `"theory"`: $\eta_t = \gamma_t / L$ (Theorem 1); `"max-margin"`:
        $\eta_t = \gamma_t / (L\sqrt{t})$ (Theorem 2).
    kappa
        $\kappa \in (0, 1]$ of the smooth constraints: no weight exceeds $1/\kappa$ times the
        uniform weight $1/N$ in the box or capped simplex; Theorem 1's bound covers errors
        $\epsilon \ge \kappa$.
    record_weights
        Keep every $w_t$ in `weights_` (shape `(T, N)`).
    random_state
        Seeds the weak learners that take a `random_state`.

    Attributes
    ----------
    estimators_
        The weak hypotheses $h_t$.
    edges_
        $\gamma_t$ per round.
    etas_
        $\eta_t$ per round.
    support_sizes_
        Number of examples with $w_{t,i} > 0$: the examples $h_t$ was trained on.
    weights_
        The weights $w_t$ used at round $t$ if `record_weights`, else None.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost.batch import MABoostClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2))
    >>> y = ((X ** 2).sum(axis=1) < 1.4).astype(int)  # a disc: no single stump does it
    >>> model = MABoostClassifier(n_estimators=100).fit(X, y)
    >>> round(model.score(X, y), 3), round(float(model.edges_[0]), 3)
    (0.995, 0.37)

    References
    ----------
    [^1]: Naghibi, T. and Pfister, B., 2014. A Boosting Framework on Grounds of Online
        Learning. NeurIPS 2014, arXiv:1409.7202v1.
    """

    def __init__(self, estimator=None, n_estimators: int = 50, regulariser="entropy",
                 constraint: str = "simplex", mode: str = "active", step: str = "theory",
                 kappa: float = 0.1, record_weights: bool = False, random_state=None):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.regulariser = regulariser
        self.constraint = constraint
        self.mode = mode
        self.step = step
        self.kappa = kappa
        self.record_weights = record_weights
        self.random_state = random_state

    def _spec(self):
        return self.regulariser, self.constraint, self.mode, self.step, self.kappa
