r"""Named MABoost presets: SparseBoost (quadratic R), MadaBoost (lazy entropy, capped weights)
and its active double-projection variant."""

from __future__ import annotations

from onlineboost.batch.maboost import _MABoost

__all__ = ["ActiveMadaBoostClassifier", "MadaBoostClassifier", "SparseBoostClassifier"]


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
    r"""MadaBoost (Domingo & Watanabe 2000) as MABoost: lazy negative entropy, box then simplex.

    $$w_{t+1, i} = \frac{\min(1, e^{-a_i F_t(x_i)})}{\sum_j \min(1, e^{-a_j F_t(x_j)})},
    \qquad F_t = \sum_{s \le t} \eta_s h_s$$

    MadaBoost's weights are AdaBoost's $e^{-a_i F(x_i)}$ capped at their initial value 1. In
    MABoost terms this is the lazy update $\theta_{t+1} = \sum_s \eta_s d_s$ with the double
    projection $\Pi_\Delta(\Pi_{[0, u]^N}(e^{\theta - 1}))$, $u = e^{-1}$ the starting point:
    the paper's conclusion notes that the double projection works in the lazy version in this
    case ("MadaBoost for instance"), although Lemma 4 only covers the active one. No example
    ever weighs more than at the start, relative to the others' capped weights, so noisy
    examples cannot take over the distribution as in AdaBoost. The active variant (a box at
    $1/(\kappa N)$ around the last weights) is `ActiveMadaBoostClassifier`.

    Parameters
    ----------
    estimator
        Weak learner prototype (a classifier whose `fit` takes `sample_weight`); default
        `learners.WeightedStump()`.
    n_estimators
        Number of rounds $T$.
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
    (0.995, 10.49)
    >>> a = np.where(y == 1, 1.0, -1.0)  # the last weights, from F_99 = sum of 99 rounds
    >>> F = list(model.staged_decision_function(X))[-2]
    >>> capped = np.minimum(1.0, np.exp(-a * F))
    >>> bool(np.allclose(model.weights_[-1], capped / capped.sum()))
    True

    References
    ----------
    [^1]: Domingo, C. and Watanabe, O., 2000. MadaBoost: A Modification of AdaBoost. COLT.
    [^2]: Naghibi, T. and Pfister, B., 2014. A Boosting Framework on Grounds of Online
        Learning. NeurIPS 2014, arXiv:1409.7202v1 (conclusion).
    """

    def __init__(self, estimator=None, n_estimators: int = 50, step: str = "theory",
                 record_weights: bool = False, random_state=None):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.step = step
        self.record_weights = record_weights
        self.random_state = random_state

    def _spec(self):
        return "entropy", "madaboost", "lazy", self.step, 1.0


class ActiveMadaBoostClassifier(_MABoost):
    r"""MadaBoost-style smooth boosting in MABoost's active mode: entropy, box then simplex.

    $$z_{t+1} = w_t e^{\eta_t d_t}, \qquad
    w_{t+1} = \frac{\min(z_{t+1}, u)}{\sum_i \min(z_{t+1, i}, u)}, \qquad u = \frac{1}{\kappa N}$$

    The double projection $\Pi_\Delta(\Pi_{[0, u]^N}(z))$ of Lemma 4 caps the weight an
    example can gain in one round; Lemma 4 covers this active mode. It is not MadaBoost (whose
    weights are capped at their initial value, `MadaBoostClassifier`). Because the cap binds
    before the normalisation, $w_{t+1, i}$ may end above $u$; use
    `MABoostClassifier(constraint="capped")` for a hard cap.

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
    >>> from onlineboost.batch import ActiveMadaBoostClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2))
    >>> y = ((X ** 2).sum(axis=1) < 1.4).astype(int)
    >>> model = ActiveMadaBoostClassifier(n_estimators=100, record_weights=True).fit(X, y)
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
