r"""BoOCO as a river binary classifier: Algorithm 1 of Hazan & Singh (2021) on a score in
$K = [-B, B]$ under a margin loss (logistic or hinge) or the squared loss on the label $\pm 1$."""

from __future__ import annotations

import math
import numbers

import numpy as np
from river import base

from . import losses as losses_
from . import sets
from ._checks import binary_label, check_real, check_tree_features
from .booco import _BoOCOCore
from .booco_multiclass import _Aggregate, _ClassifierCopies

__all__ = ["BoOCOClassifier"]

#: the default weak learner's settings: a Hoeffding tree that splits sooner (river's
#: ARFClassifier trees use grace_period 50 and delta 0.01), majority-class leaves, bounded depth
_DEFAULT_TREE = {"grace_period": 100, "delta": 0.01, "leaf_prediction": "mc",
                 "max_depth": 6}

_LOSSES = {"logistic": losses_.Logistic, "hinge": losses_.Hinge, "squared": losses_.Squared}


class _ClassifierScores:
    r"""$N$ river classifiers as weak learners on $[-B, B]$: copy $i$ plays $B(2P_i(+1 | x) - 1)$
    and, on the linear loss $g a$, learns the label of the minimising end ($+1$ when $g < 0$)
    with weight $|g|$ (the cost-sensitive reduction of `_ClassifierCopies` in one dimension,
    where it is exact: $g a - \min_{a' \in K} g a' = 2B|g| \cdot P(\text{wrong end})$)."""

    validates_x = False

    def __init__(self, proto, n: int, bound: float, weighting: str, weight_power: float, seed,
                 rate: float = 1.0):
        self.bound = bound
        self._rng = np.random.default_rng(seed)
        self._copies = _ClassifierCopies(proto, n, self._rng, weighting, weight_power, rate)
        self._classes = [False, True]

    def predict(self, x: dict) -> np.ndarray:
        W = self._copies.predict(x, self._classes)  # (N, 2) distributions
        return self.bound * (W[:, 1:] - W[:, :1])  # B (2 P(+1) - 1), shape (N, 1)

    def learn(self, x: dict, G: np.ndarray) -> None:
        # as a cost on the two ends (-B, +B): (-B g, +B g); the argmin is +B iff g < 0
        g = G[:, 0]
        self._copies.fit(x, [gi < 0 for gi in g.tolist()], np.abs(g), self._rng)


class _LinearExpert:
    r"""Online logistic regression on standardised features, an expert of the aggregate.

    A number is a feature as it is (`bool` as 0/1); any other value $v$ of feature $j$ is the
    one-hot feature $(j, v)$, 1 when present and 0 otherwise. A numeric feature is standardised
    by the running mean and variance of the values it took before this sample (absent, it
    counts as 0 after standardising),
    clipped to $[-c, c]$ ($c = 5$), and the weights take one step of online gradient descent
    on the log loss, $w \leftarrow w - \eta_t (p_t - y_t) z_t$ with
    $\eta_t = \eta_0 / \sqrt{1 + \sum_{s \le t} (p_s - y_s)^2}$ (AdaGrad's scale, one for all
    features). Plain floats: at the tens of features of a stream a numpy call costs more."""

    def __init__(self, lr: float, clip: float = 5.0):
        self.lr = lr
        self.clip = clip
        self._index: dict = {}
        self._stats: list = []  # per feature [n, mean, m2]
        self._w: list = []
        self._b = 0.0
        self._g2 = 1.0

    def _features(self, x: dict):
        """[(column, raw value)] of x, growing the index with new features."""
        index, out = self._index, []
        for k, v in x.items():
            if type(v) is float or isinstance(v, numbers.Real):  # bools and numpy numbers too
                key, val = k, float(v)
            else:
                key, val = (k, v), 1.0
            j = index.get(key)
            if j is None:
                j = index[key] = len(self._w)
                # a one-hot column is not standardised: [None] marks it
                self._stats.append([0.0, 0.0, 0.0] if key is k else [None])
                self._w.append(0.0)
            out.append((j, val))
        return out

    def _score(self, feats) -> tuple[float, list]:
        c, stats, w = self.clip, self._stats, self._w
        s, zs = self._b, []
        for j, v in feats:
            st = stats[j]
            if st[0] is None:  # a category present: the indicator itself
                zs.append(1.0)
                s += w[j]
                continue
            n, mean, m2 = st
            z = 0.0
            if n > 1.0 and m2 > 0.0:
                z = min(max((v - mean) / math.sqrt(m2 / n), -c), c)
            zs.append(z)
            s += w[j] * z
        return s, zs

    def proba(self, x: dict) -> float:
        return 0.5 * (1.0 + math.tanh(0.5 * self._score(self._features(x))[0]))

    def learn(self, x: dict, y: int) -> None:
        feats = self._features(x)
        s, zs = self._score(feats)
        g = 0.5 * (1.0 + math.tanh(0.5 * s)) - y
        self._g2 += g * g
        step = self.lr * g / math.sqrt(self._g2)
        w, stats = self._w, self._stats
        for (j, v), z in zip(feats, zs):
            w[j] -= step * z
            st = stats[j]  # Welford's update, skipped when it would overflow
            if st[0] is None:
                continue
            n = st[0] + 1.0
            d = v - st[1]
            mean = st[1] + d / n
            m2 = st[2] + d * (v - mean)
            if math.isfinite(m2):
                st[0], st[1], st[2] = n, mean, m2
        self._b -= step


class _StackExpert:
    r"""Online logistic regression on the other experts' logits (stacking, Wolpert 1992), an
    expert of the aggregate.

    Its features are $z_k = \operatorname{logit}(\operatorname{clip}(p_k, \epsilon,
    1 - \epsilon))$ for the experts' probabilities $p_k$ of the label `True` ($\epsilon =
    0.01$, so $|z_k| \le 4.6$), it plays $\sigma(w \cdot z + b)$ and takes one AdaGrad step
    per sample on the log loss (Duchi et al. 2011),
    $w_k \leftarrow w_k - \eta_0 g_k / \sqrt{1 + \sum_{s \le t} g_{s,k}^2}$ with
    $g = (p_t - y_t) z_t$, from $w = 0$ (it plays 1/2 until it has learnt). On bounded
    features its log-loss regret against every fixed $w$ of bounded norm is $O(\sqrt{T})$
    (AdaGrad's bound), and $w = e_k$ (expert $k$ itself, up to the clip) is one of them:
    unlike the vote, it can beat its best expert by weighing them jointly (for instance
    trusting the trees where they are sure and the linear model where they are not).
    """

    def __init__(self, n: int, lr: float, eps: float = 0.01):
        self.lr = lr
        self.lo, self.hi = eps, 1.0 - eps
        self._w = [0.0] * (n + 1)  # the last entry is the intercept
        self._g2 = [1.0] * (n + 1)

    def logits(self, p) -> list:
        """z: the clipped logits of the probabilities p, then 1 (the intercept's feature)."""
        lo, hi, log = self.lo, self.hi, math.log
        z = [log(q / (1.0 - q)) for q in (min(max(q, lo), hi) for q in p)]
        z.append(1.0)
        return z

    def proba_z(self, z: list) -> float:
        """sigma(w . z), overflow-free (plain floats: a numpy call costs more at ~15)."""
        return 0.5 * (1.0 + math.tanh(0.5 * sum(w * v for w, v in zip(self._w, z))))

    def proba(self, p) -> float:
        return self.proba_z(self.logits(p))

    def learn_z(self, z: list, y: int) -> None:
        """One AdaGrad step on the log loss at the features z (as `logits` made them)."""
        r = self.proba_z(z) - y
        w, g2, lr = self._w, self._g2, self.lr
        for k, v in enumerate(z):
            g = r * v
            g2[k] += g * g
            w[k] -= lr * g / math.sqrt(g2[k])

    def learn(self, p, y: int) -> None:
        self.learn_z(self.logits(p), y)


class BoOCOClassifier(_BoOCOCore, base.Classifier):
    r"""BoOCO as a river binary classifier: a score in $K = [-B, B]$ under a margin loss.

    The label is mapped to $y \in \{-1, +1\}$ (`True`/1 is +1), the booster plays a score
    $s_t \in [-B, B]$ (Algorithm 1 of [^1], as in `BoOCO`) and learns from the loss
    $\ell(s, y)$: logistic $\log(1 + e^{-ys})$, hinge, or squared $\tfrac12 (s - y)^2$. A score
    maps to $P(+1) = \sigma(s)$ (logistic, hinge) or $(1 + \operatorname{clip}(s, -1, 1)) / 2$
    (squared; with $B = 1$ this is the halved Brier score of `BoOCOMultiClassifier` on two
    classes, up to a factor 4).

    With `aggregate` (beyond the paper), the played label and probability come from $M = N + 5$
    experts (one fewer without `linear_expert`, one fewer without `stack_expert`): the class
    prior (Laplace's rule), the first weak
    learner alone, the staged scores $\Pi_K(x^1), \dots, \Pi_K(x^N)$ (copy $i$ sees only
    $x^{i-1}$, so every prefix is a valid predictor, computed each round for free), the mean of
    the $N$ copies' scores (an online bagging vote [^3], free as well) and, with
    `linear_expert`, an online logistic regression on standardised features (`_LinearExpert`; on
    a linear concept such as river's SEA and Hyperplane, axis-parallel trees need many splits to
    approach it) and, with `stack_expert`, an online logistic regression on the logits of all
    the others but the prior (stacking, `_StackExpert`: where the vote can at best follow its
    best expert, the stack weighs them jointly, e.g. the trees where they are sure and the
    linear model where they are not, and can beat every one of them; as an expert of the vote
    it keeps the vote's guarantee below). Each expert $k$ has the weight
    $v_k \propto \pi_k e^{-\beta M_k}$ on its mistakes $M_k$ so far ($\beta$ = `vote_lr`; the
    prior $\pi$ puts half on the first learner and shares the rest).

    * `predict_one` is the $v$-weighted majority vote. When it errs, experts holding half the
      weight erred, so it makes at most $(\beta M_k + \ln(1/\pi_k)) / \ln(2 / (1 +
      e^{-\beta}))$ mistakes against every expert $k$ [^2]: at $\beta = 1$, at most
      $2.63 M_1 + 1.82$ when the single first learner makes $M_1$, and at most
      $2.63 M_0 + 2.63 \ln(2M - 2)$ ($2.63 M_0 + 8.8$ at $N = 10$) when the class prior makes
      $M_0$ (worst cases; in practice the vote is near the best expert).
    * `predict_proba_one` is the $v$-weighted mixture of the experts' probabilities. Its log
      loss is at most the $v$-weighted mean of theirs (convexity), and its argmax can differ
      from the vote's label when the vote is close; the mistake bound above is the vote's. (An
      exponentially weighted mixture on the Brier score has the sharper regret bound
      $2 \ln(1/\pi_k)$ on that score, but on the development streams it trailed the best
      expert's accuracy by up to 0.02: the Brier score ranks the experts differently from
      their mistakes.)

    **Prediction then learning.** `learn_one` needs the forward pass (every copy's prediction)
    that `predict_one` / `predict_proba_one` computed. The pass of the last prediction is kept
    and reused when `learn_one` receives the very same dict object, unmodified (checked by
    identity and equality against a copy), as in `evaluate.progressive_val_score`; any other
    `x` (for instance behind a `StandardScaler`, which makes a new dict) is computed afresh,
    with the same result. Pickling drops the kept pass.

    Defaults (the rule): among the settings tried on the development streams only (Phishing,
    Bananas, river's SEA, Agrawal and Hyperplane generators; the first 2,000 samples, seed 1,
    then the first 3,000, seed 2, for the finalists), the one with the best mean progressive
    accuracy, ties (within 0.002) to the cheaper per sample: ten Hoeffding trees
    (grace period 100, $\delta = 0.01$, majority-class leaves, depth at most 6) on Poisson
    weights at `rate` 12, $\gamma = 1$, Frank–Wolfe steps, the squared loss on $[-1, 1]$,
    `weight_power` 1, and the linear expert ($\eta_0 = 0.5$, not tuned). Per stream (Phishing,
    Bananas, SEA, Agrawal, Hyperplane), seed 1, 2,000 samples: 0.903, 0.866, 0.864, 0.992,
    0.897 (mean 0.904) against river's `ARFClassifier(n_models=10)` 0.905, 0.870, 0.861, 0.951,
    0.779 and the previous defaults (river's default tree, `rate` 1) 0.891, 0.593, 0.870,
    0.963, 0.896; the same trees at `rate` 6 with grace period 50 (the same split schedule):
    mean 0.901; seed 2, 3,000 samples: 0.896, 0.881, 0.879, 0.996, 0.913 (mean 0.913;
    `rate` 6 / grace 50: 0.911, depth 8: 0.912; ARF 0.910, 0.874, 0.866, 0.925, 0.790). Trees
    that split sooner are what closes Bananas (0.59 to 0.87), the linear expert what lifts
    Hyperplane. The stack expert came after, by the same rule on the whole development streams
    (3 seeds, as in `benchmarks/dropin_classification.py`), its step $\eta_0$ from
    $\{0.01, 0.03, 0.1, 0.3\}$: mean accuracy over the five streams 0.9161, **0.9166**,
    0.9163, 0.9155 against 0.9147 without it (one cost for all four, so the best mean; the
    step matters little, Phishing 0.902-0.907 over the grid); at $\eta_0 = 0.03$ Phishing 0.8976
    to 0.9072 and the others within $\pm 0.0002$ (Bananas 0.8843, SEA 0.8739, Agrawal 0.9953,
    Hyperplane 0.9223); as the played prediction instead of an expert of the vote it scored
    0.9093 on Phishing but lost 0.003 on Bananas. Random feature subspaces per tree leaf (as
    in `ARFClassifier`) were tried and dropped: Phishing +0.004, but Agrawal -0.021 and Bananas
    -0.007 (Agrawal's concept reads few features). In `benchmarks/dropin_classification.py`
    (whole streams, 3 seeds) it ran at 1.19-1.71 times the samples/s of river's
    `AdaBoostClassifier` with ten default Hoeffding trees in the same process run (Phishing
    1.24, SEA 1.19), on every development stream; the stack expert costs about 2% of a
    sample's time, and the default trees' faster splitter (`onlineboost._splitter`, same splits)
    is what keeps Phishing, where the young trees try to split most, above 1 (0.75-0.89 in
    three runs under load before it).

    Parameters
    ----------
    learner
        Weak learner prototype: a river classifier (default
        `tree.HoeffdingTreeClassifier(grace_period=100, delta=0.01, leaf_prediction="mc",
        max_depth=6)` with `onlineboost._splitter.GaussianSplitter`: river's splitter,
        cloned directly and its split search in one loop, so the same trees, faster),
        trained on the minimising end of its linear loss with the loss's size as weight; or,
        as for `BoOCO`, a weak OCO learner or a regressor.
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
        $B \in (0, 10^6]$: scores live in $[-B, B]$ (the cap keeps the extension's
        $\delta$ and $\kappa$ finite; $\sigma(\pm 40)$ is already 0 or 1 to double precision).
    loss
        `"squared"`, `"logistic"` or `"hinge"`.
    lam
        The reduction's $\lambda_i$ for regressor learners, as for `BoOCO`.
    weighting
        For river classifier learners: `"poisson"` repeats `learn_one` $k \sim$
        Poisson(weight) times (Oza's online boosting; the draws add diversity), `"weight"`
        passes the weight as `w`, `"auto"` is `"weight"` when `learn_one` takes `w`.
    weight_power
        For river classifier learners: the example weight is $|g|^p$ ($p$ = `weight_power`)
        over its running mean; $p = 1$ is the exact reduction, larger $p$ stresses the
        examples the chain gets wrong.
    aggregate
        Whether to play the aggregates (vote and mixture) instead of the last stage.
    vote_lr
        $\beta > 0$, the rate of the experts' exponential weights on mistakes.
    rate
        For river classifier learners: the example weights (Poisson means, or `w`) are
        multiplied by `rate` > 0, as river's `ARFClassifier` trains on Poisson(6) weights (a
        Hoeffding tree's split schedule and test count weight, so its trees grow sooner).
    linear_expert
        Whether the aggregate holds the online logistic regression expert.
    linear_lr
        $\eta_0 > 0$, that expert's step (scaled by AdaGrad's $1/\sqrt{1 + \sum g^2}$).
    stack_expert
        Whether the aggregate holds the stack expert (logistic regression on the other
        experts' logits).
    stack_lr
        $\eta_0 > 0$, the stack expert's step (AdaGrad's, per coordinate).
    seed
        Seed for the copies of random weak learners and the Poisson draws.

    Examples
    --------
    >>> from river import datasets, evaluate, metrics, tree
    >>> from onlineboost import BoOCOClassifier
    >>> model = BoOCOClassifier(seed=1)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 90.48%
    >>> evaluate.progressive_val_score(datasets.Phishing(), tree.HoeffdingTreeClassifier(),
    ...                                metrics.Accuracy())
    Accuracy: 87.99%

    The defaults against one Hoeffding tree (`progressive_val_score` scores `predict_one`,
    the vote; without the stack expert 89.44%; the old defaults, five linear learners, scored
    0.70 on the first 1,000 samples).

    References
    ----------
    [^1]: Hazan, E. and Singh, K., 2021. Boosting for Online Convex Optimization. ICML 2021,
        PMLR 139. arXiv:2102.09305v1.
    [^2]: Littlestone, N. and Warmuth, M. K., 1994. The Weighted Majority Algorithm.
        Information and Computation 108(2).
    [^3]: Oza, N. C. and Russell, S., 2001. Online Bagging and Boosting. AISTATS 2001.
    [^4]: Wolpert, D. H., 1992. Stacked Generalization. Neural Networks 5(2).
    [^5]: Duchi, J., Hazan, E. and Singer, Y., 2011. Adaptive Subgradient Methods for Online
        Learning and Stochastic Optimization. JMLR 12.
    """

    def __init__(self, learner=None, n_learners: int = 10, gamma: float = 1.0,
                 step_size="frank-wolfe", delta="theory", kappa=None, bound: float = 1.0,
                 loss: str = "squared", lam="auto", weighting: str = "poisson",
                 weight_power: float = 1.0, aggregate: bool = True, vote_lr: float = 1.0,
                 rate: float = 12.0, linear_expert: bool = True, linear_lr: float = 0.5,
                 stack_expert: bool = True, stack_lr: float = 0.03, seed: int | None = None):
        check_real("rate", rate, 0.0, low_open=True)
        check_real("linear_lr", linear_lr, 0.0, low_open=True)
        check_real("stack_lr", stack_lr, 0.0, low_open=True)
        self.stack_expert = stack_expert
        self.stack_lr = stack_lr
        self.rate = rate
        self.linear_expert = linear_expert
        self.linear_lr = linear_lr
        check_real("bound", bound, 0.0, 1e6, low_open=True)
        if loss not in _LOSSES:
            raise ValueError(f"loss must be 'squared', 'logistic' or 'hinge', got {loss!r}")
        if weighting not in ("auto", "weight", "poisson"):
            raise ValueError(f"weighting must be 'auto', 'weight' or 'poisson', got {weighting!r}")
        check_real("vote_lr", vote_lr, 0.0, low_open=True)
        check_real("weight_power", weight_power, 0.0)
        self.bound = bound
        self.weighting = weighting
        self.weight_power = weight_power
        self.aggregate = aggregate
        self.vote_lr = vote_lr
        super().__init__(learner=learner, n_learners=n_learners, gamma=gamma,
                         step_size=step_size, delta=delta, kappa=kappa,
                         decision_set=sets.Interval(-float(bound), float(bound)),
                         loss=_LOSSES[loss](), lam=lam, seed=seed)
        self.loss = loss  # stored verbatim (the core holds the loss object)
        # experts: prior, first learner, stages 1..N, mean of the copies[, linear][, stack]
        n_base = n_learners + 3 + bool(linear_expert)
        self._agg = _Aggregate(n_base + bool(stack_expert), float(vote_lr), mix="vote")
        # the stack reads every expert but the prior (its intercept plays that part)
        self._stack = _StackExpert(n_base - 1, float(stack_lr)) if stack_expert else None
        # (not `_linear`: the core's flag "the loss is Linear" has that name)
        self._linear_expert = _LinearExpert(float(linear_lr)) if linear_expert else None
        self._counts = [0.0, 0.0]  # labels False, True seen (the prior expert)
        self._w1_scale = float(gamma / self._eta[0])
        self._last_round = None  # (x, copy of x, E, X, z): the last prediction's pass
        # river classifier copies take category strings but overflow on huge numbers
        self._tree_features = isinstance(self._copies, _ClassifierScores)

    def __getstate__(self):  # the kept forward pass is derived, not state
        state = self.__dict__.copy()
        state["_last_round"] = None
        return state

    def __setstate__(self, state):
        # pickled when the linear expert was held as `_linear`, the name of the core's flag
        # "the loss is Linear" (which it shadowed): the expert gets its own name back
        if "_linear_expert" not in state:
            state = dict(state, _linear_expert=state.get("_linear"),
                         _linear=type(state["_loss"]) is losses_.Linear)
        self.__dict__.update(state)

    def _make_copies(self):
        proto = self.learner
        if proto is None:
            from river import tree  # (river.tree loads scipy.stats: only when a tree is made)

            from ._splitter import GaussianSplitter

            proto = tree.HoeffdingTreeClassifier(**_DEFAULT_TREE, splitter=GaussianSplitter())
        if isinstance(proto, base.Classifier):
            copies = _ClassifierScores(proto, self.n_learners, float(self.bound),
                                       self.weighting, float(self.weight_power), self.seed,
                                       float(self.rate))
            return copies, np.ones((self.n_learners, 1))
        return super()._make_copies()

    @property
    def _multiclass(self):
        return False

    def _proba(self, s: float) -> float:
        """P(+1) of a score s in K."""
        if self.loss == "squared":
            return 0.5 * (1.0 + min(max(s, -1.0), 1.0))
        return 0.5 * (1.0 + math.tanh(0.5 * s))  # sigma(s), overflow-free

    def _experts(self, x: dict) -> np.ndarray:
        """P(False), P(True) of the prior, the first learner and the N stages, (N + 2, 2)."""
        return self._forward(x)[0]

    def _forward(self, x: dict):
        """(E, X): the experts and the iterates x^1..x^N. The pass of a prediction is kept
        for the `learn_one` that follows on the same, unmodified dict (see the class notes)."""
        last = self._last_round
        if last is not None and last[0] is x and last[1] == x:
            return last[2], last[3]
        if self._tree_features:
            check_tree_features(x)  # river's trees overflow on |x| > 1e154: refused first
        W = self._weak_points(x)  # (checks x)
        X = self._chain(W)
        Z = X[:, 0].tolist()  # x^1..x^N
        lo, hi = self._interval
        # the first learner's own score from x^1 = (eta_1 / gamma) W_1 (K is centred at 0)
        w1 = min(max(Z[0] * self._w1_scale, lo), hi)
        n_false, n_true = self._counts
        p = [(n_true + 1.0) / (n_false + n_true + 2.0), self._proba(w1)]  # Laplace's rule
        p += [self._proba(min(max(z, lo), hi)) for z in Z]  # Pi_K(x^i)
        p.append(self._proba(min(max(float(W[:, 0].mean()), lo), hi)))  # mean of the copies
        if self._linear_expert is not None:
            p.append(self._linear_expert.proba(x))
        z = None
        if self._stack is not None:  # it reads every expert but the prior
            z = self._stack.logits(p[1:])
            p.append(self._stack.proba_z(z))
        E = np.array([[1.0 - q, q] for q in p])
        self._last_round = (x, dict(x), E, X, z)
        return E, X

    def predict_proba_one(self, x: dict, **kwargs) -> dict:
        if self.aggregate:
            p = float(self._agg.proba(self._experts(x))[1])
        else:
            p = self._proba(self._scalar_action(x))
        return {False: 1.0 - p, True: p}

    def predict_one(self, x: dict, **kwargs):
        if self.aggregate:
            return bool(self._agg.vote(self._experts(x)))
        return self._scalar_action(x) > 0

    def learn_one(self, x: dict, y, **kwargs) -> None:
        y_pm = binary_label(y)
        E, X = self._forward(x)  # checks x before any state moves
        if self.aggregate:
            self._agg.update(E, int(y_pm > 0))
        z = self._last_round[4]  # the stack's features in the pass _forward just gave
        self._last_round = None
        self.learn_iterates(x, X, y_pm)
        if self._linear_expert is not None:
            self._linear_expert.learn(x, int(y_pm > 0))
        if self._stack is not None:  # on the experts it reads, as they played
            self._stack.learn_z(z, int(y_pm > 0))
        self._counts[int(y_pm > 0)] += 1.0

    @classmethod
    def _unit_test_params(cls):
        from river import tree

        import learners

        yield {"learner": learners.LinearOGD(), "n_learners": 3, "loss": "logistic",
               "bound": 2.0}
        yield {"learner": tree.HoeffdingTreeClassifier(), "n_learners": 2, "seed": 1}

