r"""The offset oracle of SecBoost (Step 2.5): offsets $v$ whose Optimal Bregman Information
is at most $z$, found from loss values only.

The OBI of Definition 4.6 is the largest gap between $F$ and the line through $(a, F(a))$,
$(b, F(b))$, over the interval spanned by $a$ and $c$:

$$Q_F(a, b, c) = \max_{x \in \mathbb{I}_{a,c}} F(a) + \frac{F(b) - F(a)}{b - a}(x - a) - F(x).$$

An oracle call for example $i$ returns $v \in \mathbb{I}_{ti}(z) = \{v : Q^*_F(\tilde e_{ti},
\tilde e_{(t-1)i}, v) \le z\}$, with $Q^*_F(z, z', v) = Q_F(z, z+v, z')$ in general and
$Q_F(z, z+v, z+v)$ for a convex $F$. Every function here is vectorised over examples.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "obi_grid",
    "obi_convex",
    "oo_simple",
    "offsets_simple",
    "offsets_bracketed",
    "offsets_convex",
]

_GOLDEN = (np.sqrt(5.0) - 1.0) / 2.0


def obi_grid(F, a, b, c, n_grid: int = 257) -> np.ndarray:
    r"""$Q_F(a, b, c)$ estimated on `n_grid` regularly spaced points of $\mathbb{I}_{a,c}$.

    Exact when the gap peaks at a grid point; a lower estimate otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> float(obi_grid(lambda x: x**2, np.array([0.0]), np.array([2.0]), np.array([2.0]))[0])
    1.0
    """
    a, b, c = (np.asarray(u, dtype=np.float64) for u in (a, b, c))
    F_a = F(a)
    slope = (F(b) - F_a) / (b - a)
    x = a[..., None] + (c - a)[..., None] * np.linspace(0.0, 1.0, n_grid)
    gap = F_a[..., None] + slope[..., None] * (x - a[..., None]) - F(x)
    return np.maximum(gap.max(axis=-1), 0.0)


def obi_convex(F, z, v, n_iter: int = 60) -> np.ndarray:
    r"""$Q_F(z, z+v, z+v)$ for a convex $F$: the secant's gap is concave, so golden-section
    search finds its maximum over $[z, z+v]$ from values alone (B.7's closed-form abscissa, found
    without the derivative).

    Examples
    --------
    >>> import numpy as np
    >>> round(float(obi_convex(lambda x: x**2, np.array([0.0]), np.array([2.0]))[0]), 12)
    1.0
    """
    z, v = np.asarray(z, dtype=np.float64), np.asarray(v, dtype=np.float64)
    F_z = F(z)
    slope = (F(z + v) - F_z) / v

    def gap(x):
        return F_z + slope * (x - z) - F(x)

    lo, hi = np.minimum(z, z + v), np.maximum(z, z + v)
    x1, x2 = hi - _GOLDEN * (hi - lo), lo + _GOLDEN * (hi - lo)
    g1, g2 = gap(x1), gap(x2)
    for _ in range(n_iter):
        left = g1 > g2  # the maximum lies in [lo, x2]
        hi = np.where(left, x2, hi)
        lo = np.where(left, lo, x1)
        x2_new = np.where(left, x1, lo + _GOLDEN * (hi - lo))
        x1_new = np.where(left, hi - _GOLDEN * (hi - lo), x2)
        x1, x2 = x1_new, x2_new
        g_new = gap(np.where(left, x1, x2))
        g1, g2 = np.where(left, g_new, g2), np.where(left, g1, g_new)
    return np.maximum(np.maximum(g1, g2), 0.0)


def oo_simple(F, e_t, e_prev, Z: int) -> np.ndarray:
    r"""Algorithm 4 (`oo_simple`) of appendix C.2, one call for every example at once.

    Scan $z_c = \tilde e_t + k\delta$, $k = 1, \dots, Z - 1$, $\delta = (\tilde e_{t-1} -
    \tilde e_t)/Z$, for the secant from $(\tilde e_t, F(\tilde e_t))$ of least slope if
    $\delta > 0$ (greatest if $\delta < 0$) and return $v = z_* - \tilde e_t$. `Z` is the
    precision $Z \ge 2$.

    Examples
    --------
    >>> import numpy as np
    >>> F = lambda x: np.minimum(x**2, 1.0)  # non-convex
    >>> oo_simple(F, np.array([0.0]), np.array([3.0]), Z=6)  # flattest secant: up to x = 3
    array([2.5])
    """
    e_t, e_prev = np.asarray(e_t, dtype=np.float64), np.asarray(e_prev, dtype=np.float64)
    delta = (e_prev - e_t) / Z  # (86)
    k = np.arange(1, Z)  # the do-while visits z_c strictly inside the interval
    z_c = e_t[..., None] + delta[..., None] * k
    s_c = (F(z_c) - F(e_t)[..., None]) / (z_c - e_t[..., None])  # SLOPE(F, e_t, z_c)
    best = np.argmin(np.sign(delta)[..., None] * s_c, axis=-1)  # first optimum, as `<` keeps
    return np.take_along_axis(z_c, best[..., None], axis=-1)[..., 0] - e_t


def offsets_simple(
    F, e_t, e_prev, z, Z: int = 16, Z_max: int = 1024, check: int = 4, min_check: int = 1025
):
    r"""Offsets in $\mathbb{I}_{ti}(z)$ by `oo_simple`, refining the step until the OBI fits.

    The OBI $Q_F(\tilde e_t, \tilde e_t + v, \tilde e_{t-1})$ of each candidate is measured on
    a grid `check` times finer than the search grid (and of at least `min_check` points: a loss
    is only known by values, so structure finer than this grid goes unseen); where it exceeds
    $z$, the search restarts
    with $Z$ doubled (C.2: "start again with a smaller step size"), up to `Z_max`. Returns the
    offsets and a mask of the examples for which one was found (elsewhere $\mathbb{I}_{ti}(z)$ is
    taken as empty and the offset is `nan`).

    Examples
    --------
    >>> import numpy as np
    >>> F = lambda x: np.log1p(np.exp(-x))
    >>> v, found = offsets_simple(F, np.array([1.0, 0.0]), np.array([0.0, 1.0]), z=1e-3)
    >>> v, found
    (array([-0.0625,  0.0625]), array([ True,  True]))
    """
    e_t, e_prev = np.asarray(e_t, dtype=np.float64), np.asarray(e_prev, dtype=np.float64)
    v = np.full(e_t.shape, np.nan)
    todo = np.ones(e_t.shape, dtype=bool)
    while Z <= Z_max and todo.any():
        idx = np.flatnonzero(todo)
        c = max(check, -(-(min_check - 1) // Z))  # check grid: c Z + 1 points
        cand, q = _oo_simple_checked(F, e_t[idx], e_prev[idx], Z, c)
        ok = q <= z
        v[idx[ok]] = cand[ok]
        todo[idx[ok]] = False
        Z *= 2
    return v, ~todo


def _oo_simple_checked(F, e_t, e_prev, Z, c):
    """`oo_simple` and the OBI of its offset, from one evaluation of F on a grid of c Z + 1
    points that contains Algorithm 4's search points (every c-th one)."""
    j = np.arange(c * Z + 1)
    x = e_t[:, None] + ((e_prev - e_t) / (c * Z))[:, None] * j
    Fx = F(x)
    k = c * np.arange(1, Z)  # z_c = e_t + k delta, k = 1..Z-1
    s_c = (Fx[:, k] - Fx[:, :1]) / (x[:, k] - e_t[:, None])
    best = np.argmin(np.sign(e_prev - e_t)[:, None] * s_c, axis=-1)
    rows = np.arange(len(e_t))
    s = s_c[rows, best]
    gap = Fx[:, :1] + s[:, None] * (x - e_t[:, None]) - Fx  # the secant minus F, on the grid
    return x[rows, k[best]] - e_t, np.maximum(gap.max(axis=-1), 0.0)


def offsets_convex(F, e_t, e_prev, z, max_halvings: int = 60):
    r"""Offsets in $\mathbb{I}_{ti}(z)$ for a convex $F$: the dichotomic search of B.7.

    Start from $v = \tilde e_{t-1} - \tilde e_t$ (the sign the offsets take, §5.1.2) and halve
    $v$ until $Q_F(\tilde e_t, \tilde e_t + v, \tilde e_t + v) \le z$ (`obi_convex`).

    Examples
    --------
    >>> import numpy as np
    >>> v, found = offsets_convex(lambda x: x**2, np.array([0.0]), np.array([4.0]), z=0.3)
    >>> v, found  # the OBI of x^2 is v^2 / 4
    (array([1.]), array([ True]))
    """
    e_t, e_prev = np.asarray(e_t, dtype=np.float64), np.asarray(e_prev, dtype=np.float64)
    v = e_prev - e_t
    found = np.zeros(e_t.shape, dtype=bool)
    for _ in range(max_halvings + 1):
        todo = ~found
        if not todo.any():
            break
        ok = obi_convex(F, e_t[todo], v[todo]) <= z
        idx = np.flatnonzero(todo)
        found[idx[ok]] = True
        v[idx[~ok]] /= 2.0
    return np.where(found, v, np.nan), found


def offsets_bracketed(F, e_t, e_prev, z, n_grid: int = 1024, n_max: int = 2**16,
                      n_golden: int = 60, rtol: float = 64 * np.finfo(float).eps,
                      chunk: int = 2**22):
    r"""Offsets in $\mathbb{I}_{ti}(z)$ by the least-slope secant, located to machine precision.

    Why the set is not empty (Lemma B.4 for a continuous $F$): with $a = \tilde e_t$, $c =
    \tilde e_{t-1}$ and $\sigma(x) = \operatorname{sign}(c - a)\,(F(x) - F(a))/(x - a)$, the
    secant through $(a, F(a))$ and $(b, F(b))$ lies above $F$ at $x \in \mathbb{I}_{a,c}$ by
    $|x - a|\,(\sigma(b) - \sigma(x))$, so its OBI is at most $|c - a|\,(\sigma(b) - \inf
    \sigma)$: zero at a minimiser of $\sigma$, and as small as wanted near the infimum.

    The search: $\sigma$ on `n_grid` regular points of $(a, c]$, the least one bracketed by its
    two neighbours and refined by `n_golden` golden-section steps (the best point seen is kept;
    when the least grid point is the first one, where the infimum may lie at $a$ itself, the
    points $a + 2^{-k}(c - a)/n$ are tried first down to the last digits of $a$, and the
    bracket is taken around the best of them). The offset is $v = b - a$ (the step actually
    taken in floating point). Its OBI is then measured on the midpoints of the grid and on 63
    points between $a$ and $b$ (the grid points themselves lie above the secant by
    construction); it is accepted when it is at most $z$ plus the oracle's own tolerance,
    `rtol` times the largest $|F|$ seen (below that, values of $F$ cannot tell a gap from
    rounding). Where it is not, the
    search restarts with twice as many points, up to `n_max`. Returns the offsets and a mask
    of the examples for which one was found (`nan` elsewhere). An example is left unresolved
    only if $F$ has structure narrower than $|c - a| / $ `n_max`, a jump larger than $z$
    at $a$ (then $\mathbb{I}_{ti}(z)$ can indeed be empty, Lemma B.4 and Figure 4 (c)), or a
    cusp at $a$ so steep that the offsets of $\mathbb{I}_{ti}(z)$ fall below the last digits of
    $a$ (at the spring loss's peaks, $|v| \sim 100 z^2$: for $z$ under about $10^{-8}$).
    The acceptance measures the OBI on those points, a lower estimate: where $F$ has
    structure narrower than the grid at which an offset is accepted, its true OBI can exceed
    $z$ (measured on 400,001 points, pairs of edges uniform in $[-1, 1]$: the spring loss at
    $Q = 10^4$ gives up to $1.8z$ at $z = 10^{-6}$ and $5.2z$ at $z = 10^{-8}$ over 40 pairs;
    at $Q = 500$ and $z = 10^{-9}$ one pair of 20 gives $49z$, as
    $(\tilde e_t, \tilde e_{t-1}) = (0.459, 0.962)$, $v = 0.0020$).
    Vectorised over examples, in chunks of at most `chunk` loss values.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost.batch.secboost_losses import SpringLoss
    >>> F = SpringLoss(Q=500.0)
    >>> e_t, e_prev = np.array([0.3017, -0.2]), np.array([-0.1, 0.45])
    >>> v, found = offsets_bracketed(F, e_t, e_prev, z=1e-9)
    >>> found, bool(np.all(obi_grid(F, e_t, e_t + v, e_prev, n_grid=100_001) <= 1e-9))
    (array([ True,  True]), True)
    """
    e_t, e_prev = np.asarray(e_t, dtype=np.float64), np.asarray(e_prev, dtype=np.float64)
    v = np.full(e_t.shape, np.nan)
    todo = np.flatnonzero(e_prev != e_t)
    n = int(n_grid)
    while todo.size and n <= n_max:
        rows = max(1, chunk // (2 * n))
        ok_all = np.zeros(todo.size, dtype=bool)
        for start in range(0, todo.size, rows):
            idx = todo[start:start + rows]
            cand, ok = _least_slope_secant(F, e_t[idx], e_prev[idx], z, n, n_golden, rtol)
            v[idx[ok]] = cand[ok]
            ok_all[start:start + rows] = ok
        todo = todo[~ok_all]
        n *= 2
    found = np.isfinite(v)
    return v, found


def _least_slope_secant(F, a, c, z, n, n_golden, rtol):
    """One pass of `offsets_bracketed` at `n` grid points, for the rows a, c (a != c)."""
    d = c - a
    sign = np.sign(d)
    rows = np.arange(len(a))
    F_a = F(a)
    t = np.arange(1, n + 1) / n  # x = a + t d, t in (0, 1]
    x = a[:, None] + d[:, None] * t
    F_x = F(x)
    score = sign[:, None] * (F_x - F_a[:, None]) / (x - a[:, None])
    j = np.argmin(score, axis=1)
    best_t, best_s = t[j], score[rows, j]

    def sigma(u):  # sign(d) * slope(a, a + u d), u in (0, 1]
        xu = a + u * d
        return sign * (F(xu) - F_a) / (xu - a)

    # golden section in the bracket [t_{j-1}, t_{j+1}] (t_j = (j + 1) / n, j from 0)
    lo, hi = j / n, np.minimum((j + 2) / n, 1.0)
    first = np.flatnonzero(j == 0)
    if first.size:  # the infimum may be approached at a: zoom in geometrically, t = 2^-k / n
        u = 2.0 ** -np.arange(1, 64) / n
        xu = a[first, None] + d[first, None] * u
        du = xu - a[first, None]  # exact step actually taken (0 below a's last digit)
        with np.errstate(divide="ignore", invalid="ignore"):
            su = sign[first, None] * (F(xu) - F_a[first, None]) / du
        # a difference of F lost in rounding gives a meaningless slope: such points are skipped
        resolved = np.abs(F(xu) - F_a[first, None]) > 2.0**20 * np.finfo(float).eps * np.maximum(
            1.0, np.abs(F_a[first, None]))
        su = np.where(resolved & (np.abs(du) > 0), su, np.inf)
        k = np.argmin(su, axis=1)
        better = su[np.arange(first.size), k] < best_s[first]
        best_t[first] = np.where(better, u[k], best_t[first])
        best_s[first] = np.where(better, su[np.arange(first.size), k], best_s[first])
        lo[first] = np.where(better, u[k], u[0])
        hi[first] = np.where(better, np.where(k == 0, 2.0 / n, u[np.maximum(k - 1, 0)]), 2.0 / n)
    x1, x2 = hi - _GOLDEN * (hi - lo), lo + _GOLDEN * (hi - lo)
    s1, s2 = sigma(x1), sigma(x2)
    for _ in range(n_golden):
        for u, s_u in ((x1, s1), (x2, s2)):
            better = s_u < best_s
            best_t, best_s = np.where(better, u, best_t), np.where(better, s_u, best_s)
        left = s1 < s2  # the minimum lies in [lo, x2]
        hi = np.where(left, x2, hi)
        lo = np.where(left, lo, x1)
        x1_new = np.where(left, hi - _GOLDEN * (hi - lo), x2)
        x2_new = np.where(left, x1, lo + _GOLDEN * (hi - lo))
        x1, x2 = x1_new, x2_new
        s_new = sigma(np.where(left, x1, x2))
        s1, s2 = np.where(left, s_new, s2), np.where(left, s1, s_new)
    for u, s_u in ((x1, s1), (x2, s2)):
        better = s_u < best_s
        best_t, best_s = np.where(better, u, best_t), np.where(better, s_u, best_s)
    v = (a + best_t * d) - a  # the step actually taken: F(a + v) is F at the chosen point
    best_s = sign * (F(a + v) - F_a) / v
    # the OBI of the secant through a and b = a + best_t d, on the grid's midpoints and on 64
    # points between a and b (b may be far closer to a than one grid step)
    inner = best_t[:, None] * (np.arange(1, 64) / 64.0)
    mid = a[:, None] + d[:, None] * np.concatenate([t - 0.5 / n + 0 * inner[:, :1], inner],
                                                   axis=1)
    F_mid = F(mid)
    slope = sign * best_s
    gap = F_a[:, None] + slope[:, None] * (mid - a[:, None]) - F_mid
    scale = np.maximum(np.abs(F_x).max(axis=1), np.abs(F_mid).max(axis=1))
    ok = np.maximum(gap.max(axis=1), 0.0) <= z + rtol * np.maximum(scale, np.abs(F_a))
    return v, ok
