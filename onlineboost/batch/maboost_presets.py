r"""Named MABoost presets: SparseBoost (quadratic R) and MadaBoost (entropy, box then simplex)."""

from __future__ import annotations

from onlineboost.batch.maboost import _MABoost

__all__ = ["MadaBoostClassifier", "SparseBoostClassifier"]


class SparseBoostClassifier(_MABoost):
    r"""SparseBoost: MABoost with $R(w) = \frac{1}{2}\|w\|_2^2$ on the simplex.

    $$w_{t+1} = \Pi^{\ell_2}_{\Delta}(z_{t+1}), \qquad \eta_t = \gamma_t / N$$

    The Euclidean projection onto the simplex sets the weights of well-classified examples
    exactly to zero, and each weak learner is trained on the support of $w_t$ only, so rounds
    get cheaper as boosting goes on. Theorem 1 gives $\epsilon \le 1 / (1 + \sum_t \gamma_t^2)$.

    Parameters
    ----------
    estimator
        Weak learner prototype (a classifier whose `fit` takes `sample_weight`); default
        `learners.WeightedStump()`.
    n_estimators
        Number of rounds $T$.
    mode
        `"active"` or `"lazy"` mirror descent (they differ for this $R$).
    step
        `"theory"` ($\eta_t = \gamma_t / N$) or `"max-margin"` ($\eta_t = \gamma_t / (N\sqrt t)$).
    record_weights
        Keep every $w_t$ in `weights_`.
    random_state
        Seeds the weak learners that take a `random_state`.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost.batch import SparseBoostClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2))
    >>> y = ((X ** 2).sum(axis=1) < 1.4).astype(int)
    >>> model = SparseBoostClassifier(n_estimators=100).fit(X, y)
    >>> round(model.score(X, y), 3), model.support_sizes_[[0, 49, 99]]  # examples with w > 0
    (0.97, array([200, 194, 187]))
    """

    def __init__(self, estimator=None, n_estimators: int = 50, mode: str = "active",
                 step: str = "theory", record_weights: bool = False, random_state=None):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.mode = mode
        self.step = step
        self.record_weights = record_weights
        self.random_state = random_state

    def _spec(self):
        return "quadratic", "simplex", self.mode, self.step, 1.0


class MadaBoostClassifier(_MABoost):
    r"""MadaBoost-style smooth boosting: negative entropy, box then simplex (Lemma 4).

    $$z_{t+1} = w_t e^{\eta_t d_t}, \qquad
    w_{t+1} = \frac{\min(z_{t+1}, u)}{\sum_i \min(z_{t+1, i}, u)}, \qquad u = \frac{1}{\kappa N}$$

    The double projection $\Pi_\Delta(\Pi_{[0, u]^N}(z))$ caps the weight an example can gain
    in one round, as MadaBoost caps its weights at the initial ones; it is the active mode of
    MABoost (the paper does not cover the lazy one). Because the cap binds before the
    normalisation, $w_{t+1, i}$ may end above $u$; use `MABoostClassifier(constraint="capped")`
    for a hard cap.

    Parameters
    ----------
    estimator
        Weak learner prototype (a classifier whose `fit` takes `sample_weight`); default
        `learners.WeightedStump()`.
    n_estimators
        Number of rounds $T$.
    kappa
        $\kappa \in (0, 1]$: the box is $[0, 1/(\kappa N)]$.
    step
        `"theory"` ($\eta_t = \gamma_t$) or `"max-margin"` ($\eta_t = \gamma_t / \sqrt t$).
    record_weights
        Keep every $w_t$ in `weights_`.
    random_state
        Seeds the weak learners that take a `random_state`.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost.batch import MadaBoostClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2))
    >>> y = ((X ** 2).sum(axis=1) < 1.4).astype(int)
    >>> model = MadaBoostClassifier(n_estimators=100, record_weights=True).fit(X, y)
    >>> round(model.score(X, y), 3), round(float(model.weights_.max() * 200), 2)
    (0.995, 10.25)
    """

    def __init__(self, estimator=None, n_estimators: int = 50, kappa: float = 0.1,
                 step: str = "theory", record_weights: bool = False, random_state=None):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.kappa = kappa
        self.step = step
        self.record_weights = record_weights
        self.random_state = random_state

    def _spec(self):
        return "entropy", "box-simplex", "active", self.step, self.kappa
