r"""Online boosting with mirror-descent example weights (MABoost's weights on a stream).

For an example $(x, y)$, $y \in \{-1, +1\}$, and weak learners $h_1, \dots, h_N$ with
combination weights $\alpha$, the running margins are $s_i = \sum_{j < i} \alpha_j y h_j(x)$.
Learner $i$ sees the example with the weight

$$w_i = \Pi_{[0, 1]}\big(\nabla R^*(\nabla R(1) - \eta s_i)\big) =
\begin{cases} \min(1, e^{-\eta s_i}) & R \text{ negative entropy (MadaBoost-like)} \\
\operatorname{clip}(1 - \eta s_i, 0, 1) & R \text{ quadratic} \end{cases}$$

the lazy mirror step from the weight 1 of a fresh example, projected onto the box $[0, 1]$ with
`onlineboost.mirror`. The $\alpha_i$ follow AdaBoost.OL: projected online gradient descent on
the box $[-B, B]^N$ on the logistic loss of each partial sum $F_i = \sum_{j \le i} \alpha_j h_j$.

The prediction is two layers of exponential weights (entropic mirror descent on the simplex).
The inner layer mixes the partial sums by their log loss, $p_{\text{mix}} = \sum_i v_i
\sigma(F_i(x))$, $v_i \propto e^{-\sum_t \log(1 + e^{-y_t F_i(x_t)})}$, so the booster tracks
its best prefix in log loss. The outer layer votes over $N + 2$ voters, the first learner
alone, $p_{\text{mix}}$, $F_2, \dots, F_N$ and the class prior $p_0 = (n_+ + 1) / (n + 2)$
(Laplace's rule on the labels seen, the counterpart of gradient boosting's initial constant
$F_0$), with weights $u_k \propto \pi_k e^{-\beta M_k}$ on their counts of mistakes $M_k$
(Hedge($e^{-\beta}$) of Freund and Schapire with a prior $\pi$). Log loss can prefer a prefix
with a worse accuracy than the first learner (it does on Bananas with logistic regression); the
outer layer's expected mistakes are at most $(\beta M_k + \ln(1 / \pi_k)) / (1 - e^{-\beta})$
for every voter $k$. The first learner is the single weak learner, the one voter the booster
must not lose to, so it holds half the prior, $\pi_1 = 1/2$ (its term is $\ln 2$), and the other
$N + 1$ voters share the other half ($\ln(2N + 2)$ each), as (A, B)-Prod of Sani et al. puts its
prior mass on the benchmark strategy. The outer layer is ours, not the paper's.
The prior voter matters where the weak learner is worse than the majority class: online logistic
regression on Bananas scores 0.537 against a majority of 0.552, and none of its boosted partial
sums does better.

The per-example work is plain Python on floats: at $N \approx 10$ numpy's per-call overhead
costs more than the arithmetic.

**Thinning** (`min_weight` $= \tau$, default 1). A learner whose weight for the example, after
`rescale` and `lam`, is at least $\tau$ learns it with that weight. A smaller weight joins the
learner's carry $c_i$ instead; when the carry reaches $\tau$, the learner learns the current
example with the weight $\tau$ and the carry drops by $\tau$ (systematic sampling: an example
is learnt with a frequency $w_i / \tau$, deterministically, no random draw). What it keeps:
each learner's total weight learnt trails the exact total by less than $\tau$ at every step
($0 \le c_i < \tau$), every weight at least $\tau$ is learnt exactly, and the first learner
($w_1 = 1 \ge \tau$) is never thinned, so it stays the plain weak learner and the vote's
guarantees below are untouched. At $\tau = 1$ a thinned learner sees whole examples, as in
Oza's online boosting, where each learner sees Poisson counts; an example whose weight is below
one example's is rarely worth a Hoeffding tree's learn call, a leaf update with a Naive Bayes
check. Where learners $2, \dots, N$ rarely see weights below 1 (Bananas, SEA, Hyperplane) it
changes little; where the boosted margin is large (Agrawal, ImageSegments, Phishing) it
saves a fifth to a half of the learners' learn calls (first 2,000 examples: Phishing 18%,
ImageSegments 28%, Agrawal 46%; Bananas 4%, SEA 2%, Hyperplane 7%). Progressive accuracy, 3
seeds, whole streams as `benchmarks/dropin_classification.py` loads them, exact weights to
$\tau = 1$: binary booster Phishing 0.8864 to 0.8893, Bananas 0.8069 to 0.8070, SEA 0.8627 to
0.8628, Agrawal 0.9912 to 0.9895, Hyperplane 0.8903 to 0.8904; multiclass booster
ImageSegments 0.8267 to 0.8303, Phishing 0.8864 to 0.8880, Bananas 0.8121 to 0.8058 (seed
spread 0.010), SEA 0.8625 to 0.8626, Agrawal 0.9919 to 0.9905.
`min_weight=0` learns every weight as it is (the code before the option: the same answers);
the Poisson path (`weighting="poisson"`) draws integer counts and ignores it. (A random filter,
learning with probability $w_i / \tau$ and weight $\tau$, was measured on an earlier version,
whose exact weights scored 0.671 on Bananas, and cost accuracy there: 0.655 at $\tau = 1$.)

**Predict, then learn.** `predict_proba_one(x)` and `learn_one(x, y)` both need the round at
$x$: the learners' votes $h_i(x)$ ($N$ weak-learner predictions, most of a round's cost beside
the learners' own training), the partial sums $F_i$ and the voters. `predict_proba_one` keeps
the round it computed, with a copy of $x$; the next `learn_one` uses it if its $x$ equals that
copy (`==` on the dicts) and computes the round itself otherwise, then drops it (the learners
have moved). In progressive validation on raw features each learner therefore predicts once
per example, where river's `AdaBoostClassifier` asks each of its models twice (in
`predict_proba_one` and again in `learn_one`). A round is never used for another $x$: behind
river's `StandardScaler`, which re-scales $x$ after it learns, or after $x$ was changed in
place, `learn_one` reads the learners again, two predictions per learner and example as
AdaBoost. `voter_probas` and `example_weights` use and keep the round in the same way. The
cost of checking is one dict copy and one comparison; `benchmarks/maboost_speed.py` times
both pipelines.

**Defaults** (shared with `OnlineMABoostMultiClassifier`): a Hoeffding tree, $N = 10$,
entropy weights with $\eta = 1$, $B = 2$, `alpha_lr` 4, $\beta = 1$, the prior voter, `rescale`,
and $\lambda = 6$. Only $\lambda$ was tuned, on the development streams of issue 12 and nothing
else (Phishing, Bananas and ImageSegments in file order, SEA with noise 0.1, Agrawal and
Hyperplane seeded 0, 5,000 examples), by this rule: the $\lambda \in \{1, 3, 6, 15, 30\}$
with the best mean progressive accuracy among those whose samples/s stay at or above river's
`AdaBoostClassifier(HT, 10)` in the same process (issue 12, item 4). Measured (binary booster;
multiclass on ImageSegments):

| $\lambda$ | Phishing | Bananas | ImageSegm. | SEA | Agrawal | Hyperpl. | speed / AdaBoost's |
|---|---|---|---|---|---|---|---|
| 1 | 0.8912 | 0.6732 | 0.8316 | | | | |
| 3 | | 0.7472 | | | | | |
| 6 | 0.8920 | 0.8255 | 0.8359 | 0.8592 | 0.9902 | 0.8902 | 0.85–1.04, 1.54 |
| 15 | 0.8920 | 0.8547 | 0.8472 | 0.8592 | 0.9934 | 0.8902 | 0.75, 0.96 |
| 30 | 0.8912 | 0.8532 | | 0.8592 | | | |

(speed: samples/s over river AdaBoost's in one process, Bananas 3,000 examples, then
ImageSegments 1,200; at $\lambda = 3$ only Bananas was run, and ImageSegments at 3 gave 0.8359
in an earlier version that also scaled the first learner.)

$\lambda = 15$ is more accurate but slower than AdaBoost, so the rule picks 6. The rule's
speed check saw two streams only: in the full drop-in benchmark
(`benchmarks/dropin_classification.py`, 3 seeds, median same-process ratio on a machine shared
by ~8 processes) the binary booster at $\lambda = 6$ runs at 1.07–1.75× AdaBoost's samples/s
on Phishing, Bananas, SEA and Agrawal but 0.81× on Hyperplane, and the multiclass booster at
2.67× on ImageSegments; so item 4 of issue 12 does not hold on every development stream.
`benchmarks/maboost_speed.py` (CPU time, the first 2,000 examples, median of interleaved
repeats, results/maboost_speed.md) times both boosters against AdaBoost. In its run on this
code (2 repeats, the code of 294cfd3 timed alongside), the binary booster ran at 0.86-1.87x
AdaBoost's samples/s (0.79-1.46x before) and the multiclass one at 0.84-1.84x (0.67-1.43x
before): at or above 1 in every plain pipeline and, behind a `StandardScaler`, on Agrawal and
ImageSegments, below 1 behind it on Phishing, Bananas, SEA and Hyperplane (0.84-0.96x); item 4
of issue 12 is not met there. The same code's ratio moves by up to 0.3 between runs on the
shared machine (binary booster, Hyperplane, plain: 0.86x in one run, 1.17x in the next).
Beyond the booster's own work (per example, about AdaBoost's), the gap is the trees' training:
learners $2, \dots, N$ see weights averaging $\lambda = 6$, so their Hoeffding trees attempt
splits four to five times as often as AdaBoost's (Hyperplane, first 2,000 examples behind a
`StandardScaler`: 495 attempts taking 0.66 s of CPU against 122 and 0.15 s) and grow deeper, so
each learn and predict walks further: the price of $\lambda$. Making the attempts as rare per
example as an unweighted tree's (`grace_period` times $\lambda$ for learners $2, \dots, N$)
cost accuracy (seed 0: Phishing 0.8920 to 0.8784, Bananas 0.8255 to 0.7802; times 2: 0.8776 and
0.8075; times 1.5: 0.8936 and 0.8168), so it is not done; thinning (above) is.
The vote's guarantees hold at every $\lambda$ (the first learner keeps $w_1 = 1$): in
expectation over the vote, at most $(\beta M_1 + \ln 2) / (1 - e^{-\beta})$ mistakes,
about $1.58 M_1 + 1.1$ at $\beta = 1$, where $M_1$ counts the single weak learner's mistakes, and
$(\beta M_0 + \ln(2N + 2)) / (1 - e^{-\beta})$ against the class prior's $M_0$.

**Input.** Features are checked before any state moves (`ValueError` naming `x[key]`): each
value is a real number (bools count as 0/1) of magnitude at most `MAX_ABS_FEATURE` = 1e100, or
a category string for learners that take them (Hoeffding trees do). A trained Hoeffding tree
raises `OverflowError` from its Gaussian splitters at 1e200, hence the bound. `None`, NaN,
infinities, numeric strings (`"3.5"`: a parsing slip, not a category), bytes, `Decimal`s and
containers are refused. Labels must be a str, bool, integer or finite real (`y` is named;
`None`, NaN, complex and unhashable labels are refused); the binary booster also wants a binary
one. `model=None` means `tree.HoeffdingTreeClassifier()` with river's default settings (its
Gaussian splitter run by `onlineboost._splitter`: the same splits, found faster); anything
without `learn_one`, `predict_proba_one` and `clone` is refused at construction, as is a
non-integer `seed`.
"""

from __future__ import annotations

import math
import numbers
from typing import NamedTuple

import numpy as np
from river import base

from onlineboost import mirror
from onlineboost._checks import (
    MAX_ABS_FEATURE,
    binary_label,
    check_int,
    check_real,
    check_seed,
)
from onlineboost._checks import (
    accepts_sample_weight as _accepts_w,
)
from onlineboost._checks import check_tree_features as _check_x

__all__ = ["MAX_ABS_FEATURE", "OnlineMABoostClassifier"]

_REGULARISERS = {"entropy": mirror.NegativeEntropy, "quadratic": mirror.Quadratic}


def _sigmoid(z: float) -> float:
    return 0.5 * (1.0 + math.tanh(0.5 * z))  # no overflow for large |z|


def _log1p_exp(z: float) -> float:
    """$\\log(1 + e^z)$ without overflow."""
    return z + math.log1p(math.exp(-z)) if z > 0 else math.log1p(math.exp(z))


def _softmax(log_w: list) -> list:
    top = max(log_w)
    e = [math.exp(v - top) for v in log_w]
    total = sum(e)
    return [v / total for v in e]


class _Round(NamedTuple):
    """What one example costs to read off the learners: the x it was read at (a copy), the
    votes $h$, the partial sums $F$ and the voters' $P(y = +1)$."""

    x: dict
    h: list
    F: list
    voters: list


def _check_label(y) -> None:
    """`ValueError` naming `y` unless it is a usable class label: a str, a bool, an integer or
    a finite real (not None, NaN, complex, bytes or a container)."""
    if isinstance(y, (str, bool, np.bool_, numbers.Integral)):
        return
    if isinstance(y, (float, np.floating)) and math.isfinite(y):
        return
    raise ValueError(f"y must be a class label (a str, bool, integer or finite real number), "
                     f"got {y!r}")


def _positive(name: str, value) -> float:
    """`check_real(name, value, 0, low_open=True)`, with huge ints (`10**400`) and other
    non-floats a `ValueError` naming `name` too."""
    try:
        return check_real(name, value, 0.0, low_open=True)
    except (TypeError, OverflowError):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}") from None


def _resolve_model(model):
    """The weak learner prototype: `model` itself, or a Hoeffding tree for `None`."""
    if model is None:  # river's default tree, with the faster splitter that grows the same trees
        from river import tree

        from ._splitter import GaussianSplitter

        return tree.HoeffdingTreeClassifier(splitter=GaussianSplitter())
    if not all(callable(getattr(model, name, None))
               for name in ("learn_one", "predict_proba_one", "clone")):
        raise ValueError(f"model must be a river classifier (learn_one, predict_proba_one and "
                         f"clone) or None, got {model!r}")
    return model


def _check_params(model, n_models, regulariser, eta, alpha_bound, alpha_lr, vote_lr,
                  prior_voter, rescale, lam, weighting, seed, min_weight=0.0):
    """The parameter checks shared by both online MABoost classifiers (a `ValueError` naming
    the parameter); returns the resolved weak-learner prototype."""
    prototype = _resolve_model(model)
    check_int("n_models", n_models, 1)
    if isinstance(regulariser, str) and regulariser not in _REGULARISERS:
        raise ValueError(f"regulariser must be 'entropy', 'quadratic' or a "
                         f"mirror.Regulariser, got {regulariser!r}")
    if not isinstance(regulariser, (str, mirror.Regulariser)):
        raise ValueError(f"regulariser must be a str or Regulariser, got {regulariser!r}")
    for name, value in (("eta", eta), ("alpha_bound", alpha_bound), ("alpha_lr", alpha_lr),
                        ("vote_lr", vote_lr), ("lam", lam)):
        _positive(name, value)
    try:
        check_real("min_weight", min_weight, 0.0, 1.0)
    except (TypeError, OverflowError):
        raise ValueError(f"min_weight must be a finite number in [0, 1], "
                         f"got {min_weight!r}") from None
    if weighting not in ("auto", "weight", "poisson"):
        raise ValueError(f"weighting must be 'auto', 'weight' or 'poisson', got {weighting!r}")
    for name, value in (("prior_voter", prior_voter), ("rescale", rescale)):
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"{name} must be a bool, got {value!r}")
    check_seed(seed)
    return prototype


def _learn_weighted(models: list, x, y, w: list, carry: list, tau: float, kwargs: dict) -> None:
    """Learner $i$ learns $(x, y)$ with the weight $w_i$ if $w_i \\ge \\tau$; a smaller weight
    joins the learner's carry $c_i$, and when the carry reaches $\\tau$ the learner learns this
    example with the weight $\\tau$ and the carry drops by $\\tau$ (systematic thinning; see
    `min_weight`). Exact zeros skip the learner; $\\tau = 0$ passes every weight as it is."""
    for i, (m, w_i) in enumerate(zip(models, w)):
        if w_i >= tau:
            if w_i > 0:
                m.learn_one(x, y, w=w_i, **kwargs)
        else:
            c = carry[i] + w_i
            if c >= tau:
                c -= tau
                m.learn_one(x, y, w=tau, **kwargs)
            carry[i] = c


class OnlineMABoostClassifier(base.Wrapper, base.Classifier):
    r"""Binary online booster whose example weights come from a mirror map of the margin.

    Parameters
    ----------
    model
        The weak river classifier, cloned `n_models` times ($h_1, \dots, h_N$); `None` is
        `tree.HoeffdingTreeClassifier()` (river's defaults; the same trees, split faster).
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
    vote_lr
        $\beta > 0$, the rate of the outer vote's exponential weights on mistakes.
    prior_voter
        Whether the class prior $p_0$ takes part in the outer vote.
    rescale
        Divide $w_i$ by its running mean $\bar w_i$ before learner $i$ sees it. The weights keep
        their ratios (the mirror map's distribution over examples) but every learner keeps the
        effective sample size of the stream, as the $\lambda$ normalisation of Oza's online
        boosting does; without it, a learner deep in the chain sees a total weight of
        $\sum_t w_{t,i} \ll t$ and a Hoeffding tree splits correspondingly later. This step is
        ours, not the paper's.
    lam
        $\lambda > 0$: the weights of learners $2, \dots, N$ are multiplied by $\lambda$
        before they see them (after `rescale`, they then average $\lambda$); the first learner
        keeps $w_1 = 1$ and stays the plain weak learner. A Hoeffding tree counts weight, not
        examples, so $\lambda > 1$ makes it attempt and accept splits sooner, as leveraging
        bagging's Poisson($\lambda = 6$) draws do in river's `ARFClassifier`.
    weighting
        How learner $i$ gets $w_i$: `"weight"` passes `learn_one(x, y, w=w_i)`, `"poisson"`
        repeats `learn_one` $k \sim \text{Poisson}(w_i)$ times (Oza's online boosting), `"auto"`
        uses the first when the weak learner's `learn_one` takes `w`.
    min_weight
        $\tau \in [0, 1]$, with `weighting` `"weight"`: a learner whose weight for the example
        (after `rescale` and `lam`) is below $\tau$ does not learn it then; the weight joins
        the learner's carry, and when the carry reaches $\tau$ the learner learns the current
        example with the weight $\tau$ (see "Thinning"). $0$ passes every weight as it is.
    seed
        Seed of the Poisson draws.

    Attributes
    ----------
    alphas
        The combination weights $\alpha$.
    expert_weights
        The inner layer's exponential weights $v$ over the $N$ partial sums.
    vote_weights
        The outer layer's weights $u$ over the voters (first learner, inner mixture,
        $F_2, \dots, F_N$ and, with `prior_voter`, the class prior).

    Examples
    --------
    >>> from river import datasets, evaluate, metrics, tree
    >>> from onlineboost import OnlineMABoostClassifier
    >>> model = OnlineMABoostClassifier(tree.HoeffdingTreeClassifier(), n_models=5, seed=1)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 89.36%

    References
    ----------
    [^1]: Naghibi, T. and Pfister, B., 2014. A Boosting Framework on Grounds of Online
        Learning. NeurIPS 2014, arXiv:1409.7202v1.
    [^2]: Beygelzimer, A., Kale, S. and Luo, H., 2015. Optimal and Adaptive Algorithms for
        Online Boosting. ICML 2015, arXiv:1502.02651v1 (AdaBoost.OL).
    [^3]: Freund, Y. and Schapire, R. E., 1997. A Decision-Theoretic Generalization of On-Line
        Learning and an Application to Boosting. JCSS 55(1), Theorem 2 (Hedge).
    [^4]: Sani, A., Neu, G. and Lazaric, A., 2014. Exploiting Easy Data in Online
        Optimization. NeurIPS 2014 ((A, B)-Prod: prior mass on a benchmark strategy).
    """

    def __init__(self, model: base.Classifier | None = None, n_models: int = 10,
                 regulariser="entropy", eta: float = 1.0, alpha_bound: float = 2.0,
                 alpha_lr: float = 4.0, vote_lr: float = 1.0, prior_voter: bool = True,
                 rescale: bool = True, lam: float = 6.0, weighting: str = "auto",
                 min_weight: float = 1.0, seed: int | None = None):
        prototype = _check_params(model, n_models, regulariser, eta, alpha_bound, alpha_lr,
                                  vote_lr, prior_voter, rescale, lam, weighting, seed,
                                  min_weight)
        self.model = model
        self.n_models = n_models
        self.regulariser = regulariser
        self.eta = eta
        self.alpha_bound = alpha_bound
        self.alpha_lr = alpha_lr
        self.vote_lr = vote_lr
        self.prior_voter = prior_voter
        self.rescale = rescale
        self.lam = lam
        self.weighting = weighting
        self.min_weight = min_weight
        self.seed = seed
        self._prototype = prototype
        self._R = _REGULARISERS[regulariser]() if isinstance(regulariser, str) else regulariser
        self._use_w = weighting == "weight" or (weighting == "auto" and _accepts_w(prototype))
        self._models = [prototype.clone() for _ in range(n_models)]
        self._alpha = [0.0] * n_models  # alpha_1 = 0
        self._log_v = [0.0] * n_models  # inner layer: minus the partial sums' total log loss
        # outer layer: log prior minus vote_lr times the voters' mistakes; the first learner
        # (the single weak learner) holds half the prior mass, the others share the rest
        n_others = n_models + bool(prior_voter)
        self._log_u = [math.log(n_others)] + [0.0] * n_others
        self._n_true = 0  # labels True seen, for the class prior
        self._unit_box = mirror.Box(0.0, 1.0)
        self._theta_1 = float(self._R.grad(np.ones(1))[0])  # grad R(1): the fresh weight
        self._rng = np.random.default_rng(seed)
        self._w_sum = [0.0] * n_models  # sum of w_i over the examples seen
        self._carry = [0.0] * n_models  # weight below min_weight not learnt yet (< min_weight)
        self._n_seen = 0
        self._last: _Round | None = None  # the round of the last predicted x (see the docs)

    @property
    def _wrapped_model(self):
        return self._prototype

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
        return np.array(self._alpha)

    @property
    def expert_weights(self) -> np.ndarray:
        return np.array(_softmax(self._log_v))

    @property
    def vote_weights(self) -> np.ndarray:
        return np.array(_softmax(self._log_u))

    def _round_at(self, x) -> _Round:
        """The round at `x`: the one `predict_proba_one` computed if `x` equals the x it saw
        and no `learn_one` came since, else computed now and kept (see "Predict, then learn")."""
        last = self._last
        if last is None or last.x != x:
            last = self._last = self._round(x)
        return last

    def _round(self, x) -> _Round:
        """$h_i(x) = 2 P_i(y = +1 | x) - 1 \\in [-1, 1]$ for every learner (0 if untrained), the
        partial sums $F_i = \\sum_{j \\le i} \\alpha_j h_j$ and each voter's $P(y = +1)$."""
        h = []
        for m in self._models:
            proba = m.predict_proba_one(x)
            p_true = proba.get(True, 0.0)
            total = p_true + proba.get(False, 0.0)
            h.append(2.0 * p_true / total - 1.0 if total > 0 else 0.0)
        F, total = [], 0.0
        for a, h_i in zip(self._alpha, h):
            total += a * h_i
            F.append(total)
        p_F = [_sigmoid(f) for f in F]
        p_mix = sum(v * p for v, p in zip(_softmax(self._log_v), p_F))
        voters = [0.5 * (h[0] + 1.0), p_mix] + p_F[1:]
        if self.prior_voter:
            voters.append((self._n_true + 1.0) / (self._n_seen + 2.0))
        return _Round(dict(x), h, F, voters)

    def voter_probas(self, x) -> np.ndarray:
        """$P(y = +1)$ of each voter: the first learner, the inner mixture, $F_2, \\dots, F_N$
        and, with `prior_voter`, the class prior."""
        _check_x(x)
        return np.array(self._round_at(x).voters)

    def example_weights(self, x, y) -> np.ndarray:
        """The weights $w_1, \\dots, w_N$ the learners would give $(x, y)$ now."""
        _check_x(x)
        _check_label(y)
        y_pm = binary_label(y)
        return np.array(self._weights([y_pm * f for f in self._round_at(x).F]))

    def _weights(self, margins: list) -> list:
        s = [0.0] + margins[:-1]  # s_i = sum_{j<i} alpha_j y h_j(x)
        if self.regulariser == "entropy":  # closed forms of the projected mirror step
            return [1.0 if s_i <= 0 else math.exp(-self.eta * s_i) for s_i in s]
        if self.regulariser == "quadratic":
            return [min(1.0, max(0.0, 1.0 - self.eta * s_i)) for s_i in s]
        theta = self._theta_1 - self.eta * np.array(s)
        return self._R.project_dual(theta, self._unit_box).tolist()

    def learn_one(self, x, y, **kwargs):
        """Learn $(x, y)$: the learners' outputs at `x` are read once, from the last
        `predict_proba_one` if it saw an equal `x` (see "Predict, then learn")."""
        _check_x(x)
        _check_label(y)
        y_pm = binary_label(y)  # both checked before any state moves
        _, h, F, voters = self._round_at(x)
        self._last = None  # the learners move: the round is stale
        margins = [y_pm * f for f in F]  # y times each partial sum
        w = self._weights(margins)
        self._n_seen += 1
        n = self._n_seen
        self._n_true += y_pm > 0
        w_sum = self._w_sum
        for i, w_i in enumerate(w):
            w_sum[i] += w_i
        if self.rescale:  # keep each learner's effective sample size at t (a departure, see doc)
            w = [w_i * n / ws if ws > 0 else w_i for w_i, ws in zip(w, w_sum)]
        if self.lam != 1.0:  # learners 2..N only: the first stays the plain weak learner
            lam = self.lam
            w = [w[0]] + [w_i * lam for w_i in w[1:]]
        label = y_pm > 0
        if self._use_w:
            _learn_weighted(self._models, x, label, w, self._carry, self.min_weight, kwargs)
        else:
            for m, k in zip(self._models, self._rng.poisson(w).tolist()):
                for _ in range(k):
                    m.learn_one(x, label, **kwargs)
        # AdaBoost.OL: projected gradient descent on the logistic loss
        # log(1 + e^{-y (F_{i-1} + alpha_i h_i)}) in alpha_i, on the box [-B, B].
        eta_t = self.alpha_lr / math.sqrt(n)  # the t-th example: step t
        B = self.alpha_bound
        alpha, log_v = self._alpha, self._log_v
        for i, (h_i, m_i) in enumerate(zip(h, margins)):
            a = alpha[i] + eta_t * y_pm * h_i * _sigmoid(-m_i)
            alpha[i] = B if a > B else (-B if a < -B else a)
            # Inner layer: exponential weights (rate 1) on each partial sum's log loss.
            log_v[i] -= _log1p_exp(-m_i)
        # Outer layer: Hedge on each voter's mistake (1 wrong side, 1/2 on the fence).
        beta, log_u = self.vote_lr, self._log_u
        for k, p in enumerate(voters):
            log_u[k] -= beta * (0.5 if p == 0.5 else float((p > 0.5) != label))

    def predict_proba_one(self, x, **kwargs):
        _check_x(x)
        voters = self._round_at(x).voters
        # 1/2 plus the weighted deviations: exactly 1/2 when every voter sits on the fence
        p_true = 0.5 + sum(u * (p - 0.5) for u, p in zip(_softmax(self._log_u), voters))
        return {False: 1.0 - p_true, True: p_true}
