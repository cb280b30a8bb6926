r"""A nearest-neighbour later stage for BoBLO, switched on by its decision lead (issue 13).

Stages of `BoBLO`'s first copy's class (per-arm ridge over random Fourier features) play no
better than the first copy on the development streams. A *local* stage does (since the
sixteenth session `BoBLO(n_learners > 1)`'s own later copies are nearest neighbours of
BoOCO's estimate, `learners.neighbour_stack`; this class is the two-stage booster that found
it): where the first copy misjudges an arm in some region of the contexts, it does so round
after round, and the rounds that arm was played nearby show it
without any importance weight. `NeighbourBoBLO` boosts `BoBLO()` by one such stage:

* **stage 1** is a `BoBLO` with one copy (the defaults by default). Its predicted costs $y(c)$
  (the loss model plus the copy's correction) are anchored to the loss model $m$ as
  `depth.FitLead` anchors them, $\tilde y = y - \frac1k\sum_a (y_a - m_a)$;
* **stage 2** adds a correction $h(c)$, the `NeighbourCorrection` of the residuals
  $\ell - \tilde y_a(c)$ of the rounds each arm $a$ was played (contexts standardised online),
  and plays $\operatorname{softmax}(-(y + h)(c)\,\beta_t)$ at stage 1's inverse temperature
  $\beta_t$, mixed with stage 1's exploration floor: $(1 - \eta)\,q + \eta/k$. Online gradient
  boosting for the squared loss (Beygelzimer et al. 2015) with a local regressor as the weak
  learner, fitted on the played arm only.

**The decision lead** (which stage to play). Stage 1 plays, exactly as `BoBLO` alone would,
until the evidence says stage 2 decides better. On a round where the two stages' greedy arms
$g_1 = \arg\min y$ and $g_2 = \arg\min (y + h)$ differ and stage 1's arm is the one played, the
loss $\ell$ of $g_1$ is seen; stage 1's own prediction for $g_2$ is $\tilde y_{g_2}$. The lead
sums $Z_t = \ell_t - \operatorname{clip}_{[0,1]}\tilde y_{g_2}$ over those rounds (after
`warm_up` rounds). Given the past and the round's play, $Z_t$ lies in an interval of length 1,
so by Hoeffding's lemma $\exp(\lambda(\Lambda_t - \sum_s \mathbb E Z_s) - n_t\lambda^2/8)$ is a
supermartingale ($n_t$ rounds counted), and Ville's inequality with the rates and union of
`exp4.ville_grid` gives the margin
$$B_t = \min_i \frac{\ln(1/\delta_i) + n_t \lambda_i^2/8}{\lambda_i}.$$
Stage 2 plays from the first round with $\Lambda_t \ge B_t$ on. **Guarantee**: if on the
counted rounds stage 1's arm is, in expectation, no worse than stage 1 predicts stage 2's arm
to be ($\mathbb E[\ell(g_1)] \le \tilde y_{g_2}$), the switch happens with probability at most
$\delta$ (`confidence`). Where stage 1's predictions of the arms it does not play are
calibrated, that is "stage 2's arms are no better than stage 1's where they differ"; where
they are optimistic (too low a loss) the test switches more readily, where pessimistic less.
No regret bound is
claimed for the stage itself, and after the switch stage 2 plays for good (stage 1 keeps
learning from every round).

**Drift.** At each alarm of stage 1's drift detector (`BoBLO`'s `drift_detector`) the
correction starts afresh (its residuals are of the former arms; with none stored stage 2 plays
stage 1's law) and, before the switch, so does the decision lead. On `benchmarks.bandit_drift`'s
switching `NonlinearBandit` (seeds 100-105, scratch; fourteenth session, over `BoBLO()` before
its count bonus) keeping the correction through the alarm gained +0.023 (SE 0.019) over
`BoBLO()`, starting it afresh +0.074 (SE 0.014); on its evaluation seeds 0-4, +0.073 (SE
0.004), and no change on its switching and stationary `LinearBandit` streams (stage 2 never
plays there).

The test sees the decision gain that a comparison of squared errors misses: on digits the
stage's residuals raise the squared error of the played arm's prediction (`FitLead`'s lead is
negative there) while its decisions are better. On the development streams (tuning seeds
100-119, `benchmarks.bandit_neighbours`) it switches on every seed of ImageSegments and digits
and on none of `LinearBandit`, where the neighbours' residuals are noise and stage 2 plays
worse; over `BoBLO()` with its count bonus (fifteenth session) it switches on all 20 of those
seeds of ImageSegments and digits and none of `LinearBandit`, and gains +0.0077 / +0.0078 / 0
(scratch; on the evaluation seeds 0-29, `benchmarks.bandit_wide`, +0.0079 / +0.0060 / 0).

**Compiled round.** After stage 1's compiled pull, the rest of the pull is one compiled call
(`_neighbour_kernels.stage_costs`: stage 1's costs from the features that pull left, the
standardiser, the neighbours, both greedy arms and stage 2's law) and the update stores its row
compiled; any round outside it (stage 1's numpy round, new columns) runs the numpy round, which
gives the same arms (`NeighbourBoBLO._JIT` switches it off; the rewards of the development
streams' seeds 0-4 were the numpy round's, seed for seed).

Examples
--------
>>> from onlineboost import evaluate
>>> from onlineboost.neighbours import NeighbourBoBLO
>>> from streams import LinearBandit
>>> policy = NeighbourBoBLO(seed=0)
>>> result = evaluate.bandit(policy, LinearBandit(seed=0, n_rounds=300), skyline=None)
>>> round(result.average_reward, 4), policy.switched_at  # stage 1 plays throughout
(0.7243, None)
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

import numpy as np
from river import bandit

from . import _neighbour_kernels as _nk
from . import sets
from ._checks import check_int, check_real, check_seed
from ._neighbour_kernels import AVAILABLE
from .boblo import FIXED_WEIGHT_LEARNER, BoBLO
from .depth import DecisionLead
from .loss_model import RidgeMixture

__all__ = ["DecisionLead", "NeighbourBoBLO", "NeighbourCorrection", "stage_law"]


def stage_law(costs: np.ndarray, stage: BoBLO) -> np.ndarray:
    r"""Stage 2's law over the arms for its predicted `costs` $y + h$: the softmax at `stage`'s
    (stage 1's) inverse temperature $\beta_t$, mixed with its exploration floor,
    $(1 - \eta)\operatorname{softmax}(-(y + h)\beta_t) + \eta/k$ (`stage` has played)."""
    eta = stage.exploration  # (the copy's own softmax, as stage 1 plays its costs)
    shift = stage._shift()  # (stage 1's count bonus, `BoBLO(count_bonus=...)`)
    if shift is not None:
        costs = costs - shift
    return (1.0 - eta) * stage._booco.copies._point(costs[None])[0] + eta / len(costs)


_WARM = []


def _warm() -> None:
    """Compile (or load from numba's cache) the kernels once per process, at the first
    `NeighbourBoBLO` built: not inside a stream's first round."""
    if AVAILABLE and not _WARM:
        X, r, n, one = np.zeros((1, 1, 1)), np.zeros((1, 1)), np.ones(1, dtype=np.int64), 1
        v = np.zeros(1)
        _nk.stage_costs(v, np.zeros(2), np.zeros((1, 1, 3, 2)), np.ones(1), 0.0, 0.0,
                        np.zeros((1, 2)), np.zeros((3, 1)), X, r, n, one, one, 0.5, True, 1.0,
                        0.0, np.zeros(1), np.zeros((5, 1)), np.zeros(1), 0.0)  # (and the rest)
        _nk.store(X, r, n, 0, v, 0.0, one)
        _WARM.append(True)


class NeighbourCorrection:
    r"""Per-arm $k$-nearest-neighbour regression of residuals over a window of contexts.

    `predict(z)` gives, for every arm $a$, `shrink` $\cdot \frac1k \sum_{i \in N_a(z)} r_i$ with
    $N_a(z)$ the (at most) $k$ stored contexts of arm $a$ nearest to $z$ (Euclidean; of rows
    at equal distance, those first in the buffer): an arm with fewer than $k$ stored rounds is
    shrunk further toward 0, and an arm never played predicts 0. `learn(a, z, r)` stores
    $(z, r)$ for arm $a$ in a ring buffer of `window` rows (the oldest row goes first).
    Contexts may gain columns (zeros for the rows stored before). Compiled (numba) where
    available, else numpy. Not validated: the owner passes finite floats.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost.neighbours import NeighbourCorrection
    >>> h = NeighbourCorrection(n_arms=2, k=2, shrink=1.0)
    >>> for z, r in [([0.0], 1.0), ([1.0], 0.0), ([5.0], 4.0)]:
    ...     h.learn(0, np.array(z), r)
    >>> h.predict(np.array([0.4]))  # arm 0: (1 + 0) / 2; arm 1: never played
    array([0.5, 0. ])
    """

    #: (a switch for the tests: False runs the numpy pass; off without numba)
    _JIT = AVAILABLE

    def __init__(self, n_arms: int, k: int = 5, shrink: float = 0.5, window: int = 1000):
        self.k, self.shrink, self.window = k, shrink, window
        self._X = np.zeros((n_arms, window, 0))
        self._r = np.zeros((n_arms, window))
        self._n = np.zeros(n_arms, dtype=np.int64)

    def _fit_width(self, p: int) -> None:
        if p > self._X.shape[2]:
            self._X = np.concatenate(
                [self._X, np.zeros(self._X.shape[:2] + (p - self._X.shape[2],))], axis=2)

    def predict(self, z: np.ndarray) -> np.ndarray:
        self._fit_width(len(z))
        if len(z) < self._X.shape[2]:  # (a context without the later columns: zeros there)
            z = np.concatenate([z, np.zeros(self._X.shape[2] - len(z))])
        out = np.zeros(len(self._n))
        if self._JIT:
            _nk.nearest_means(self._X, self._r, self._n, self.window, np.ascontiguousarray(
                z, dtype=np.float64), self.k, out)
            out *= self.shrink
            return out
        for a, n in enumerate(self._n.tolist()):
            m = min(n, self.window)
            if m == 0:
                continue
            d = ((self._X[a, :m] - z) ** 2).sum(axis=1)
            nearest = np.argsort(d, kind="stable")[:self.k]  # (ties: the first stored row)
            out[a] = self.shrink * (self._r[a, :m][nearest].sum() / self.k)
        return out

    def learn(self, a: int, z: np.ndarray, r: float) -> None:
        if len(z) > self._X.shape[2]:
            self._fit_width(len(z))
        _nk.store(self._X, self._r, self._n, a, np.ascontiguousarray(z, dtype=np.float64),
                  float(r), self.window)


class _Standardiser:
    """Running mean and (population) variance per column (Welford); columns may appear later.
    `stats` holds the count, mean and variance of every column as rows."""

    def __init__(self):
        self.stats = np.zeros((3, 0))

    count = property(lambda self: self.stats[0])
    mean = property(lambda self: self.stats[1])
    var = property(lambda self: self.stats[2])

    def __setstate__(self, state: dict) -> None:
        if "stats" not in state:  # (pickled before the statistics were one array)
            state = {"stats": np.array([state["count"], state["mean"], state["var"]],
                                       dtype=float).reshape(3, -1)}
        self.__dict__.update(state)

    def learn_transform(self, x: np.ndarray) -> np.ndarray:
        p = len(x)
        if p > self.stats.shape[1]:
            self.stats = np.concatenate([self.stats, np.zeros((3, p - self.stats.shape[1]))],
                                        axis=1)
        return _nk.standardise(np.ascontiguousarray(x, dtype=np.float64), self.stats,
                               np.empty(p))


class NeighbourBoBLO(bandit.base.ContextualPolicy):
    r"""`BoBLO` boosted by a nearest-neighbour stage, played once its decision lead is
    significant (module docstring).

    A river contextual policy: `pull(arm_ids, context)`, then `update(arm_id, context,
    reward)`. Until the switch it plays stage 1's arms exactly (the same `BoBLO` alone would
    play, same seed, same arms); after it, stage 2's law. The defaults were chosen on the
    development streams' tuning seeds only (`benchmarks/bandit_neighbours.py`): `k` and
    `shrink` on seeds 100-107 with stage 2 played from round 500 (k = 3-5 and shrink 0.3-0.7
    within 0.002 of each other; k = 1 and 20 worse on digits), `warm_up` 250 against 500 on
    seeds 100-119 (level; the sooner switch kept), `window` and `confidence` not tuned.

    Parameters
    ----------
    first
        Stage 1: a `BoBLO` with one copy, the `"dr"` estimator and a weak learner whose stack
        predicts costs and plays a softmax, its correction's weight fixed (not learnt); cloned,
        never used itself. `None`: `BoBLO(FeaturePolicy(**FIXED_WEIGHT_LEARNER), seed=seed)`,
        `BoBLO()` as it was to the twentieth session of issue 13 (before its correction's weight
        was learnt, which this stage does not support); a `BoBLO` with the default learner
        (`learner=None`) is cloned with that learner in its place.
    k
        Neighbours per arm.
    shrink
        Factor on the neighbours' mean residual, in $(0, 1]$.
    window
        Rounds stored per arm (the oldest go first).
    warm_up
        Rounds before the decision lead starts counting (stage 1's early predictions are not
        calibrated yet; the correction learns from the first round on). Not river's `burn_in`
        (forced pulls of every arm), which this policy does not use.
    confidence
        $\delta$: the test's probability of switching under its null hypothesis.
    seed
        Seed of stage 2's draws (and of the default stage 1).

    Attributes
    ----------
    switched_at
        The round (0-based, counting pulls learnt from) from which stage 2 plays, or None.
    lead, margin
        The decision lead $\Lambda_t$ and its margin $B_t$ so far.

    Examples
    --------
    >>> from onlineboost.neighbours import NeighbourBoBLO
    >>> policy = NeighbourBoBLO(seed=1)
    >>> arm = policy.pull(["a", "b"], {"x": 0.5})
    >>> policy.update(arm, {"x": 0.5}, 1.0)
    >>> policy.lead, policy.switched_at
    (0.0, None)
    >>> NeighbourBoBLO(k=0)
    Traceback (most recent call last):
    ...
    ValueError: k must be an integer >= 1, got 0
    """

    #: (a switch for the tests: False runs the numpy round; off without numba)
    _JIT = AVAILABLE

    def __init__(self, first: BoBLO | None = None, k: int = 5, shrink: float = 0.5,
                 window: int = 1000, warm_up: int = 250, confidence: float = 0.05,
                 seed: int | None = None):
        super().__init__(reward_obj=None, burn_in=0)  # (river's: none)
        check_int("k", k, 1)
        check_real("shrink", shrink, 0.0, 1.0, low_open=True)
        check_int("window", window, 1)
        check_int("warm_up", warm_up, 0)
        test = DecisionLead(confidence)  # (validates confidence)
        check_seed(seed)
        if first is not None and not isinstance(first, BoBLO):
            raise ValueError(f"first must be a BoBLO or None, got {first!r}")
        if first is None or first.learner is None:  # (BoBLO's default learner, weight fixed)
            import learners

            fixed = learners.FeaturePolicy(**FIXED_WEIGHT_LEARNER)
            stage = BoBLO(fixed, seed=seed) if first is None else first.clone({"learner": fixed})
        else:
            stage = first.clone()
        proto = stage._make_booco(sets.Simplex(2))
        copies = proto.copies
        if (stage.n_learners != 1 or stage.estimator != "dr" or not BoBLO._predicts_costs(proto)
                or not hasattr(copies, "inverse_temperature")
                or getattr(copies, "link", "softmax") != "softmax"):
            raise ValueError("first must be a BoBLO with n_learners=1, estimator='dr' and a "
                             "weak learner whose stack predicts costs and plays a softmax "
                             f"(the defaults'), got {first!r}")
        if getattr(copies, "learn_weight", None) is not None:
            # stage 2's costs and its compiled round take stage 1's correction at weight 1, and
            # after the switch the played law is stage 2's, not the one the weight's policy
            # gradient is taken for
            raise ValueError("first: a weak learner that learns its correction's weight "
                             "(learn_weight) is not supported as stage 1; use "
                             "FeaturePolicy(**FIXED_WEIGHT_LEARNER), the default's, got "
                             f"{first!r}")
        self.first = first
        self.k, self.shrink, self.window = k, shrink, window
        self.warm_up, self.confidence, self.seed = warm_up, confidence, seed
        self._stage = stage
        if self._JIT:
            _warm()
        self._rng = np.random.default_rng(seed)
        self._test = test
        self._scaler = _Standardiser()
        self._correction = None
        self.switched_at = None
        self._t = 0  # rounds learnt from
        self._drifts = 0  # stage 1's drift alarms seen
        self._pending = None  # (z, anchored costs, g1, g2, arm index) of the last pull

    @property
    def lead(self) -> float:
        """The decision lead $\\Lambda_t$ so far (`DecisionLead`)."""
        return self._test.lead

    @property
    def margin(self) -> float:
        """Its margin $B_t$ for the rounds counted so far."""
        return self._test.margin

    @property
    def stage(self) -> BoBLO:
        """Stage 1 (the clone of `first` that plays)."""
        return self._stage

    def pull(self, arm_ids, context: dict | None = None):
        """Pick an arm for the context (river's `ContextualPolicy.pull`)."""
        stage = self._stage
        arm = stage.pull(arm_ids, context)  # validates; stage 1's own draw
        if self.switched_at is None and self._test.passed:
            self.switched_at = self._t
        play = self.switched_at is not None
        fused = self._pull_compiled(stage, play) if self._JIT else None
        if fused is None:
            fused = self._pull_numpy(stage, play)
        z, anchored, g1, g2, law = fused
        if play:  # stage 2 plays: its draw replaces stage 1's (arm, propensity)
            p, c = law
            i = min(bisect_right(c, self._rng.random() * c[-1]), len(p) - 1)
            pending = stage._pending
            stage._pending = pending[:2] + (i, pending[3], p[i]) + pending[5:]
            stage._arm_probabilities = p
            arm = stage._arms[i]
        self._pending = (z, anchored, g1, g2, stage._arm_index[arm])
        return arm

    _pull = pull

    def _pull_compiled(self, stage: BoBLO, play: bool):
        """`_pull_numpy` in one compiled call (`_neighbour_kernels.stage_costs`) after stage 1's
        compiled pull, whose features of the context it reuses (and so stage 1's costs in the
        floats that pull played); None on a round it does not cover (stage 1's numpy round, a
        loss model other than `RidgeMixture`, new columns, the first pull)."""
        pending, model, h = stage._pending, stage._model, self._correction
        f = pending[3]
        if type(f) is not tuple or type(model) is not RidgeMixture or h is None:
            return None
        x, phi = pending[1], f[0]
        stats = self._scaler.stats
        if not (len(x) == stats.shape[1] == h._X.shape[2]):
            return None
        copies = stage._booco.copies
        z, out = np.empty(len(x)), np.empty((5, len(h._n)))
        g1, g2 = _nk.stage_costs(
            x, phi, model.G, model.weights, model.optimism, model.width0, copies._theta[0],
            stats, h._X, h._r, h._n, h.window, h.k, h.shrink, play,
            copies.inverse_temperature() if play else 1.0, stage.exploration, z, out,
            stage._play_counts(), stage._bonus)
        return z, out[1].tolist(), g1, g2, (out[3].tolist(), out[4].tolist()) if play else None

    def _pull_numpy(self, stage: BoBLO, play: bool):
        """Stage 1's costs $y$ and $\\tilde y$, the standardised context $z$, the greedy arms
        of $y$ and $y + h(z)$ and, if `play`, stage 2's law with its running sums."""
        x = np.asarray(stage._pending[1], dtype=float)
        copies = stage._booco.copies
        costs = np.asarray(copies.predicted_costs(x)[0], dtype=float)
        model = np.asarray(stage._model.costs(x), dtype=float)
        anchored = (costs - float((costs - model).sum()) / len(costs)).tolist()
        if self._correction is None:
            self._correction = NeighbourCorrection(len(costs), self.k, self.shrink,
                                                   self.window)
            if not self._JIT:
                self._correction._JIT = False
        z = self._scaler.learn_transform(x)
        y = costs + self._correction.predict(z)
        law = None
        if play:
            p = stage_law(y, stage).tolist()
            law = p, list(accumulate(p))
        return z, anchored, int(np.argmin(costs)), int(np.argmin(y)), law

    def update(self, arm_id, context, reward) -> None:
        """Learn from the reward of the pulled arm (stage 1's `reward_range`)."""
        stage = self._stage
        stage.update(arm_id, context, reward)  # validates first; nothing here moved yet
        z, anchored, g1, g2, i = self._pending
        if type(reward) is not float:  # (the float stage 1 took)
            reward = stage._reward(reward)
        loss = (stage._high - reward) / (stage._high - stage._low)
        if (self.switched_at is None and self._t >= self.warm_up and g1 != g2 and i == g1):
            self._test.add(loss, anchored[g2])
        self._correction.learn(i, z, loss - anchored[i])
        if len(stage._drifts) != self._drifts:  # stage 1 saw a drift: the residuals are stale
            self._drifts = len(stage._drifts)
            self._correction = None  # (a new one at the next pull)
            if self.switched_at is None:
                self._test = DecisionLead(self.confidence)
        self._pending = None
        self._t += 1
        self._rewards[arm_id].update(reward)
        self._counts[arm_id] += 1
        self._n += 1

    @property
    def arm_probabilities(self) -> np.ndarray | None:
        """The law of the last pull over the arms (stage 2's after the switch)."""
        return self._stage.arm_probabilities

    def __repr__(self) -> str:
        return (f"NeighbourBoBLO(first={self.first!r}, k={self.k}, shrink={self.shrink}, "
                f"window={self.window}, warm_up={self.warm_up}, "
                f"confidence={self.confidence}, seed={self.seed})")

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"k": 2, "warm_up": 0, "confidence": 0.5, "seed": 0}

