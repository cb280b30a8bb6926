r"""BoOCO as a native multiclass classifier: Algorithm 1 of Hazan & Singh (2021) on the
probability simplex over the classes seen so far.

With $d$ classes seen, the decision set is $K = \Delta_d$, the loss of a played distribution $p$
against the label $y$ is the (halved) Brier score $\ell(p, y) = \tfrac12\|p - e_y\|^2$, and the
booster's played point is the predicted distribution. Each round, the $N$ weak learners propose
points $W_i(x) \in \Delta_d$ and BoOCO chains them (step 2 of Algorithm 1),

$$x^0 = \mu, \qquad
  x^i = (1 - \eta_i)\, x^{i-1} + \eta_i \mu + \frac{\eta_i}{\gamma}\,(W_i(x) - \mu),$$

$\mu = (1/d, \dots, 1/d)$; copy $i$ is then trained on the linear loss
$a \mapsto \langle \nabla \hat f_t(x^{i-1}), a \rangle$ of the extended loss
$\hat f_t = X_{K,\delta,\kappa}[\ell(\cdot, y_t)]$, whose proximal point is closed form for the
squared loss on any K (`onlineboost.extension`).

Beyond the paper, two things make it a classifier one can deploy:

* **A growing simplex.** A new label appends a coordinate (river's convention: the classes are
  those seen so far). Old points embed in the larger simplex with a 0 for the new class, so the
  weak learners keep their state: river classifiers report probabilities over the labels they
  know, and the linear copies grow a zero row.
* **Never much worse than one learner.** Copy $i$ only sees $x^{i-1}$, so each prefix
  $\Pi_K(x^i)$ is a predictor computed every round for free. Two aggregates run over $M = N + 2$
  experts — the class prior (Laplace's rule on the labels seen), the first weak learner alone,
  and $\Pi_K(x^1), \dots, \Pi_K(x^N)$ — with prior weights $\pi$ (half on the first learner,
  the rest shared), see `_Aggregate`. The label is a Hedge-weighted plurality vote on the
  experts' mistakes; the probabilities are the exponentially weighted mixture on the halved
  Brier score, which is $\frac12$-exp-concave on the simplex (Kivinen & Warmuth 1999).
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from river import base

from . import sets
from ._checks import accepts_sample_weight as _accepts_w
from ._checks import check_real, check_seed
from ._checks import check_tree_features as _check_x  # trees take category strings
from .booco import _chain_matrix, _step_sizes
from .extension import prox_distance

__all__ = ["BoOCOMultiClassifier"]


def _check_y(y) -> None:
    """`ValueError` naming `y` unless it is a usable class label."""
    if y is None:
        raise ValueError("y must be a class label, got None")
    try:
        hash(y)
    except TypeError:
        raise ValueError(f"y must be a hashable class label, got {type(y).__name__}") from None
    if isinstance(y, numbers.Real) and not isinstance(y, numbers.Integral):
        if not math.isfinite(y):
            raise ValueError(f"y must be a finite label, got {y!r}")


def _softmax(log_w: np.ndarray) -> np.ndarray:
    w = np.exp(log_w - log_w.max())
    return w / w.sum()


class _Aggregate:
    r"""Two aggregates over $M$ experts' distributions (rows of E), with prior $\pi$ (half on
    expert 1, the first learner; the rest shared).

    * probabilities: exponential weights $u_k \propto \pi_k e^{-\beta L_k}$ on the halved
      Brier scores, $\beta = 1/2$; the mixture $\sum_k u_k E_k$ has cumulative halved Brier
      score at most $L_k + 2 \ln(1/\pi_k)$ (exp-concavity);
    * labels: Hedge $v_k \propto \pi_k e^{-\beta' M_k}$ on the mistakes $M_k$ of each
      expert's argmax, $\beta'$ = `vote_lr`, and the weighted plurality vote. When the vote errs,
      the experts that erred hold at least half the weight, so the vote's mistakes are at most
      $(\beta' M_k + \ln(1/\pi_k)) / \ln(2 / (1 + e^{-\beta'}))$ for every expert $k$
      (Littlestone & Warmuth's weighted majority argument).
    """

    def __init__(self, M: int, vote_lr: float, mix: str = "brier"):
        log_pi = np.full(M, math.log(0.5 / (M - 1)))
        log_pi[1] = math.log(0.5)
        self.vote_lr = vote_lr
        self.mix = mix  # "brier": u as above; "vote": the probabilities mix under v
        self.log_u = log_pi.copy()
        self.log_v = log_pi.copy()

    def proba(self, E: np.ndarray) -> np.ndarray:
        p = _softmax(self.log_u if self.mix == "brier" else self.log_v) @ E
        return p / p.sum()

    def vote(self, E: np.ndarray) -> int:
        votes = np.bincount(E.argmax(axis=1), _softmax(self.log_v), E.shape[1])
        return int(votes.argmax())  # the weighted plurality

    def update(self, E: np.ndarray, k: int) -> None:
        brier = np.einsum("ij,ij->i", E, E) - 2.0 * E[:, k] + 1.0  # |E_k - e_y|^2
        self.log_u -= 0.25 * brier  # beta = 1/2 on the halved Brier score
        self.log_u -= self.log_u.max()
        self.log_v -= self.vote_lr * (E.argmax(axis=1) != k)
        self.log_v -= self.log_v.max()


def _reads_leaf_counts(model) -> bool:
    """Whether `model` is a river `HoeffdingTreeClassifier` with majority-class leaves, whose
    `predict_proba_one` is its leaf's normalised class counts (`_ht_leaf_counts` reads them
    without the dict copies `predict_proba_one` makes; a test checks both agree)."""
    from river import tree

    return type(model) is tree.HoeffdingTreeClassifier and model.leaf_prediction == "mc"


def _ht_leaf_counts(model, x: dict, branch: type) -> dict:
    """The class counts of the leaf `x` reaches in a river Hoeffding tree ({} before any);
    `branch` is river's `DTBranch`."""
    root = model._root
    if root is None:
        return {}
    leaf = root.traverse(x, until_leaf=True) if isinstance(root, branch) else root
    return leaf.stats


class _ClassifierCopies:
    r"""$N$ river classifiers as weak learners on the simplex (a cost-sensitive reduction).

    Copy $i$ plays its predicted distribution over the classes. On the linear loss
    $\langle g, a \rangle$ it learns the label $\arg\min_j g_j$ (the vertex that minimises the
    loss) with the weight $\max_j g_j - \min_j g_j$, since
    $\langle g, a\rangle - \min_j g_j \le (\max_j g_j - \min_j g_j)(1 - a_{\arg\min g})$: the
    weighted 0-1 loss bounds the excess linear loss. Weights are divided by their running mean
    per copy, so every copy keeps the stream's effective sample size (as Oza's online boosting
    does; a Hoeffding tree's split schedule counts weight), then multiplied by `rate` (as
    river's `ARFClassifier` trains on Poisson(6) weights: a Hoeffding tree's split test counts
    weight, so its trees grow sooner). River Hoeffding trees with majority-class leaves are
    read directly (`_ht_leaf_counts`, the same numbers as `predict_proba_one` without its dict
    copies).
    """

    def __init__(self, proto, n: int, rng: np.random.Generator, weighting: str,
                 weight_power: float = 1.0, rate: float = 1.0):
        has_seed = "seed" in proto._get_params()
        self.models = [
            proto.clone({"seed": int(rng.integers(2**31 - 1))}) if has_seed else proto.clone()
            for _ in range(n)
        ]
        self.power = weight_power
        self.rate = rate
        self.leaf_counts = _reads_leaf_counts(proto)
        self.takes_w = _accepts_w(proto)
        self.use_w = weighting == "weight" or (weighting == "auto" and self.takes_w)
        self.w_sum = np.zeros(n)
        self.t = 0

    def predict(self, x: dict, classes: list) -> np.ndarray:
        d = len(classes)
        uniform = [1.0 / d] * d  # an untrained copy (or one with no mass) plays mu
        rows = []
        if self.leaf_counts:
            from river.tree.nodes.branch import DTBranch

            for m in self.models:
                stats = _ht_leaf_counts(m, x, DTBranch)
                total = sum(stats.values())
                rows.append([stats.get(c, 0.0) / total for c in classes] if total > 0
                            and math.isfinite(total) else uniform)
            return np.array(rows)
        for m in self.models:  # plain floats: at d ~ 10 a numpy call costs more than the sum
            proba = m.predict_proba_one(x)
            row = [proba.get(c, 0.0) for c in classes] if proba else uniform
            total = sum(row)
            if not (total > 0 and math.isfinite(total)):
                row = uniform
            elif total != 1.0:
                row = [v / total for v in row]
            rows.append(row)
        return np.array(rows)

    def learn(self, x: dict, G: np.ndarray, classes: list, rng: np.random.Generator) -> None:
        self.fit(x, [classes[j] for j in G.argmin(axis=1).tolist()],
                 G.max(axis=1) - G.min(axis=1), rng)

    def fit(self, x: dict, labels: list, r: np.ndarray, rng: np.random.Generator) -> None:
        """Copy i learns (x, labels[i]) with weight r[i] ** power / (its running mean)."""
        w = r if self.power == 1.0 else r**self.power

        self.t += 1
        self.w_sum += w
        w = w * (self.t / np.maximum(self.w_sum, 1e-300))  # w / (running mean of w); 0 stays 0
        if self.use_w:
            if self.rate != 1.0:
                w = w * self.rate
            for m, label, w_i in zip(self.models, labels, w.tolist()):
                if w_i > 0:
                    m.learn_one(x, label, w=w_i)
        else:
            lam = w * self.rate if self.rate != 1.0 else w
            for m, label, k in zip(self.models, labels, rng.poisson(lam).tolist()):
                if k and self.takes_w:  # k repeats as one update of weight k
                    m.learn_one(x, label, w=float(k))
                else:
                    for _ in range(k):
                        m.learn_one(x, label)

    def check(self, x: dict) -> None:
        del x  # river classifiers take any feature values

    def grow(self, d: int) -> None:
        del d  # river classifiers learn new labels themselves


class _LinearCopies:
    r"""$N$ copies of `learners.LinearOGD` on a simplex that grows: $c \mapsto
    \Pi_{\Delta_d}(\Theta_i c + b_i)$, projected OGD on the surrogate $\langle g, z\rangle +
    \|g\|\operatorname{Dist}(z, \Delta_d)$ (LinearOGD's update), with $\Theta$ `(N, d, p)` and
    $b$ `(N, d)`; a new class appends a zero row (the old points stay where they were)."""

    def __init__(self, proto, n: int):
        from learners._features import FeatureIndex

        self.lr = float(proto.lr)
        self.decay = proto.decay
        self.bound = None if proto.bound is None else float(proto.bound)
        self.n = n
        self.index = FeatureIndex()
        self.theta = np.zeros((n, 0, 0))
        self.b = np.zeros((n, 0))
        self.t = 0

    def _z(self, x: dict):
        c, new = self.index.read(x)  # validates x; does not change the index
        return c, new, self.theta @ c[: self.theta.shape[2]] + self.b

    def predict(self, x: dict, classes: list) -> np.ndarray:
        return sets.projection_simplex(self._z(x)[2])

    def learn(self, x: dict, G: np.ndarray, classes: list, rng) -> None:
        c, new, z = self._z(x)
        if new:
            self.index.add(new)
            self.theta = np.concatenate(
                [self.theta, np.zeros(self.theta.shape[:2] + (len(new),))], axis=2)
        diff = z - sets.projection_simplex(z)
        dist = np.sqrt((diff * diff).sum(axis=1, keepdims=True))
        outward = np.where(dist > 1e-10, diff / np.maximum(dist, 1e-10), 0.0)
        self.t += 1
        eta_t = self.lr / math.sqrt(self.t) if self.decay == "sqrt" else self.lr
        step = eta_t * (G + np.sqrt((G * G).sum(axis=1, keepdims=True)) * outward)
        self.theta -= step[:, :, None] * c
        self.b -= step
        if self.bound is not None:
            np.clip(self.theta, -self.bound, self.bound, out=self.theta)

    def check(self, x: dict) -> None:
        self.index.read(x)  # ValueError naming x for a non-numeric value

    def grow(self, d: int) -> None:
        n, d_old, p = self.theta.shape
        if d_old == 0:  # the first class: every copy plays the vertex
            self.b = np.ones((n, 1))
        else:
            self.b = np.concatenate([self.b, np.zeros((n, d - d_old))], axis=1)
        self.theta = np.concatenate([self.theta, np.zeros((n, d - d_old, p))], axis=1)


class BoOCOMultiClassifier(base.Classifier):
    r"""Native multiclass BoOCO: boosting on the probability simplex over the classes seen.

    `learner` is the weak learner $W$ (cloned $N$ times), `n_learners` is $N$, `gamma` is the
    edge $\gamma$, `step_size` gives $\eta_i$ and `delta` is $\delta$; $K = \Delta_d$ with $d$
    the number of classes seen, $\ell(p, y) = \tfrac12\|p - e_y\|^2$ and $\kappa = \sqrt2$ (the
    loss's Lipschitz bound over the simplex, exact). Without `aggregate`, `predict_proba_one` is
    the played point $\Pi_K(x^N)$ of Algorithm 1 and `predict_one` its argmax.

    With `aggregate` (the default), over the experts $k$ = class prior, first learner,
    $\Pi_K(x^1), \dots, \Pi_K(x^N)$ with prior $\pi_1 = 1/2$ on the first learner and
    $1/(2N + 2)$ on each other:

    * `predict_one` is the plurality vote weighted by Hedge on mistakes (rate $\beta$ =
      `vote_lr`). It makes at most $(\beta M_k + \ln(1/\pi_k)) / \ln(2 / (1 + e^{-\beta}))$
      mistakes when expert $k$ makes $M_k$: $2.63\,M_1 + 1.82$ against the single weak learner
      and $2.63\,M_0 + 2.63 \ln(2N + 2)$ against the class prior at $\beta = 1$ (worst case;
      measured, the vote tracks its best expert).
    * `predict_proba_one` is the mixture weighted by exponential weights on the halved Brier
      score ($\beta = 1/2$): its cumulative halved Brier score exceeds expert $k$'s by at most
      $2 \ln(1/\pi_k)$ ($2 \ln 2$ against the first learner), at every horizon. Its argmax can
      differ from `predict_one`, which is tuned for accuracy.

    The halved Brier score rather than the log loss: its gradient on the simplex is bounded
    ($\|p - e_y\| \le \sqrt 2$), the extension's proximal point is closed form, and it is
    exp-concave. The log loss has an unbounded gradient as $p_y \to 0$ and its extension needs
    an iterative solve per copy; as example weights for tree copies (gradient $-1/p_y$, capped at
    $p_y \ge 0.05$) it scored lower on ImageSegments (0.828 against 0.833, three seeds).

    Defaults (the rule): among the settings tried on the development streams only
    (ImageSegments, all 2,310 samples, and Phishing, Bananas, river's SEA, Agrawal and
    Hyperplane as two-class streams, first 1,000 samples; seeds 1-3), the one with the best
    mean progressive accuracy: ten Hoeffding trees, $\gamma = 1$, constant steps
    $\eta_i = 0.3$ (against Frank–Wolfe's $2/(i+1)$: 0.833 against 0.821 on ImageSegments,
    level on the two-class streams; 0.25 and 0.4 gave 0.827 and 0.832), Poisson example weights
    (0.831 against 0.822 with `w`, seed 1), `weight_power` 2 (0.843 against 0.833 with 1 on
    ImageSegments, Poisson repeats as separate updates; as shipped, $k$ repeats as one update of
    weight $k$, 0.839), `vote_lr` 1 (2 gave 0.833). Same machine, same seeds: river's
    `AdaBoostClassifier` with ten Hoeffding trees scored 0.831 and `ARFClassifier(10)` 0.799.
    Per sample it costs 0.60 times river's `AdaBoostClassifier` with the same ten trees on
    ImageSegments (CPU time, both run in lockstep on the first 600 samples).

    **Prediction then learning.** `learn_one` needs the forward pass (every copy's prediction)
    of its `x`. The pass of the last prediction is kept and reused when `learn_one` receives
    the very same dict object, unmodified (checked by identity and equality against a copy),
    as in `evaluate.progressive_val_score`; any other `x` (for instance behind a
    `StandardScaler`, which makes a new dict) is computed afresh, with the same result.
    Pickling drops the kept pass.

    Parameters
    ----------
    learner
        The weak learner prototype: a river classifier (default
        `tree.HoeffdingTreeClassifier()`), trained on the argmin label of each copy's linear
        loss with the loss's range as weight, or `learners.LinearOGD` (its `lr`, `decay` and
        `bound`, on the growing simplex).
    n_learners
        Number of weak learners $N \ge 1$.
    gamma
        The edge $\gamma \in (0, 1]$; weak predictions are scaled by $1/\gamma$ about $\mu$.
    step_size
        `"theory"` ($\eta_i = \min(2/i, 1)$), `"frank-wolfe"` ($\eta_i = 2/(i + 1)$), a
        constant in $(0, 1]$ or a sequence of $N$ values, as for `BoOCO`.
    delta
        Smoothing $\delta > 0$ of the extension; `"theory"` is $\sqrt{D^2 / (\gamma N)}$ with
        $D = \sqrt 2$ the simplex's diameter.
    weighting
        For river classifier learners: `"poisson"` repeats `learn_one` $k \sim$
        Poisson(weight) times (Oza's online boosting; the draws add diversity), `"weight"`
        passes the weight as `w`, `"auto"` is `"weight"` when `learn_one` takes `w`.
    weight_power
        For river classifier learners: copy $i$'s example weight is $r_i^p$ over its running
        mean, with $r_i = \max_j g_{ij} - \min_j g_{ij}$ the range of its linear loss and $p$ =
        `weight_power`. $p = 1$ is the reduction's bound; $p = 2$ (the default, by the rule)
        stresses the examples the chain gets wrong more, closer to AdaBoost's exponential
        weights: inside the simplex $r_i = 1 - (x^{i-1}_y - \max_{j \ne y} x^{i-1}_j)$, one minus
        the margin of stage $i - 1$.
    aggregate
        Whether to play the aggregates (vote and mixture) instead of the last stage.
    vote_lr
        $\beta > 0$, the rate of the label vote's exponential weights on mistakes.
    seed
        Seeds the copies of a random weak learner and the Poisson draws.

    Attributes
    ----------
    classes
        The labels seen so far, in the order of the simplex's coordinates.
    expert_weights
        The probability mixture's weights over (prior, first learner, $\Pi_K(x^1..x^N)$).
    vote_weights
        The label vote's weights over the same experts.

    Examples
    --------
    >>> from river import datasets, evaluate, metrics, tree
    >>> from onlineboost import BoOCOMultiClassifier
    >>> model = BoOCOMultiClassifier(tree.HoeffdingTreeClassifier(), n_learners=5, seed=1)
    >>> evaluate.progressive_val_score(datasets.ImageSegments().take(500), model,
    ...                                metrics.Accuracy())
    Accuracy: 76.15%
    >>> evaluate.progressive_val_score(datasets.ImageSegments().take(500),
    ...                                tree.HoeffdingTreeClassifier(), metrics.Accuracy())
    Accuracy: 72.55%

    Five boosted trees against one on the first 500 samples of the seven-class stream.

    References
    ----------
    [^1]: Hazan, E. and Singh, K., 2021. Boosting for Online Convex Optimization. ICML 2021,
        PMLR 139. arXiv:2102.09305v1.
    [^2]: Kivinen, J. and Warmuth, M. K., 1999. Averaging expert predictions. EuroCOLT 1999
        (exponential weights under an exp-concave loss).
    [^3]: Littlestone, N. and Warmuth, M. K., 1994. The Weighted Majority Algorithm.
        Information and Computation 108(2).
    [^4]: Oza, N. C. and Russell, S., 2001. Online Bagging and Boosting. AISTATS 2001.
    """

    def __init__(self, learner=None, n_learners: int = 10, gamma: float = 1.0,
                 step_size=0.3, delta="theory", weighting: str = "poisson",
                 weight_power: float = 2.0, aggregate: bool = True, vote_lr: float = 1.0,
                 seed: int | None = None):
        if isinstance(n_learners, bool) or not (isinstance(n_learners, numbers.Integral)
                                                and n_learners >= 1):
            raise ValueError(f"n_learners must be an integer >= 1, got {n_learners!r}")
        if isinstance(gamma, bool) or not (isinstance(gamma, numbers.Real) and 0 < gamma <= 1):
            raise ValueError(f"gamma must lie in (0, 1], got {gamma!r}")
        if not (delta == "theory" or (isinstance(delta, numbers.Real) and math.isfinite(delta)
                                      and delta > 0)):
            raise ValueError(f"delta must be 'theory' or a number > 0, got {delta!r}")
        if weighting not in ("auto", "weight", "poisson"):
            raise ValueError(f"weighting must be 'auto', 'weight' or 'poisson', got {weighting!r}")
        check_real("vote_lr", vote_lr, 0.0, low_open=True)
        check_real("weight_power", weight_power, 0.0)
        check_seed(seed)
        if learner is not None and not isinstance(learner, base.Estimator):
            raise ValueError(f"learner must be a river classifier or LinearOGD, got {learner!r}")
        self.learner = learner
        self.n_learners = n_learners
        self.gamma = gamma
        self.step_size = step_size
        self.delta = delta
        self.weighting = weighting
        self.weight_power = weight_power
        self.aggregate = aggregate
        self.vote_lr = vote_lr
        self.seed = seed

        N = int(n_learners)
        self._eta = _step_sizes(step_size, N)
        A = _chain_matrix(self._eta, float(gamma))
        # rows 0..N-1 give z^1..z^N, rows N..2N-1 give z^0..z^{N-1} (z^i = x^i - mu, z^0 = 0)
        self._A2 = np.vstack([A, np.zeros((1, N)), A[:-1]])
        self._delta = math.sqrt(2.0 / (gamma * N)) if delta == "theory" else float(delta)
        self._kappa = math.sqrt(2.0)  # max over the simplex of |p - e_y|: exact for d >= 2
        self._rng = np.random.default_rng(seed)
        self._copies = self._make_copies(N)
        self._classes: list = []
        self._index: dict = {}
        self._counts = np.zeros(0)  # labels seen per class, for the prior
        # aggregates over M = N + 2 experts: prior, first learner, stages 1..N
        self._agg = _Aggregate(N + 2, float(vote_lr))
        self._last_round = None  # (x, copy of x, W, Z, E): the last prediction's pass

    def _make_copies(self, N: int):
        import learners

        proto = self.learner
        if proto is None:
            from river import tree

            proto = tree.HoeffdingTreeClassifier()
        if isinstance(proto, learners.LinearOGD):
            return _LinearCopies(proto, N)
        if isinstance(proto, base.Classifier):
            return _ClassifierCopies(proto, N, self._rng, self.weighting,
                                     float(self.weight_power))
        raise ValueError(f"learner must be a river classifier or LinearOGD, got {proto!r}")

    def __getstate__(self):  # the kept forward pass is derived, not state
        state = self.__dict__.copy()
        state["_last_round"] = None
        return state

    @property
    def _multiclass(self):
        return True

    @property
    def classes(self) -> list:
        return list(self._classes)

    @property
    def expert_weights(self) -> np.ndarray:
        """Weights $u$ of the probability aggregate over (prior, first learner, stages)."""
        return _softmax(self._agg.log_u)

    @property
    def vote_weights(self) -> np.ndarray:
        """Weights $v$ of the label vote over (prior, first learner, stages)."""
        return _softmax(self._agg.log_v)

    # -- one round -----------------------------------------------------------------------------

    def _forward(self, x: dict):
        """Weak points W (N, d), the chain Z (2N, d) (x^1..x^N then x^0..x^{N-1}) and the
        experts E (N + 2, d) (prior, first learner, Pi_K(x^1..x^N))."""
        last = self._last_round  # a prediction's pass, for the learn on the same dict
        if last is not None and last[0] is x and last[1] == x:
            return last[2:]
        d = len(self._classes)
        W = self._copies.predict(x, self._classes)  # every W_i(x) at once: (N, d)
        mu = 1.0 / d
        Z = mu + self._A2 @ (W - mu)  # step 2 for i = 1..N, and x^0..x^{N-1}
        N = self.n_learners
        X = Z[:N]
        # every row of Z sums to 1 (the rows of W do): Pi_K is the identity unless a
        # coordinate went negative (gamma < 1 or a step size > 1 in the unrolled chain)
        P = X if X.min() >= 0.0 else sets.projection_simplex(X)  # step 8: Pi_K(x^i)
        prior = (self._counts + 1.0) / (self._counts.sum() + d)  # Laplace's rule
        E = np.vstack([prior, W[:1], P])
        self._last_round = (x, dict(x), W, Z, E)
        return W, Z, E

    def predict_proba_one(self, x: dict, **kwargs) -> dict:
        _check_x(x)
        if not self._classes:
            return {}
        E = self._forward(x)[2]
        p = self._agg.proba(E) if self.aggregate else E[-1]
        return dict(zip(self._classes, p.tolist()))

    def predict_one(self, x: dict, **kwargs):
        _check_x(x)
        if not self._classes:
            return None
        E = self._forward(x)[2]
        return self._classes[self._agg.vote(E) if self.aggregate else int(E[-1].argmax())]

    def learn_one(self, x: dict, y, **kwargs) -> None:
        _check_x(x)
        _check_y(y)
        self._copies.check(x)  # x and y checked before any state moves
        if y not in self._index:
            self._grow(y)
        N = self.n_learners
        k = self._index[y]
        W, Z, E = self._forward(x)
        d = len(self._classes)
        e_y = np.zeros(d)
        e_y[k] = 1.0
        self._agg.update(E, k)
        self._counts[k] += 1.0
        # step 4 of Algorithm 1 at every x^{i-1}: the prox of the squared loss plus
        # kappa Dist(., K) is prox_{lam Dist}(v), v = (x + delta e_y) / (1 + delta),
        # lam = delta kappa / (1 + delta) (`onlineboost.extension`); v lies in K when x does
        X_prev = Z[N:]
        delta = self._delta
        v = (X_prev + delta * e_y) / (1.0 + delta)
        if v.min() < 0.0:  # v sums to 1, so it lies in K iff it is >= 0
            v = prox_distance(v, sets.Simplex(d), delta * self._kappa / (1.0 + delta))
        G = (X_prev - v) / delta
        self._last_round = None
        self._copies.learn(x, G, self._classes, self._rng)

    def _grow(self, y) -> None:
        """A new label: one more coordinate (old points embed with a 0 for it)."""
        self._index[y] = len(self._classes)
        self._classes.append(y)
        self._counts = np.append(self._counts, 0.0)
        self._copies.grow(len(self._classes))
        self._last_round = None

    @classmethod
    def _unit_test_params(cls):
        from river import tree

        import learners

        yield {"learner": tree.HoeffdingTreeClassifier(), "n_learners": 3}
        yield {"learner": learners.LinearOGD(), "n_learners": 2, "gamma": 0.5,
               "step_size": "theory", "seed": 1}
