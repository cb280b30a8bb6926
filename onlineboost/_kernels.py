r"""BoBLO's fused round as compiled functions (numba), on the numpy path's own state arrays.

`BoBLO()`'s round with its defaults (one copy, the `"dr"` estimate on the simplex, no aggregate,
the weak learner `learners.FeaturePolicy(**DEFAULT_LEARNER)` playing on the loss model
`loss_model.RidgeMixture`, BoBLO's own robust scaler) costs about 60 small numpy calls and a
few hundred Python operations on arrays of 5-65 entries: the per-call overhead, not the
arithmetic, sets its speed, and no numpy formulation gets below it. `pull_round` and
`update_round` are the same steps compiled by numba, transcribed in the same order from

* `_contexts.ContextVectors.read` / `commit` on the usual round (the keys of the last round,
  every column past the warm-up): the range check of the values (`_contexts.MAX_ABS`) and
  `scaling.learn_transform` (its plain-float twin `learn_transform_floats`): winsorise, learn
  the running mean and variance, standardise, clip; during the scaler's warm-up (its first
  `scaling.WARMUP` values per column) `warm_scale` / `warm_store`: `scaling.learn` then
  `transform` there (the value written into the column's buffer, the buffer's median, MAD,
  band and kept values' mean and variance, `scaling._warm_stats`, with numpy's sort and
  pairwise sums; the columns already past it by the rule after the warm-up);
* `loss_model.RidgeMixture` (`_ContextCache.lower`, `predict`, `_means`, `learn_loss`): the
  weighted per-arm predictions on $\tilde c = (1, c)$, optionally minus `optimism` times the
  weighted width, and, after the round, the prequential reweighting and one
  recursive-least-squares step of the played arm in every model (`pull_round_ridge` /
  `update_round_ridge`: the single-penalty model `loss_model._ArmRidge`, `BoBLO(model_l2=20.0)`);
* `learners.FeaturePolicyStack`'s one-copy path (`predicted_costs`, `_softmax`,
  `learn_vector`): $\operatorname{softmax}(-(m(c) + \Theta\tilde c)/\tau_t)$ (the glue passes
  the learner's `inverse_temperature()`: $1/\tau$, or the annealed $1/\tau_t$ of
  `FeaturePolicy(t0=...)`, floored or not by `min_temperature`, and moves its clock), and the
  ridge step with forgetting on $G - m(c)$ with the exactly symmetric downdate $w w^\top$,
  $w = u/\sqrt s$;
* `BoOCO.iterate_one` ($x^1 = \mu + a (W - \mu)$), `BoBLO._pull_fused` (the law
  $(1 - \eta) x^1 + \eta/d$ and its running sums) and `BoBLO._feedback_fused` (the doubly
  robust estimate), `BoOCO._gradients`' one-copy step (kappa's running maximum of
  $\|\tilde f_t\|$) and `Extension.linear_gradient_row` with the simplex's plain-float
  projection `sets._projection_simplex_row`.

Both work **in place** on the arrays the numpy path keeps (the scaler's statistics, the
mixture's `G` and `weights`, the learner's `_P[0]` and `_theta[0]`), with every parameter
passed in, so the general path, the numpy fused path and these kernels are interchangeable
from one round to the next, and a pickled policy is the same whichever ran. Nothing is written
before every check of the round has passed: each returns status 0, having written nothing but
its scratch outputs, when the round is outside what it covers (shapes the model or the learner
does not know yet, a value not finite or beyond `MAX_ABS`, a variance worn down to 0, a point
outside the simplex, a law or an estimate that is not finite); the caller then runs the numpy
fused path, which handles the case or raises its `ValueError`.

**Tolerance contract.** Element-wise steps (scaling, softmax, the law, the projection, the
mixture's weights) are the numpy path's operations in its order and give the same floats
(`math.exp`, `math.sqrt` and IEEE arithmetic, no fastmath), but for the random features'
cosine, fdlibm's written out (`_cos_scaled`: vectorised, within 1 ulp of the libm cosine numpy
and `math.cos` call, the same float in about 84% of the cases); the dot products sum in four
interleaved partial sums where numpy's BLAS sums in its own order, so the two agree to rounding,
about 1e-15 relative per round. On the development shapes the tests
(`tests/onlineboost/test_boblo_kernel.py`) hold them to 1e-12 relative over full passes fed the
same arms (ImageSegments: over its first 1,000 rounds; its collinear columns are directions the
forgetting learner never sees, where any rounding difference grows as 0.995^-t, as one ulp
added to the numpy path's own state does), and full seeded passes play the same arms.

Compiled at the first call (`cache=True`: later processes load the machine code from
`__pycache__`); without numba `AVAILABLE` is False and BoBLO runs the numpy path.

Examples
--------
>>> import numpy as np
>>> from onlineboost import BoBLO
>>> rng = np.random.default_rng(0)
>>> compiled, plain = BoBLO(seed=0), BoBLO(seed=0)
>>> plain._JIT = False  # (the numpy fused round)
>>> same = True
>>> for t in range(500):
...     c = {f"x{j}": float(v) for j, v in enumerate(rng.normal(size=4))}
...     a, b = compiled.pull([0, 1, 2], c), plain.pull([0, 1, 2], c)
...     same = same and a == b
...     r = float(a == (c["x0"] > 0) + (c["x1"] > 1))
...     compiled.update(a, c, r)
...     plain.update(a, c, r)
>>> compiled._jit, same
(True, True)
>>> compiled.arm_probabilities.round(4)
array([9.993e-01, 3.000e-04, 3.000e-04])
>>> float(np.abs(compiled.arm_probabilities - plain.arm_probabilities).max()) < 1e-12
True
"""

from __future__ import annotations

import math

import numpy as np

try:  # numba is a dependency; without it BoBLO runs its numpy path (the functions stay Python)
    import numba

    AVAILABLE = True

    def _njit(f, **options):
        # `cache=True` needs a writable `__pycache__` beside this file or a user-wide cache
        # directory; where there is neither (a read-only install, no home directory) numba
        # refuses at decoration, so compile per process instead
        try:
            return numba.njit(cache=True, **options)(f)
        except RuntimeError:  # pragma: no cover - "cannot cache function ...: no locator"
            return numba.njit(**options)(f)

    def _njit_sum(f):
        # sums that may be reassociated (vectorised), nothing else: the flag of
        # `learners._stack_kernels`, whose sums the features' kernels repeat
        return _njit(f, fastmath={"reassoc"})
except ImportError:  # pragma: no cover - exercised only where numba is missing
    AVAILABLE = False

    def _njit(f):
        return f

    _njit_sum = _njit

from . import scaling, sets
from ._contexts import MAX_ABS
from .loss_model import RidgeMixture, _ArmRidge

__all__ = ["AVAILABLE", "Lane", "covers", "pull", "pull_lane", "pull_round", "pull_round_features",
           "pull_round_ridge", "pull_round_ridge_features", "update", "update_round",
           "update_lane", "update_round_features", "update_round_ridge",
           "update_round_ridge_features",
           "subtract_count_bonus", "warm_scale", "warm_store"]


_NONE = np.empty(0)  # (the scaler's statistics for a reader that does not scale)
# the value types `pull` converts itself (`np.fromiter`, exactly as `_contexts._values` does;
# bools as 0 / 1); any other (str, None, Decimal, ...) goes to the reader, which accepts or
# names it
_TYPES = frozenset({float, int, np.float64, np.float32, np.int64, np.int32, bool, np.bool_})


# -- the glue: the state arrays of each layer in, the round's results out ---------------------
# (this module transcribes those layers' internals, so it reads their private arrays: BoBLO
# itself only calls `covers`, `pull` and `update`)


def covers(booco, model) -> bool:
    r"""Whether the kernels cover a fused round (`BoBLO._fusable`) of `booco` (BoBLO's BoOCO,
    one copy) with the loss model `model`: the weak learner is one `FeaturePolicyStack` copy
    with no random features (or with its own random Fourier or ReLU
    features: the `*_features` kernels) playing the softmax (fixed, or
    annealed with `t0`, floored or not by `min_temperature`: the kernel takes the round's
    $1/\tau_t$) on `model`, a
    `RidgeMixture` (any penalties, optimism and its width, rate) or one penalty's
    `loss_model._ArmRidge`, on a plain `Simplex` whose one-copy point
    $x^1 = \mu + a (W - \mu)$ stays in it ($0 < a \le 1$), the linear loss with unit
    gradient scales; a copy that learns its correction's weight (`learn_weight`) with features
    of its own. Rounds outside what the kernels cover (the first, new columns, bad input,
    non-finite values) still take the numpy fused path, round by round."""
    from learners import FeaturePolicyStack  # (learners imports onlineboost)

    copies, one = booco.copies, booco._chain_one
    return (AVAILABLE and type(model) in (RidgeMixture, _ArmRidge)
            and type(copies) is FeaturePolicyStack
            and copies.n == 1 and copies.model is model
            and (copies._shared or copies.kind in ("fourier", "relu"))
            and copies.link == "softmax"  # (the softmax, fixed or annealed; not "igw")
            # (a learnt weight of the correction: the features kernels only)
            and (copies.learn_weight is None or not copies._shared)
            and type(booco.decision_set) is sets.Simplex and one is not None
            and 0.0 < one[0] <= 1.0 and booco._linear and booco._unit_scale
            and not booco._mu_zero)


class Lane:
    r"""The arguments of the default configuration's compiled round (one copy with its own
    random features on a `RidgeMixture`: `pull_round_features`, `update_round_features`) that
    stay put from round to round, gathered once: the state arrays' views, the constants, and
    two buffers for the law (returned as lists, so reused). `BoBLO` keeps one (`lane`) and
    `pull` / `update` take it, after `fits` checked that none of those arrays was replaced (a
    new column, the numpy round, a copy unpickled: they rebuild the lane). The same calls
    with the same numbers: only the Python around them is shorter."""

    __slots__ = ("booco", "copies", "model", "G", "weights", "theta", "P", "exploration",
                 "head", "tail", "mid", "p", "c", "cum", "loss", "r", "beta", "wstate",
                 "pull_call", "update_call", "anneal")

    def __init__(self, booco, model, exploration: float):
        copies, mu = booco.copies, booco._mu
        d = len(mu)
        self.booco, self.copies, self.model = booco, copies, model
        self.G, self.weights = model.G, model.weights
        self.theta, self.P = copies._theta, copies._P
        self.exploration = exploration
        fourier = copies.kind == "fourier"
        W, b, theta = copies._W[0], copies._b[0], copies._theta[0]
        self.head = (scaling.K, scaling.CLIP, MAX_ABS, model.G, model.weights, model.optimism,
                     model.width0, W, b, fourier, theta)
        self.tail = (booco._chain_one[0], mu, 1.0 - exploration, exploration / d)
        self.mid = (model.rate, model.optimism, model.width0, W, b, fourier, copies._P[0],
                    theta, 1.0 / copies.forget, mu, float(booco._ext.delta))
        self.p, self.c = np.empty(d), np.empty(d)
        self.r = theta.shape[1]
        self.loss = model.loss  # (the list `cum` was last written to: `cum` holds its values)
        self.cum = np.array(model.loss)
        # a learnt weight's state buffer (the weight and its sum refilled each round, the rate
        # and the cap constant) and the steady pull's $1/\tau_t$ (`pull_lane`), for its update
        rate = getattr(copies, "learn_weight", None)
        self.wstate = (_NO_WEIGHT if rate is None
                       else np.array([1.0, 0.0, float(rate), float(copies.max_weight)]))
        self.beta = None  # (None: the last pull's law is not in `p`)
        # the two kernels as the steady round calls them: numba's dispatcher for the first
        # call, then the compiled overload it picked (`_entry`)
        self.pull_call, self.update_call = pull_round_features, update_round_features
        # the annealed law's constants ($1/\tau$, $t_0$) for `inverse_temperature`'s own
        # floats at the copy's clock, without its call; None: another law, call it
        self.anneal = ((copies._beta, copies.t0)
                       if copies.t0 is not None and copies.min_temperature is None else None)

    @staticmethod
    def of(booco, model, exploration: float):
        """The lane of a configuration `covers` with one copy of its own random features on a
        `RidgeMixture`; else None (the other configurations call their kernels directly)."""
        copies = booco.copies
        if copies._shared or type(model) is not RidgeMixture:
            return None
        return Lane(booco, model, exploration)

    def fits(self, booco, model, exploration: float) -> bool:
        """Whether the lane's arrays are still the ones the round would gather."""
        copies = booco._copies  # (`BoOCO.copies`, without its property's call)
        return (self.booco is booco and self.model is model and self.copies is copies
                and self.G is model.G and self.weights is model.weights
                and self.theta is copies._theta and self.P is copies._P
                and self.exploration == exploration)


def _entry(kernel, args: tuple):
    """The compiled overload of the numba function `kernel` for the types of `args`: its
    entry point, which unboxes each argument by the overload's types without numba's
    dispatch (it types every argument anew on each call: about half of a call's cost on the
    lane's 26-30 arguments). The entry point checks no argument (an array of another dtype,
    rank or layout would be read as if it had the overload's), so the lane takes it only for
    calls whose every argument keeps its type by construction: its own arrays and constants,
    the state arrays `Lane.fits` checks, fresh float64 vectors, Python floats, ints and bools.
    `kernel` itself where there is no such overload (numba missing: a Python function).
    Called right after numba's dispatcher took `args`: where `kernel` has one overload, that
    is the one it took (typing the arguments in Python costs about 100 us)."""
    try:
        overloads = kernel.overloads
        if len(overloads) == 1:
            return next(iter(overloads.values())).entry_point
        return overloads[tuple(map(kernel.typeof_pyval, args))].entry_point
    except (AttributeError, KeyError):
        return kernel


def _floats(context: dict, n: int):
    """The `n` values of `context` as a float array, where they are all of the types `_TYPES`
    (`np.fromiter`, as `_contexts._values` converts them); else None (others, and ints beyond
    the float range: the reader's own step checks and names them)."""
    vals = context.values()
    if not _TYPES.issuperset(map(type, vals)):
        return None
    try:
        return np.fromiter(vals, np.float64, n)
    except OverflowError:  # an int beyond the float range
        return None


def pull(reader, booco, model, context, exploration: float, counts=None, alpha: float = 0.0,
         lane: Lane | None = None):
    """`BoBLO._pull_fused` up to the draw, compiled (`pull_round`), on the usual round: a dict
    with the keys of the last round, in the same order, of floats and ints (numpy's too), the
    model and the learner knowing every column (the scaler, `reader`, a `ContextVectors`, in
    its warm-up: `_pull_warm`). Returns `(law, its running sums, x, phi)` (two lists of floats,
    the context vector and, for a copy with features of its own, its features of `x`, which
    `update` reuses; else None), the scaler's step stored; or None, nothing moved, for the
    numpy path to play the round. `counts`, `alpha`: the arms' play counts and the count
    bonus's scale (`subtract_count_bonus`; None, 0: none). `lane`: the configuration's `Lane`,
    if it has one and it `fits`."""
    if counts is None:
        counts = _NONE
    if lane is not None:  # (set again below where this pull's law is the lane's)
        lane.beta = None
    if context is None:
        context = {}
    if type(context) is not dict or reader._idx is not None:
        return None
    keys = tuple(context)
    if keys != reader._keys:
        return None
    scale = reader.scale
    if scale:
        fast = reader._fast
        if fast is None:
            if not (keys and reader._stats.count.min() >= scaling.WARMUP):  # the warm-up
                return _pull_warm(reader, booco, model, context, exploration, counts, alpha)
            # past it (its last round was the one before): `read` would take its fused step,
            # `learn_transform`, whose numbers are the kernel's
            fast = reader._fast = True
        if fast is not True:  # the plain-float statistics as arrays, for good (same values)
            reader._stats, reader._fast = reader._current_stats(), True
        st = reader._stats
        count, mean, var, dev, ready = st.count, st.mean, st.var, st.dev, st.ready
    else:
        count = mean = var = dev = _NONE
        ready = False
    v = _floats(context, len(keys))
    if v is None:
        return None
    if lane is None:
        status, z, p, c, phi = _round_law(booco, model, v, scale, count, mean, var, dev, ready,
                                          exploration, counts, alpha)
    else:  # (`_round_law`'s first branch, its constant arguments gathered once)
        z, p, c, phi = np.empty(len(v)), lane.p, lane.c, np.empty(lane.r)
        copies = lane.copies
        beta = copies.inverse_temperature()
        status = pull_round_features(v, scale, count, mean, var, dev, ready, *lane.head,
                                     copies.weight, beta, *lane.tail, z, p, c, phi, counts,
                                     alpha)
        lane.beta = beta if status else None  # (as `pull_lane`: its update's too)
    if not status:
        return None
    if scale:  # (`ContextVectors.commit`: the kernel stored the statistics)
        st.ready = status == 2
        reader._next = None
    return p.tolist(), c.tolist(), z, phi


def pull_lane(lane: Lane, reader, context, counts, alpha: float):
    """`pull` on the steady round only, through `lane` (which the caller found to `fit`): a
    dict with the last round's keys of plain numbers, the scaler past its warm-up with its
    statistics as arrays. Returns `(x, phi)`, the law and its running sums left in `lane.p`
    and `lane.c`, the scaler's step stored; or None, nothing moved, for `pull` to take the
    round (which covers every other case, or hands it to the numpy path)."""
    if (type(context) is not dict or reader._fast is not True or reader._idx is not None
            or not reader.scale):
        return None
    keys = tuple(context)
    if keys != reader._keys:
        return None
    vals = context.values()  # (`_floats`, inlined: every round)
    if not _TYPES.issuperset(map(type, vals)):
        return None
    try:
        v = np.fromiter(vals, np.float64, len(keys))
    except OverflowError:
        return None
    st = reader._stats
    z, phi = np.empty(len(keys)), np.empty(lane.r)
    copies, anneal = lane.copies, lane.anneal
    beta = (copies.inverse_temperature() if anneal is None  # (its floats, inlined)
            else anneal[0] * math.sqrt(1.0 + copies._t / anneal[1]))
    args = (v, True, st.count, st.mean, st.var, st.dev, st.ready, *lane.head, copies.weight,
            beta, *lane.tail, z, lane.p, lane.c, phi, counts, alpha)
    call = lane.pull_call
    status = call(*args)
    if call is pull_round_features:  # (the lane's first call: its overload from now on)
        lane.pull_call = _entry(call, args)
    lane.beta = beta if status else None  # (the round's 1/tau, which its update reuses)
    if not status:
        return None
    st.ready = status == 2  # (`ContextVectors.commit`: the kernel stored the statistics)
    reader._next = None
    return z, phi


def _round_law(booco, model, v, scale, count, mean, var, dev, ready, exploration: float,
               counts, alpha: float):
    """`pull_round` (or `pull_round_ridge`) on the context values `v`: `(status, z, p, c, phi)`,
    `phi` the copy's features of the round (a copy with features of its own; else None)."""
    copies, mu = booco.copies, booco._mu
    d = len(mu)  # (the simplex's dimension: `mu` is its centroid)
    z, p, c = np.empty(len(v)), np.empty(d), np.empty(d)
    beta = copies.inverse_temperature()
    phi = None
    if not copies._shared:
        phi = np.empty(copies._theta.shape[2])
    if not copies._shared and type(model) is RidgeMixture:  # one copy, its own features
        status = pull_round_features(
            v, scale, count, mean, var, dev, ready, scaling.K, scaling.CLIP, MAX_ABS, model.G,
            model.weights, model.optimism, model.width0, copies._W[0], copies._b[0],
            copies.kind == "fourier", copies._theta[0], copies.weight, beta,
            booco._chain_one[0], mu, 1.0 - exploration, exploration / d, z, p, c, phi, counts,
            alpha)
    elif not copies._shared:  # (on a single-penalty `loss_model._ArmRidge`)
        status = pull_round_ridge_features(
            v, scale, count, mean, var, dev, ready, scaling.K, scaling.CLIP, MAX_ABS, model.P,
            model.theta, model.optimism, model.width0, copies._W[0], copies._b[0],
            copies.kind == "fourier", copies._theta[0], copies.weight, beta,
            booco._chain_one[0], mu, 1.0 - exploration, exploration / d, z, p, c, phi, counts,
            alpha)
    elif type(model) is RidgeMixture:
        status = pull_round(v, scale, count, mean, var, dev, ready, scaling.K, scaling.CLIP,
                            MAX_ABS, model.G, model.weights, model.optimism,
                            model.width0, copies._theta[0],
                            beta, booco._chain_one[0], mu, 1.0 - exploration,
                            exploration / d, z, p, c, counts, alpha)
    else:  # the single-penalty `loss_model._ArmRidge`
        status = pull_round_ridge(v, scale, count, mean, var, dev, ready, scaling.K,
                                  scaling.CLIP, MAX_ABS, model.P, model.theta, model.optimism,
                                  model.width0,
                                  copies._theta[0], beta, booco._chain_one[0], mu,
                                  1.0 - exploration, exploration / d, z, p, c, counts, alpha)
    return status, z, p, c, phi


def _pull_warm(reader, booco, model, context, exploration: float, counts, alpha: float):
    """`pull` during the scaler's warm-up (its first `scaling.WARMUP` values per column, robust
    statistics of a buffer): `warm_scale` stages the scaler's step (`scaling.learn` then
    `transform`, the buffer written, the median, MAD and band of each column still in its
    warm-up), the kernel plays the scaled vector, and the step is stored (`warm_store`) once
    the law is known to be finite, as `BoBLO._commit_law` does: the reader's state is then
    the one `read` + `commit` give. Anything `warm_scale` does not cover (a value of another
    type or out of range, an unexpected shape) takes the reader's own step, which names bad
    input in its `ValueError`, nothing stored. None (nothing stored) for the numpy path to play
    a round the kernel does not cover (the first round: the model and the learner know no
    column yet)."""
    st = reader._stats
    n = len(context)
    buf = st.buf
    if n and not st.ready and buf.shape == (n, scaling.WARMUP) and len(st.count) == n:
        v = _floats(context, n)
        if v is not None:
            z, staged = np.empty(n), np.empty((4, n))
            if warm_scale(v, st.count, st.mean, st.var, st.dev, buf, scaling.K,
                          scaling.K_WARM, scaling.CLIP, MAX_ABS, z, staged):
                status, _, p, c, phi = _round_law(booco, model, z, False, _NONE, _NONE, _NONE,
                                             _NONE, False, exploration, counts, alpha)
                if not status:
                    return None
                warm_store(v, st.count, st.mean, st.var, st.dev, buf, staged)
                reader._next = None  # (`commit`: stored in place, `_fast` still unknown)
                return p.tolist(), c.tolist(), z, phi
    x = reader.read(context)  # (the reader's own step: it validates and names)
    status, _, p, c, phi = _round_law(booco, model, x, False, _NONE, _NONE, _NONE, _NONE, False,
                                 exploration, counts, alpha)
    if not status:
        return None
    reader.commit()
    return p.tolist(), c.tolist(), x, phi


def update(booco, model, x, arm: int, loss: float, prob: float, implicit: float, phi=None,
           lane: Lane | None = None, law=None):
    r"""`BoBLO._feedback_fused` compiled (`update_round`) for the pending round (context vector
    `x`, `arm` drawn with probability `prob`, the observed `loss`, implicit exploration
    `implicit`): the estimate $\tilde f_t$ (a new array), the weak learner, kappa and the
    loss model moved; or None, nothing moved, for the numpy path to learn (or refuse) it.
    `phi`: the copy's features of `x` that `pull` returned with it (None: computed here).
    `lane`: as for `pull`. `law`: the pull's arm law (a copy that learns its correction's
    weight needs it; `lane` holds its own)."""
    if lane is not None and phi is not None:  # (the second branch below, gathered once)
        return update_lane(lane, x, arm, loss, prob, implicit, phi, law)
    copies, ext = booco.copies, booco._ext
    wstate, beta, law = _weight_state(copies, law, len(booco._mu))
    if wstate is None:
        return None  # (a learnt weight without the arms' law: the numpy round learns it)
    running = booco.kappa is None
    cost = np.empty(len(booco._mu))  # (the simplex's dimension: `_mu` is its centroid)
    if not copies._shared and type(model) is not RidgeMixture:  # one copy, its own features,
        status, kappa = update_round_ridge_features(  # on a single-penalty `_ArmRidge`
            x, arm, loss, prob, float(implicit), model.P, model.theta, model.optimism,
            model.width0, copies._W[0], copies._b[0], copies.kind == "fourier", copies._P[0],
            copies._theta[0], 1.0 / copies.forget, booco._mu, float(ext.delta), ext.kappa,
            running, cost, _NONE if phi is None else phi, law, beta, wstate)
        if not status:
            return None
        copies._round = None  # (its cache of the round's features and raw costs: Theta moved)
        _store_weight(copies, wstate)
    elif not copies._shared:  # one copy with its own random features, on a `RidgeMixture`
        cum = np.array(model.loss)
        status, kappa = update_round_features(
            x, arm, loss, prob, float(implicit), model.G, model.weights, cum, model.rate,
            model.optimism, model.width0, copies._W[0], copies._b[0], copies.kind == "fourier",
            copies._P[0], copies._theta[0], 1.0 / copies.forget, booco._mu, float(ext.delta),
            ext.kappa, running, cost, _NONE if phi is None else phi, law, beta, wstate)
        if not status:
            return None
        model.loss = cum.tolist()
        model._theta = None
        copies._round = None  # (its cache of the round's features and raw costs: Theta moved)
        _store_weight(copies, wstate)
    elif type(model) is RidgeMixture:
        cum = np.array(model.loss)
        status, kappa = update_round(
            x, arm, loss, prob, float(implicit), model.G, model.weights, cum, model.rate,
            model.optimism, model.width0, copies._P[0], copies._theta[0],
            copies.forget, booco._mu, float(ext.delta), ext.kappa, running, cost)
        if not status:
            return None
        model.loss = cum.tolist()
        model._theta = None  # (its cache of the mixed weights)
    else:  # the single-penalty `loss_model._ArmRidge`
        status, kappa = update_round_ridge(
            x, arm, loss, prob, float(implicit), model.P, model.theta, model.optimism,
            model.width0, copies._P[0], copies._theta[0], copies.forget, booco._mu,
            float(ext.delta), ext.kappa, running, cost)
        if not status:
            return None
    return _learnt(booco, model, copies, running, kappa, cost)


#: the weight's state of a copy that does not learn it (rate 0: never read past it, never
#: written)
_NO_WEIGHT = np.array([1.0, 0.0, 0.0, 1.0])


def _weight_state(copies, law, k: int) -> tuple:
    """`(wstate, beta, law)` for the update kernels: the copy's (weight, sum of squared
    gradients, rate, cap), its round's $1/\\tau_t$ and the pull's arm law `law` as an array;
    `(_NO_WEIGHT, 0, _NONE)` for a copy without a learnt weight; `(None, 0, _NONE)` for one
    with a learnt weight but no law of its `k` arms (the numpy round then learns the round)."""
    rate = getattr(copies, "learn_weight", None)
    if rate is None:
        return _NO_WEIGHT, 0.0, _NONE
    if law is None or len(law) != k:
        return None, 0.0, _NONE
    return (np.array([copies.weight, copies._weight_sq, rate, copies.max_weight]),
            copies.inverse_temperature(), np.asarray(law, dtype=np.float64))


def _store_weight(copies, wstate) -> None:
    """The learnt weight's state back on the copy, once its kernel has learnt the round."""
    if wstate is not _NO_WEIGHT:
        copies.weight, copies._weight_sq = float(wstate[0]), float(wstate[1])


def _learnt(booco, model, copies, running: bool, kappa, cost):
    """Every update's last steps, once its kernel has learnt the round: the caches that the
    round made stale dropped, the learner's clock stepped, kappa stored; returns `cost`."""
    model._last = None  # (its cache of the last context: the model moved)
    copies._t += 1  # (the learner's clock, as its `learn_vector` keeps it)
    if running:
        booco._ext.kappa = booco._kappa = kappa
    return cost


def update_lane(lane: Lane, x, arm: int, loss: float, prob: float, implicit: float, phi,
                law=None, steady: bool = False):
    """`update`'s branch for one copy with its own random features on a `RidgeMixture`, its
    constant arguments from `lane` (the cumulative losses kept as the lane's array while
    the model's list is the one it last wrote). `BoBLO` calls it directly on a round whose
    pull found `lane` to fit (nothing replaces those arrays between a pull and its
    update). `law`: the pull's arm law (a copy that learns its correction's weight needs
    it). `steady`: the round's pull went through the lane; where it ran the lane's kernel
    (`lane.beta` set: not the scaler's warm-up) its law is in `lane.p` and its $1/\tau_t$ in
    `lane.beta`, and `law` is not read."""
    booco, model, copies = lane.booco, lane.model, lane.copies
    ext = booco._ext
    running = booco.kappa is None
    cost = np.empty(len(lane.p))
    cum = lane.cum if model.loss is lane.loss else np.array(model.loss)
    wstate = lane.wstate
    # the lane's own call (`_entry`) on its steady rounds: their arguments' types are the lane's
    own = steady and (wstate is _NO_WEIGHT or lane.beta is not None)
    if wstate is _NO_WEIGHT:  # (no learnt weight, no call for it)
        beta, law = 0.0, _NONE
    elif own:  # (the pull's law and 1/tau; the state refilled)
        beta, law = lane.beta, lane.p
        wstate[0], wstate[1] = copies.weight, copies._weight_sq
    else:
        wstate, beta, law = _weight_state(copies, law, len(lane.p))
        if wstate is None:
            return None  # (a learnt weight without the arms' law: the numpy round learns it)
    call = lane.update_call if own else update_round_features
    args = (x, arm, loss, prob, float(implicit), lane.G, lane.weights, cum, *lane.mid,
            ext.kappa, running, cost, phi, law, beta, wstate)
    status, kappa = call(*args)
    if own and call is update_round_features:  # (the lane's first steady call)
        lane.update_call = _entry(call, args)
    if not status:  # (refused before anything was written)
        return None
    model.loss = lane.loss = cum.tolist()
    lane.cum = cum
    model._theta = None
    copies._round = None  # (its cache of the round's features and raw costs: Theta moved)
    if wstate is not _NO_WEIGHT:  # (`_store_weight`, then `_learnt`, inlined: every round)
        copies.weight, copies._weight_sq = float(wstate[0]), float(wstate[1])
    model._last = None
    copies._t += 1
    if running:
        ext.kappa = booco._kappa = kappa
    return cost


@_njit
def _dot(a, b):
    r"""$\sum_i a_i b_i$ in four interleaved partial sums (i mod 4), added pairwise at the end:
    independent sums the processor overlaps (BLAS sums in its own order too)."""
    n = a.shape[0]
    t0 = t1 = t2 = t3 = 0.0
    m = n - n % 4
    for i in range(0, m, 4):
        t0 += a[i] * b[i]
        t1 += a[i + 1] * b[i + 1]
        t2 += a[i + 2] * b[i + 2]
        t3 += a[i + 3] * b[i + 3]
    for i in range(m, n):
        t0 += a[i] * b[i]
    return (t0 + t1) + (t2 + t3)


@_njit
def _model_costs(G, weights, optimism, width0, ce, out):
    r"""`RidgeMixture`'s costs of the row `ce`: $\sum_j w_j \hat\theta^{(j)}_a\cdot\tilde c$
    per arm, minus `optimism` $\sqrt{\max(\sum_j w_j \tilde c^\top P^{(j)}_a \tilde c, 0) + s_0}$
    ($s_0$ = `width0`)."""
    k, M, q = G.shape[0], G.shape[1], G.shape[3]
    for a in range(k):
        acc = 0.0
        for j in range(M):
            acc += weights[j] * _dot(G[a, j, q], ce)
        if optimism != 0.0:
            wid = 0.0
            for j in range(M):
                s = 0.0
                for i in range(q):
                    s += _dot(G[a, j, i], ce) * ce[i]
                wid += weights[j] * s
            acc = acc - optimism * math.sqrt(max(wid, 0.0) + width0)
        out[a] = acc


@_njit
def _ridge_costs(P, T, optimism, width0, ce, out):
    r"""`loss_model._ArmRidge`'s costs of the row `ce`: $\hat\theta_a\cdot\tilde c$ per arm, minus
    `optimism` $\sqrt{\max(\tilde c^\top P_a \tilde c, 0) + s_0}$ ($s_0$ = `width0`)."""
    k, q = T.shape[0], T.shape[1]
    for a in range(k):
        acc = _dot(T[a], ce)
        if optimism != 0.0:
            s = 0.0
            for i in range(q):
                s += _dot(P[a, i], ce) * ce[i]
            acc = acc - optimism * math.sqrt(max(s, 0.0) + width0)
        out[a] = acc


@_njit
def _scale(v, scale, count, mean, var, dev, ready, band, clip, max_abs, z, st):
    """The range check of the values `v` and, if `scale`, `scaling.learn_transform` entry by
    entry (`learn_transform_floats`): the vector into `z`, the statistics' next values staged
    in `st` (count, mean, var, dev rows), nothing stored. Returns 0 (not covered: the numpy
    path decides), else 1 + the statistics' next `ready` flag."""
    n = v.shape[0]
    for j in range(n):  # `_values`' range check (NaN fails it)
        if not (-max_abs <= v[j] <= max_abs):
            return 0
    if not scale:
        for j in range(n):
            z[j] = v[j]
        return 1
    rdy = ready
    if not rdy:
        rdy = True
        for j in range(n):
            if not var[j] > 0.0:
                rdy = False
                break
    for j in range(n):
        x = v[j]
        cnt = count[j] + 1.0
        m = mean[j]
        s2 = var[j]
        dv = dev[j]
        if rdy or s2 > 0.0:
            h = math.sqrt(s2) * band
        else:
            h = dv
        cc = m - h
        if not x < cc:
            cc = x
        hi = m + h
        if cc > hi:
            cc = hi
        d0 = cc - m
        mm = d0 / cnt + m
        ss = (d0 * (cc - mm) - s2) / cnt + s2
        if rdy:
            if not ss > 0.0:  # worn down to 0: numpy divides by 0 (its path decides)
                return 0
            zz = (x - mm) / math.sqrt(ss)
        else:
            if ss < 0.0:
                ss = 0.0
            if s2 == 0.0 and x != m:
                dv = abs(x - m)
            zz = (x - mm) / math.sqrt(ss) if ss > 0.0 else 0.0
        if zz < -clip:
            zz = -clip
        if zz > clip:
            zz = clip
        z[j] = zz
        st[0, j] = cnt
        st[1, j] = mm
        st[2, j] = ss
        st[3, j] = dv
    return 2 if rdy else 1


@_njit
def _row(z):
    r"""$\tilde c = (1, z)$."""
    ce = np.empty(z.shape[0] + 1)
    ce[0] = 1.0
    for j in range(z.shape[0]):
        ce[j + 1] = z[j]
    return ce


@_njit
def _law(cost, ce, theta, beta, chain_a, mu, law_a, law_b, p, c, counts, alpha):
    r"""From the model's costs `cost` (overwritten): the learner's softmax of
    $-(m(c) + \Theta\tilde c)/\tau$, $x^1 = \mu + a (W - \mu)$, the law
    $(1 - \eta) x^1 + \eta/d$ into `p` and its running sums into `c`. False: $x^1$ is not in
    the simplex (the numpy path projects) or the law is not finite (it refuses)."""
    k = cost.shape[0]
    for a in range(k):
        cost[a] = _dot(theta[a], ce) + cost[a]
    return _softmax_law(cost, beta, chain_a, mu, law_a, law_b, p, c, counts, alpha)


@_njit
def subtract_count_bonus(cost, counts, alpha):
    r"""`cost` minus the count bonus $b_a = \alpha\sqrt{\ln(1 + \sum_b n_b)/(1 + n_a)}$ of
    the arms' play counts `counts` (in place; nothing where `alpha` is 0): `boblo.count_bonus`'s
    floats."""
    if alpha != 0.0:
        total = 0.0
        for a in range(counts.shape[0]):
            total += counts[a]
        lt = math.log(total + 1.0)
        for a in range(cost.shape[0]):
            cost[a] = cost[a] - alpha * math.sqrt(lt / (counts[a] + 1.0))


@_njit
def _softmax_weights(cost, beta, out):
    r"""The softmax's unnormalised weights $e^{(\min_b y_b - y_a)\beta}$ of the costs `cost` into
    `out` (which may be `cost`), and their sum (left to right)."""
    low = cost[0]
    for a in range(1, cost.shape[0]):
        if cost[a] < low:
            low = cost[a]
    total = 0.0
    for a in range(cost.shape[0]):
        e = math.exp((low - cost[a]) * beta)
        out[a] = e
        total += e
    return total


@_njit
def _softmax_law(cost, beta, chain_a, mu, law_a, law_b, p, c, counts, alpha):
    r"""`_law` from the learner's total costs `cost` (overwritten): less the count bonus
    (`subtract_count_bonus`), the softmax at $1/\tau$ = `beta`, $x^1$, the law and its running
    sums."""
    subtract_count_bonus(cost, counts, alpha)
    k = cost.shape[0]
    total = _softmax_weights(cost, beta, cost)
    s = 0.0
    inside = True
    for a in range(k):
        w = mu[a] + chain_a * (cost[a] / total - mu[a])
        s += w
        if not w >= 0.0:
            inside = False
        p[a] = law_a * w + law_b
    if not (s == s and inside):
        return False
    run = 0.0
    for a in range(k):
        run += p[a]
        c[a] = run
    return math.isfinite(run)


@_njit
def _store(status, count, mean, var, dev, st):
    """`ContextVectors.commit`: the staged statistics stored (the deviations only while some
    variance is 0, `status` 1)."""
    for j in range(count.shape[0]):
        count[j] = st[0, j]
        mean[j] = st[1, j]
        var[j] = st[2, j]
        if status == 1:
            dev[j] = st[3, j]


@_njit
def pull_round(v, scale, count, mean, var, dev, ready, band, clip, max_abs, G, weights,
               optimism, width0, theta, beta, chain_a, mu, law_a, law_b, z, p, c, counts, alpha):
    """The fused pull on a `RidgeMixture` (`G`, `weights`): the context's raw values `v` to
    the scaled vector `z`, the law `p` and its running sums `c` (outputs, written whatever the
    status). Returns 0 (nothing stored: the caller runs the numpy path), else 1 + the scaler's
    new `ready` flag, the statistics `count`, `mean`, `var`, `dev` updated in place."""
    n, k = v.shape[0], theta.shape[0]
    q = n + 1
    if (n == 0 or G.shape[3] != q or G.shape[2] != q + 1 or G.shape[0] != k
            or theta.shape[1] != q or mu.shape[0] != k):
        return 0
    st = np.empty((4, n))
    status = _scale(v, scale, count, mean, var, dev, ready, band, clip, max_abs, z, st)
    if not status:
        return 0
    ce = _row(z)
    cost = np.empty(k)
    _model_costs(G, weights, optimism, width0, ce, cost)
    if not _law(cost, ce, theta, beta, chain_a, mu, law_a, law_b, p, c, counts, alpha):
        return 0
    if scale:  # the round is past its last refusal: the scaler's step is stored
        _store(status, count, mean, var, dev, st)
    return status


@_njit
def pull_round_ridge(v, scale, count, mean, var, dev, ready, band, clip, max_abs, Pm, Tm,
                     optimism, width0, theta, beta, chain_a, mu, law_a, law_b, z, p, c, counts,
                     alpha):
    """`pull_round` on a single-penalty `loss_model._ArmRidge` (`Pm`, `Tm`: its `P`, `theta`)."""
    n, k = v.shape[0], theta.shape[0]
    q = n + 1
    if (n == 0 or Tm.shape[1] != q or Pm.shape[2] != q or Tm.shape[0] != k
            or theta.shape[1] != q or mu.shape[0] != k):
        return 0
    st = np.empty((4, n))
    status = _scale(v, scale, count, mean, var, dev, ready, band, clip, max_abs, z, st)
    if not status:
        return 0
    ce = _row(z)
    cost = np.empty(k)
    _ridge_costs(Pm, Tm, optimism, width0, ce, cost)
    if not _law(cost, ce, theta, beta, chain_a, mu, law_a, law_b, p, c, counts, alpha):
        return 0
    if scale:
        _store(status, count, mean, var, dev, st)
    return status


@_njit
def _project_row(z, out):
    """`sets._projection_simplex_row(z, 1.0)` into `out`."""
    d = z.shape[0]
    m = z[0]
    for a in range(1, d):
        if z[a] > m:
            m = z[a]
    srt = np.empty(d)  # z sorted decreasingly (insertion: a few entries, and cheap to compile)
    for a in range(d):
        x = z[a]
        b = a
        while b > 0 and srt[b - 1] < x:
            srt[b] = srt[b - 1]
            b -= 1
        srt[b] = x
    total, tau = -1.0, 0.0
    for j in range(1, d + 1):
        u = srt[j - 1] - m
        total += u
        t = total / j
        if u <= t:
            break
        tau = t
    free = 0
    for a in range(d):
        w = (z[a] - m) - tau
        out[a] = w if not 0.0 > w else 0.0
        if 0.0 < out[a]:
            free += 1
    if free:
        s = 0.0
        for a in range(d):
            s += out[a]
        r = (1.0 - s) / free
        for a in range(d):
            if 0.0 < out[a]:
                w = out[a] + r
                out[a] = w if not 0.0 > w else 0.0


@_njit
def _estimate(arm, loss, prob, implicit, model, mu, delta, kappa, running, cost, pr):
    r"""The estimate into `cost` from the model's costs `model`; unless it is not finite (then
    `(False, kappa)`, nothing else written), kappa's running maximum (returned) and step 4's
    proximal point at $x^0 = \mu$ into `pr` (the learners' targets are
    $(\mu - $ `pr` $)/\delta$)."""
    k = model.shape[0]
    for a in range(k):
        cost[a] = model[a]
    cost[arm] += (loss - cost[arm]) / (prob + implicit)
    yy = 0.0
    for a in range(k):
        if not math.isfinite(cost[a]):  # refused: the numpy path raises
            return False, kappa
        yy += cost[a] * cost[a]
    # -- past the last refusal: the round is learnt
    if running:  # kappa = max(kappa, |f~|) (`BoOCO._gradients`)
        g_t = math.sqrt(yy)
        if g_t > kappa:
            kappa = g_t
    # step 4 at x^0 = mu: (mu - prox(mu - delta f~)) / delta (`linear_gradient_row`)
    zr = np.empty(k)
    for a in range(k):
        zr[a] = mu[a] - delta * cost[a]
    _project_row(zr, pr)
    dist = 0.0
    for a in range(k):
        r = zr[a] - pr[a]
        dist += r * r
    dist = math.sqrt(dist)
    lam = delta * kappa
    if dist > lam:
        keep = 1.0 - lam / dist
        for a in range(k):
            pr[a] = pr[a] + keep * (zr[a] - pr[a])
    return True, kappa


@_njit
def _learn(ce, arm, loss, prob, implicit, model, P, theta, forget, mu, delta, kappa, running,
           cost):
    r"""The estimate into `cost` from the model's costs `model`; unless it is not finite (then
    `(False, kappa)`, nothing else written), kappa's running maximum (returned), step 4 at
    $x^0 = \mu$ and the weak learner's ridge step, in place (`P`, `theta`)."""
    k, q = theta.shape[0], ce.shape[0]
    pr = np.empty(k)
    ok, kappa = _estimate(arm, loss, prob, implicit, model, mu, delta, kappa, running, cost, pr)
    if not ok:
        return False, kappa
    # the weak learner (one copy on phi = c~): ridge with forgetting on g - m(c)
    if forget != 1.0:
        f = 1.0 / forget
        for i in range(q):
            for j in range(q):
                P[i, j] *= f
    u = np.empty(q)
    for i in range(q):
        u[i] = _dot(P[i], ce)
    s = 1.0 + _dot(ce, u)
    for a in range(k):
        g = (mu[a] - pr[a]) / delta - model[a]
        g = g - _dot(theta[a], ce)
        for i in range(q):
            theta[a, i] += g * (u[i] / s)
    if s > 0.0:  # exactly symmetric: w w^T, w = u / sqrt(s)
        rs = 1.0 / math.sqrt(s)
        for i in range(q):
            u[i] = u[i] * rs
        for i in range(q):
            for j in range(q):
                P[i, j] -= u[i] * u[j]
    else:
        for i in range(q):
            for j in range(q):
                P[i, j] -= u[i] * (u[j] / s)
    return True, kappa


@_njit
def update_round(x, arm, loss, prob, implicit, G, weights, cum, rate, optimism, width0, P,
                 theta, forget, mu, delta, kappa, running, cost):
    """The fused update for the pending round (scaled context `x`, arm `arm` drawn with
    probability `prob`, observed `loss`) on a `RidgeMixture`: the estimate into `cost`, then in
    place the weak learner (`P`, `theta`), kappa's running maximum (returned), the mixture's
    weights and cumulative errors (`weights`, `cum`) and its models (`G`). Returns
    `(status, kappa)`; status 0: nothing but `cost` written (the caller runs the numpy path)."""
    q, k, M = x.shape[0] + 1, theta.shape[0], G.shape[1]
    if (G.shape[3] != q or G.shape[2] != q + 1 or G.shape[0] != k or theta.shape[1] != q
            or P.shape[0] != q or P.shape[1] != q or mu.shape[0] != k or weights.shape[0] != M
            or cum.shape[0] != M):
        return 0, kappa
    ce = _row(x)
    model = np.empty(k)
    _model_costs(G, weights, optimism, width0, ce, model)  # m_t (the play's, the model not moved)
    ok, kappa = _learn(ce, arm, loss, prob, implicit, model, P, theta, forget, mu, delta, kappa,
                       running, cost)
    if not ok:
        return 0, kappa
    _mixture_learn(G, weights, cum, rate, ce, arm, loss)
    return 1, kappa


@_njit
def _mixture_learn(G, weights, cum, rate, ce, arm, loss):
    """`RidgeMixture.learn_loss` of arm `arm`'s `loss` on the row `ce`: score every model
    (its prequential error into `cum`), reweight (`weights`), one RLS step of the arm in every
    model (`G`), in place."""
    q, M = ce.shape[0], G.shape[1]
    gm = np.empty((M, q + 1))
    sm = np.empty(M)
    for j in range(M):
        for i in range(q + 1):
            gm[j, i] = _dot(G[arm, j, i], ce)
        gm[j, q] -= loss  # the residual's negative
        sm[j] = _dot(gm[j, :q], ce)
    low = np.inf
    for j in range(M):
        e = gm[j, q]
        cum[j] = cum[j] + e * e
        if cum[j] < low:
            low = cum[j]
    if low == np.inf:  # every model's error overflowed: uniform
        low = 0.0
        for j in range(M):
            cum[j] = 0.0
    total = 0.0
    for j in range(M):
        w = math.exp(rate * (low - cum[j]))
        weights[j] = w
        total += w
    for j in range(M):
        weights[j] = weights[j] / total
    for j in range(M):
        cj = 1.0 / (1.0 + sm[j])
        for i in range(q + 1):
            h = gm[j, i] * cj
            for m in range(q):
                G[arm, j, i, m] -= h * gm[j, m]


@_njit
def update_round_ridge(x, arm, loss, prob, implicit, Pm, Tm, optimism, width0, P, theta,
                       forget, mu, delta, kappa, running, cost):
    """`update_round` on a single-penalty `loss_model._ArmRidge` (`Pm`, `Tm`: its `P`, `theta`):
    its learning step is `_ArmRidge.learn_loss`."""
    q, k = x.shape[0] + 1, theta.shape[0]
    if (Tm.shape[1] != q or Pm.shape[2] != q or Tm.shape[0] != k or theta.shape[1] != q
            or P.shape[0] != q or P.shape[1] != q or mu.shape[0] != k):
        return 0, kappa
    ce = _row(x)
    model = np.empty(k)
    _ridge_costs(Pm, Tm, optimism, width0, ce, model)
    ok, kappa = _learn(ce, arm, loss, prob, implicit, model, P, theta, forget, mu, delta, kappa,
                       running, cost)
    if not ok:
        return 0, kappa
    _ridge_learn(Pm, Tm, ce, arm, loss)
    return 1, kappa


@_njit
def _ridge_learn(Pm, Tm, ce, arm, loss):
    """`_ArmRidge.learn_loss`: one recursive-least-squares step of arm `arm` on the row `ce`,
    in place (`Pm`, `Tm`)."""
    q = ce.shape[0]
    Pa = Pm[arm]
    u = np.empty(q)
    for i in range(q):
        u[i] = _dot(Pa[i], ce)
    s = 1.0 + _dot(ce, u)
    step = (loss - _dot(Tm[arm], ce)) / s
    for i in range(q):
        Tm[arm, i] += step * u[i]
    for i in range(q):
        for j in range(q):
            Pa[i, j] -= u[i] * (u[j] / s)


# -- the scaler's warm-up (`scaling.learn` + `transform` while some column is in its warm-up) --


@_njit
def _pairwise(a, n):
    """numpy's sum of the contiguous `a[:n]` (`np.add.reduce`'s pairwise order, `n` <= 128:
    eight accumulators over the first multiple of 8, added as a tree, then the rest in turn;
    fewer than 8 values in turn)."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[0], a[1], a[2], a[3]
    r4, r5, r6, r7 = a[4], a[5], a[6], a[7]
    m = n - n % 8
    for i in range(8, m, 8):
        r0 += a[i]
        r1 += a[i + 1]
        r2 += a[i + 2]
        r3 += a[i + 3]
        r4 += a[i + 4]
        r5 += a[i + 5]
        r6 += a[i + 6]
        r7 += a[i + 7]
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    for i in range(m, n):
        res += a[i]
    return res


@_njit
def _sort_nan_last(a):
    """`a` sorted in place, increasing, NaN last (`np.sort`; insertion: at most a few values)."""
    for i in range(1, a.shape[0]):
        x = a[i]
        b = i
        if x == x:
            while b > 0 and not a[b - 1] <= x:  # (NaN before x: moved past)
                a[b] = a[b - 1]
                b -= 1
        a[b] = x


@_njit
def _warm_row(row, n, kw, out):
    """`scaling._warm_stats` of one buffer row `row` (its `n` values, NaN-padded):
    `out[0]`, `out[1]` = the mean and population variance of the values inside the wider of
    median +- `kw` MAD (`kw` = min(k, K_WARM) 1.4826) and [second smallest, second largest];
    fewer than 3 values: the median, 0."""
    W = row.shape[0]
    s = row.copy()
    _sort_nan_last(s)
    med = 0.5 * s[(n - 1) // 2] + 0.5 * s[n // 2]  # (`_middle`)
    a = np.empty(W)
    for i in range(W):
        a[i] = abs(row[i] - med)
    _sort_nan_last(a)
    mad = 0.5 * a[(n - 1) // 2] + 0.5 * a[n // 2]
    if n < 3:
        out[0] = med
        out[1] = 0.0
        return
    h = kw * mad
    lo = med - h
    second = s[min(1, W - 1)]
    if not lo <= second:  # (np.minimum: NaN propagates)
        lo = second
    hi = med + h
    last = s[max(n - 2, 0)]
    if not hi >= last:
        hi = last
    w = np.zeros(W)
    m = 0
    for i in range(W):
        if row[i] >= lo and row[i] <= hi:  # (False for NaN)
            w[i] = row[i]
            m += 1
    m = max(m, 1)
    mean = _pairwise(w, W) / m
    for i in range(W):
        if row[i] >= lo and row[i] <= hi:
            d = w[i] - mean
            w[i] = d * d
        else:
            w[i] = 0.0
    out[0] = mean
    out[1] = _pairwise(w, W) / m


@_njit
def warm_scale(v, count, mean, var, dev, buf, band, band_warm, clip, max_abs, z, st):
    """`scaling.learn` then `scaling.transform` on a round of the scaler's warm-up (some
    `count` below the buffer's width): the values `v` range-checked, each column still in its
    warm-up learning its buffer's robust statistics (`_warm_row`, the value written at its
    count), the others the rule after the warm-up (winsorised to mean +- `band` sd, or +- the
    last deviation while the variance is 0), the standardised vector into `z` and the next
    count, mean, var, dev staged in `st` (4 rows); nothing stored (`warm_store` stores).
    Returns 0 (not covered: a value not finite or beyond `max_abs`, no column in its warm-up,
    shapes that do not match), else 1."""
    n, W = v.shape[0], buf.shape[1]
    if (n == 0 or W > 128 or count.shape[0] != n or mean.shape[0] != n or var.shape[0] != n
            or dev.shape[0] != n or buf.shape[0] != n):
        return 0
    warm = False
    for j in range(n):
        if not (-max_abs <= v[j] <= max_abs):  # `_values`' range check (NaN fails it)
            return 0
        c0 = count[j]
        if not (c0 >= 0.0 and c0 == math.floor(c0)):
            return 0
        if c0 < W:
            warm = True
    if not warm:
        return 0
    kw = min(band, band_warm) * 1.4826
    row = np.empty(W)
    out = np.empty(2)
    for j in range(n):
        x = v[j]
        c0 = count[j]
        cnt = c0 + 1.0
        m = mean[j]
        s2 = var[j]
        dv = dev[j]
        if c0 < W:  # the warm-up: the buffer's statistics
            for i in range(W):
                row[i] = buf[j, i]
            row[int(c0)] = x
            _warm_row(row, int(cnt), kw, out)
            mm, ss, dv = out[0], out[1], 0.0
        else:  # the rule after the warm-up (`learn`'s, with the deviation while var is 0)
            h = math.sqrt(s2) * band if s2 > 0.0 else dv
            cc = m - h
            if not x < cc:
                cc = x
            hi = m + h
            if cc > hi:
                cc = hi
            d0 = cc - m
            mm = d0 / cnt + m
            ss = (d0 * (cc - mm) - s2) / cnt + s2
            if ss < 0.0:
                ss = 0.0
            if s2 == 0.0 and x != m:
                dv = abs(x - m)
        zz = (x - mm) / math.sqrt(ss) if ss > 0.0 else 0.0  # (`transform`)
        if zz < -clip:
            zz = -clip
        if zz > clip:
            zz = clip
        z[j] = zz
        st[0, j] = cnt
        st[1, j] = mm
        st[2, j] = ss
        st[3, j] = dv
    return 1


@_njit
def warm_store(v, count, mean, var, dev, buf, st):
    """`ContextVectors.commit` after `warm_scale`: each value written into its column's buffer
    at its count while in the warm-up, the staged statistics stored."""
    W = buf.shape[1]
    for j in range(count.shape[0]):
        if count[j] < W:
            buf[j, int(count[j])] = v[j]
        count[j] = st[0, j]
        mean[j] = st[1, j]
        var[j] = st[2, j]
        dev[j] = st[3, j]


# -- one copy with its own random features (`FeaturePolicy(n_features=D > 0)`) -----------------

_SQRT2 = math.sqrt(2.0)


@_njit_sum
def _dot_r(a, b):
    r"""$\sum_i a_i b_i$ as `learners._stack_kernels._dot` sums it (the order LLVM's vectoriser
    picks, `reassoc`): the features' sums in the numpy round's own floats."""
    t = 0.0
    for i in range(a.shape[0]):
        t += a[i] * b[i]
    return t


@_njit_sum
def _dot_scaled_r(a, scale, b):
    r"""$\sum_i (a_i \cdot \text{scale})\, b_i$ as `learners._stack_kernels._dot_scaled`."""
    t = 0.0
    for i in range(a.shape[0]):
        t += (a[i] * scale) * b[i]
    return t


@_njit
def _phi(W, b, z, fourier):
    r"""The copy's features of the scaled context `z`:
    $\phi(c) = (1, \sqrt2\,\sigma(W c + b), c)$, $\sigma$ the cosine when `fourier`, else
    $\max(\cdot, 0)$ (`FeaturePolicyStack._features`, `learners._stack_kernels.predict`)."""
    phi = np.empty(1 + W.shape[0] + z.shape[0])
    _phi_into(W, b, z, fourier, phi)
    return phi


# fdlibm's reduction by pi / 2 (`e_rem_pio2.c`: pi / 2 in 33-bit parts with their tails; the
# products n * part are exact for |n| < 2^20) and its minimax kernels of cos and sin on
# [-pi/4, pi/4] (`k_cos.c`, `k_sin.c`)
_INV_PIO2 = 6.36619772367581382433e-01
_PIO2_1, _PIO2_1T = 1.57079632673412561417e+00, 6.07710050650619224932e-11
_PIO2_2, _PIO2_2T = 6.07710050630396597660e-11, 2.02226624879595063154e-21
_PIO2_3, _PIO2_3T = 2.02226624871116645580e-21, 8.47842766036889956997e-32
_C1, _C2, _C3 = 4.16666666666666019037e-02, -1.38888888888741095749e-03, 2.48015872894767294178e-05
_C4, _C5, _C6 = -2.75573143513906633035e-07, 2.08757232129817482790e-09, \
    -1.13596475577881948265e-11
_S1, _S2, _S3 = -1.66666666666666324348e-01, 8.33333333332248946124e-03, \
    -1.98412698298579493134e-04
_S4, _S5, _S6 = 2.75573137070700676789e-06, -2.50507602534068634195e-08, \
    1.58969099521155010221e-10
# beyond this |y| `math.cos` takes the round (the reduction's products stay exact far beyond)
_COS_SPAN = 1e5


@_njit
def _cos_scaled(v, lo, hi, scale):
    r"""$v_i \leftarrow \text{scale} \cdot \cos v_i$ for $lo \le i < hi$, in place, every $|v_i|
    \le$ `_COS_SPAN` (or NaN): fdlibm's `__ieee754_rem_pio2` (its medium-size branch, all three
    iterations taken on every value instead of as needed: $r + r_t = v - n\pi/2$ to about 150
    bits) and its kernels `__kernel_cos` / `__kernel_sin` on $(r, r_t)$. No call and no branch
    in the loop, so LLVM vectorises it: within 1 ulp of `math.cos` on this machine's tests
    (`tests/onlineboost/test_boblo_kernel.py`), about four times faster."""
    for i in range(lo, hi):
        x = v[i]
        n = math.floor(x * _INV_PIO2 + 0.5)
        t = x - n * _PIO2_1  # (exact)
        w = n * _PIO2_2  # the second iteration
        r = t - w
        w = n * _PIO2_2T - ((t - r) - w)
        t = r  # the third, from the second's r
        w = n * _PIO2_3
        r = t - w
        w = n * _PIO2_3T - ((t - r) - w)
        y = r - w
        yt = (r - y) - w
        z = y * y
        zz = z * z
        # __kernel_cos(y, yt)
        q = z * (_C1 + z * (_C2 + z * _C3)) + zz * zz * (_C4 + z * (_C5 + z * _C6))
        hz = 0.5 * z
        u = 1.0 - hz
        c = u + (((1.0 - u) - hz) + (z * q - y * yt))
        # __kernel_sin(y, yt, 1)
        q = _S2 + z * (_S3 + z * _S4) + z * zz * (_S5 + z * _S6)
        s = y - ((z * (0.5 * yt - (z * y) * q) - yt) - (z * y) * _S1)
        k = np.int64(n) & 3  # (NaN: any k, the value stays NaN)
        c = s if k & 1 else c  # (cos, -sin, -cos, sin by quadrant)
        v[i] = (-c if (k + 1) & 2 else c) * scale


@_njit
def _phi_into(W, b, z, fourier, phi):
    """`_phi` into `phi`, of length $1 + D + n$ (the cosine `_cos_scaled`'s, to 1 ulp
    `math.cos`'s, where every argument is within `_COS_SPAN`)."""
    D, n = W.shape[0], z.shape[0]
    phi[0] = 1.0
    span = 0.0
    for i in range(D):
        y = _dot_r(W[i], z) + b[i]
        if fourier:
            phi[1 + i] = y
            span = max(span, abs(y))
        else:
            if y < 0.0:  # (np.maximum(y, 0.0): NaN and -0.0 kept)
                y = 0.0
            phi[1 + i] = y * _SQRT2
    if fourier:
        if span <= _COS_SPAN:
            _cos_scaled(phi, 1, 1 + D, _SQRT2)
        else:
            for i in range(1, 1 + D):
                phi[i] = math.cos(phi[i]) * _SQRT2
    for j in range(n):
        phi[1 + D + j] = z[j]
    return phi


@_njit
def _features_law(cost, W, b, z, fourier, theta, wt, beta, chain_a, mu, law_a, law_b, p, c,
                  phi, counts, alpha):
    r"""The features pulls' common tail, on the model's costs `cost` of the scaled context `z`:
    $\phi(z)$ into `phi`, $w\,\Theta\phi$ added to `cost` (`wt` the correction's weight $w$,
    1 unless the copy learns it: the numpy round's raw costs, weighted, then the model's
    added), the softmax law into `p` and its running sums into `c`; False where the law is not
    finite."""
    _phi_into(W, b, z, fourier, phi)
    for a in range(theta.shape[0]):
        cost[a] = wt * _dot_r(theta[a], phi) + cost[a]
    return _softmax_law(cost, beta, chain_a, mu, law_a, law_b, p, c, counts, alpha)


@_njit
def pull_round_features(v, scale, count, mean, var, dev, ready, band, clip, max_abs, G, weights,
                        optimism, width0, W, b, fourier, theta, wt, beta, chain_a, mu, law_a,
                        law_b, z, p, c, phi, counts, alpha):
    """`pull_round` for one copy with its own random features (`W` `(D, n)`, `b` `(D,)`: the
    copy's map; `theta` `(k, 1 + D + n)` its corrections on $\\phi(c)$): the model's costs on
    $\\tilde c = (1, c)$ plus $\\Theta\\phi(c)$, then the same softmax and law. The features
    $\\phi(c)$ are left in `phi` (length $1 + D + n$) for the round's update to reuse; `wt`:
    the correction's weight (`_features_law`)."""
    n, k = v.shape[0], theta.shape[0]
    q = n + 1
    if (n == 0 or G.shape[3] != q or G.shape[2] != q + 1 or G.shape[0] != k
            or W.shape[1] != n or b.shape[0] != W.shape[0]
            or theta.shape[1] != 1 + W.shape[0] + n or mu.shape[0] != k
            or phi.shape[0] != theta.shape[1]):
        return 0
    st = np.empty((4, n))
    status = _scale(v, scale, count, mean, var, dev, ready, band, clip, max_abs, z, st)
    if not status:
        return 0
    ce = _row(z)
    cost = np.empty(k)
    _model_costs(G, weights, optimism, width0, ce, cost)
    if not _features_law(cost, W, b, z, fourier, theta, wt, beta, chain_a, mu, law_a, law_b, p,
                         c, phi, counts, alpha):
        return 0
    if scale:  # the round is past its last refusal: the scaler's step is stored
        _store(status, count, mean, var, dev, st)
    return status


@_njit
def update_round_features(x, arm, loss, prob, implicit, G, weights, cum, rate, optimism, width0,
                          W, b, fourier, P, theta, inv_forget, mu, delta, kappa, running, cost,
                          phi, law, beta, wstate):
    r"""`update_round` for one copy with its own random features: the estimate, kappa and
    step 4 as there; the copy's ridge step on $\phi(c)$ is `learners._stack_kernels.learn`'s
    (the forgetting folded into the pass over $A^{-1}$: $u = (A^{-1}/\lambda)\phi$, rows
    $A^{-1}_{a\cdot}/\lambda - w_a w$, $w = u/\sqrt s$), on the residuals $G - m(c) -
    \Theta\phi$; then the mixture learns as in `update_round`. `phi`: the features the round's
    pull computed from `x` (`pull_round_features`), or any array of another length (then they
    are computed here: the same floats). `law`, `beta`, `wstate`: the correction's learnt
    weight (`_weight_gradient`, `_weight_step`)."""
    q, k, M = x.shape[0] + 1, theta.shape[0], G.shape[1]
    r = 1 + W.shape[0] + x.shape[0]
    if (G.shape[3] != q or G.shape[2] != q + 1 or G.shape[0] != k or W.shape[1] != x.shape[0]
            or b.shape[0] != W.shape[0] or theta.shape[1] != r or P.shape[0] != r
            or P.shape[1] != r or mu.shape[0] != k or weights.shape[0] != M
            or cum.shape[0] != M):
        return 0, kappa
    ce = _row(x)
    model = np.empty(k)
    _model_costs(G, weights, optimism, width0, ce, model)  # m_t (the play's, the model not moved)
    pr = np.empty(k)
    ok, kappa = _estimate(arm, loss, prob, implicit, model, mu, delta, kappa, running, cost, pr)
    if not ok:
        return 0, kappa
    if phi.shape[0] != r:
        phi = _phi(W, b, x, fourier)
    grad = _weight_gradient(phi, model, theta, law, beta, arm, loss, wstate)
    _learn_phi(phi, model, pr, mu, delta, P, theta, inv_forget)
    _mixture_learn(G, weights, cum, rate, ce, arm, loss)
    _weight_step(grad, wstate)
    return 1, kappa


@_njit
def _weight_gradient(phi, model, theta, law, beta, arm, loss, wstate):
    r"""The gradient $\partial_t$ of the correction's learnt weight
    (`learners.feature_policy`'s module docstring, `FeaturePolicyStack.weight_gradient`) on the
    round's features `phi` and model costs `model`, before the copy learns: 0 when the copy
    does not learn its weight (`wstate[2]`, the rate, is 0)."""
    k = theta.shape[0]
    if wstate[2] == 0.0:
        return 0.0
    g = np.empty(k)
    gbar = 0.0
    for a in range(k):
        g[a] = _dot_r(theta[a], phi)
        gbar += law[a] * g[a]
    acc = 0.0
    for a in range(k):
        acc += law[a] * (model[a] * (g[a] - gbar))
    return -beta * (acc + (loss - model[arm]) * (g[arm] - gbar))


@_njit
def _weight_step(grad, wstate):
    """`FeaturePolicyStack.step_weight` on `wstate` = (the weight, AdaGrad's sum of squared
    gradients, the rate, the cap), in place; nothing at rate 0."""
    if wstate[2] == 0.0:
        return
    wstate[1] += grad * grad
    w = wstate[0] - wstate[2] * grad / math.sqrt(wstate[1])
    wstate[0] = min(max(w, 0.0), wstate[3])


@_njit
def _learn_phi(phi, model, pr, mu, delta, P, theta, inv_forget):
    r"""The copy's ridge step on its features `phi`, as `learners._stack_kernels.learn` takes
    it (the forgetting folded into the pass over $A^{-1}$: $u = (A^{-1}/\lambda)\phi$, rows
    $A^{-1}_{i\cdot}/\lambda - w_i w$, $w = u/\sqrt s$), on the residuals
    $(\mu - $ `pr` $)/\delta - m(c) - \Theta\phi$, in place (`P`, `theta`)."""
    k, r = theta.shape[0], phi.shape[0]
    u = np.empty(r)
    for i in range(r):
        u[i] = _dot_scaled_r(P[i], inv_forget, phi)
    s = 1.0 + _dot_r(phi, u)
    for a in range(k):
        g = ((mu[a] - pr[a]) / delta - model[a]) - _dot_r(theta[a], phi)
        th = theta[a]
        for j in range(r):
            th[j] += g * (u[j] / s)
    if s > 0.0:  # exactly symmetric: w w^T
        root = math.sqrt(s)
        for j in range(r):
            u[j] = u[j] / root
        for i in range(r):
            row = P[i]
            wi = u[i]
            for j in range(r):
                row[j] = row[j] * inv_forget - wi * u[j]
    else:  # (only for contexts so large that s overflowed)
        v = np.empty(r)
        for j in range(r):
            v[j] = u[j] / s
        for i in range(r):
            row = P[i]
            ui = u[i]
            for j in range(r):
                row[j] = row[j] * inv_forget - ui * v[j]


@_njit
def pull_round_ridge_features(v, scale, count, mean, var, dev, ready, band, clip, max_abs, Pm,
                              Tm, optimism, width0, W, b, fourier, theta, wt, beta, chain_a, mu,
                              law_a, law_b, z, p, c, phi, counts, alpha):
    """`pull_round_features` on a single-penalty `loss_model._ArmRidge` (`Pm`, `Tm`)."""
    n, k = v.shape[0], theta.shape[0]
    q = n + 1
    if (n == 0 or Tm.shape[1] != q or Pm.shape[2] != q or Tm.shape[0] != k
            or W.shape[1] != n or b.shape[0] != W.shape[0]
            or theta.shape[1] != 1 + W.shape[0] + n or mu.shape[0] != k
            or phi.shape[0] != theta.shape[1]):
        return 0
    st = np.empty((4, n))
    status = _scale(v, scale, count, mean, var, dev, ready, band, clip, max_abs, z, st)
    if not status:
        return 0
    ce = _row(z)
    cost = np.empty(k)
    _ridge_costs(Pm, Tm, optimism, width0, ce, cost)
    if not _features_law(cost, W, b, z, fourier, theta, wt, beta, chain_a, mu, law_a, law_b, p,
                         c, phi, counts, alpha):
        return 0
    if scale:
        _store(status, count, mean, var, dev, st)
    return status


@_njit
def update_round_ridge_features(x, arm, loss, prob, implicit, Pm, Tm, optimism, width0, W, b,
                                fourier, P, theta, inv_forget, mu, delta, kappa, running, cost,
                                phi, law, beta, wstate):
    """`update_round_features` on a single-penalty `loss_model._ArmRidge` (`Pm`, `Tm`): its
    learning step is `update_round_ridge`'s."""
    q, k = x.shape[0] + 1, theta.shape[0]
    r = 1 + W.shape[0] + x.shape[0]
    if (Tm.shape[1] != q or Pm.shape[2] != q or Tm.shape[0] != k or W.shape[1] != x.shape[0]
            or b.shape[0] != W.shape[0] or theta.shape[1] != r or P.shape[0] != r
            or P.shape[1] != r or mu.shape[0] != k):
        return 0, kappa
    ce = _row(x)
    model = np.empty(k)
    _ridge_costs(Pm, Tm, optimism, width0, ce, model)
    pr = np.empty(k)
    ok, kappa = _estimate(arm, loss, prob, implicit, model, mu, delta, kappa, running, cost, pr)
    if not ok:
        return 0, kappa
    if phi.shape[0] != r:  # (`update_round_features`: the pull's features, or computed here)
        phi = _phi(W, b, x, fourier)
    grad = _weight_gradient(phi, model, theta, law, beta, arm, loss, wstate)
    _learn_phi(phi, model, pr, mu, delta, P, theta, inv_forget)
    _ridge_learn(Pm, Tm, ce, arm, loss)
    _weight_step(grad, wstate)
    return 1, kappa
