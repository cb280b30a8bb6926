r"""Online boosting with mirror-descent example weights (MABoost's weights on a stream).

For an example $(x, y)$, $y \in \{-1, +1\}$, and weak learners $h_1, \dots, h_N$ with
combination weights $\alpha$, the running margins are $s_i = \sum_{j < i} \alpha_j y h_j(x)$.
Learner $i$ sees the example with the weight

$$w_i = \Pi_{[0, 1]}\big(\nabla R^*(\nabla R(1) - \eta s_i)\big) =
\begin{cases} \min(1, e^{-\eta s_i}) & R \text{ negative entropy (MadaBoost-like)} \\
\operatorname{clip}(1 - \eta s_i, 0, 1) & R \text{ quadratic} \end{cases}$$

the lazy mirror step from the weight 1 of a fresh example, projected onto the box $[0, 1]$ with
`onlineboost.mirror`. The $\alpha_i$ follow AdaBoost.OL: projected online gradient descent
(`mirror.MirrorDescent` with a quadratic $R$ on the box $[-B, B]^N$) on the logistic loss of each
partial sum, and the prediction mixes the $N$ partial sums by exponential weights on their log
loss (entropic mirror descent on the simplex), so the booster tracks its best prefix.
"""

from __future__ import annotations

import inspect
import math

import numpy as np
from river import base

from onlineboost import mirror

__all__ = ["OnlineMABoostClassifier"]

_REGULARISERS = {"entropy": mirror.NegativeEntropy, "quadratic": mirror.Quadratic}


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # no overflow for large |z|


def _accepts_w(model) -> bool:
    """Whether `model.learn_one` (a pipeline's final step's) takes a sample weight `w`."""
    if hasattr(model, "steps"):  # river.compose.Pipeline routes `w` to the step declaring it
        model = list(model.steps.values())[-1]
    return "w" in inspect.signature(model.learn_one).parameters


class OnlineMABoostClassifier(base.Wrapper, base.Classifier):
    r"""Binary online booster whose example weights come from a mirror map of the margin.

    Parameters
    ----------
    model
        The weak river classifier, cloned `n_models` times ($h_1, \dots, h_N$).
    n_models
        Number of weak learners $N$.
    regulariser
        `"entropy"` ($w_i = \min(1, e^{-\eta s_i})$), `"quadratic"`
        ($w_i = \operatorname{clip}(1 - \eta s_i, 0, 1)$, exact zeros skip the learner) or a
        `mirror.Regulariser`.
    eta
        $\eta > 0$, how fast the weight falls with the margin.
    alpha_bound
        $B$: each $\alpha_i \in [-B, B]$.
    alpha_lr
        $\alpha$ moves with step `alpha_lr` $/ \sqrt{t}$ at the $t$-th example (AdaBoost.OL: 4).
    rescale
        Divide $w_i$ by its running mean $\bar w_i$ before learner $i$ sees it. The weights keep
        their ratios (the mirror map's distribution over examples) but every learner keeps the
        effective sample size of the stream, as the $\lambda$ normalisation of Oza's online
        boosting does; without it, a learner deep in the chain sees a total weight of
        $\sum_t w_{t,i} \ll t$ and a Hoeffding tree splits correspondingly later. This step is
        ours, not the paper's.
    weighting
        How learner $i$ gets $w_i$: `"weight"` passes `learn_one(x, y, w=w_i)`, `"poisson"`
        repeats `learn_one` $k \sim \text{Poisson}(w_i)$ times (Oza's online boosting), `"auto"`
        uses the first when the weak learner's `learn_one` takes `w`.
    seed
        Seed of the Poisson draws.

    Attributes
    ----------
    alphas
        The combination weights $\alpha$.
    expert_weights
        Exponential weights over the $N$ partial sums used for prediction.

    Examples
    --------
    >>> from river import datasets, evaluate, metrics, tree
    >>> from onlineboost import OnlineMABoostClassifier
    >>> model = OnlineMABoostClassifier(tree.HoeffdingTreeClassifier(), n_models=5, seed=1)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 88.88%

    References
    ----------
    [^1]: Naghibi, T. and Pfister, B., 2014. A Boosting Framework on Grounds of Online
        Learning. NeurIPS 2014, arXiv:1409.7202v1.
    [^2]: Beygelzimer, A., Kale, S. and Luo, H., 2015. Optimal and Adaptive Algorithms for
        Online Boosting. ICML 2015, arXiv:1502.02651v1 (AdaBoost.OL).
    """

    def __init__(self, model: base.Classifier, n_models: int = 10, regulariser="entropy",
                 eta: float = 1.0, alpha_bound: float = 2.0, alpha_lr: float = 4.0,
                 rescale: bool = True, weighting: str = "auto", seed: int | None = None):
        if not (isinstance(n_models, (int, np.integer)) and n_models >= 1):
            raise ValueError(f"n_models must be an integer >= 1, got {n_models!r}")
        if isinstance(regulariser, str) and regulariser not in _REGULARISERS:
            raise ValueError(f"regulariser must be 'entropy', 'quadratic' or a "
                             f"mirror.Regulariser, got {regulariser!r}")
        if not isinstance(regulariser, (str, mirror.Regulariser)):
            raise ValueError(f"regulariser must be a str or Regulariser, got {regulariser!r}")
        for name, value in (("eta", eta), ("alpha_bound", alpha_bound), ("alpha_lr", alpha_lr)):
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be finite and > 0, got {value!r}")
        if weighting not in ("auto", "weight", "poisson"):
            raise ValueError(f"weighting must be 'auto', 'weight' or 'poisson', got {weighting!r}")
        self.model = model
        self.n_models = n_models
        self.regulariser = regulariser
        self.eta = eta
        self.alpha_bound = alpha_bound
        self.alpha_lr = alpha_lr
        self.rescale = rescale
        self.weighting = weighting
        self.seed = seed
        self._R = _REGULARISERS[regulariser]() if isinstance(regulariser, str) else regulariser
        self._use_w = weighting == "weight" or (weighting == "auto" and _accepts_w(model))
        self._models = [model.clone() for _ in range(n_models)]
        self._alpha_md = mirror.MirrorDescent(mirror.Quadratic(),
                                              mirror.Box(-alpha_bound, alpha_bound))
        self._alpha = self._alpha_md.init(n_models)  # alpha_1 = 0
        self._hedge = mirror.MirrorDescent(mirror.NegativeEntropy(), mirror.Simplex(), "lazy")
        self._experts = self._hedge.init(n_models)
        self._unit_box = mirror.Box(0.0, 1.0)
        self._theta_1 = float(self._R.grad(np.ones(1))[0])  # grad R(1): the fresh weight
        self._rng = np.random.default_rng(seed)
        self._w_sum = np.zeros(n_models)  # sum of w_i over the examples seen
        self._n_seen = 0
        self._cache: tuple | None = None  # (x, h) from the last predict, until the next learn

    @property
    def _wrapped_model(self):
        return self.model

    @property
    def _multiclass(self):
        return False

    @classmethod
    def _unit_test_params(cls):
        from river import linear_model, naive_bayes, tree

        yield {"model": tree.HoeffdingTreeClassifier(), "n_models": 2}
        yield {"model": linear_model.LogisticRegression(), "n_models": 3,
               "regulariser": "quadratic"}
        yield {"model": naive_bayes.GaussianNB(), "n_models": 2, "seed": 3}  # Poisson path

    @property
    def alphas(self) -> np.ndarray:
        return self._alpha.w.copy()

    @property
    def expert_weights(self) -> np.ndarray:
        return self._experts.w.copy()

    def _predictions(self, x) -> np.ndarray:
        """$h_i(x) = 2 P_i(y = +1 | x) - 1 \\in [-1, 1]$ for every learner (0 if untrained)."""
        if self._cache is not None and self._cache[0] == x:
            return self._cache[1]
        h = np.empty(self.n_models)
        for i, m in enumerate(self._models):
            proba = m.predict_proba_one(x)
            total = sum(proba.values())
            h[i] = 2.0 * proba.get(True, 0.0) / total - 1.0 if total > 0 else 0.0
        self._cache = (dict(x), h)
        return h

    def example_weights(self, x, y) -> np.ndarray:
        """The weights $w_1, \\dots, w_N$ the learners would give $(x, y)$ now."""
        y_pm = 1.0 if y else -1.0
        return self._weights(y_pm * np.cumsum(self._alpha.w * self._predictions(x)))

    def _weights(self, margins: np.ndarray) -> np.ndarray:
        s = np.concatenate(([0.0], margins[:-1]))  # s_i = sum_{j<i} alpha_j y h_j(x)
        return self._R.project_dual(self._theta_1 - self.eta * s, self._unit_box)

    def learn_one(self, x, y, **kwargs):
        y_pm = 1.0 if y else -1.0
        h = self._predictions(x)
        margins = y_pm * np.cumsum(self._alpha.w * h)  # y times each partial sum
        w = self._weights(margins)
        self._w_sum += w
        self._n_seen += 1
        if self.rescale:  # keep each learner's effective sample size at t (a departure, see doc)
            w = w * (self._n_seen / np.where(self._w_sum > 0, self._w_sum, self._n_seen))
        counts = None if self._use_w else self._rng.poisson(w)
        for i, m in enumerate(self._models):
            if self._use_w:
                if w[i] > 0:
                    m.learn_one(x, bool(y), w=float(w[i]), **kwargs)
            else:
                for _ in range(counts[i]):
                    m.learn_one(x, bool(y), **kwargs)
        self._cache = None
        # AdaBoost.OL: descend the logistic loss log(1 + e^{-y (s_{i-1} + alpha_i h_i)}) in
        # alpha_i; MirrorDescent moves along +d, so d is minus the gradient.
        d = y_pm * h * _sigmoid(-margins)
        eta_t = self.alpha_lr / math.sqrt(self._alpha.t + 1)
        self._alpha = self._alpha_md.update(self._alpha, d, eta_t)
        # Exponential weights over the partial sums, on their log loss -log sigma(margin).
        log_lik = -np.logaddexp(0.0, -margins)
        self._experts = self._hedge.update(self._experts, log_lik, 1.0)

    def predict_proba_one(self, x, **kwargs):
        p_true = float(self._experts.w @ _sigmoid(np.cumsum(self._alpha.w * self._predictions(x))))
        return {False: 1.0 - p_true, True: p_true}
