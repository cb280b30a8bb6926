r"""Non-linear second-order weak policies on the simplex: per-arm online ridge over random features.

`FeaturePolicy` is `RidgePolicy` (per-arm recursive least squares of the cost vector, played by a
softmax) on the feature map
$$\phi(c) = \bigl(1,\ c,\ \sqrt 2 \cos(W c + b)\bigr) \quad\text{or}\quad
  \bigl(1,\ c,\ \sqrt 2 \max(W c + b, 0)\bigr),$$
random Fourier features (Rahimi & Recht 2007, a Gaussian kernel of bandwidth $\sigma$) or random
ReLU features, drawn once from the learner's seed. The raw context stays in $\phi$, so the class
contains `RidgePolicy`'s and adds $D$ non-linear directions: a linear model in $\phi$ is a
one-hidden-layer network whose hidden layer is fixed. Each copy of a stack draws its own map
(its own seed), so the copies of a booster look at the contexts through different features.

**Residual stacks** (`residual=True`, for boosting under bandit feedback, issue 13). In BoOCO
with the linear loss on the simplex, copy $i$ learns from the gradient of the extended loss at
$x^{i-1}$; where stage $i - 1$ already sits on the cheapest arm's vertex that gradient is 0, so
an independent copy learns equal costs there and plays the uniform point, and every later stage
is softer than the first. In a residual stack copy $i$ plays
$\operatorname{softmax}(-(\hat g_1 + \dots + \hat g_i)(c)/\tau)$: the sum of the cost models
of copies $1..i$, each still fitted on its own copy's gradients only. Where copy $i$'s gradient
is 0 it repeats stage $i - 1$'s choice; where stage $i - 1$ plays an arm $a$ that the cost
estimate ranks above others, the gradient at the vertex $e_a$ is
$\bigl(\sum_j (f(a) - f(j))_+\bigr) e_a - \sum_j (f(a) - f(j))_+ e_j$ (for $\delta$ small
enough), and copy $i$'s model adds that correction. With `step_size=1` and $\gamma = 1$ BoOCO's
$x^i$ is copy $i$'s point, so BoBLO's staged policies are the partial sums. The copies are then
not independent weak learners (copy $i$'s point depends on the earlier copies' models), so
BoOCO's boosting bound, which assumes each copy is a weak online learner on its own losses, is
not claimed; what holds is BoBLO's Exp4 bound against every staged policy (any adaptive
advice).

**On a model** (`on_model=True`, issue 13). The owner of the stack (BoBLO under its `"dr"`
estimator) may hand it a cost model $m$ (any object with `costs(c)` giving the $k$ costs; BoBLO's
per-arm ridge loss model, at its lower confidence bounds). Copy $i$ then plays
$\operatorname{softmax}(-(m(c) + \hat g_i(c))/\tau)$ ($\hat g_1 + \dots + \hat g_i$ in a
residual stack) and the copies that carry $m$ (every copy; in a residual stack copy 1 only) fit
their targets minus $m(c)$: the weak learners learn the correction to the model, not a slower
copy of it. Under BoBLO's doubly robust estimate with the model filled in, copy 1's target minus
$m$ is 0 on every arm not played (up to a shift common to all arms, which no softmax sees) and
the importance-weighted error of the model on the played one.

**Later copies that see more** (`later_features`, `later_fit`, issue 13). A residual stack of
linear corrections is linear: the sum of per-arm ridge corrections over $(1, c)$ is one such
correction, so copies $2..N$ of a linear stack add no policy outside copy 1's class (they
change only how a linear correction is fitted). With `later_features` $= D'$
copies $2..N$ regress on $(1, c, \text{their own } D' \text{ random features})$ while copy 1
stays exactly the learner of a one-copy stack (`FeaturePolicyBoostStack`). With
`later_fit="residual"` they are fitted as online gradient boosting for the squared loss fits
its stages (Beygelzimer et al. 2015): copy $i \ge 2$ regresses the residual of copy 1's
target after the earlier copies' predictions, $(G_1 - m(c)) - \sum_{j < i} \hat g_j(c)$
(predictions made before the round's updates), instead of BoOCO's gradient at $x^{i-1}$, which
near a vertex is small and noisy. Stage $i$ then plays
$\operatorname{softmax}(-(m + \hat g_1 + \dots + \hat g_i)(c)/\tau)$: copy 1's policy plus
non-linear corrections of what it leaves.

**Play laws** (`link`, `gamma0`, `t0`, `min_temperature`; issue 13, fifth session). With
this class's own defaults (`t0=None`) a copy plays $\operatorname{softmax}(-y/\tau)$ of its
predicted costs $y$ at a fixed temperature, which
keeps a fixed share of probability off the cheapest-looking arm forever: Boltzmann exploration
at a fixed temperature has regret linear in $T$ (Cesa-Bianchi et al. 2017). Two laws whose
exploration shrinks as the copy learns, both on the copy's clock $t$ (its learning steps so far,
state that is pickled):

* the **annealed softmax** (`t0`): $\tau_t = \tau/\sqrt{1 + t/t_0}$, optionally floored
  (`min_temperature`, sixth session): $\tau_t = \max(\tau/\sqrt{1 + t/t_0}, \tau_{\min})$,
  which anneals the early rounds' spread away but keeps a fixed softmax's share of exploration
  at $\tau_{\min}$ for good;
* **inverse gap weighting** (`link="igw"`; Abe & Long 1999, Foster & Rakhlin 2020's SquareCB):
  with $b$ the cheapest predicted arm, $p_a = 1/(k + \gamma_t (y_a - y_b))$ for $a \ne b$ and
  $p_b$ the rest, $\gamma_t = \gamma_0\sqrt{k t}$ (the anytime form of SquareCB's
  $\sqrt{kT/\mathrm{Reg}}$). Given an online regression oracle for the costs, which BoBLO's loss
  model is, SquareCB's regret is $O(\sqrt{kT\,\mathrm{Reg}_{sq}})$; here the law plays on the
  model plus the copy's correction, and BoBLO mixes it with its exploration floor, so that bound
  is the law's motivation, not a claim about BoBLO.

The annealed softmax ($t_0 = 50$) is BoBLO's default play (`onlineboost.boblo.DEFAULT_LEARNER`,
issue 13, sixth session): on the development streams it passed the tuning rule (+0.0037 in the
mean, tuning seeds 100-119, 2.2 paired standard errors; `benchmarks/results/40_bandits.md`,
fifth session). As copy 1 of `BoBLO(n_learners>1)` it plays so nearly greedily that
`LeadExp4`'s importance-weighted leads never pass their margins on `streams.NonlinearBandit`
(inverse gap weighting likewise; floored at 0.005-0.01, N = 5 still switched on at most 1 of 5
seeds), so BoBLO's default `aggregate="auto"` gives N > 1 `depth.FitLead`, whose switch test
needs no importance weight and keeps N = 5's gain there (5 of 5 seeds 100-104). The fixed
temperature, BoBLO's default play before, is one argument away:
`FeaturePolicy(**{**DEFAULT_LEARNER, "t0": None})`; so is `BoBLO(aggregate="exp4")`.

**The correction's weight** (`learn_weight`, `max_weight`; issue 13, twentieth session). On the
owner's model a one-copy stack may play $\operatorname{softmax}(-(m(c) + w\,\hat g(c))/\tau_t)$
with a weight $w \in [0, w_{\max}]$ of its correction that it learns online, starting from 1:
where the best policy is linear in the context the correction mostly adds variance (the model
alone earns about 0.012 more on such streams, `benchmarks/bandit_headroom.py`), where it is not
the correction is what earns. Each round, before the copy learns it, the owner (BoBLO's bandit
face, `pull` / `update`) asks for the gradient at the played arm $i$, its loss $\ell$ and the
law $p$ it was drawn from (`weight_gradient`), and steps the weight once the round is learnt
(`step_weight`); with the
doubly robust estimate $\hat\ell = m + e_i(\ell - m_i)/p_i$ of every arm's loss, the gradient
of the law's estimated loss $\sum_a \pi_a(w)\hat\ell_a$ in $w$, taking the played law for the
copy's softmax $\pi$ (they differ by the owner's exploration floor), is
$$\partial_t = -\beta_t\Bigl(\sum_a p_a m_a (\hat g_a - \bar g) + (\ell - m_i)(\hat g_i - \bar g)
  \Bigr), \qquad \bar g = \sum_a p_a \hat g_a,$$
$\beta_t = 1/\tau_t$ and $m$, $\hat g$ the round's prediction, and $w$ takes a projected AdaGrad
step $w \leftarrow \Pi_{[0, w_{\max}]}(w - \eta\,\partial_t/\sqrt{\sum_{s \le t}\partial_s^2})$,
$\eta$ = `learn_weight`. This is policy-gradient model selection between the model and the
model plus a stretched or shrunk correction, a learnt step size of the boosting stage; the
estimated loss is not convex in $w$, so no regret bound is claimed. Measured (scratch, prototype
with the same arithmetic; nine streams: the three development ones, `bandit_headroom`'s two
linear ones, `NonlinearBandit` at (d, k) = (2, 3), (5, 3), (2, 2) and stump classes): $\eta$ =
0.2, $w_{\max}$ = 2 had the largest mean gain on seeds 260-299 among five settings with no stream
below `BoBLO()` by two standard errors, and on fresh seeds 300-339 it gained on all nine:
+0.0065 / +0.0069 on the linear streams, +0.027 / +0.0065 / +0.0041 on `NonlinearBandit`,
+0.0053 on the stump classes, +0.0023 (SE 0.0009) / +0.0032 / +0.0002 on ImageSegments / digits
/ `LinearBandit`. On the evaluation seeds 0-29 (`benchmarks/bandit_headroom.py`) the synthetic
streams gain again but the development streams do not (-0.0021 / -0.0063, SE 0.0030 / -0.0002;
over `bandit_wide`'s 110 evaluation seeds -0.0013 / -0.0003 / -0.0001, SE 0.0008 / 0.0013 /
0.0003: level; against tuned LinUCB on `LinearBandit` -0.0008, SE 0.0004). In the twenty-first
session it became `BoBLO()`'s default (`onlineboost.boblo.DEFAULT_LEARNER`, by a rule written
before its runs: N = 5 stays above N = 1 and the speed target holds with it; `bandit_compare`'s
twenty-first-session paragraph), for what it gains on every other stream measured (held out
afterwards: +0.003 in the mean over 17 streams, `bandit_heldout`); `FIXED_WEIGHT_LEARNER` keeps
the weight at 1. In the first rounds the weight can fall while the correction is still noise,
and AdaGrad's shrinking steps bring it back slowly (ImageSegments' seed 0: 0.34 by round 50,
0.59 by round 800, 0.057 reward lost over those 800 rounds); on average it does not cost there
(nine streams, 40 seeds: holding it at 1 for the first 300 steps lowers the first 300 rounds'
reward by 0.0024, SE 0.0013). BoBLO's compiled round covers a one-copy stack
with random features of its own that learns its weight (the same arms as the numpy round, the
weight equal to rounding). In a boosted stack (`FeaturePolicyBoostStack`, `BoBLO(n_learners>1)`
with later neighbours or features) copy 1's correction counts $w\,\hat g_1$ in every stage
and in the later copies' residual targets, and the stack learns $w$ by the same step on the
played law (every stage's costs hold $w\,\hat g_1$, so the formula holds whichever stage is
played), on BoBLO's general round; such an N = 5 plays the one-copy learner's arms until a
later stage leads (`LinearBandit`: the same arms on seeds 260-269; ImageSegments +0.0043, SE
0.0011, over the one-copy learner with the weight, as without it).

**Whether to correct at all** (`structure_odds`, `structure_snr`; issue 13, thirty-first
session). The learnt weight has no signal where the correction is noise: on `LinearBandit` it
ends anywhere in 0.3-1.7 after 3,000 rounds, and there the correction costs about 0.0016 a
round. Its policy gradient sees the correction only through the decisions it changes; the losses
themselves say more. With `structure_odds` the stack keeps a
`learners.structure_evidence.StructureEvidence` over copy 1's map $(1, \psi(c), c)$: the Bayes
factor, in the played arms' losses, of per-arm ridge models with the random features (and stumps
of each context column) against per-arm ridge models on $(1, c)$ alone. After each round is
learnt the owner hands it the round (`observe_structure`): the learnt weight $u$ takes the step
the round gave the played weight, the evidence adds the round, and the copy plays $w = u\,\pi_t$
next, $\pi_t$ the posterior probability of structure (the policy gradient is the played
weight's, so the compiled round's step is unchanged). Where the losses are linear in the context
$\pi_t$ falls to 0 within a few hundred rounds (`LinearBandit`: 0.6 at round 300, 0 by round
1,000) and the copy plays the model alone; where they are not it stays at 1 and nothing changes.
Measured with a scratch prototype (the same arithmetic; paired against `BoBLO()`, expected
reward on `LinearBandit`, progressive reward elsewhere; `bandit_headroom`'s thirty-first-session
paragraph has every setting): among seventeen (prior odds, snr, features) settings on tuning
seeds 1000-1039 of seven streams, $10^6$ and 3 over all 128 features had the largest
`LinearBandit` gain with no stream below by two standard errors; on fresh seeds 1100-1179
`LinearBandit` +0.0010 (SE 0.0001), linear classes +0.0062 / +0.0026 (two / four classes),
ImageSegments, digits, three `NonlinearBandit` streams and the stump classes within 0.0001 of 0,
the 10-feature stump classes -0.0004 (SE 0.0004). Fewer features for the evidence (32) gained
more on `LinearBandit` but missed the 10-feature stumps' structure (-0.006). Made `BoBLO()`'s
default in that form, it met issue 13's first target on `bandit_wide`'s 110 evaluation seeds
(`LinearBandit` +0.0001, SE 0.0004, against tuned LinUCB, from -0.0008), but on the 17 held-out
streams it lost 0.0011 in the mean (paired SE 0.0002): RandomTree -0.018, where the correction
earns little and late and $\pi_t$ fell to about 0.2 in mid-stream before the structure showed.
It was reverted. Tree streams of the development side (river's `RandomTree` with other data
seeds, a guard from then on) showed the same dip (-0.004). So the structured model now also
regresses on stumps $\mathbb 1\{c_j > \tau\}$ of the context columns (`StructureEvidence`'s
`cuts="auto"`: five per column up to 12 columns, at most 64 in all), which show structure along
single columns as early as the random features show smooth structure. Chosen on the same tuning
seeds (development `RandomTree` +0.0003, `LinearBandit` +0.0011) and confirmed on fresh seeds
1200-1279 of eleven streams by a rule written before the run: `LinearBandit` +0.0006 (SE
0.0001), the development `RandomTree` -0.0004 (SE 0.0005), linear classes +0.0042 / +0.0026, the
other seven within 0.0001 of 0; on the 17 held-out streams +0.0003 in the mean (paired SE
0.0001), six up and one down by 0.0001. It is `BoBLO()`'s default since
(`onlineboost.boblo.STRUCTURE`); `FeaturePolicy(**LEARNT_WEIGHT_LEARNER)` is the learnt weight
alone.
"""

from __future__ import annotations

import math

import numpy as np
from river import base

from onlineboost import sets
from onlineboost._checks import check_int, check_real, check_seed

from . import _stack_kernels
from ._features import FeatureIndex, VectorStackEntries, check_simplex, check_stack, check_targets
from .neighbour_stack import NeighbourStack
from .structure_evidence import StructureEvidence

__all__ = ["FeaturePolicy", "FeaturePolicyStack", "FeaturePolicyBoostStack"]

_KINDS = ("fourier", "relu")
_FITS = ("gradient", "residual")
_LINKS = ("softmax", "igw")


def igw(costs: np.ndarray, gamma: float) -> np.ndarray:
    r"""Inverse gap weighting (Abe & Long 1999; Foster & Rakhlin 2020) of each row of the
    predicted costs `costs` `(n, k)`: with $b$ the row's cheapest arm (the first on ties),
    $$p_a = \frac{1}{k + \gamma\,(y_a - y_b)} \quad (a \ne b), \qquad
      p_b = 1 - \sum_{a \ne b} p_a.$$
    Every $p_a \le 1/k \le p_b$; $\gamma = 0$ is the uniform law and $\gamma \to \infty$
    the greedy one. Not validated: finite costs, $\gamma \ge 0$.

    Examples
    --------
    >>> import numpy as np
    >>> from learners.feature_policy import igw
    >>> igw(np.array([[0.3, 0.1, 0.6]]), 10.0)  # gaps 0.2, 0, 0.5: 1/5, rest, 1/8
    array([[0.2  , 0.675, 0.125]])
    """
    n, k = costs.shape
    rows = np.arange(n)
    b = costs.argmin(axis=1)
    P = 1.0 / (k + gamma * (costs - costs[rows, b][:, None]))
    P[rows, b] = 0.0
    P[rows, b] = 1.0 - P.sum(axis=1)
    return P


def _scaled_eyes(m: int, q: int, value: float) -> np.ndarray:
    """`m` copies of `value` times the identity of size `q`, shape `(m, q, q)`: the entries of
    `np.eye(q) / l2` for `value = 1 / l2`, written into one fresh array (no temporaries)."""
    out = np.zeros((m, q, q))
    diagonal = np.arange(q)
    out[:, diagonal, diagonal] = value
    return out


class _LearntWeight:
    r"""The correction's learnt weight (module docstring, "The correction's weight") of a stack
    on its owner's model: $w$ on copy 1's correction, `weight_gradient` before the owner's
    round is learnt, `step_weight` after. A stack names copy 1's parts (`_weighted_parts(c)`:
    the model's costs $m(c)$ and copy 1's correction $\hat g(c)$) and its play's $1/\tau_t$
    (`_weight_beta()`)."""

    #: the correction's weight (`learn_weight` None: 1 for good) and its AdaGrad sum of squared
    #: gradients (stacks pickled before the weight: none)
    learn_weight = None
    max_weight = 2.0
    weight = 1.0
    _weight_sq = 1e-12

    #: the evidence of structure (`structure_odds` None: none; else a
    #: `learners.structure_evidence.StructureEvidence`, made at the first round it sees) and
    #: the learnt weight before its factor (`weight` is then the played one, $w\,\pi_t$)
    structure_odds = None
    structure_snr = 3.0
    structure = None
    learnt_weight = 1.0

    def _init_weight(self, learn_weight: float | None, max_weight: float, on_model: bool,
                     structure_odds: float | None = None, structure_snr: float = 3.0,
                     n_features: int = 0):
        if learn_weight is not None and not on_model:
            raise ValueError("learn_weight: the correction's weight is learnt on the owner's "
                             "model (on_model=True)")
        if structure_odds is not None and learn_weight is None:
            raise ValueError("structure_odds: the evidence of structure scales the learnt "
                             "weight, which needs learn_weight")
        if structure_odds is not None and n_features < 1:
            raise ValueError("structure_odds: the evidence of structure is over copy 1's "
                             "random features, which needs n_features >= 1")
        self.learn_weight = None if learn_weight is None else float(learn_weight)
        self.max_weight = float(max_weight)
        self.structure_odds = None if structure_odds is None else float(structure_odds)
        self.structure_snr = float(structure_snr)

    def weight_gradient(self, c: np.ndarray, arm: int, loss: float, law) -> float:
        r"""$\partial_t$ (module docstring, "The correction's weight") for the context vector
        `c` last predicted, before the round is learnt: the played arm index `arm`, its
        `loss` and the played `law` `(k,)`. Changes nothing. Not validated."""
        m, g = self._weighted_parts(c)
        p = np.asarray(law, dtype=np.float64)
        d = g - p @ g
        beta = self._weight_beta()
        return -beta * (float(p @ (m * d)) + (loss - m[arm]) * d[arm])

    def step_weight(self, grad: float) -> None:
        """One projected AdaGrad step of the correction's weight on the gradient `grad`
        (`weight_gradient`); nothing without `learn_weight`. Not validated."""
        if self.learn_weight is None:
            return
        self._weight_sq += grad * grad
        w = self.weight - self.learn_weight * grad / math.sqrt(self._weight_sq)
        self.weight = min(max(w, 0.0), self.max_weight)

    def observe_structure(self, c: np.ndarray, arm: int, loss: float, played: float,
                          phi: np.ndarray | None = None) -> None:
        r"""After the owner's round is learnt (the weight's step taken): the round's evidence of
        structure (module docstring, "Whether to correct at all") for the context vector `c`,
        the played arm index `arm` and its `loss`, `played` the weight the round was played
        with. The learnt weight takes the step the round gave the played one, and the played
        weight becomes the learnt one times the posterior probability of structure. `phi`:
        copy 1's features of `c` when the caller has them (else computed). Nothing without
        `structure_odds`. Not validated."""
        if self.structure_odds is None:
            return
        if phi is None or len(phi) != self._structure_width():
            phi = self._structure_row(c)
        ev = self.structure
        if ev is None:
            ev = self.structure = StructureEvidence(
                self.decision_set.dim, self._structure_features(), self.structure_odds,
                self.structure_snr)
        w = self.learnt_weight + (self.weight - played)
        self.learnt_weight = min(max(w, 0.0), self.max_weight)
        ev.update(phi, arm, loss)
        self.weight = float(self.learnt_weight * ev.probability())


class FeaturePolicyStack(_LearntWeight, VectorStackEntries):  # predict / learn: _features
    r"""$n$ copies of `FeaturePolicy`, copy $i$ with its own map $(W_i, b_i)$: weights
    $\Theta$ `(n, k, q)`, inverse Gram matrices `(n, q, q)`, $q = 1 + D + p$.

    Column layout of $\phi$: the bias, the $D$ random features, then the $p$ context columns
    (a longer context appends columns; row $j$ of $W_i$ gets the new entries, drawn when the
    column first appears). With `residual`, copy $i$ predicts the summed costs of copies
    $1..i$. With no random features every copy has $\phi = (1, c)$ and the stack keeps one
    $A^{-1}$ for all of them (as `RidgePolicyStack`). The dict methods `predict`/`learn` and
    the vector methods `predict_vector`/`learn_vector` are as in `RidgePolicyStack`; use one
    family on a stack.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost import sets
    >>> from learners import FeaturePolicyStack
    >>> stack = FeaturePolicyStack(2, sets.Simplex(2), n_features=4, seeds=[0, 1])
    >>> stack.features(np.array([0.5, -1.0]), grow=True).shape  # (copies, 1 + D + p)
    (2, 7)
    >>> stack.learn_vector(np.array([0.5, -1.0]), np.array([[1.0, 0.0], [0.0, 1.0]]))
    >>> stack.predict_vector(np.array([0.5, -1.0])).round(3)
    array([[0., 1.],
           [1., 0.]])
    """

    validates_x = True
    # (stacks pickled before the play laws: the fixed softmax, no clock)
    link = "softmax"
    gamma0 = 1.0
    t0 = None
    min_temperature = None  # (stacks pickled before the annealed softmax's floor)
    _t = 0
    #: (a switch for the tests: False keeps copies with random features on numpy; off without
    #: numba) the non-shared round through `_stack_kernels` (same numbers to rounding)
    _JIT = _stack_kernels.AVAILABLE
    #: the round's cache of copies with random features: `(c, its bytes, phi (n, q), the raw
    #: costs Theta phi (n, k))` of the last context seen, dropped by `learn_vector` and `_grow`
    #: (derived, never pickled)
    _round = None

    def __init__(self, n: int, decision_set, l2: float = 1.0, temperature: float = 0.1,
                 forget: float = 1.0, n_features: int = 32, kind: str = "fourier",
                 bandwidth: float = 1.0, residual: bool = False, seeds: list | None = None,
                 on_model: bool = False, link: str = "softmax", gamma0: float = 1.0,
                 t0: float | None = None, min_temperature: float | None = None,
                 learn_weight: float | None = None, max_weight: float = 2.0,
                 structure_odds: float | None = None, structure_snr: float = 3.0):
        seeds = check_stack(n, seeds)
        if learn_weight is not None and int(n) != 1:
            raise ValueError("learn_weight: in a stack of several copies the boosted stack "
                             "(FeaturePolicyBoostStack) learns copy 1's weight")
        self._init_weight(learn_weight, max_weight, on_model, structure_odds, structure_snr,
                          int(n_features))
        self.n = int(n)
        self.decision_set = check_simplex(decision_set)
        self.l2 = float(l2)
        self.temperature = float(temperature)
        self.forget = float(forget)
        self.n_features = int(n_features)
        self.kind = kind
        self.bandwidth = float(bandwidth)
        self.residual = bool(residual)
        self.on_model = bool(on_model)
        self.model = None  # with on_model: the owner's loss model, `model.costs(c)` -> (k,)
        self.link = link
        self.gamma0 = float(gamma0)
        self.t0 = None if t0 is None else float(t0)
        self.min_temperature = None if min_temperature is None else float(min_temperature)
        self._t = 0  # learning steps taken (the play laws' clock)
        self._beta = 1.0 / self.temperature
        self._rngs = [np.random.default_rng(s) for s in seeds]
        D = self.n_features
        if kind == "fourier":
            b = [rng.uniform(0.0, 2.0 * math.pi, D) for rng in self._rngs]
        else:
            b = [rng.normal(0.0, 1.0, D) for rng in self._rngs]
        self._b = np.array(b).reshape(self.n, D)
        self._W = np.zeros((self.n, D, 0))  # (n, D, p): grows with the context
        q = 1 + D
        self._shared = D == 0  # every copy sees the same phi(c) = (1, c): one A^{-1}
        self._P = _scaled_eyes(1 if self._shared else self.n, q, 1.0 / self.l2)
        self._theta = np.zeros((self.n, self.decision_set.dim, q))
        self._index = FeatureIndex()

    def __getstate__(self) -> dict:  # the round's cache is no state
        return {**self.__dict__, "_round": None}

    # -- the map ----------------------------------------------------------------------------

    def _grow(self, p: int) -> None:
        """Context columns up to `p`: new rows of the maps and new (unseen) model columns."""
        self._round = None  # (the maps change)
        old = self._W.shape[2]
        # W ~ N(0, 1 / (sigma^2 p)): the Gaussian kernel exp(-|c - c'|^2 / (2 sigma^2 p)) on
        # standardised contexts, whose squared distances are about 2p
        scale = 1.0 / (self.bandwidth * math.sqrt(p))
        new = np.stack([rng.normal(0.0, scale, (self.n_features, p - old))
                        for rng in self._rngs])
        self._W = np.concatenate([self._W, new], axis=2)
        q_old = self._P.shape[1]
        q = q_old + p - old
        P = _scaled_eyes(len(self._P), q, 1.0 / self.l2)
        P[:, :q_old, :q_old] = self._P
        self._P = P
        pad = np.zeros((self.n, self.decision_set.dim, q - q_old))
        self._theta = np.concatenate([self._theta, pad], axis=2)

    def _columns(self, c: np.ndarray, grow: bool) -> np.ndarray:
        """`c` on the map's columns: grown to (`grow`) or cut at the known ones, padded with 0."""
        p = self._W.shape[2]
        if len(c) > p:
            if grow:
                self._grow(len(c))
            else:
                c = c[:p]
        elif len(c) < p:
            c = np.concatenate([c, np.zeros(p - len(c))])
        return c

    def features(self, c: np.ndarray, grow: bool = False) -> np.ndarray:
        r"""$\phi_i(c)$ for every copy, `(n, q)` (context columns beyond the known ones are
        dropped unless `grow`)."""
        return self._features(self._columns(c, grow))

    def _features(self, c: np.ndarray) -> np.ndarray:
        """`features` of a context `c` on exactly the map's columns."""
        p = self._W.shape[2]
        D = self.n_features
        if self._shared:
            F = np.empty((self.n, 1 + p))
            F[:, 0] = 1.0
            F[:, 1:] = c
            return F
        Z = self._W @ c + self._b  # (n, D)
        F = np.empty((self.n, 1 + D + p))
        F[:, 0] = 1.0
        if self.kind == "fourier":
            np.cos(Z, out=Z)
        else:
            np.maximum(Z, 0.0, out=Z)
        np.multiply(Z, math.sqrt(2.0), out=F[:, 1:1 + D])
        F[:, 1 + D:] = c
        return F

    def _phi_costs(self, c: np.ndarray, grow: bool = False) -> tuple:
        r"""`(features(c, grow), the raw costs` $\Theta_i\phi_i$ `(n, k))` of a stack with
        random features (not `_shared`), computed once per context and round: the cache
        `_round` holds them for the same array `c` with the same bytes until `learn_vector`
        or `_grow`. Compiled (`_stack_kernels.predict`) when `_JIT`; else numpy's `features`
        and einsum. Not to be written to."""
        if grow and len(c) > self._W.shape[2]:
            self._grow(len(c))  # (drops the cache)
        key = c.tobytes()
        last = self._round
        if last is not None and last[0] is c and last[1] == key:
            return last[2], last[3]
        cc = self._columns(c, False)
        if self._JIT:
            n, D, p = self._W.shape
            F = np.empty((n, 1 + D + p))
            costs = np.empty((n, self._theta.shape[1]))
            _stack_kernels.predict(self._W, self._b, np.ascontiguousarray(cc, np.float64),
                                   self.kind == "fourier", self._theta, F, costs)
        else:
            F = self._features(cc)
            costs = np.einsum("nkq,nq->nk", self._theta, F)
        self._round = (c, key, F, costs)
        return F, costs

    # -- vector entry points (the hot path) -------------------------------------------------

    def inverse_temperature(self) -> float:
        r"""The softmax's $1/\tau_t$ at the stack's clock $t$ (learning steps taken):
        $1/\tau$, or $\sqrt{1 + t/t_0}/\tau$ when annealed (`t0`), at most
        $1/\tau_{\min}$ with a floor (`min_temperature`)."""
        if self.t0 is None:
            return self._beta
        beta = self._beta * math.sqrt(1.0 + self._t / self.t0)
        if self.min_temperature is None:
            return beta
        return min(beta, 1.0 / self.min_temperature)

    def igw_gamma(self) -> float:
        r"""Inverse gap weighting's $\gamma_t = \gamma_0\sqrt{k t}$ at the stack's clock $t$."""
        return self.gamma0 * math.sqrt(self.decision_set.dim * self._t)

    #: None, or a `(k,)` vector the play subtracts from every copy's predicted costs (an
    #: owner's per-arm bonus: `onlineboost.BoBLO(count_bonus=...)` sets it around its play);
    #: the predicted costs themselves, and what the copies learn, do not change
    shift = None

    def _point(self, costs: np.ndarray) -> np.ndarray:
        """Every copy's point from its predicted costs `(n, k)` (less `shift`), by the stack's
        `link`."""
        if self.shift is not None:
            costs = costs - self.shift
        if self.link == "igw":
            return igw(costs, self.igw_gamma())
        return self._softmax(costs, self.inverse_temperature())

    def _softmax(self, costs: np.ndarray, beta: float | None = None) -> np.ndarray:
        if beta is None:
            beta = self._beta
        if len(costs) == 1 and costs.size <= 64:  # one copy, a few arms: the same operations
            # in plain floats (cheaper than six numpy calls)
            row = costs.tolist()[0]
            m = min(row)  # log-domain shift: cannot overflow
            exp = math.exp
            e = [exp((m - v) * beta) for v in row]
            total = sum(e)
            return np.array([[v / total for v in e]])
        z = costs.min(axis=1, keepdims=True) - costs  # log-domain shift: cannot overflow
        E = np.exp(z * beta)
        return E / E.sum(axis=1, keepdims=True)

    def _row_and_model(self, c: np.ndarray) -> tuple:
        """phi = (1, c) and the model's costs `model.costs(c)` (None without a model), for a
        stack with no random features that knows all of c's columns. A model that offers
        `costs_and_row(c)`, its costs and the row (1, c) it built for the same context or
        None (BoBLO's loss model), lends the row: the same values, built once a round."""
        model = self.model
        if model is None:
            m = phi = None
        elif hasattr(model, "costs_and_row"):
            m, phi = model.costs_and_row(c)
        else:
            m, phi = model.costs(c), None
        if phi is None or len(phi) != len(c) + 1:
            phi = np.empty(len(c) + 1)
            phi[0] = 1.0
            phi[1:] = c
        return phi, m

    def predicted_costs(self, c: np.ndarray) -> np.ndarray:
        """The predicted cost of every arm for every copy, `(n, k)` (vector context)."""
        if self.learn_weight is not None and self.model is not None:
            return self._weighted_costs(c)
        if self.n == 1 and self._shared and len(c) == self._W.shape[2]:
            # one copy on phi = (1, c) (BoBLO's default): one product, the model's costs added
            # in the same order (`theta[0].dot(phi)` is `theta @ phi`'s row, bit for bit)
            phi, m = self._row_and_model(c)
            costs = self._theta[0].dot(phi)
            if m is not None:
                costs += m
            return costs[None]
        if self._shared:
            costs = self._theta @ self.features(c)[0]
        else:  # (the round's cache: a copy, the caller may write to it)
            costs = self._phi_costs(c)[1].copy()
        if self.residual and self.n > 1:
            costs = np.cumsum(costs, axis=0)
        if self.model is not None:  # the owner's model plus the learned corrections
            costs += self.model.costs(c)
        return costs

    def _weighted_parts(self, c: np.ndarray) -> tuple:
        """The model's costs $m(c)$ and the copy's correction $\\hat g(c)$, `(k,)` each, of a
        one-copy stack on its owner's model (the round's cache where it holds `c`)."""
        if self._shared:
            g = self._theta[0] @ self.features(c)[0]
        else:
            g = self._phi_costs(c)[1][0].copy()
        return np.array(self.model.costs(c), dtype=np.float64), g

    def _weighted_costs(self, c: np.ndarray) -> np.ndarray:
        """`predicted_costs` of a one-copy stack with `learn_weight`: $m(c) + w\\,\\hat g(c)$."""
        m, g = self._weighted_parts(c)
        return (self.weight * g + m)[None]

    def _weight_beta(self) -> float:
        return self.inverse_temperature()

    def predict_vector(self, c: np.ndarray) -> np.ndarray:
        """$\\operatorname{softmax}(-\\hat g_i(c) / \\tau)$ for every copy, `(n, k)` (or the
        stack's other `link`). Not validated: the caller passes finite floats."""
        return self._point(self.predicted_costs(c))

    def learn_vector(self, c: np.ndarray, G: np.ndarray) -> None:
        r"""One recursive-least-squares step of every arm model of copy $i$ on row $i$ of the
        costs `G` `(n, k)`, in its own features $\phi_i = \phi_i(c)$: $u_i = A_i^{-1}\phi_i$,
        $\Theta_i \mathrel{+}= (G_i - \Theta_i\phi_i)\, u_i^\top / (1 + \phi_i^\top u_i)$,
        $A_i^{-1} \mathrel{-}= u_i u_i^\top / (1 + \phi_i^\top u_i)$. With a `model` $m$, the
        copies that play it under their own costs (every copy; in a residual stack copy 1)
        fit $G_i - m(c)$. Not validated."""
        self._t += 1
        if self.n == 1 and self._shared and len(c) == self._W.shape[2]:
            # one copy on phi = (1, c), no new column (BoBLO's default): the same operations
            # as below on the one row, with numpy's `.dot` (its products, cheaper to call)
            phi, m = self._row_and_model(c)
            g = G[0] if m is None else G[0] - m
            P = self._P[0]
            if self.forget != 1.0:
                P *= 1.0 / self.forget
            u = P.dot(phi)
            s = 1.0 + float(phi.dot(u))
            v = u / s
            theta = self._theta[0]
            g = g - theta.dot(phi)  # the residuals
            if s > 0.0:  # exactly symmetric, as below
                a = b = u * (1.0 / math.sqrt(s))
            else:
                a, b = u, v
            if self._JIT:  # the two element-wise updates in one pass each, no temporaries
                _stack_kernels.rank_one(theta, g, v, P, a, b)  # (the same floats)
            else:
                theta += g[:, None] * v
                P -= a[:, None] * b
            return
        if self.model is not None:
            G = G - self.model.costs(c) if not self.residual else G.copy()
            if self.residual:
                G[0] -= self.model.costs(c)
        if not self._shared:
            self._learn_features(c, G)
            return
        # no random features: one map, one A^{-1} for every copy
        phi = self.features(c, grow=True)[0]
        P = self._P
        if self.forget != 1.0:  # A <- forget A + phi phi^T: older rounds count less
            P *= 1.0 / self.forget
        u = P[0] @ phi
        s = 1.0 + float(phi @ u)
        v = u / s
        R = G - self._theta @ phi  # (n, k) residuals
        self._theta += R[:, :, None] * v
        if s > 0.0:  # u u^T / s as w w^T, exactly symmetric: with forgetting, an asymmetric
            w = u * (1.0 / math.sqrt(s))  # rounding error grows as forget^-t and, by
            P[0] -= w[:, None] * w  # round ~8,000 at 0.995, wrecks A^{-1}
        else:  # (only for contexts so large that s overflowed)
            P[0] -= u[:, None] * v

    def discount(self, factor: float) -> None:
        r"""Count every past round $1/$`factor` as much: each arm model's $A \leftarrow
        A/\text{factor}$ ($A^{-1}$ times `factor`, the penalty's share too, as forgetting
        discounts it), its weights kept: a drift's reset that keeps the fit as a warm start
        (`onlineboost.BoBLO`'s `drift_discount`); the evidence of structure too
        (`StructureEvidence.discount`). Not validated."""
        self._P *= factor
        if self.structure is not None:
            self.structure.discount(factor)

    def _structure_row(self, c: np.ndarray) -> np.ndarray:
        r"""Copy 1's features $\phi(c) = (1, \psi(c), c)$ for the evidence of structure: on
        the compiled path as BoBLO's compiled pull makes them (`onlineboost._kernels`: the
        same floats whether the pull handed its own over or not), else `features`."""
        if self._JIT and not self._shared and len(c) == self._W.shape[2] and self.n == 1:
            from onlineboost._kernels import _phi  # (BoBLO's round: loaded with it)

            return _phi(self._W[0], self._b[0], np.ascontiguousarray(c, dtype=np.float64),
                        self.kind == "fourier")
        return self.features(c)[0]

    def _structure_width(self) -> int:
        return self._theta.shape[2]

    def _structure_features(self) -> int:
        return self.n_features

    def _learn_features(self, c: np.ndarray, G: np.ndarray) -> None:
        """`learn_vector`'s step for copies with their own random features (G with the model
        taken off): phi and Theta phi from the round's cache (`_phi_costs`, the prediction's
        own floats), then compiled (`_stack_kernels.learn`: the forgetting and the downdate in
        one pass over each A^{-1}) when `_JIT`, else numpy."""
        F, raw = self._phi_costs(c, grow=True)
        self._round = None  # (Theta moves: the raw costs are stale)
        R = G - raw  # (n, k) residuals
        if self._JIT:
            _stack_kernels.learn(self._P, self._theta, F, R, 1.0 / self.forget)
            return
        P = self._P
        if self.forget != 1.0:  # A <- forget A + phi phi^T: older rounds count less
            P *= 1.0 / self.forget
        U = np.einsum("nij,nj->ni", P, F)  # (n, q)
        s = 1.0 + np.einsum("nq,nq->n", F, U)  # (n,)
        V = U / s[:, None]
        self._theta += R[:, :, None] * V[:, None, :]
        if np.all(s > 0.0):  # exactly symmetric (see the shared case)
            W = U / np.sqrt(s)[:, None]
            P -= W[:, :, None] * W[:, None, :]
        else:
            P -= U[:, :, None] * V[:, None, :]


class FeaturePolicyBoostStack(_LearntWeight, VectorStackEntries):
    r"""Copy 1 and copies $2..N$ as two `FeaturePolicyStack`s (`first`, one copy, and `rest`),
    each fitting raw costs (no model, not residual): the stack adds the cumulative sums
    (`residual`) and the owner's `model` (`on_model`) itself, as `FeaturePolicyStack` does.

    Copy 1's point and update are the same arithmetic as those of a one-copy
    `FeaturePolicyStack` with the same parameters, so stage 1 of this stack plays what the
    one-copy learner plays. `fit="residual"`: copy $i \ge 2$ fits
    $(G_1 - m(c)) - \sum_{j < i} \hat g_j(c)$, the predictions taken before the round's updates
    (`"gradient"`: its own row $G_i$). With `learn_weight` (module docstring, "The
    correction's weight") copy 1's correction counts $w\,\hat g_1$ in every stage's sum and in
    the later copies' residual targets; copy 1 itself fits its target as before.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost import sets
    >>> from learners import FeaturePolicy
    >>> stack = FeaturePolicy(sets.Simplex(2), n_features=0, later_features=8,
    ...                       later_fit="residual", residual=True).stack(3)
    >>> type(stack).__name__, stack.n
    ('FeaturePolicyBoostStack', 3)
    >>> c = np.array([0.5, -1.0])
    >>> stack.learn_vector(c, np.array([[1.0, 0.0], [5.0, 5.0], [5.0, 5.0]]))
    >>> stack.predicted_costs(c).round(3)  # stage i: the summed fits of copies 1..i
    array([[0.692, 0.   ],
           [1.609, 0.   ],
           [2.507, 0.   ]])

    (In the first round no copy predicted anything yet, so every copy fitted copy 1's target,
    1 on arm 0; rows 2-3 ignore their own rows of `G`.)
    """

    validates_x = True

    def __init__(self, first: FeaturePolicyStack, rest: FeaturePolicyStack,
                 residual: bool = True, on_model: bool = False, fit: str = "gradient",
                 learn_weight: float | None = None, max_weight: float = 2.0,
                 structure_odds: float | None = None, structure_snr: float = 3.0):
        if fit not in _FITS:
            raise ValueError(f"fit must be 'gradient' or 'residual', got {fit!r}")
        self._init_weight(learn_weight, max_weight, on_model, structure_odds, structure_snr,
                          first.n_features)
        self.first = first
        self.rest = rest
        self.n = first.n + rest.n
        self.decision_set = first.decision_set
        self.residual = bool(residual)
        self.on_model = bool(on_model)
        self.fit = fit
        self.model = None  # with on_model: the owner's loss model, `model.costs(c)` -> (k,)
        self._index = FeatureIndex()
        # the round's cache (c, its bytes, raw costs (n, k), and None or (the model's costs
        # array and its bytes, the predicted costs made with it)) of the last predicted_costs
        self._last = None

    def __getstate__(self) -> dict:  # the cache is no state
        return {**self.__dict__, "_last": None}

    def _raw(self, c: np.ndarray) -> np.ndarray:
        """Every copy's own predicted costs, `(n, k)` (no sums, no model; copy 1's times its
        learnt weight, if it learns one)."""
        last = self._last
        if last is not None and last[0] is c and last[1] == c.tobytes():
            return last[2]
        raw = np.concatenate([self.first.predicted_costs(c), self.rest.predicted_costs(c)])
        if self.learn_weight is not None:
            raw[0] *= self.weight
        self._last = (c, c.tobytes(), raw, None)
        return raw

    def _weighted_parts(self, c: np.ndarray) -> tuple:
        """The model's costs $m(c)$ and copy 1's correction $\\hat g_1(c)$ (unweighted)."""
        return (np.array(self.model.costs(c), dtype=np.float64),
                self.first.predicted_costs(c)[0].copy())

    def _weight_beta(self) -> float:
        return self.first.inverse_temperature()

    def predicted_costs(self, c: np.ndarray) -> np.ndarray:
        """The predicted cost of every arm for every copy, `(n, k)` (vector context). Made
        once per context and round (the play's and the aggregate's call: the cache holds them
        while the model hands back the same costs array, same values, for `c`, i.e. until
        either learns)."""
        costs = self._raw(c)
        m = self.model.costs(c) if self.model is not None else None
        key = None if m is None else m.tobytes()
        last = self._last
        made = last[3]
        if made is not None and made[0] is m and made[1] == key:
            return made[2].copy()
        if self.residual:
            costs = np.cumsum(costs, axis=0)
        if m is not None:  # the owner's model plus the learned corrections
            costs = costs + m
        self._last = last[:3] + ((m, key, costs),)
        return costs.copy()

    @property
    def shift(self):
        """None, or the `(k,)` vector the play subtracts from every stage's predicted costs
        (`FeaturePolicyStack.shift`; set on both stacks)."""
        return self.first.shift

    @shift.setter
    def shift(self, value) -> None:
        self.first.shift = self.rest.shift = value

    @shift.deleter
    def shift(self) -> None:
        del self.first.shift, self.rest.shift

    def predict_vector(self, c: np.ndarray) -> np.ndarray:
        """The softmax of `predicted_costs` for every copy, `(n, k)`; row 1 through copy 1's
        own softmax (the same floats as a one-copy stack). Not validated."""
        first, rest = self.first, self.rest
        if (rest._JIT and not rest._shared and first.n == 1 and first.link == "softmax"
                and rest.link == "softmax" and self.learn_weight is None):
            return self._predict_compiled(c)
        costs = self.predicted_costs(c)
        return np.concatenate([first._point(costs[:1]), rest._point(costs[1:])])

    def _predict_compiled(self, c: np.ndarray) -> np.ndarray:
        """`predict_vector` with copies 2..n over their own random features, softmax play:
        copy 1's raw costs by numpy (the one-copy learner's floats), the rest in one call
        (`_stack_kernels.boost_predict`: the later copies' features and costs, the sums, the
        model, both softmaxes; row 1's law the same floats as `first._point`'s, the others
        numpy's to rounding), the round's caches of both stacks filled."""
        first, rest = self.first, self.rest
        raw0 = first.predicted_costs(c)[0]
        m = self.model.costs(c) if self.model is not None else None
        cc = np.ascontiguousarray(rest._columns(c, False), dtype=np.float64)
        n, k = self.n, raw0.shape[0]
        n1, D, p = rest._W.shape
        F = np.empty((n1, 1 + D + p))
        raw, costs, points = np.empty((3, n, k))  # (one allocation)
        _stack_kernels.boost_predict(raw0, raw0 if m is None else m, m is not None,
                                     self.residual, rest._W, rest._b, cc, rest.kind == "fourier",
                                     rest._theta, first.inverse_temperature(),
                                     rest.inverse_temperature(), F, raw, costs, points,
                                     np.zeros(k) if self.shift is None else self.shift)
        key = c.tobytes()
        rest._round = (c, key, F, raw[1:])
        self._last = (c, key, raw, (m, None if m is None else m.tobytes(), costs))
        return points

    def learn_vector(self, c: np.ndarray, G: np.ndarray) -> None:
        """One step of every copy on its row of `G` `(n, k)` (class docstring). Not
        validated."""
        raw = self._raw(c) if self.fit == "residual" else None
        self._last = None
        m = self.model.costs(c) if self.model is not None else None
        G = G.copy()
        if m is not None:  # the copies that carry the model fit their targets minus it
            if self.residual:
                G[0] -= m
            else:
                G -= m
        if raw is not None:  # copy i >= 2: copy 1's target minus copies 1..i-1's predictions
            G[1:] = G[0] - np.cumsum(raw[:-1], axis=0)
        self.first.learn_vector(c, G[:1])
        self.rest.learn_vector(c, G[1:])

    def discount(self, factor: float) -> None:
        """`FeaturePolicyStack.discount` of every copy (copy 1 and copies 2..N) and of the
        evidence of structure."""
        self.first.discount(factor)
        self.rest.discount(factor)
        if self.structure is not None:
            self.structure.discount(factor)

    def _structure_row(self, c: np.ndarray) -> np.ndarray:
        return self.first._structure_row(c)

    def _structure_width(self) -> int:
        return self.first._structure_width()

    def _structure_features(self) -> int:
        return self.first.n_features


class FeaturePolicy(base.Estimator):
    r"""Weak OCO learner on the simplex: per-arm online ridge over random features, by softmax.

    For the linear loss $a \mapsto \langle g_t, a\rangle$ in context $c_t$ it fits, for every
    arm, the ridge regression of $g_t(a)$ on $\phi(c_t)$ (module docstring),
    $$\hat\theta_a = A_t^{-1} \sum_{s \le t} g_s(a)\, \phi(c_s), \qquad
      A_t = \lambda I + \sum_{s \le t} \phi(c_s) \phi(c_s)^\top,$$
    by recursive least squares (with forgetting factor $\rho$: $A_t = \rho A_{t-1} +
    \phi\phi^\top$), and plays $W(c) = \operatorname{softmax}(-\langle\hat\theta_a,
    \phi(c)\rangle/\tau)_a$. With `n_features=0` it is `RidgePolicy` (same columns up to order).

    Parameters
    ----------
    decision_set
        The simplex $\Delta_k$; `None` means `Simplex(2)`.
    l2
        Ridge penalty $\lambda > 0$.
    temperature
        Softmax temperature $\tau > 0$.
    forget
        Forgetting factor $\rho \in (0, 1]$.
    n_features
        $D \ge 0$ random features.
    kind
        `"fourier"` ($\sqrt2\cos(Wc + b)$, $b \sim U[0, 2\pi)$) or `"relu"`
        ($\sqrt2\max(Wc + b, 0)$, $b \sim N(0, 1)$).
    bandwidth
        $\sigma > 0$: $W$ has i.i.d. $N(0, 1/(\sigma^2 p))$ entries, $p$ the number of context
        columns when the column appears (contexts are expected standardised).
    residual
        Copy $i$ of a stack plays the softmax of the summed cost models of copies $1..i$
        (module docstring); one copy is unaffected.
    on_model
        Play on top of a cost model supplied by the learner's owner (module docstring):
        BoBLO hands its stack the "dr" loss model $m$ (the stack's `model`), and copy $i$
        then plays $\operatorname{softmax}(-(m(c) + \hat g_i(c))/\tau)$ while the copies that
        carry $m$ fit their targets minus $m(c)$. Without a model it changes nothing.
    seed
        Seed of the map; copies of a stack get their own seeds (`stack(n, seeds)`; without
        seeds, copy $i$ gets `seed + i`).
    later_features
        $D' \ge 0$ random features for copies $2..N$ of a stack (`None`: `n_features`, one
        `FeaturePolicyStack`); copy 1 keeps `n_features` (module docstring).
    later_fit
        What copies $2..N$ fit: `"gradient"` (BoOCO's rows, as copy 1) or `"residual"` (the
        residual of copy 1's target after the earlier copies' predictions; module
        docstring). `stack(n)` with $n > 1$ is a `FeaturePolicyBoostStack` when
        `later_features` is given or `later_fit` is `"residual"` (else one `FeaturePolicyStack`,
        as before; with `later_features` equal to `n_features` the two are the same policy, and
        `BoBLO(n_learners>1)`'s compiled round covers the boosted stack).
        `BoBLO(n_learners>1)`'s default learner had `later_features=128` from the eighth to
        the fifteenth session (`onlineboost.boblo.FOURIER_LATER`): linear later copies add no
        policy class to copy 1's (module docstring), these can; on the development streams
        its aggregate never switched to them, on `streams.NonlinearBandit` it did over the
        former linear copy 1 (`BoBLO`'s docstring). Its later copies are neighbours now
        (`later_neighbours`).
    later_neighbours
        `None`, or $k \ge 1$: copies $2..N$ of a stack are k-nearest-neighbour regressors of
        their targets over the last `later_window` contexts, scaled by `later_shrink`
        (`learners.neighbour_stack.NeighbourStack`; `later_features` must be None; the
        softmax at the stack's temperature and annealing). Under bandit feedback the stages
        of copy 1's own class add no decision copy 1 lacks, local ones do (issue 13).
    later_shrink
        $s > 0$: the neighbour copies' factor on their neighbours' mean.
    later_window
        Contexts the neighbour copies keep (the oldest go first).
    link
        How a copy plays its predicted costs $y = m(c) + \hat g(c)$ (module docstring, "Play
        laws"): `"softmax"` (the default; annealed when `t0` is given) or `"igw"`, inverse gap
        weighting with $\gamma_t = \gamma_0\sqrt{k t}$ (`temperature` unused).
    gamma0
        $\gamma_0 > 0$ of `"igw"`.
    t0
        `None` (a fixed temperature) or $t_0 > 0$: the softmax plays at
        $\tau_t = \tau/\sqrt{1 + t/t_0}$, $t$ the copy's learning steps so far (`"softmax"`
        only).
    min_temperature
        `None` (no floor) or $0 < \tau_{\min} \le \tau$, with `t0` only: the annealed softmax
        plays at $\max(\tau/\sqrt{1 + t/t_0}, \tau_{\min})$, so its exploration shrinks to
        that of a fixed softmax at $\tau_{\min}$ instead of to none (module docstring).
    learn_weight
        `None` (the correction counts fully, for good) or $\eta > 0$, with `on_model`: copy 1
        plays $m(c) + w\,\hat g(c)$ and the stack learns the weight $w$ of its correction
        online, by AdaGrad steps of rate $\eta$ on the policy gradient of the played law's
        doubly robust estimated loss, which its owner asks for each round (module docstring,
        "The correction's weight"; 0.2 is the setting measured there). A stack of several
        copies must be a boosted one (`later_neighbours` or `later_features`).
    max_weight
        $w_{\max} \ge 1$: the weight stays in $[0, w_{\max}]$ (it starts at 1).
    structure_odds
        `None` (no evidence of structure), or the prior odds $o > 0$ of structure, with
        `learn_weight` and `n_features` $\ge 1$: copy 1 plays its correction at $w\,\pi_t$,
        $\pi_t$ the posterior probability that the played arms' losses have structure beyond a
        linear model of the context, over the correction's own random features and stumps of
        the context columns (`learners.structure_evidence`; module docstring, "Whether to
        correct at all"), which its owner updates each round. `onlineboost.BoBLO`'s default
        learner: $10^6$.
    structure_snr
        $s > 0$: the structure's prior variance over the noise's in that evidence
        (`BoBLO`'s default learner: 3).

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost import sets
    >>> from learners import FeaturePolicy
    >>> rng = np.random.default_rng(0)
    >>> policy = FeaturePolicy(sets.Simplex(2), l2=1.0, temperature=0.05, n_features=16)
    >>> for _ in range(400):  # arm 0 is cheap when |c| < 1: no linear rule in c says that
    ...     c = float(rng.normal())
    ...     g = np.array([0.2, 0.8]) if abs(c) < 1 else np.array([0.8, 0.2])
    ...     policy.learn_one({"c": c}, g)
    >>> [int(policy.predict_one({"c": c}).argmax()) for c in (-2.0, 0.0, 0.5, 2.0)]
    [1, 0, 0, 1]
    """

    min_temperature = None  # (learners pickled before the annealed softmax's floor)
    learn_weight = None  # (learners pickled before the correction's weight)
    max_weight = 2.0
    structure_odds = None  # (learners pickled before the evidence of structure)
    structure_snr = 3.0

    def __init__(self, decision_set: sets.Simplex | None = None, l2: float = 1.0,
                 temperature: float = 0.1, forget: float = 1.0, n_features: int = 32,
                 kind: str = "fourier", bandwidth: float = 1.0, residual: bool = False,
                 on_model: bool = False, seed: int | None = 0, later_features: int | None = None,
                 later_fit: str = "gradient", link: str = "softmax", gamma0: float = 1.0,
                 t0: float | None = None, min_temperature: float | None = None,
                 later_neighbours: int | None = None, later_shrink: float = 0.5,
                 later_window: int = 2000, learn_weight: float | None = None,
                 max_weight: float = 2.0, structure_odds: float | None = None,
                 structure_snr: float = 3.0):
        check_simplex(decision_set)
        check_real("l2", l2, 0.0, low_open=True)
        check_real("temperature", temperature, 0.0, low_open=True)
        check_real("forget", forget, 0.0, 1.0, low_open=True)
        check_int("n_features", n_features, 0)
        if kind not in _KINDS:
            raise ValueError(f"kind must be 'fourier' or 'relu', got {kind!r}")
        check_real("bandwidth", bandwidth, 0.0, low_open=True)
        check_seed(seed)
        if later_features is not None:
            check_int("later_features", later_features, 0)
        if later_fit not in _FITS:
            raise ValueError(f"later_fit must be 'gradient' or 'residual', got {later_fit!r}")
        if later_neighbours is not None:
            check_int("later_neighbours", later_neighbours, 1)
            if later_features is not None:
                raise ValueError("later_neighbours: copies 2..N are neighbours or random "
                                 "features, not both (later_features must be None)")
            if link != "softmax":
                raise ValueError("later_neighbours: neighbour copies play the softmax only")
        check_real("later_shrink", later_shrink, 0.0, 1e6, low_open=True)
        check_int("later_window", later_window, 1)
        if link not in _LINKS:
            raise ValueError(f"link must be 'softmax' or 'igw', got {link!r}")
        check_real("gamma0", gamma0, 0.0, low_open=True)
        if t0 is not None:
            check_real("t0", t0, 0.0, low_open=True)
            if link != "softmax":
                raise ValueError("t0: an annealing horizon applies to link='softmax' only")
        if min_temperature is not None:
            check_real("min_temperature", min_temperature, 0.0, low_open=True)
            if t0 is None:
                raise ValueError("min_temperature: a floor of the annealed softmax needs t0")
            if min_temperature > temperature:
                raise ValueError(f"min_temperature must be at most temperature ({temperature!r}),"
                                 f" got {min_temperature!r}")
        if learn_weight is not None:
            check_real("learn_weight", learn_weight, 0.0, low_open=True)
            if not on_model:
                raise ValueError("learn_weight: the correction's weight is learnt on the "
                                 "owner's model, which needs on_model=True")
            if link != "softmax":  # (its gradient is the softmax law's)
                raise ValueError("learn_weight: the weight's gradient is the softmax law's, "
                                 f"which needs link='softmax', got {link!r}")
        check_real("max_weight", max_weight, 1.0)
        if structure_odds is not None:
            check_real("structure_odds", structure_odds, 0.0, low_open=True)
            if learn_weight is None:
                raise ValueError("structure_odds: the evidence of structure scales the learnt "
                                 "weight, which needs learn_weight")
            if n_features < 1:
                raise ValueError("structure_odds: the evidence of structure is over the "
                                 "random features, which needs n_features >= 1")
        check_real("structure_snr", structure_snr, 0.0, low_open=True)
        self.decision_set = decision_set
        self.l2 = l2
        self.temperature = temperature
        self.forget = forget
        self.n_features = n_features
        self.kind = kind
        self.bandwidth = bandwidth
        self.residual = residual
        self.on_model = on_model
        self.seed = seed
        self.later_features = later_features
        self.later_fit = later_fit
        self.later_neighbours = later_neighbours
        self.later_shrink = later_shrink
        self.later_window = later_window
        self.link = link
        self.gamma0 = gamma0
        self.t0 = t0
        self.min_temperature = min_temperature
        self.learn_weight = learn_weight
        self.max_weight = max_weight
        self.structure_odds = structure_odds
        self.structure_snr = structure_snr

    @property
    def _stack(self):
        """The learner's own one-copy stack (`predict_one` / `learn_one`), built at first use:
        a booster only calls `stack` on it, so building it eagerly cost every `BoBLO()`'s first
        round two stacks' arrays it never used."""
        stack = self.__dict__.get("_stack")  # (also where pickles of eager learners keep it)
        if stack is None:
            stack = self.__dict__["_stack"] = self.stack(1)
        return stack

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"decision_set": sets.Simplex(4), "l2": 0.5, "temperature": 1.0, "n_features": 8,
               "kind": "relu", "seed": 3}
        yield {"n_features": 0, "later_features": 8, "later_fit": "residual", "residual": True}
        yield {"n_features": 0, "link": "igw", "gamma0": 3.0}
        yield {"n_features": 4, "t0": 100.0}
        yield {"n_features": 0, "temperature": 0.05, "t0": 20.0, "min_temperature": 0.01}
        yield {"n_features": 4, "t0": 50.0, "later_neighbours": 3, "later_fit": "residual",
               "residual": True, "later_window": 50}
        yield {"n_features": 4, "on_model": True, "learn_weight": 0.2, "max_weight": 1.5}
        yield {"n_features": 4, "on_model": True, "learn_weight": 0.2, "structure_odds": 100.0,
               "structure_snr": 1.0}

    def stack(self, n: int, seeds: list | None = None):
        """$n$ fresh copies as one `FeaturePolicyStack` (or `FeaturePolicyBoostStack`, see
        `later_features`), copy $i$ seeded `seeds[i]` (default
        `seed + i`, or unseeded maps when `seed` is None)."""
        seeds = check_stack(n, seeds)
        if all(s is None for s in seeds) and self.seed is not None:
            seeds = [int(self.seed) + i for i in range(int(n))]
        args = (self.decision_set, float(self.l2), float(self.temperature), float(self.forget))
        play = dict(link=self.link, gamma0=float(self.gamma0),
                    t0=None if self.t0 is None else float(self.t0),
                    min_temperature=(None if self.min_temperature is None
                                     else float(self.min_temperature)))
        D = int(self.n_features)
        D2 = D if self.later_features is None else int(self.later_features)
        k = self.later_neighbours
        if n > 1 and k is not None:  # copies 2..n: neighbours (`learners.neighbour_stack`)
            return FeaturePolicyBoostStack(
                FeaturePolicyStack(1, *args, D, self.kind, float(self.bandwidth), False,
                                   seeds[:1], **play),
                NeighbourStack(n - 1, self.decision_set, int(k), float(self.later_shrink),
                               int(self.later_window), float(self.temperature), play["t0"]),
                residual=bool(self.residual), on_model=bool(self.on_model),
                fit=self.later_fit, **self._weight_args())
        if n > 1 and (self.later_features is not None or self.later_fit != "gradient"):
            return FeaturePolicyBoostStack(
                FeaturePolicyStack(1, *args, D, self.kind, float(self.bandwidth), False,
                                   seeds[:1], **play),
                FeaturePolicyStack(n - 1, *args, D2, self.kind, float(self.bandwidth), False,
                                   seeds[1:], **play),
                residual=bool(self.residual), on_model=bool(self.on_model),
                fit=self.later_fit, **self._weight_args())
        if n > 1 and self.learn_weight is not None:
            raise ValueError(f"learn_weight: {n} copies learn copy 1's weight as a boosted "
                             f"stack, which needs later_neighbours or later_features")
        return FeaturePolicyStack(n, *args, D, self.kind, float(self.bandwidth),
                                  bool(self.residual), seeds, bool(self.on_model), **play,
                                  **self._weight_args())

    def _weight_args(self) -> dict:
        """The stack's `learn_weight`, `max_weight` and evidence of structure (none without a
        learnt weight)."""
        if self.learn_weight is None:
            return {}
        out = dict(learn_weight=float(self.learn_weight), max_weight=float(self.max_weight))
        if self.structure_odds is not None:
            out.update(structure_odds=float(self.structure_odds),
                       structure_snr=float(self.structure_snr))
        return out

    def predict_one(self, x: dict) -> np.ndarray:
        """The distribution $W(c)$ over the arms, shape `(k,)`."""
        return self._stack.predict(x)[0]

    def learn_one(self, x: dict, g) -> None:
        """One ridge step on the costs `g` of shape `(k,)`."""
        self._stack.learn(x, check_targets(g, (self._stack.decision_set.dim,), "g")[None, :])
