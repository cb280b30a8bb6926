r"""Native multiclass online boosting with mirror-map example weights (MABoost, K classes).

The binary `OnlineMABoostClassifier` carried to K classes in the way AdaBoost.OLM (Jung, Goetz
and Tewari 2017) carries online boosting: a score vector per partial sum, the multiclass
logistic loss on it, weights from its gradient's size, and a vote over the partial sums.

Over the classes seen so far $1, \dots, K$, learner $h_i$ gives a distribution $p_i(x)$ and
the centred vote $h_i(x) = p_i(x) - \tfrac1K \mathbf 1$. The partial sums are score vectors
$s^i = \sum_{j \le i} \alpha_j h_j(x) \in \mathbb R^K$ ($s^0 = 0$), and the margin of the label
$y$ before learner $i$ is $m_i = s^{i-1}_y - \max_{l \ne y} s^{i-1}_l$. Learner $i$ sees the
example with the weight

$$w_i = \Pi_{[0, 1]}\big(\nabla R^*(\nabla R(1) - \eta\, m_i)\big) =
\begin{cases} \min(1, e^{-\eta m_i}) & R \text{ negative entropy} \\
\operatorname{clip}(1 - \eta m_i, 0, 1) & R \text{ quadratic,} \end{cases}$$

the binary booster's lazy mirror step with the multiclass margin in place of $y F$. The
$\alpha_i$ follow AdaBoost.OLM's step: projected online gradient descent on the box $[-B, B]$ on
the multiclass logistic (cross-entropy) loss of $s^i$, whose derivative in $\alpha_i$ is
$\langle \operatorname{softmax}(s^i) - e_y, h_i(x) \rangle$. The prediction is the binary
booster's two layers: exponential weights $v_i \propto e^{-\sum_t -\log \operatorname{softmax}
(s^i_t)_{y_t}}$ over the partial sums' distributions (their log loss), then Hedge($e^{-\beta}$)
on mistakes over the voters: the first learner alone (half the prior mass), the inner mixture,
$\operatorname{softmax}(s^2), \dots, \operatorname{softmax}(s^N)$ and the class prior
$(n_c + 1) / (n + K)$ (Laplace). The played distribution is $\sum_k u_k p_k$, on the simplex by
construction. AdaBoost.OLM draws one expert at random from its Hedge weights; we play the
mixture (the expected prediction), as the binary booster does.

**Two classes are the binary booster.** With $K = 2$, $s^i_{+} - s^i_{-} = \sum_{j \le i}
\alpha_j (2 p_j(+) - 1) = F_i$, so the margin is $y F_{i-1}$, $\operatorname{softmax}(s^i) =
(\sigma(-F_i), \sigma(F_i))$ and the $\alpha$ gradient is $-y h_i \sigma(-y F_i)$: every weight,
$\alpha$ and vote equals `OnlineMABoostClassifier`'s (a test checks it on Phishing).

**Design choices that are ours**: the centred probability vote $p_i - \tfrac1K$ instead of
OLM's one-hot $e_{h_i(x)}$ (a tree's leaf distribution carries more than its argmax); the
mirror-map weight on the margin instead of OLM's cost vector (OLM's weight
$\sum_{l \ne y} \operatorname{softmax}(s)_l$ is a logistic-shaped function of the same scores;
the mirror map keeps $w_1 = 1$, so the first learner is the plain weak learner); the running-
mean rescaling of the weights (see `rescale`); the class-prior voter and the prior mass.

**Classes mid-stream.** A new label grows $K$: the weak learners learn it, the prior voter
counts it, and every distribution is read over the grown list (a learner that never saw the
class gives it probability 0). The booster's own state (the $\alpha$, $v$ and $u$) does not
depend on $K$.

**Defaults** are the binary booster's: $\lambda = 6$, chosen by the rule stated in
`onlineboost.online_maboost` on the development streams of issue 12 (ImageSegments: 0.8316
at $\lambda = 1$, 0.8359 at 6, 0.8472 at 15, which is too slow for the cost rule), and
`min_weight` 1, the thinning of weights below one example's described there (ImageSegments,
3 seeds: 0.8267 exact, 0.8303 thinned); input checks and the `MAX_ABS_FEATURE` bound are shared
with it too.

**Predict, then learn** as in `OnlineMABoostClassifier`: `predict_proba_one` keeps the round
at $x$ (the learners' distributions, the partial sums, their softmax and the voters), and the
next `learn_one` uses it only if its $x$ equals the copy kept and no class appeared since (a new
label grows the simplex, so the round is read again over the grown list); otherwise, behind a
`StandardScaler` for one, it reads the learners again.

**Speed.** The round is plain Python on lists of $K$ floats per learner: at $N = 10$ and
$K \le 7$, numpy's per-call overhead costs more than the arithmetic. Over two classes (five of
the six development streams of issue 12) the round is the binary booster's, one number per
learner and voter ($F_i = s^i_1 - s^i_0$, as above): measured with weak learners that cost
almost nothing (Bananas behind a `StandardScaler`, 2,000 examples, one loaded machine), the
booster's time per example fell from 180-215 us in the K-vector form to 147 us, against 138 us
for `OnlineMABoostClassifier`. Its mixture is centred,
$\tfrac12 + \sum_i v_i (\sigma(F_i) - \tfrac12)$, so a mixture of fences is exactly on the
fence (a tie in the vote), as the K-vector form's equal entries were. With more classes, two
products stay in numpy, the inner mixture and the played distribution: their rounding decides
near-ties between classes in the vote, and the answers are pinned to those of the numpy version
by the tests (the two-class path keeps them too). `benchmarks/maboost_speed.py` times both
boosters with Hoeffding trees against river's AdaBoost.
"""

from __future__ import annotations

import math
import operator
from typing import NamedTuple

import numpy as np
from river import base

from onlineboost import mirror
from onlineboost._checks import accepts_sample_weight as _accepts_w
from onlineboost._checks import check_tree_features as _check_x
from onlineboost.online_maboost import (
    _REGULARISERS,
    _check_label,
    _check_params,
    _learn_weighted,
    _log1p_exp,
    _sigmoid,
)

__all__ = ["OnlineMABoostMultiClassifier"]


def _normalised(log_w: list) -> list:
    """Exponential weights $e^{l_i} / \\sum_j e^{l_j}$ of the log weights `log_w`."""
    top = max(log_w)
    w = [math.exp(lw - top) for lw in log_w]
    total = sum(w)
    return [w_i / total for w_i in w]


def _normalised_np(log_w: list) -> np.ndarray:
    """`_normalised` in numpy (its sum rounds differently from Python's)."""
    w = np.array(log_w)
    w = np.exp(w - w.max())
    return w / w.sum()


class _Round(NamedTuple):
    """What one example costs to read off the learners, over K classes: the x it was read at
    (a copy), K, the centred votes H, the partial sums S, their softmax Q and log-sum-exp
    `lse` (N rows each) and the voters' distributions V (one row per voter)."""

    x: dict
    K: int
    H: list
    S: list
    Q: list
    lse: list
    V: list


class _BinaryRound(NamedTuple):
    """The round over two classes $(c_0, c_1)$ in the binary booster's scalars: the x it was
    read at (a copy), K = 2, the votes $h_i = P_i(c_1) - P_i(c_0) \\in [-1, 1]$, the partial
    sums $F_i = s^i_1 - s^i_0$ and each voter's probability of $c_1$."""

    x: dict
    K: int
    h: list
    F: list
    voters: list


class OnlineMABoostMultiClassifier(base.Wrapper, base.Classifier):
    r"""Multiclass online booster: mirror-map example weights on the multiclass margin.

    Parameters
    ----------
    model
        The weak river classifier, cloned `n_models` times ($h_1, \dots, h_N$); it must be
        multiclass (e.g. `tree.HoeffdingTreeClassifier`, `naive_bayes.GaussianNB`, or
        `multiclass.OneVsRestClassifier(linear_model.LogisticRegression())`). `None` is
        `tree.HoeffdingTreeClassifier()`.
    n_models
        Number of weak learners $N$.
    regulariser
        `"entropy"` ($w_i = \min(1, e^{-\eta m_i})$), `"quadratic"`
        ($w_i = \operatorname{clip}(1 - \eta m_i, 0, 1)$, exact zeros skip the learner) or a
        `mirror.Regulariser`.
    eta
        $\eta > 0$, how fast the weight falls with the margin.
    alpha_bound
        $B$: each $\alpha_i \in [-B, B]$.
    alpha_lr
        $\alpha$ moves with step `alpha_lr` $/ \sqrt{t}$ at the $t$-th example.
    vote_lr
        $\beta > 0$, the rate of the outer vote's exponential weights on mistakes.
    prior_voter
        Whether the class prior takes part in the outer vote.
    rescale
        Divide $w_i$ by its running mean before learner $i$ sees it, so every learner keeps the
        stream's effective sample size (as in `OnlineMABoostClassifier`).
    lam
        $\lambda > 0$: the weights of learners $2, \dots, N$ are multiplied by $\lambda$
        before they see them (after `rescale`, they then average $\lambda$); the first learner
        keeps $w_1 = 1$ and stays the plain weak learner. A Hoeffding tree counts weight, not
        examples, so $\lambda > 1$ makes it attempt and accept splits sooner, as leveraging
        bagging's Poisson($\lambda = 6$) draws do in river's `ARFClassifier`.
    weighting
        `"weight"` passes `learn_one(x, y, w=w_i)`, `"poisson"` repeats `learn_one`
        $k \sim \text{Poisson}(w_i)$ times, `"auto"` uses the first when the weak learner's
        `learn_one` takes `w`.
    min_weight
        $\tau \in [0, 1]$, with `weighting` `"weight"`: a weight below $\tau$ joins the
        learner's carry instead of being learnt, and the learner learns the example at which the
        carry reaches $\tau$ with the weight $\tau$ (systematic thinning, as in
        `OnlineMABoostClassifier`); $0$ passes every weight as it is.
    seed
        Seed of the Poisson draws.

    Attributes
    ----------
    classes
        The labels seen, in order of first appearance (the order of every vector below).
    alphas
        The combination weights $\alpha$.
    expert_weights
        The inner layer's weights $v$ over the $N$ partial sums.
    vote_weights
        The outer layer's weights $u$ over the voters.

    Examples
    --------
    >>> import itertools
    >>> from river import datasets, evaluate, metrics
    >>> from onlineboost import OnlineMABoostMultiClassifier
    >>> model = OnlineMABoostMultiClassifier(n_models=3)  # three Hoeffding trees
    >>> stream = itertools.islice(datasets.ImageSegments(), 500)
    >>> evaluate.progressive_val_score(stream, model, metrics.Accuracy())
    Accuracy: 74.55%
    >>> x, y = next(iter(datasets.ImageSegments()))
    >>> p = model.predict_proba_one(x)
    >>> len(p), round(sum(p.values()), 12), max(p, key=p.get), y
    (7, 1.0, 'path', 'path')

    References
    ----------
    [^1]: Jung, Y. H., Goetz, J. and Tewari, A., 2017. Online Multiclass Boosting. NeurIPS 2017,
        arXiv:1702.07305 (Adaboost.OLM, the adaptive algorithm; v1 has only OnlineMBBM). The
        paper is not in `shared/papers`: no step numbers are cited from it.
    [^2]: Naghibi, T. and Pfister, B., 2014. A Boosting Framework on Grounds of Online
        Learning. NeurIPS 2014, arXiv:1409.7202v1.
    [^3]: Freund, Y. and Schapire, R. E., 1997. A Decision-Theoretic Generalization of On-Line
        Learning and an Application to Boosting. JCSS 55(1), Theorem 2 (Hedge).
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
        self._classes: list = []  # labels in order of first appearance
        self._index: dict = {}  # label -> its position in _classes
        self._counts: list = []  # examples seen per class, for the class prior
        # The booster's state is plain Python floats (see "Speed" in the module docstring).
        self._alpha = [0.0] * n_models
        self._log_v = [0.0] * n_models  # inner layer: minus each partial sum's total log loss
        # outer layer: log prior minus vote_lr times mistakes; the first learner holds half
        n_others = n_models + bool(prior_voter)
        self._log_u = [math.log(n_others)] + [0.0] * n_others
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
        return True  # river's marker of a multiclass classifier (river has no MultiClassifier)

    @classmethod
    def _unit_test_params(cls):
        from river import naive_bayes, tree

        yield {"model": tree.HoeffdingTreeClassifier(), "n_models": 2}
        yield {"model": naive_bayes.GaussianNB(), "n_models": 3, "regulariser": "quadratic",
               "seed": 3}  # Poisson path

    @property
    def classes(self) -> list:
        return list(self._classes)

    @property
    def alphas(self) -> np.ndarray:
        return np.array(self._alpha)

    @property
    def expert_weights(self) -> np.ndarray:
        return np.array(_normalised(self._log_v))

    @property
    def vote_weights(self) -> np.ndarray:
        return np.array(_normalised(self._log_u))

    def _round_at(self, x) -> _Round:
        """The round at `x` over the classes seen: the one `predict_proba_one` computed if `x`
        equals the x it saw and no `learn_one` came since, else computed now and kept."""
        last = self._last
        if last is None or last.K != len(self._classes) or last.x != x:
            last = self._last = self._round(x, self._classes, self._counts)
        return last

    def _round(self, x, classes: list, counts: list) -> _Round | _BinaryRound:
        """Each learner's centred vote $h_i$, the partial sums $s^i$, their softmax and
        log-sum-exp, and the voters' distributions over `classes` (lists of K floats); over two
        classes, the binary booster's scalars (`_BinaryRound`)."""
        K = len(classes)
        if K == 2:
            return self._two_class_round(x, classes, counts)
        H, S, Q, lse, first = self._k_class_round(x, classes)
        # numpy's product, as before this module went to plain floats: its rounding decides
        # near-ties in the mixture, so the same seed gives the same answers as then
        mix = (_normalised_np(self._log_v) @ np.array(Q)).tolist()
        V = [first, mix, *Q[1:]]
        if self.prior_voter:
            n = self._n_seen + K
            V.append([(n_c + 1.0) / n for n_c in counts])
        return _Round(dict(x), K, H, S, Q, lse, V)

    def _two_class_round(self, x, classes: list, counts: list) -> _BinaryRound:
        """The round over two classes as the binary booster reads it, $c_1$ playing +1: with
        $s^i_0 = -F_i / 2$ and $s^i_1 = F_i / 2$, $\\operatorname{softmax}(s^i) = (\\sigma(-F_i),
        \\sigma(F_i))$, so every voter is one number, its probability of $c_1$ (five of the six
        development streams of issue 12 are binary)."""
        c0, c1 = classes
        h = []
        for m in self._models:
            proba = m.predict_proba_one(x)
            p0, p1 = proba.get(c0, 0.0), proba.get(c1, 0.0)
            total = p0 + p1
            h.append((p1 - p0) / total if total > 0 else 0.0)  # no opinion yet: h = 0
        F, acc = [], 0.0
        for a, h_i in zip(self._alpha, h):
            acc += a * h_i
            F.append(acc)
        p_F = [_sigmoid(f) for f in F]
        # centred, so that a mixture of fences is exactly on the fence (1/2: a tie)
        p_mix = 0.5 + sum(v * (p - 0.5) for v, p in zip(_normalised(self._log_v), p_F))
        voters = [0.5 * (h[0] + 1.0), p_mix, *p_F[1:]]
        if self.prior_voter:
            voters.append((counts[1] + 1.0) / (self._n_seen + 2.0))
        return _BinaryRound(dict(x), 2, h, F, voters)

    def _k_class_round(self, x, classes: list) -> tuple:
        """Per learner: $h_i$, $s^i$, $\\operatorname{softmax}(s^i)$ and its log-sum-exp (lists
        of K floats), and the first learner's distribution."""
        K = len(classes)
        inv_K = 1.0 / K
        untrained = [0.0] * K  # a learner with no opinion yet votes uniformly: h = 0
        H, S, Q, lse = [], [], [], []
        first = None
        s = None
        for m, a in zip(self._models, self._alpha):
            proba = m.predict_proba_one(x)
            p = [proba.get(c, 0.0) for c in classes]
            total = sum(p)
            if first is None:  # the first learner's distribution is a voter
                first = [p_k / total for p_k in p] if total > 0 else [inv_K] * K
            h = [p_k / total - inv_K for p_k in p] if total > 0 else untrained
            s = [a * h_k for h_k in h] if s is None else [
                s_k + a * h_k for s_k, h_k in zip(s, h)]
            top = max(s)
            e = [math.exp(s_k - top) for s_k in s]
            z = sum(e)
            H.append(h)
            S.append(s)
            Q.append([e_k / z for e_k in e])
            lse.append(top + math.log(z))
        return H, S, Q, lse, first

    def voter_probas(self, x) -> np.ndarray:
        """Each voter's distribution over `classes` (one row per voter: the first learner, the
        inner mixture, $\\operatorname{softmax}(s^2), \\dots$ and the class prior)."""
        _check_x(x)
        if not self._classes:
            return np.empty((len(self._log_u), 0))
        r = self._round_at(x)
        if r.K == 2:
            return np.array([[1.0 - p, p] for p in r.voters])
        return np.array(r.V)

    def _margins(self, r, c: int) -> list:
        """$m_i = s^{i-1}_y - \\max_{l \\ne y} s^{i-1}_l$, $i = 1, \\dots, N$ ($s^0 = 0$), for
        the label at position `c` in the round `r` (over two classes, $\\pm F_{i-1}$)."""
        if r.K == 2:
            return [0.0] + (r.F[:-1] if c == 1 else [-f for f in r.F[:-1]])
        S = r.S
        if r.K == 1:  # one class: no competitor, margin 0 (every weight 1)
            return [0.0] * self.n_models
        return [0.0] + [s[c] - max(s[:c] + s[c + 1:]) for s in S[:-1]]

    def _weights(self, margins: list) -> list:
        eta = self.eta
        if self.regulariser == "entropy":  # closed forms of the projected mirror step
            return [math.exp(-eta * (m if m > 0.0 else 0.0)) for m in margins]
        if self.regulariser == "quadratic":
            return [min(1.0, max(0.0, 1.0 - eta * m)) for m in margins]
        theta = self._theta_1 - eta * np.array(margins)
        return self._R.project_dual(theta, self._unit_box).tolist()

    def example_weights(self, x, y) -> np.ndarray:
        """The weights $w_1, \\dots, w_N$ the learners would give $(x, y)$ now (before
        rescaling); a label not seen yet is read as a new class."""
        _check_x(x)
        _check_label(y)
        if y not in self._index:  # as learn_one would: over the grown list of classes
            r = self._round(x, self._classes + [y], self._counts + [0])
            return np.array(self._weights(self._margins(r, len(self._classes))))
        return np.array(self._weights(self._margins(self._round_at(x), self._index[y])))

    def learn_one(self, x, y, **kwargs):
        """Learn $(x, y)$: the learners' outputs at `x` are read once, from the last
        `predict_proba_one` if it saw an equal `x` (see "Predict, then learn")."""
        _check_x(x)
        _check_label(y)  # both checked before any state moves
        if y not in self._index:  # a new class grows K
            self._index[y] = len(self._classes)
            self._classes.append(y)
            self._counts.append(0)
        c = self._index[y]
        r = self._round_at(x)
        self._last = None  # the learners move: the round is stale
        margins = self._margins(r, c)
        w = self._weights(margins)
        self._n_seen += 1
        n = self._n_seen
        self._counts[c] += 1
        w_sum = self._w_sum
        for i, w_i in enumerate(w):
            w_sum[i] += w_i
        if self.rescale:  # keep each learner's effective sample size at t
            w = [w_i * n / ws if ws > 0 else w_i for w_i, ws in zip(w, w_sum)]
        if self.lam != 1.0:  # learners 2..N only: the first stays the plain weak learner
            lam = self.lam
            w = [w[0]] + [w_i * lam for w_i in w[1:]]
        if self._use_w:
            _learn_weighted(self._models, x, y, w, self._carry, self.min_weight, kwargs)
        else:
            for m, k in zip(self._models, self._rng.poisson(w).tolist()):
                for _ in range(k):
                    m.learn_one(x, y, **kwargs)
        eta_t = self.alpha_lr / math.sqrt(n)
        if r.K == 2:
            self._update_two(r, c, eta_t)
        else:
            self._update_k(r, c, eta_t)

    def _update_two(self, r: _BinaryRound, c: int, eta_t: float) -> None:
        """`_update_k` over two classes in the binary booster's scalars: with $y = \\pm 1$ for
        $c_1$ / $c_0$, the cross-entropy of $s^i$ is $\\log(1 + e^{-y F_i})$ and its derivative
        in $\\alpha_i$ is $-y h_i \\sigma(-y F_i)$ (AdaBoost.OL's step)."""
        y_pm = 1.0 if c == 1 else -1.0
        B = self.alpha_bound
        alpha = self._alpha
        log_v = []
        for i, (h_i, f, lv) in enumerate(zip(r.h, r.F, self._log_v)):
            m_i = y_pm * f
            a = alpha[i] + eta_t * y_pm * h_i * _sigmoid(-m_i)
            alpha[i] = B if a > B else (-B if a < -B else a)
            log_v.append(lv - _log1p_exp(-m_i))  # the inner layer: minus the log loss
        top = max(log_v)
        self._log_v = [lv - top for lv in log_v]  # keep it bounded (the weights are unchanged)
        # Outer layer: Hedge on each voter's mistake (1 wrong side, 1/2 on the fence).
        beta, right = self.vote_lr, c == 1
        log_u = [lu - beta * (0.5 if p == 0.5 else float((p > 0.5) != right))
                 for lu, p in zip(self._log_u, r.voters)]
        top = max(log_u)
        self._log_u = [lu - top for lu in log_u]

    def _update_k(self, r: _Round, c: int, eta_t: float) -> None:
        """The alphas and both layers after the learners learnt the label at position `c`."""
        # AdaBoost.OLM's alpha step: projected gradient descent on the cross-entropy of s^i,
        # d/d alpha_i = <softmax(s^i) - e_y, h_i>, on the box [-B, B].
        B = self.alpha_bound
        alpha = self._alpha
        for i, (q, h) in enumerate(zip(r.Q, r.H)):
            grad = sum(map(operator.mul, q, h)) - h[c]  # summed in class order, from 0
            a = alpha[i] - eta_t * grad
            alpha[i] = B if a > B else (-B if a < -B else a)
        # Inner layer: exponential weights (rate 1) on each partial sum's log loss.
        log_v = [lv - (z - s[c]) for lv, z, s in zip(self._log_v, r.lse, r.S)]
        top = max(log_v)
        self._log_v = [lv - top for lv in log_v]  # keep it bounded (the weights are unchanged)
        # Outer layer: Hedge on each voter's mistake (ties for the top share the mistake).
        beta = self.vote_lr
        log_u = []
        for lu, p in zip(self._log_u, r.V):
            best = max(p)
            miss = 1.0 - (p[c] == best) / p.count(best)
            log_u.append(lu - beta * miss)
        top = max(log_u)
        self._log_u = [lu - top for lu in log_u]

    def predict_proba_one(self, x, **kwargs):
        """The played distribution $\\sum_k u_k p_k$ over the classes seen ({} before any)."""
        _check_x(x)
        if not self._classes:
            return {}
        r = self._round_at(x)
        if r.K == 2:  # 1/2 plus the weighted deviations: exactly 1/2 when all sit on the fence
            p1 = 0.5 + sum(u * (p - 0.5) for u, p in zip(_normalised(self._log_u), r.voters))
            return {self._classes[0]: 1.0 - p1, self._classes[1]: p1}
        p = _normalised_np(self._log_u) @ np.array(r.V)
        p /= p.sum()
        return dict(zip(self._classes, p.tolist()))
