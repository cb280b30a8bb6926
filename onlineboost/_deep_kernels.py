r"""`BoBLO(n_learners=N > 1)`'s round over Fourier later copies as two compiled calls (numba), on
the general path's own state arrays.

The general round of `BoBLO(n_learners=5)` over the learner
`FeaturePolicy(**FIXED_WEIGHT_LEARNER, **FOURIER_LATER)` (N > 1's default from the eighth to the
fifteenth session; since the sixteenth the default later copies are nearest neighbours, which
the general path plays), the `"dr"` estimate, `aggregate="auto"`, i.e. `depth.FitLead`, the
`RidgeMixture` loss model, BoBLO's own scaler) runs its heavy steps compiled
(`learners._stack_kernels`, `onlineboost._boost_kernels`) but stitches them together with some
200 Python and numpy calls a round. `pull_deep` and `update_deep` are the whole round, its steps
transcribed in the order of the general path:

* the scaler (`_contexts.ContextVectors.read` / `commit` past its warm-up: the range check and
  `scaling.learn_transform`, as `_kernels._scale`);
* the loss model's costs $m(c)$ (`RidgeMixture._means`, or its lower bounds with `optimism`);
* `FeaturePolicyBoostStack.predict_vector` (`_predict_compiled`): copy 1's raw costs
  $\Theta_1\tilde c$, copies $2..N$'s features and raw costs (`_stack_kernels.predict`), the
  residual sums plus $m$, copy 1's plain-float softmax and the later copies' numpy softmax
  (`_stack_kernels.boost_predict`);
* `BoOCO._chain` ($x^i = \mu + \sum_{k \le i} A_{ik}(W_k - \mu)$), the stages' projection when
  a row has a rounding residue below 0 (`_boost_kernels.project_rows`), the advice
  $(1 - \eta)x^i + \eta/d$, and `FitLead.distribution` (phase 1: expert 0's row and the fitted
  predictions $\operatorname{clip}_{[0,1]}(\hat y_j - \langle w, \hat y_j - m\rangle)$, $w$
  uniform) or `Exp4.distribution` (phase 2: $q^\top\Pi$); the law's running sums;
* on the update: the doubly robust estimate, kappa's running maximum, the extension's gradient
  at $x^0 = \mu, x^1, \dots, x^{N-1}$ (`_boost_kernels.linear_gradient_rows`), copy 1's ridge
  step on $G_1 - m$ (`FeaturePolicyStack.learn_vector`'s one-copy path), the later copies'
  steps (`_stack_kernels.learn`), the mixture's reweighting and ridge step
  (`RidgeMixture.learn_loss`), and `FitLead.update` (`_boost_kernels.fit_round`, the
  $p$-weighted cumulant bounds, the margins and the switch test) or `Exp4.update`.

Both work in place on the arrays the general path keeps, with every parameter passed in, so the
general path and these kernels are interchangeable from one round to the next and a pickled
policy is the same whichever ran. Nothing is written before every check of the round has
passed: each returns status 0, having written nothing but its scratch outputs, when the round is
outside what it covers (shapes the model or the copies do not know yet, a value not finite or
beyond `MAX_ABS`, a variance worn down to 0, a law or an estimate that is not finite); BoBLO then
runs the general path, which handles the case or raises its `ValueError`. numba's cache is keyed
per source file, so the helpers are this module's own copies of the other kernel modules'.

**Tolerance contract.** Element-wise steps are the general path's operations in its order,
with three exceptions that agree to rounding: dot products sum in their own order (four
interleaved partial sums, or LLVM's vectorised order for the later copies' long rows, as
`_stack_kernels`) where numpy's BLAS sums in its own; the later copies' random Fourier
features take a branch-free cosine (`_cos_reduced`: fdlibm's reduction and polynomials,
within an ulp of the C library's, which the general path calls 512 times a round for N = 5,
half of the pull's time); and FitLead's $\phi(y) = e^y - 1 - y$ at its 40 rates $2^{-i}$
follows from the smallest by doubling (`_psi_step`, to about 1e-14 relative, more accurate
than `expm1(y) - y` for small $|y|$). So the two paths agree to
about 1e-15 relative a round and play the same arms (`tests/onlineboost/test_boblo_deep.py`:
every round of seeds 0-2 of the development streams, laws within 1e-10, and of
`NonlinearBandit` seeds 100-104, the same switch rounds; after a switch the later copies are
played, whose inverse Gram matrices grow as 0.995^-t along directions the contexts never
reach, where a rounding difference grows to about 1e-7 in the laws, as between the general
path's own numpy and compiled steps). Phase 1 plays the first copy's law, as the general path
does.

Examples
--------
>>> import numpy as np
>>> from learners import FeaturePolicy
>>> from onlineboost import BoBLO
>>> from onlineboost.boblo import FIXED_WEIGHT_LEARNER, FOURIER_LATER
>>> rng = np.random.default_rng(0)
>>> fourier = lambda: FeaturePolicy(**FIXED_WEIGHT_LEARNER, **FOURIER_LATER)  # (the Fourier copies)
>>> fast, slow = BoBLO(fourier(), seed=0, n_learners=3), BoBLO(fourier(), seed=0, n_learners=3)
>>> slow._DEEP = False  # (the general path)
>>> same = True
>>> for t in range(300):
...     c = {f"x{j}": float(v) for j, v in enumerate(rng.normal(size=3))}
...     a, b = fast.pull([0, 1, 2], c), slow.pull([0, 1, 2], c)
...     same = same and a == b
...     r = float(a == (c["x0"] > 0) + (c["x1"] > 1))
...     fast.update(a, c, r)
...     slow.update(b, c, r)
>>> fast._deep, same
(True, True)
>>> float(np.abs(fast.arm_probabilities - slow.arm_probabilities).max()) < 1e-12
True
"""

from __future__ import annotations

import math

import numpy as np

try:  # numba is a dependency; without it BoBLO runs its general path
    import numba

    AVAILABLE = True

    def _njit(f, **options):
        # (`cache=True` needs a writable cache location; else compile per process)
        try:
            return numba.njit(cache=True, **options)(f)
        except RuntimeError:  # pragma: no cover - "cannot cache function ...: no locator"
            return numba.njit(**options)(f)

    def _njit_sum(f):
        # the one fast-math flag: sums may be reassociated (vectorised), nothing else
        return _njit(f, fastmath={"reassoc"})
except ImportError:  # pragma: no cover - exercised only where numba is missing
    AVAILABLE = False

    def _njit(f, **options):
        return f

    _njit_sum = _njit

from . import scaling, sets
from ._contexts import MAX_ABS
from ._kernels import subtract_count_bonus as _subtract_count_bonus  # (not a kernel of its own)
from .loss_model import RidgeMixture

__all__ = ["AVAILABLE", "covers", "pull", "pull_deep", "update", "update_deep"]

_SQRT2 = math.sqrt(2.0)
_NONE = np.empty(0)
_TYPES = frozenset({float, int, np.float64, np.float32, np.int64, np.int32, bool, np.bool_})


# -- the glue ---------------------------------------------------------------------------------


def covers(policy) -> bool:
    """Whether the kernels cover `policy`'s bandit round (a `BoBLO` with its BoOCO set): the
    default learner's `FeaturePolicyBoostStack` (copy 1 one shared copy, copies 2..N over their
    own random features, both softmax, residual, on the model, `fit="gradient"`), the `"dr"`
    estimate on a plain `Simplex` with a `RidgeMixture` model, `depth.FitLead` (uniform anchor)
    as the aggregate with the first copy as $x^1$ ($\\gamma = \\eta_1$), the linear loss with unit
    gradient scales, BoBLO's own scaler (or none), vector copies; and the compiled pieces of
    the general path switched on (`FeaturePolicyStack._JIT`, `Extension._JIT`,
    `FitLead._JIT`: a test that switches them off compares against numpy)."""
    from learners.feature_policy import FeaturePolicyBoostStack, FeaturePolicyStack

    from .depth import FitLead

    booco = policy._booco
    if not AVAILABLE or booco is None:
        return False
    copies, model, fit = booco.copies, policy._model, policy._exp4
    if type(copies) is not FeaturePolicyBoostStack:
        return False
    first, rest = copies.first, copies.rest
    return (type(model) is RidgeMixture and copies.model is model and copies.residual
            and copies.fit == "gradient" and type(first) is FeaturePolicyStack
            and type(rest) is FeaturePolicyStack and first.n == 1
            and (first._shared or first.kind in ("fourier", "relu"))
            and not rest._shared and first.model is None and rest.model is None
            and not first.residual and not rest.residual
            and first.link == "softmax" and rest.link == "softmax"
            and copies.learn_weight is None  # (a learnt weight of copy 1: the general path)
            and type(fit) is FitLead and fit.anchor == "uniform" and fit.then == "exp4"
            and not policy._first_expert and policy.estimator == "dr" and policy._vector
            and policy._transformer is None and type(booco.decision_set) is sets.Simplex
            and booco._linear and booco._unit_scale and not booco._mu_zero
            and booco.n_learners == copies.n
            and rest._JIT and booco._ext._JIT and fit._JIT  # (the tests' switches: all on)
            and bool(np.array_equal(fit._lam[:-1], 2.0 * fit._lam[1:])))  # (`_psi_step`)


_BOOST = None  # (`learners.feature_policy.FeaturePolicyBoostStack`, imported at first use)


def _boost_type():
    global _BOOST
    from learners.feature_policy import FeaturePolicyBoostStack  # (learners imports onlineboost)

    _BOOST = FeaturePolicyBoostStack
    return _BOOST


def pull(policy, context):
    """The round's law for `policy` (`BoBLO._play_features` on the covered configuration, the
    scaler's step stored): `(p, running sums, z, scratch)` (lists of floats, the context vector
    and the arrays `update` takes), or None, nothing moved, for the general path to play the
    round (the scaler's warm-up, new keys, values of other types, `"follow"` after a switch,
    shapes the copies do not know yet, anything not finite)."""
    reader = policy._reader
    if context is None:
        context = {}
    if type(context) is not dict or reader._idx is not None:
        return None
    keys = tuple(context)
    if keys != reader._keys or not keys:
        return None
    booco = policy._booco
    copies, fit = booco._copies, policy._exp4
    if type(copies) is not (_BOOST or _boost_type()):  # (stacks swapped in since `covers`)
        return None
    exp4 = fit._exp4
    if exp4 is None and fit.expert is not None:  # ("follow": not covered)
        return None
    scale = reader.scale
    if scale:
        fast = reader._fast
        if fast is None:
            if not reader._stats.count.min() >= scaling.WARMUP:  # the warm-up
                return None
            fast = reader._fast = True  # (`read`'s own switch: the same statistics)
        if fast is not True:  # the plain-float statistics as arrays, for good (same values)
            reader._stats, reader._fast = reader._current_stats(), True
        st = reader._stats
        count, mean, var, dev, ready = st.count, st.mean, st.var, st.dev, st.ready
    else:
        count = mean = var = dev = _NONE
        ready = False
    vals = context.values()
    if not _TYPES.issuperset(map(type, vals)):
        return None
    try:
        v = np.fromiter(vals, np.float64, len(keys))
    except OverflowError:
        return None
    model = policy._model
    first, rest = copies.first, copies.rest
    N, d = copies.n, policy._d
    n1, D, p_ = rest._W.shape
    eta = policy.exploration
    z = np.empty(len(v))
    buf = np.empty((5 * N + 3, d))  # raw, costs, X, advice, Y (N rows each), m, p, c
    F = np.empty((n1, 1 + D + p_))
    W0, b0 = first._W[0], first._b[0]
    F0 = np.empty(1 + len(b0) + len(v))  # (copy 1's own features, when it has some)
    q = _NONE if exp4 is None else exp4._q
    status = pull_deep(v, scale, count, mean, var, dev, ready, scaling.K, scaling.CLIP, MAX_ABS,
                       model.G, model.weights, model.optimism, model.width0,
                       first._theta[0], first.inverse_temperature(), first._shared, W0, b0,
                       first.kind == "fourier", F0,
                       rest._W, rest._b, rest.kind == "fourier", rest._theta,
                       rest.inverse_temperature(), booco._A, booco._mu, 1.0 - eta, eta / d,
                       exp4 is not None, q, z, F, buf, policy._play_counts(), policy._bonus)
    if not status:
        return None
    if scale:
        st.ready = status == 2
        reader._next = None
    X, advice, p = buf[2 * N:3 * N], buf[3 * N:4 * N], buf[5 * N + 1]
    if exp4 is None:  # (what the general path's update reads, should it run)
        fit._pending = (advice, buf[4 * N:5 * N])
    else:
        exp4._advice = (advice, p)
    return p.tolist(), buf[5 * N + 2].tolist(), z, (z, buf, F, X, F0)


def update(policy, scratch, arm: int, loss: float, prob: float) -> np.ndarray | None:
    """`BoBLO._feedback` for a round `pull` played (its `scratch`): the estimate $\\tilde f_t$
    (a new array), every copy, kappa, the loss model and the aggregate moved; or None, nothing
    moved, for the general path to learn (or refuse) it."""
    booco = policy._booco
    copies, model, fit, ext = booco.copies, policy._model, policy._exp4, booco._ext
    first, rest = copies.first, copies.rest
    z, buf, F, X, F0 = scratch
    exp4 = fit._exp4
    running = booco.kappa is None
    cost = np.empty(X.shape[1])
    cum = np.array(model.loss)
    L = _NONE if exp4 is None else np.array(exp4._L)
    status, kappa, expert = update_deep(
        z, arm, loss, prob, float(policy._implicit()), model.G, model.weights, cum, model.rate,
        first._P[0], first._theta[0], 1.0 / first.forget, first._shared, F0, rest._P,
        rest._theta, F,
        1.0 / rest.forget, buf, booco._mu, float(ext.delta), ext.kappa, running,
        exp4 is not None, fit._lam, fit._log_inv, fit._floor, fit._lead, fit._psi, L, cost)
    if not status:
        return None
    model.loss = cum.tolist()
    model._theta = None  # (its caches: the model moved)
    model._last = None
    copies._last = None
    rest._round = None
    first._round = None  # (copy 1's cache of its features, when it has some)
    first._t += 1  # (the copies' clocks, as `learn_vector` keeps them)
    rest._t += 1
    if running:
        ext.kappa = booco._kappa = kappa
    if exp4 is None:
        fit._pending = None
        fit._t += 1
        if expert >= 0:
            fit.switch_round = fit._t
            fit.expert = expert
            from .exp4 import Exp4

            fit._exp4 = Exp4(*fit._exp4_args)
    else:
        exp4._advice = None
        exp4._t += 1
        L = exp4._L = L.tolist()  # (then `Exp4.update`'s last steps, the same operations)
        eta = math.sqrt(exp4._log_m / ((exp4._t + 1) * exp4.n_arms))  # eta_{t+1}
        zz = [a - eta * b for a, b in zip(exp4._log_prior.tolist(), L)]
        top = max(zz)
        q = np.exp(np.array([v - top for v in zz]))
        exp4._q = q / q.sum()
    return cost


# -- the kernels ------------------------------------------------------------------------------


@_njit
def _dot4(a, b):
    r"""$\sum_i a_i b_i$ in four interleaved partial sums (`_kernels._dot`)."""
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


@_njit_sum
def _dot(a, b):
    r"""$\sum_i a_i b_i$, summed in the order LLVM's vectoriser picks (`_stack_kernels._dot`)."""
    t = 0.0
    for i in range(a.shape[0]):
        t += a[i] * b[i]
    return t


@_njit_sum
def _dot_scaled(a, scale, b):
    r"""$\sum_i (a_i \cdot \text{scale})\, b_i$ (`_stack_kernels._dot_scaled`)."""
    t = 0.0
    for i in range(a.shape[0]):
        t += (a[i] * scale) * b[i]
    return t


# `_cos_scaled`: fdlibm's reduction by pi/2 (its first 33 bits, exact products for |x| below
# 2^19 pi/2, then the rest) and its kernels on [-pi/4, pi/4]
_INV_PIO2 = 6.36619772367581382433e-01
_PIO2_1 = 1.57079632673412561417e+00
_PIO2_1T = 6.07710050650619224932e-11
_C1, _C2, _C3, _C4, _C5, _C6 = (4.16666666666666019037e-02, -1.38888888888741095749e-03,
                                2.48015872894767294178e-05, -2.75573143513906633035e-07,
                                2.08757232129817482790e-09, -1.13596475577881948265e-11)
_S1, _S2, _S3, _S4, _S5, _S6 = (-1.66666666666666324348e-01, 8.33333333332248946124e-03,
                                -1.98412698298579493134e-04, 2.75573137070700676789e-06,
                                -2.50507602534068634195e-08, 1.58969099521155010221e-10)
_REDUCE = 1e5  # (beyond: the C library's cosine)


def _cos_reduced(x, out, scale):
    r"""$\cos(x_i) \cdot$ `scale` into `out` for finite `x` with $|x_i| \le 10^5$ (fdlibm's
    steps: $x = n\pi/2 + r$, $|r| \le \pi/4$, its cosine and sine polynomials, picked and
    signed by $n \bmod 4$), branch-free so that LLVM vectorises it: within about an ulp of
    the C library's cosine (absolute error below 2e-16), twice its speed."""
    for i in range(x.shape[0]):
        v = x[i]
        n = math.floor(v * _INV_PIO2 + 0.5)
        r = (v - n * _PIO2_1) - n * _PIO2_1T
        z = r * r
        rc = z * (_C1 + z * (_C2 + z * (_C3 + z * (_C4 + z * (_C5 + z * _C6)))))
        hz = 0.5 * z
        w = 1.0 - hz
        c = w + (((1.0 - w) - hz) + z * rc)
        sn = r + (z * r) * (_S1 + z * (_S2 + z * (_S3 + z * (_S4 + z * (_S5 + z * _S6)))))
        q = n - 4.0 * math.floor(n * 0.25)
        val = sn if (q == 1.0 or q == 3.0) else c
        val = -val if (q == 1.0 or q == 2.0) else val
        out[i] = val * scale


# (finite inputs only, the caller's promise: the flags that let the branches become selects)
_cos_reduced = _njit(_cos_reduced, fastmath={"nnan", "ninf"})


@_njit
def _cos_scaled(x, out, scale):
    """`cos(x) * scale` entry by entry into `out`: `_cos_reduced`, and the C library's
    cosine wherever $|x_i| > 10^5$ or is not finite."""
    _cos_reduced(x, out, scale)
    for i in range(x.shape[0]):
        if not abs(x[i]) <= _REDUCE:
            out[i] = math.cos(x[i]) * scale




@_njit
def _psi_step(Y, p, lam, psi):
    r"""FitLead's cumulant bounds of the round (`_boost_kernels.fit_bounds` and the owner's
    $p$-weighted sum): for the experts $j \ge 1$ and every rate $\lambda_i$,
    `psi[j, i]` $\mathrel{+}= \sum_a p_a \max(\phi(\lambda_i x_a), \phi(\lambda_i x'_a))$,
    $x = d(2 - \sigma)$, $x' = -d\sigma$, $d = Y_j - Y_0$, $\sigma = Y_j + Y_0$, $\phi(y) = e^y
    - 1 - y$. The rates are the doubling grid $\lambda_i = 2^{-i}$ (`exp4.ville_grid`;
    `covers` checks it), so $\phi$ at every rate follows from the smallest one by
    $\phi(2y) = \phi(y)^2 + 2\phi(y)(1 + y) + y^2$ ($e^{2y} = (e^y)^2$): a sum of terms
    $\ge 0$ for $y \ge -1$, as here ($|x|, |x'| \le 2$, so $|\lambda_1 x| \le 1$), so each
    step adds a few roundings, relative, and the 40 rates cost 40 short steps, vectorised
    over the $2 (M - 1) k$ arguments, instead of as many `expm1` calls (FitLead's numpy steps,
    `expm1(y) - y`: the same values to about 1e-14 relative, more accurate for small $|y|$,
    where `expm1(y) - y` loses phi's digits in the cancellation). The smallest rate starts
    from the Taylor series $y^2(1/2 + y/6 + y^2/24 + y^3/120)$ ($|y| \le 2^{-38}$)."""
    N, k = Y.shape
    g = lam.shape[0]
    R = 2 * k * (N - 1)
    x = np.empty(R)
    for j in range(1, N):
        for a in range(k):
            dd = Y[j, a] - Y[0, a]
            ss = Y[j, a] + Y[0, a]
            r = 2 * (k * (j - 1) + a)
            x[r] = dd * (2.0 - ss)
            x[r + 1] = -dd * ss
    T = np.empty((g, R))
    low = lam[g - 1]
    for r in range(R):
        y = x[r] * low
        T[g - 1, r] = (y * y) * (0.5 + y * (1.0 / 6.0 + y * (1.0 / 24.0 + y * (1.0 / 120.0))))
    for i in range(g - 1, 0, -1):
        li = lam[i]
        prev, row = T[i], T[i - 1]
        for r in range(R):
            y = x[r] * li
            f = prev[r]
            row[r] = f * f + 2.0 * f * (1.0 + y) + y * y
    for j in range(1, N):
        for i in range(g):
            row = T[i]
            acc = 0.0
            for a in range(k):
                r = 2 * (k * (j - 1) + a)
                f1, f2 = row[r], row[r + 1]
                # (numpy's maximum: the first unless the second is larger)
                acc += p[a] * (f1 if (f1 >= f2 or f1 != f1) else f2)
            psi[j, i] += acc


@_njit
def _pairwise_sum(a):
    """numpy's pairwise sum of a short row (`_boost_kernels._pairwise_sum`)."""
    n = a.shape[0]
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    r0, r1, r2, r3, r4, r5, r6, r7 = a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]
    i = 8
    m = n - n % 8
    while i < m:
        r0 += a[i]
        r1 += a[i + 1]
        r2 += a[i + 2]
        r3 += a[i + 3]
        r4 += a[i + 4]
        r5 += a[i + 5]
        r6 += a[i + 6]
        r7 += a[i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[i]
        i += 1
    return res


@_njit
def _scale(v, scale, count, mean, var, dev, ready, band, clip, max_abs, z, st):
    """`_kernels._scale`: the range check of `v` and, if `scale`, `scaling.learn_transform`
    entry by entry into `z`, the statistics' next values staged in `st`. 0: not covered; else
    1 + the next `ready` flag."""
    n = v.shape[0]
    for j in range(n):
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
            if not ss > 0.0:
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
def _model_costs(G, weights, optimism, width0, ce, out):
    r"""`RidgeMixture`'s costs of the row `ce` (`_kernels._model_costs`)."""
    k, M, q = G.shape[0], G.shape[1], G.shape[3]
    for a in range(k):
        acc = 0.0
        for j in range(M):
            acc += weights[j] * _dot4(G[a, j, q], ce)
        if optimism != 0.0:
            wid = 0.0
            for j in range(M):
                s = 0.0
                for i in range(q):
                    s += _dot4(G[a, j, i], ce) * ce[i]
                wid += weights[j] * s
            acc = acc - optimism * math.sqrt(max(wid, 0.0) + width0)
        out[a] = acc


@_njit
def _project_row(z, p, u):
    """`sets._projection_simplex_row(z, 1.0)` into `p` (`u` scratch;
    `_boost_kernels._project_row`)."""
    d = z.shape[0]
    m = z[0]
    for j in range(1, d):
        if z[j] > m:
            m = z[j]
    for j in range(d):
        u[j] = z[j]
    u.sort()
    total, tau = -1.0, 0.0
    for j in range(1, d + 1):
        v = u[d - j] - m
        total += v
        t = total / j
        if v <= t:
            break
        tau = t
    free = 0
    for j in range(d):
        w = (z[j] - m) - tau
        p[j] = w if not 0.0 > w else 0.0
        if 0.0 < p[j]:
            free += 1
    if free:
        s = 0.0
        for j in range(d):
            s += p[j]
        r = (1.0 - s) / free
        for j in range(d):
            if 0.0 < p[j]:
                w = p[j] + r
                p[j] = w if not 0.0 > w else 0.0


@_njit
def pull_deep(v, scale, count, mean, var, dev, ready, band, clip, max_abs, G, weights,
              optimism, width0, theta0, beta0, shared0, W0, b0, fourier0, F0, W, b, fourier,
              theta, beta, A, mu, law_a, law_b, mixing, q, z, F, buf, counts, alpha):
    r"""The pull (module docstring): the scaled context into `z`, the later copies' features into
    `F`, and into `buf` `(5 N + 3, d)` the copies' raw costs, the stages' costs, the iterates
    $x^1..x^N$, the advice (from the rows projected when one has a residue below 0), the
    fitted predictions (phase 1; `N` rows each), then the model's costs, the law and its
    running sums. Copy 1 regresses on $(1, c)$ (`shared0`) or on its own features
    $\phi_1(c) = (1, \sqrt2\,\sigma(W_0 c + b_0), c)$ (into `F0`, with
    `learners._stack_kernels.predict`'s sums and `math.cos`: the general path's floats).
    `mixing`:
    Exp4's law with weights `q` instead of expert 0's. Every copy's softmax plays its stage's
    costs less the count bonus of `counts` and `alpha` (`_kernels.subtract_count_bonus`; the
    stages' costs themselves, which `FitLead` fits, keep none). Returns 0 (nothing stored), else
    1 + the scaler's new `ready` flag, its statistics updated in place."""
    n = v.shape[0]
    n1, D, p = W.shape
    N, k = n1 + 1, buf.shape[1]
    qc = n + 1
    if (n == 0 or G.shape[3] != qc or G.shape[2] != qc + 1 or G.shape[0] != k
            or theta0.shape[0] != k or p != n or n1 != N - 1
            or theta0.shape[1] != (qc if shared0 else 1 + W0.shape[0] + n)
            or (not shared0 and (W0.shape[1] != n or F0.shape[0] != theta0.shape[1]))
            or theta.shape[1] != k or theta.shape[2] != 1 + D + p or mu.shape[0] != k):
        return 0
    st = np.empty((4, n))
    status = _scale(v, scale, count, mean, var, dev, ready, band, clip, max_abs, z, st)
    if not status:
        return 0
    raw, costs, X = buf[:N], buf[N:2 * N], buf[2 * N:3 * N]
    advice, Y = buf[3 * N:4 * N], buf[4 * N:5 * N]
    m, law, run = buf[5 * N], buf[5 * N + 1], buf[5 * N + 2]
    ce = np.empty(qc)
    ce[0] = 1.0
    for j in range(n):
        ce[j + 1] = z[j]
    _model_costs(G, weights, optimism, width0, ce, m)
    # copy 1's raw costs (`theta[0].dot(phi)`), then copies 2..N's features and raw costs
    if shared0:
        for a in range(k):
            raw[0, a] = _dot4(theta0[a], ce)
    else:
        D0 = W0.shape[0]
        F0[0] = 1.0
        for dd in range(D0):
            y = _dot(W0[dd], z) + b0[dd]
            if fourier0:
                y = math.cos(y)
            elif y < 0.0:
                y = 0.0
            F0[1 + dd] = y * _SQRT2
        for j in range(n):
            F0[1 + D0 + j] = z[j]
        for a in range(k):
            raw[0, a] = _dot(theta0[a], F0)
    zs = np.empty(D)
    for i in range(n1):
        Fi = F[i]
        Fi[0] = 1.0
        for dd in range(D):
            zs[dd] = _dot(W[i, dd], z) + b[i, dd]
        if fourier:
            _cos_scaled(zs, Fi[1:1 + D], _SQRT2)
        else:
            for dd in range(D):
                zz = zs[dd]
                if zz < 0.0:
                    zz = 0.0
                Fi[1 + dd] = zz * _SQRT2
        for j in range(p):
            Fi[1 + D + j] = z[j]
        for a in range(k):
            raw[i + 1, a] = _dot(theta[i, a], Fi)
    # the stages' costs: running sums over the copies, then + m
    for i in range(N):
        for a in range(k):
            val = raw[i, a]
            if i > 0:
                val = costs[i - 1, a] + val
            costs[i, a] = val
    for i in range(N):
        for a in range(k):
            costs[i, a] = costs[i, a] + m[a]
    # the copies' points (W, into X for now): row 1 plain floats at beta0, the rest numpy's,
    # each of its stage's costs less the count bonus
    e = np.empty(k)
    shifted = np.empty(k)
    for i in range(N):
        for a in range(k):
            shifted[a] = costs[i, a]
        _subtract_count_bonus(shifted, counts, alpha)
        row = shifted
        low = row[0]
        for a in range(1, k):
            if row[a] < low:
                low = row[a]
        if i == 0:
            total = 0.0
            for a in range(k):
                e[a] = math.exp((low - row[a]) * beta0)
                total += e[a]
        else:
            for a in range(k):
                e[a] = math.exp((low - row[a]) * beta)
            total = _pairwise_sum(e)
        for a in range(k):
            advice[i, a] = e[a] / total  # (W, for the chain)
    # the chain: x^i = mu + sum_{l <= i} A_il (W_l - mu)
    neg = False
    for i in range(N):
        for a in range(k):
            acc = 0.0
            for j in range(i + 1):
                acc += A[i, j] * (advice[j, a] - mu[a])
            x = mu[a] + acc
            X[i, a] = x
            if x < 0.0:
                neg = True
            elif not x >= 0.0:  # (NaN: the general path refuses)
                return 0
    if neg:  # (a rounding residue below 0: every row projected, as `_project_rows`; the
        # iterates themselves stay as they are, the gradients' points)
        u = np.empty(k)
        for i in range(N):
            _project_row(X[i], advice[i], u)
        for i in range(N):
            for a in range(k):
                advice[i, a] = law_a * advice[i, a] + law_b
    else:
        for i in range(N):
            for a in range(k):
                advice[i, a] = law_a * X[i, a] + law_b
    if mixing:  # Exp4: p = q' advice
        for a in range(k):
            acc = 0.0
            for i in range(N):
                acc += q[i] * advice[i, a]
            law[a] = acc
    else:  # FitLead's phase 1: expert 0's row, and every stage's fitted predictions
        w = 1.0 / k
        ref = 0.0
        for a in range(k):
            ref += m[a] * w
        for i in range(N):
            acc = 0.0
            for a in range(k):
                acc += costs[i, a] * w
            shift = acc - ref
            for a in range(k):
                y = costs[i, a] - shift
                Y[i, a] = min(max(y, 0.0), 1.0)
        for a in range(k):
            law[a] = advice[0, a]
    total = 0.0
    for a in range(k):
        total += law[a]
        run[a] = total
    if not math.isfinite(total):
        return 0
    if scale:  # past the last refusal: the scaler's step is stored
        for j in range(count.shape[0]):
            count[j] = st[0, j]
            mean[j] = st[1, j]
            var[j] = st[2, j]
            if status == 1:
                dev[j] = st[3, j]
    return status


@_njit
def update_deep(x, arm, loss, prob, implicit, G, weights, cum, rate, P0, theta0, inv0, shared0,
                F0, P, theta, F, inv_forget, buf, mu, delta, kappa, running, mixing, lam,
                log_inv, floor, lead, psi, L, cost):
    """The update of a round `pull_deep` played (its `F` and `buf`; module docstring): the
    estimate into `cost`, then in place copy 1 (`P0`, `theta0`), copies 2..N (`P`, `theta`),
    the mixture (`G`, `weights`, `cum`), FitLead's leads and bounds (`lead`, `psi`) or Exp4's
    losses `L`.
    Returns `(status, kappa, expert)`: status 0, nothing but `cost` written, for the general
    path; `expert` the stage FitLead switches to this round, or -1."""
    N, k = (buf.shape[0] - 3) // 5, buf.shape[1]
    raw, X, advice, Y = buf[:N], buf[2 * N:3 * N], buf[3 * N:4 * N], buf[4 * N:5 * N]
    m, p = buf[5 * N], buf[5 * N + 1]
    qc = x.shape[0] + 1
    cg = P.shape[1]
    q0 = qc if shared0 else F0.shape[0]
    if (G.shape[3] != qc or G.shape[0] != k or theta0.shape[1] != q0 or P0.shape[0] != q0
            or F.shape[1] != cg or theta.shape[2] != cg or P.shape[0] != N - 1):
        return 0, kappa, -1
    for a in range(k):
        cost[a] = m[a]
    cost[arm] += (loss - cost[arm]) / (prob + implicit)
    yy = 0.0
    for a in range(k):
        if not math.isfinite(cost[a]):
            return 0, kappa, -1
        yy += cost[a] * cost[a]
    # -- past the last refusal
    if running:
        g_t = math.sqrt(yy)
        if g_t > kappa:
            kappa = g_t
    # step 4 at x^0 = mu, x^1, ..., x^{N-1} (`linear_gradient_rows`)
    lam_ = delta * kappa
    Gr = np.empty((N, k))
    dy = np.empty(k)
    for a in range(k):
        dy[a] = delta * cost[a]
    zr = np.empty(k)
    pr = np.empty(k)
    u = np.empty(k)
    r = np.empty(k)
    for i in range(N):
        xr = mu if i == 0 else X[i - 1]
        for a in range(k):
            zr[a] = xr[a] - dy[a]
        _project_row(zr, pr, u)
        for a in range(k):
            vv = zr[a] - pr[a]
            r[a] = vv
            u[a] = vv * vv
        dist = math.sqrt(_pairwise_sum(u))
        if lam_ > 0:
            keep = 1.0 - lam_ / max(dist, lam_) if dist > lam_ else 0.0
        else:
            keep = 1.0 if dist > 0.0 else 0.0
        for a in range(k):
            Gr[i, a] = (xr[a] - (pr[a] + keep * r[a])) / delta
    # copy 1 (`FeaturePolicyStack.learn_vector`'s one-copy path) on G_1 - m
    ce = np.empty(qc)
    ce[0] = 1.0
    for j in range(qc - 1):
        ce[j + 1] = x[j]
    if shared0:
        if inv0 != 1.0:
            for i in range(qc):
                for j in range(qc):
                    P0[i, j] *= inv0
        u0 = np.empty(qc)
        for i in range(qc):
            u0[i] = _dot4(P0[i], ce)
        s = 1.0 + _dot4(ce, u0)
        v0 = np.empty(qc)
        for i in range(qc):
            v0[i] = u0[i] / s
        for a in range(k):
            g = (Gr[0, a] - m[a]) - _dot4(theta0[a], ce)
            for i in range(qc):
                theta0[a, i] += g * v0[i]
        if s > 0.0:
            rs = 1.0 / math.sqrt(s)
            for i in range(qc):
                u0[i] = u0[i] * rs
            for i in range(qc):
                ui = u0[i]
                for j in range(qc):
                    P0[i, j] -= ui * u0[j]
        else:
            for i in range(qc):
                ui = u0[i]
                for j in range(qc):
                    P0[i, j] -= ui * v0[j]
    else:  # over its own features: `_stack_kernels.learn` on G_1 - m - Theta_1 phi_1
        r0 = np.empty(k)
        for a in range(k):
            r0[a] = (Gr[0, a] - m[a]) - raw[0, a]
        _rls_step(P0, theta0, F0, r0, inv0)
    # copies 2..N (`_stack_kernels.learn` on the residuals G_i - Theta_i phi_i)
    ri = np.empty(k)
    for i in range(N - 1):
        for a in range(k):
            ri[a] = Gr[i + 1, a] - raw[i + 1, a]
        _rls_step(P[i], theta[i], F[i], ri, inv_forget)
    # the loss model (`RidgeMixture.learn_loss`)
    M = G.shape[1]
    gm = np.empty((M, qc + 1))
    sm = np.empty(M)
    for j in range(M):
        for i in range(qc + 1):
            gm[j, i] = _dot4(G[arm, j, i], ce)
        gm[j, qc] -= loss
        sm[j] = _dot4(gm[j, :qc], ce)
    low = np.inf
    for j in range(M):
        e = gm[j, qc]
        cum[j] = cum[j] + e * e
        if cum[j] < low:
            low = cum[j]
    if low == np.inf:
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
        for i in range(qc + 1):
            h = gm[j, i] * cj
            for mm in range(qc):
                G[arm, j, i, mm] -= h * gm[j, mm]
    # the aggregate
    if mixing:  # Exp4.update: the estimated losses (its weights: the caller)
        scale = loss / p[arm]
        for j in range(N):
            L[j] = L[j] + advice[j, arm] * scale
        return 1, kappa, -1
    two = 2.0 * loss
    for j in range(N):
        lead[j] += (Y[j, arm] - Y[0, arm]) * (two - (Y[j, arm] + Y[0, arm]))
    _psi_step(Y, p, lam, psi)
    g = lam.shape[0]
    top = lead[0]
    for j in range(1, N):
        if lead[j] > top:
            top = lead[j]
    expert = -1
    if top >= floor:
        best = -np.inf
        for j in range(N):
            bj = np.inf
            for i in range(g):
                val = (log_inv[i] + psi[j, i]) / lam[i]
                if val < bj:
                    bj = val
            ex = lead[j] - bj
            if ex > best:
                best = ex
                expert = j
        if not best >= 0.0:
            expert = -1
    return 1, kappa, expert


@_njit
def _rls_step(Pi, th, phi, resid, inv_forget):
    r"""One copy's recursive-least-squares step with forgetting, as `_stack_kernels.learn` takes
    it, in place: $u = (A^{-1}/\rho)\phi$, $s = 1 + \phi^\top u$, every arm's row of `th`
    plus its residual (`resid`) times $u/s$, and $A^{-1} \leftarrow A^{-1}/\rho - w w^\top$,
    $w = u/\sqrt s$ (exactly symmetric)."""
    cg, k = phi.shape[0], th.shape[0]
    uu = np.empty(cg)
    vv = np.empty(cg)
    for a in range(cg):
        uu[a] = _dot_scaled(Pi[a], inv_forget, phi)
    si = 1.0 + _dot(phi, uu)
    for j in range(cg):
        vv[j] = uu[j] / si
    for a in range(k):
        ra = resid[a]
        row = th[a]
        for j in range(cg):
            row[j] += ra * vv[j]
    if si > 0.0:
        root = math.sqrt(si)
        ww = np.empty(cg)
        for j in range(cg):
            ww[j] = uu[j] / root
        for a in range(cg):
            row = Pi[a]
            wa = ww[a]
            for j in range(cg):
                row[j] = row[j] * inv_forget - wa * ww[j]
    else:  # (only for contexts so large that s overflowed)
        for a in range(cg):
            row = Pi[a]
            ua = uu[a]
            for j in range(cg):
                row[j] = row[j] * inv_forget - ua * vv[j]
