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

__all__ = ["obi_grid", "obi_convex", "oo_simple", "offsets_simple", "offsets_convex"]

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
