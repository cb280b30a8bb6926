r"""`BoOCO` and `depth.FitLead` rounds with $N > 1$ copies, compiled where numpy's per-call cost
dominates (numba): the extension's gradient at the $N$ points, and FitLead's cumulant bounds.

**The extension's gradient** for the linear loss on the simplex at a few points. `BoOCO` with
$N > 1$ copies (BoBLO's `n_learners=5`) trains copy $i$ on the gradient of the extended loss
at $x^{i-1}$: `Extension.gradient_unchecked` on an `(N, d)` stack, which for the linear loss is
$(x - p^\star)/\delta$, $p^\star = \operatorname{prox}_{\delta\kappa\operatorname{Dist}}(x -
\delta y)$ (`extension.prox_distance`). On the development shapes ($N = 5$ rows of 5-10 arms)
that is the simplex's plain-float projection of each row (`sets._projection_simplex_row`, a
Python loop) and a dozen numpy calls, ~50-90 us a round for well under a microsecond of
arithmetic. `linear_gradient_rows` is the same steps compiled:

* $z = x - \delta y$ (numpy's `x - delta * y`);
* `sets._projection_simplex_row` of each row, transcribed operation by operation (the shift
  by the row's maximum, the sorted threshold search, the clip at 0, the sum's rounding error
  spread over the free coordinates, its sum left to right as Python 3.11's `sum` adds floats);
* `extension.prox_distance`'s stack path: $r = z - \Pi(z)$, $|r|$ summed as numpy's
  `add.reduce` sums a row (its pairwise sum: left to right below 8 entries, else eight
  interleaved partial sums), the pull $1 - \lambda/|r|$ where $|r| > \lambda$, else 0, and
  $\Pi(z) + \text{keep}\cdot r$;
* $(x - p^\star)/\delta$.

So the floats are the numpy path's, bit for bit, where that path takes the plain-float
projection (`sets.projection_simplex`: at most `sets._ROWS` rows of at most `sets._SMALL`
entries, or any stack of at most `sets._ANY_STACK` entries; `Extension.gradient_unchecked`
checks this). (On Python 3.12 and later `sum` of floats is compensated, so the projection's
spread may differ from the kernel's in the last bit.)

**FitLead's round** (`fit_round`: the leads' step, then `fit_bounds`): for experts
$j \ge 1$, every arm $a$ and rate $\lambda_i$,
$\max(\phi_{\lambda_i}(d(2 - \sigma)), \phi_{\lambda_i}(-d\sigma))$ with
$\phi_\lambda(x) = e^{\lambda x} - 1 - \lambda x$: 2 (M - 1) k x 40 `expm1`s a round, the
same operations as `FitLead.update`'s numpy round (`math.expm1` is the C library's, as
numpy's `expm1` is), so the same floats, except where numpy takes its own AVX-512 `expm1`,
which may differ from the C library's in the last bit of a term; the owner takes the
$p$-weighted sum with numpy.

Examples
--------
>>> import numpy as np
>>> from onlineboost import extension, losses, sets
>>> ext = extension.Extension(losses.Linear(), sets.Simplex(3), delta=0.1, kappa=1.0)
>>> X = np.array([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]])
>>> y = np.array([1.0, 0.0, 0.0])
>>> ext._JIT = True
>>> fast = ext.gradient_unchecked(X, y)
>>> ext._JIT = False
>>> bool(np.array_equal(fast, ext.gradient_unchecked(X, y)))
True
"""

from __future__ import annotations

import math

import numpy as np

from . import sets  # (geometry: it imports no kernel)

try:  # numba is a dependency; without it the extension runs its numpy path
    import numba

    AVAILABLE = True

    def _njit(f):
        # (`cache=True` needs a writable cache location; else compile per process)
        try:
            return numba.njit(cache=True)(f)
        except RuntimeError:  # pragma: no cover - "cannot cache function ...: no locator"
            return numba.njit(f)
except ImportError:  # pragma: no cover - exercised only where numba is missing
    AVAILABLE = False

    def _njit(f):
        return f

__all__ = ["AVAILABLE", "fit_bounds", "fit_round", "linear_gradient_rows", "project_rows",
           "project_small"]


def project_small(K, rows: np.ndarray):
    """`K.project(rows)` compiled (`project_rows`, the same floats) where `K` is a plain
    `sets.Simplex` and `rows` a few short finite rows, the shapes `sets.projection_simplex`
    projects in plain floats; else None (the caller projects with `K.project`, which also
    refuses non-finite rows)."""
    if not (AVAILABLE and type(K) is sets.Simplex and rows.ndim == 2
            and len(rows) <= sets._ROWS and 0 < rows.size <= sets._SMALL
            and math.isfinite(rows.sum())):
        return None
    out = np.empty_like(rows)
    project_rows(rows, out)
    return out


@_njit
def _pairwise_sum(a):
    """numpy's pairwise sum of a short row (`add.reduce` along a contiguous axis, at most 128
    entries): left to right from 0 below 8 entries, else eight interleaved partial sums added
    as ((0 + 1) + (2 + 3)) + ((4 + 5) + (6 + 7)), then the remainder left to right."""
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
def _project_row(z, p, u):
    """`sets._projection_simplex_row(z, 1.0)` into `p` (`u` scratch), the same operations."""
    d = z.shape[0]
    m = z[0]
    for j in range(1, d):
        if z[j] > m:  # (max: the first of equal values; all equal values give the same m)
            m = z[j]
    for j in range(d):
        u[j] = z[j]
    u.sort()  # increasing: read from the end for the decreasing order
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
def linear_gradient_rows(X, y, delta, lam, out):
    r"""$(x - \operatorname{prox}_{\lambda\operatorname{Dist}}(x - \delta y))/\delta$ of every
    row $x$ of `X` `(n, d)` on the simplex into `out` (module docstring); $\lambda =
    \delta\kappa$."""
    n, d = X.shape
    dy = np.empty(d)
    for j in range(d):
        dy[j] = delta * y[j]
    z = np.empty(d)
    p = np.empty(d)
    u = np.empty(d)
    r = np.empty(d)
    for i in range(n):
        x = X[i]
        for j in range(d):
            z[j] = x[j] - dy[j]
        _project_row(z, p, u)
        for j in range(d):
            v = z[j] - p[j]
            r[j] = v
            u[j] = v * v
        dist = math.sqrt(_pairwise_sum(u))
        if lam > 0:
            keep = 1.0 - lam / max(dist, lam) if dist > lam else 0.0
        else:  # no pull (kappa = 0): r whole wherever z is off K
            keep = 1.0 if dist > 0.0 else 0.0
        o = out[i]
        for j in range(d):
            o[j] = (x[j] - (p[j] + keep * r[j])) / delta


@_njit
def fit_bounds(d, s, lam, out):
    r"""`out[j, a, i]` $= \max(\phi(\lambda_i d_{ja}(2 - \sigma_{ja})),
    \phi(\lambda_i (-d_{ja})\sigma_{ja}))$, $\phi(x) = $ `expm1(x) - x` (module docstring);
    `d`, `s` `(m, k)`, `lam` `(g,)`, `out` `(m, k, g)`. numpy's `maximum`: the first unless
    the second is larger."""
    m, k = d.shape
    for j in range(m):
        for a in range(k):
            x1 = d[j, a] * (2.0 - s[j, a])
            x2 = -d[j, a] * s[j, a]
            o = out[j, a]
            if x1 == 0.0 and x2 == 0.0:  # (expm1(0) - 0 = 0 at every rate: the same floats)
                for i in range(lam.shape[0]):
                    o[i] = 0.0
                continue
            for i in range(lam.shape[0]):
                y1 = x1 * lam[i]
                y2 = x2 * lam[i]
                f1 = math.expm1(y1) - y1
                f2 = math.expm1(y2) - y2
                o[i] = f1 if (f1 >= f2 or f1 != f1) else f2


@_njit
def fit_round(Y, arm, loss, lam, lead, out):
    r"""`FitLead.update`'s numpy steps on the fitted predictions `Y` `(M, k)` of the round:
    $d = Y - Y_0$, $\sigma = Y + Y_0$, `lead` $\mathrel{+}= d_{\cdot a}(2\ell -
    \sigma_{\cdot a})$ at the played arm $a$ (in place), then `fit_bounds` of experts
    $1..M-1$ into `out` `(M - 1, k, g)`. The same operations, the same floats."""
    M, k = Y.shape
    two = 2.0 * loss
    for j in range(M):
        lead[j] += (Y[j, arm] - Y[0, arm]) * (two - (Y[j, arm] + Y[0, arm]))
    d = np.empty((M - 1, k))
    s = np.empty((M - 1, k))
    for j in range(1, M):
        for a in range(k):
            d[j - 1, a] = Y[j, a] - Y[0, a]
            s[j - 1, a] = Y[j, a] + Y[0, a]
    fit_bounds(d, s, lam, out)


@_njit
def project_rows(X, out):
    """`sets.projection_simplex` of the rows of `X` `(n, d)` into `out`, on the shapes it
    projects in plain floats (`sets._projection_simplex_small`: every row through
    `sets._projection_simplex_row`, here `_project_row`, the same operations): the same floats.
    `project_small` serves it to `BoBLO._play_features`, which projects its stages' rows when
    a row has a rounding residue below 0 (most rounds of `BoBLO(n_learners=5)` on digits)."""
    n, d = X.shape
    u = np.empty(d)
    for i in range(n):
        _project_row(X[i], out[i], u)
