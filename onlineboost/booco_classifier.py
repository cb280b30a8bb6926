r"""BoOCO as a river binary classifier: Algorithm 1 of Hazan & Singh (2021) on a score in
$K = [-B, B]$ under a margin loss (logistic or hinge)."""

from __future__ import annotations

import numbers

import numpy as np
from river import base

from . import losses as losses_
from . import sets
from ._checks import binary_label
from .booco import _BoOCOCore

__all__ = ["BoOCOClassifier"]


class BoOCOClassifier(_BoOCOCore, base.Classifier):
    r"""BoOCO as a river binary classifier: a score in $K = [-B, B]$ under a margin loss.

    The label is mapped to $y \in \{-1, +1\}$ (`True`/1 is +1), the booster plays a score
    $s_t \in [-B, B]$ and learns from the logistic (or hinge) loss $\ell(s, y)$;
    `predict_proba_one` is $\sigma(s_t)$ for the positive class.

    Parameters
    ----------
    learner
        Weak learner prototype, as for `BoOCO`.
    n_learners
        Number of weak learners $N$.
    gamma
        The edge $\gamma$.
    step_size
        $\eta_i$, as for `BoOCO`.
    delta
        Smoothing $\delta$, as for `BoOCO`.
    kappa
        Weight of the distance to K, as for `BoOCO`.
    bound
        $B > 0$: scores live in $[-B, B]$.
    loss
        `"logistic"` or `"hinge"`.
    lam
        The reduction's $\lambda_i$ for regressor learners, as for `BoOCO`.
    seed
        Seed for the copies of random weak learners.

    Examples
    --------
    >>> from river import datasets, evaluate, metrics, preprocessing
    >>> from onlineboost import BoOCOClassifier
    >>> from learners import LinearOGD
    >>> model = preprocessing.StandardScaler() | BoOCOClassifier(LinearOGD(), n_learners=3)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: ...
    """

    def __init__(self, learner=None, n_learners: int = 5, gamma: float = 0.5,
                 step_size="theory", delta="theory", kappa=None, bound: float = 2.0,
                 loss: str = "logistic", lam="auto", seed: int | None = None):
        if not (isinstance(bound, numbers.Real) and np.isfinite(bound) and bound > 0):
            raise ValueError(f"bound must be a number > 0, got {bound!r}")
        if loss not in ("logistic", "hinge"):
            raise ValueError(f"loss must be 'logistic' or 'hinge', got {loss!r}")
        self.bound = bound
        super().__init__(learner=learner, n_learners=n_learners, gamma=gamma,
                         step_size=step_size, delta=delta, kappa=kappa,
                         decision_set=sets.Interval(-float(bound), float(bound)),
                         loss=losses_.Logistic() if loss == "logistic" else losses_.Hinge(),
                         lam=lam, seed=seed)
        self.loss = loss  # stored verbatim (the core holds the loss object)

    @property
    def _multiclass(self):
        return False

    def predict_proba_one(self, x: dict, **kwargs) -> dict:
        score = self._scalar_action(x)
        p = float(np.exp(-np.logaddexp(0.0, -score)))
        return {False: 1.0 - p, True: p}

    def learn_one(self, x: dict, y, **kwargs) -> None:
        self._learn(x, binary_label(y))

    @classmethod
    def _unit_test_params(cls):
        import learners

        yield {"learner": learners.LinearOGD(), "n_learners": 3}
