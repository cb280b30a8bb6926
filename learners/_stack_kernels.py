r"""`FeaturePolicyStack`'s round for copies with their own random features, compiled (numba).

`BoBLO(n_learners=5)`'s copies 2..5 (`FeaturePolicyBoostStack.rest`: four copies over
$q = 1 + 128 + p$ columns each, an inverse Gram matrix `(q, q)` per copy, forgetting) spend
most of the round in `FeaturePolicyStack`'s non-shared path: the feature map
$\phi_i(c) = (1, \sqrt 2\cos(W_i c + b_i), c)$, the predicted costs $\Theta_i\phi_i$ and the
recursive-least-squares step with forgetting. In numpy that step traverses each $A_i^{-1}$
four times a round (the forgetting's scaling, $u = A^{-1}\phi$, the outer product $w w^\top$
into a temporary, the subtraction); here it is two passes, the product and one fused
read-modify-write, and the whole round is two calls:

* `predict(W, b, c, fourier, theta, F, costs)`: $\phi_i(c)$ into `F` `(n, q)` and
  $\Theta_i\phi_i$ into `costs` `(n, k)` (`FeaturePolicyStack.features`, then the einsum of
  `predicted_costs`);
* `learn(P, theta, F, R, inv_forget)`: with the residuals `R` $= G - \Theta\phi$ `(n, k)`,
  $u_i = (A_i^{-1}/\rho)\phi_i$ (the scaled entries formed on the fly), $s_i = 1 + \phi_i^\top
  u_i$, $\Theta_i \mathrel{+}= R_i (u_i/s_i)^\top$, then in one pass
  $A_i^{-1} \leftarrow A_i^{-1}/\rho - w_i w_i^\top$, $w_i = u_i/\sqrt{s_i}$ (exactly
  symmetric; a copy whose $s_i \le 0$, only for contexts so large that $s$ overflowed, takes
  $u_i v_i^\top$; the numpy path then takes it for every copy, the same numbers to rounding).

**Tolerance contract.** The element-wise steps are the numpy path's operations: $A_{ab}/\rho$
is `A[a, b] * inv_forget` (numpy's `P *= 1.0 / forget`), the downdate subtracts the rounded
product $w_a w_b$ from the rounded scaled entry, $v = u/s$, $\Theta + R v$, `math.cos` and the
same $\sqrt 2$ product; the dot products ($Wc$, $\Theta\phi$, $A^{-1}\phi$, $\phi^\top u$) sum in
the order of LLVM's vectoriser (the one fast-math flag `reassoc`, on the sums only; a plain
loop's strict order left $u = A^{-1}\phi$ three times slower) where numpy's BLAS / einsum sums
in its own order, and numba's
cosine is the C library's where numpy may use its own vectorised one: the two paths agree to
rounding (about 1e-15 relative a round; `tests/learners/test_stack_kernels.py`).

Works in place on the stack's own arrays (`_P`, `_theta`), so the numpy path and the kernels
are interchangeable from one round to the next and a pickled stack is the same whichever ran.
Compiled at first use (`cache=True`); without numba `AVAILABLE` is False and the stack runs its
numpy path (`FeaturePolicyStack._JIT`).

Examples
--------
>>> import numpy as np
>>> from learners import FeaturePolicyStack
>>> from onlineboost import sets
>>> fast = FeaturePolicyStack(3, sets.Simplex(2), forget=0.99, n_features=8, seeds=[0, 1, 2])
>>> slow = FeaturePolicyStack(3, sets.Simplex(2), forget=0.99, n_features=8, seeds=[0, 1, 2])
>>> slow._JIT = False
>>> rng = np.random.default_rng(0)
>>> for _ in range(200):
...     c, G = rng.normal(size=2), rng.normal(size=(3, 2))
...     same = np.allclose(fast.predicted_costs(c), slow.predicted_costs(c), rtol=1e-12)
...     fast.learn_vector(c, G)
...     slow.learn_vector(c, G)
>>> same, bool(np.allclose(fast._P, slow._P, rtol=1e-10, atol=1e-14))
(True, True)
"""

from __future__ import annotations

import math

import numpy as np

try:  # numba is a dependency; without it the stack runs its numpy path
    import numba

    AVAILABLE = True

    def _njit(f, **options):
        # (`cache=True` needs a writable cache location; else compile per process)
        try:
            return numba.njit(cache=True, **options)(f)
        except RuntimeError:  # pragma: no cover - "cannot cache function ...: no locator"
            return numba.njit(**options)(f)

    def _njit_sum(f):
        # the one fast-math flag: sums may be reassociated (vectorised), nothing else (no
        # contraction into fused multiply-adds, NaN and inf kept)
        return _njit(f, fastmath={"reassoc"})
except ImportError:  # pragma: no cover - exercised only where numba is missing
    AVAILABLE = False

    def _njit(f):
        return f

    _njit_sum = _njit

__all__ = ["AVAILABLE", "boost_predict", "evidence_step", "learn", "nearest", "predict",
           "rank_one"]

_SQRT2 = math.sqrt(2.0)


@_njit_sum
def _dot(a, b):
    r"""$\sum_i a_i b_i$, summed in the order LLVM's vectoriser picks (`reassoc`)."""
    t = 0.0
    for i in range(a.shape[0]):
        t += a[i] * b[i]
    return t


@_njit_sum
def _dot_scaled(a, scale, b):
    r"""$\sum_i (a_i \cdot \text{scale})\, b_i$: the scaled entries rounded as stored ones
    would be, summed as `_dot`."""
    t = 0.0
    for i in range(a.shape[0]):
        t += (a[i] * scale) * b[i]
    return t


@_njit
def predict(W, b, c, fourier, theta, F, costs):
    r"""$\phi_i(c) = (1, \sqrt2\,\sigma(W_i c + b_i), c)$ into `F` `(n, 1 + D + p)` ($\sigma$
    the cosine when `fourier`, else $\max(\cdot, 0)$) and $\Theta_i\phi_i$ into `costs`
    `(n, k)`. `c` has exactly the map's $p$ columns."""
    n, D, p = W.shape
    k = theta.shape[1]
    for i in range(n):
        Fi = F[i]
        Fi[0] = 1.0
        for d in range(D):
            z = _dot(W[i, d], c) + b[i, d]
            if fourier:
                z = math.cos(z)
            elif z < 0.0:  # (np.maximum(z, 0.0): NaN and -0.0 kept)
                z = 0.0
            Fi[1 + d] = z * _SQRT2
        for j in range(p):
            Fi[1 + D + j] = c[j]
        for a in range(k):
            costs[i, a] = _dot(theta[i, a], Fi)


@_njit
def learn(P, theta, F, R, inv_forget):
    r"""One recursive-least-squares step with forgetting of every copy (module docstring), in
    place on `P` `(n, q, q)` and `theta` `(n, k, q)`; `R` `(n, k)` the residuals. Copy by copy,
    so that each $A_i^{-1}$ is read for $u_i$ and rewritten while it is still in cache."""
    n, q = F.shape
    k = theta.shape[1]
    u = np.empty(q)
    v = np.empty(q)
    w = np.empty(q)
    for i in range(n):
        Pi, phi = P[i], F[i]
        for a in range(q):
            u[a] = _dot_scaled(Pi[a], inv_forget, phi)
        s = 1.0 + _dot(phi, u)
        for j in range(q):
            v[j] = u[j] / s
        for a in range(k):
            r = R[i, a]
            th = theta[i, a]
            for j in range(q):
                th[j] += r * v[j]
        if s > 0.0:  # exactly symmetric: w w^T
            root = math.sqrt(s)
            for j in range(q):
                w[j] = u[j] / root
            for a in range(q):
                row = Pi[a]
                wa = w[a]
                for j in range(q):
                    row[j] = row[j] * inv_forget - wa * w[j]
        else:  # (only for contexts so large that s overflowed)
            for a in range(q):
                row = Pi[a]
                ua = u[a]
                for j in range(q):
                    row[j] = row[j] * inv_forget - ua * v[j]


@_njit
def boost_predict(raw0, m, has_model, residual, W, b, c, fourier, theta, beta0, beta, F, raw,
                  costs, points, shift):
    r"""`FeaturePolicyBoostStack.predict_vector` with softmax play: copy 1's raw costs `raw0`
    `(k,)` (numpy's, as the one-copy learner makes them) and the model's `m` (`has_model`)
    given; copies 2..n's $\phi$ into `F` and raw costs into `raw[1:]` (`predict`), `raw[0]` =
    `raw0`; the stages' costs into `costs` (the running sums over the copies when `residual`,
    row after row as numpy's `cumsum`, then `+ m`); their laws into `points`: row 1 as copy 1's
    plain-float softmax (`FeaturePolicyStack._softmax` on one row: its minimum, `exp((min - y)
    * beta0)`, the sum left to right; the same floats), rows 2..n as numpy's softmax (the row's
    minimum, `exp`, the row's sum as numpy's pairwise sum) at `beta`; each softmax of its row of
    costs less `shift` `(k,)` (the stack's `shift`: zeros for none), the costs themselves kept."""
    n, k = raw.shape
    predict(W, b, c, fourier, theta, F, raw[1:])
    for a in range(k):
        raw[0, a] = raw0[a]
    for i in range(n):
        for a in range(k):
            v = raw[i, a]
            if residual and i > 0:
                v = costs[i - 1, a] + v
            costs[i, a] = v
    if has_model:  # (after the sums: numpy's `cumsum(raw) + m`)
        for i in range(n):
            for a in range(k):
                costs[i, a] = costs[i, a] + m[a]
    e = np.empty(k)
    row = np.empty(k)
    for i in range(n):
        for a in range(k):
            row[a] = costs[i, a] - shift[a]
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
            points[i, a] = e[a] / total


@_njit
def _pairwise_sum(a):
    """numpy's pairwise sum of a short row (below 8 entries left to right from 0, else eight
    interleaved partial sums, then the remainder; `onlineboost._boost_kernels`)."""
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
def nearest(C, m, c, k, idx, dist, row):
    """`learners.neighbour_stack.NeighbourStack`'s neighbours: the (at most) `k` rows of
    `C[:m]` nearest to `c`, their indices into `idx` in increasing distance, ties by row
    (`np.argsort(d, kind="stable")[:k]`), their distances into `dist`; returns how many.
    The distances are numpy's `((C[:m] - c) ** 2).sum(axis=1)`, the same floats (the squares
    into the scratch `row`, of `c`'s length, then numpy's pairwise sum; at most 128 columns)."""
    p = c.shape[0]
    kk = 0
    for i in range(m):
        Ci = C[i]
        for j in range(p):
            x = Ci[j] - c[j]
            row[j] = x * x
        d = _pairwise_sum(row)
        if kk < k:
            pos = kk
            kk += 1
        elif d < dist[kk - 1]:
            pos = kk - 1
        else:
            continue
        while pos > 0 and d < dist[pos - 1]:
            dist[pos] = dist[pos - 1]
            idx[pos] = idx[pos - 1]
            pos -= 1
        dist[pos] = d
        idx[pos] = i
    return kk


@_njit
def rank_one(theta, g, v, P, a, b):
    r"""$\Theta \mathrel{+}= g v^\top$ and $P \mathrel{-}= a b^\top$ in place: numpy's
    `theta += g[:, None] * v` and `P -= a[:, None] * b`, entry by entry the same operations
    (the same floats), without their temporaries: the tail of a one-copy stack's step
    (`FeaturePolicyStack.learn_vector`, $a = b = w$)."""
    k, q = theta.shape
    for i in range(k):
        gi = g[i]
        row = theta[i]
        for j in range(q):
            row[j] += gi * v[j]
    for i in range(P.shape[0]):
        ai = a[i]
        row = P[i]
        for j in range(P.shape[1]):
            row[j] -= ai * b[j]


@_njit
def _ridge_step(P, theta, x, y, u):
    r"""One Bayesian ridge's prequential step on the row `x` and target `y`, in place on its
    inverse Gram matrix `P` `(q, q)` and mean `theta` `(q,)`: returns the prediction
    $\theta^\top x$ and $v = x^\top P x$ taken before the step, then $\theta \mathrel{+}=
    (y - \theta^\top x)\,u/s$ and $P \mathrel{-}= w w^\top$ ($u = P x$, $s = 1 + v$, $w =
    u/\sqrt s$). `u` `(q,)` is scratch."""
    q = x.shape[0]
    for a in range(q):
        u[a] = _dot(P[a], x)
    v = _dot(x, u)
    m = _dot(theta, x)
    s = 1.0 + v
    r = (y - m) / s
    for j in range(q):
        theta[j] += r * u[j]
    root = math.sqrt(s)
    for j in range(q):
        u[j] = u[j] / root
    for a in range(q):
        row = P[a]
        ua = u[a]
        for j in range(q):
            row[j] -= ua * u[j]
    return m, v


@_njit
def evidence_step(P0, theta0, P1, theta1, arm, phi, D, cuts, y, s2, max_row, u, x1):
    r"""One round of `learners.structure_evidence.StructureEvidence` on the played arm `arm`:
    `phi` $= (1, \psi(c), c)$ (its $D$ random features, then $p$ context columns) is checked
    (every entry within `max_row` in magnitude, else nothing moves and `ok` is False), $M_1$'s row
    $(1, \psi(c), c, \mathbb 1\{c_j > \tau_m\})$ built into `x1` (the stumps column by column,
    `cuts` $\tau$ within each), then the linear model on $(1, c)$ and the structured one on `x1`
    each take one `_ridge_step` on the loss `y`. Returns `(ok, the log ratio of the two
    predictive densities at noise variance s2, the linear model's standardised squared error)`.
    `u` `(len(x1),)` is scratch."""
    q = phi.shape[0]
    for j in range(q):
        if not abs(phi[j]) <= max_row:  # (NaN too)
            return False, 0.0, 0.0
    p = q - 1 - D
    M = cuts.shape[0]
    for j in range(q):
        x1[j] = phi[j]
    for j in range(p):
        c = phi[1 + D + j]
        for m in range(M):
            x1[q + j * M + m] = 1.0 if c > cuts[m] else 0.0
    x0 = np.empty(1 + p)
    x0[0] = phi[0]
    for j in range(p):
        x0[1 + j] = phi[1 + D + j]
    m0, v0 = _ridge_step(P0[arm], theta0[arm], x0, y, u[:1 + p])
    m1, v1 = _ridge_step(P1[arm], theta1[arm], x1, y, u)
    e0 = (y - m0) ** 2 / (1.0 + v0)
    e1 = (y - m1) ** 2 / (1.0 + v1)
    return True, -0.5 * math.log((1.0 + v1) / (1.0 + v0)) - 0.5 * (e1 - e0) / s2, e0
