r"""Convex decision sets K and their exact Euclidean projections.

Every kernel and every method takes one point (shape `(d,)`) or a stack of points (shape
`(..., d)`: the last axis holds the coordinates) and is vectorised over the stack. A 1-D
`Interval` also takes plain scalars.

$$\Pi_K(x) = \arg\min_{p \in K} \|x - p\|_2, \qquad \operatorname{Dist}(x, K) = \|x - \Pi_K(x)\|_2$$

"""

from __future__ import annotations

import math

import numpy as np
from river import base

__all__ = [
    "Ball",
    "Box",
    "CappedSimplex",
    "ConvexSet",
    "Interval",
    "Simplex",
    "projection_box",
    "projection_capped_simplex",
    "projection_l2_ball",
    "projection_simplex",
]


# ----------------------------------------------------------------------------- kernels


def projection_box(x: np.ndarray, lo, hi) -> np.ndarray:
    r"""Euclidean projection onto the box $\{p : lo \le p \le hi\}$ (coordinate-wise clipping).

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost import sets
    >>> sets.projection_box(np.array([-3.0, 0.5, 7.0]), -1.0, 1.0)
    array([-1. ,  0.5,  1. ])
    """
    return np.minimum(np.maximum(x, lo), hi)  # np.clip's wrapper costs more on small stacks


def projection_l2_ball(x: np.ndarray, center=0.0, radius: float = 1.0) -> np.ndarray:
    r"""Euclidean projection onto the ball $\{p : \|p - c\|_2 \le r\}$.

    `center` is $c$ and `radius` is $r$. Overflow-free for every finite input: the norm is
    taken of $(x - c)/2$ divided by its largest entry, so $x = 10^{300}$ (whose squared norm
    overflows) still lands on the sphere.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost import sets
    >>> sets.projection_l2_ball(np.array([3.0, 4.0]))
    array([0.6, 0.8])
    >>> sets.projection_l2_ball(np.array([1e300, 1e300]))
    array([0.70710678, 0.70710678])
    """
    x = np.asarray(x, dtype=np.float64)
    half = 0.5 * x - 0.5 * np.asarray(center, dtype=np.float64)  # (x - c) / 2, never overflows
    big = np.max(np.abs(half), axis=-1, keepdims=True)
    safe = np.where(big > 0, big, 1.0)
    u = half / safe  # entries in [-1, 1], norm in [1, sqrt(d)] unless 0
    norm_u = np.sqrt(np.sum(u * u, axis=-1, keepdims=True))
    inside = norm_u * safe <= 0.5 * radius  # |x - c| <= r, without forming |x - c|
    return np.where(inside, x, center + u * (radius / np.where(inside, 1.0, norm_u)))


def projection_simplex(x: np.ndarray, scale: float = 1.0) -> np.ndarray:
    r"""Euclidean projection onto the simplex $\{p \ge 0 : \sum_i p_i = \text{scale}\}$.

    Exact, by sorting (Held et al. 1974; Duchi et al. 2008): $p = \max(x - \tau, 0)$ with
    $\tau = (\sum_{j \le \rho} u_j - \text{scale}) / \rho$, $u$ sorted decreasingly and $\rho$ the
    largest index with $u_\rho > \tau$.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost import sets
    >>> sets.projection_simplex(np.array([0.5, 1.5, -2.0]))
    array([0., 1., 0.])
    >>> sets.projection_simplex(np.array([[0.2, 0.2], [3.0, 1.0]]))
    array([[0.5, 0.5],
           [1. , 0. ]])
    """
    x = np.asarray(x, dtype=np.float64)
    if 0 < x.size <= _SMALL and (x.ndim == 1 or x.ndim == 2 and (len(x) <= _ROWS
                                                                 or x.size <= _ANY_STACK)):
        return _projection_simplex_small(x, float(scale))  # a few short rows: plain floats
    x = _shifted(x, -float(scale))  # exact: only differences matter, and far coordinates are 0
    u = -np.sort(-x, axis=-1)
    css = np.cumsum(u, axis=-1) - scale
    ind = np.arange(1, x.shape[-1] + 1, dtype=np.float64)
    rho = np.count_nonzero(u - css / ind > 0, axis=-1, keepdims=True)  # >= 1 always
    tau = np.take_along_axis(css, rho - 1, axis=-1) / rho
    return _polish(x, np.maximum(x - tau, 0.0), scale, np.inf)


#: `_projection_simplex_small` takes a point or a stack of at most `_ROWS` rows and `_SMALL`
#: entries, and any stack of at most `_ANY_STACK` entries (the rule before, kept so that every
#: stack it took keeps its numbers). The Python loop costs a few microseconds a row plus a
#: fraction of one an entry, numpy's dozen calls a fixed several dozen: measured (best of
#: interleaved repeats), 27 us against 75 us for one row of 100, 36 / 82 for 5 x 20, 53 / 81
#: for 10 x 10. BoBLO's N = 5 copies on 10 arms project 5 x 10 three times a round (the
#: copies' predict and learn, the extension's prox).
_SMALL, _ROWS, _ANY_STACK = 100, 10, 48


def _projection_simplex_small(x: np.ndarray, scale: float) -> np.ndarray:
    """`projection_simplex` of a point or a few rows, in plain floats (a dozen numpy calls
    cost more than the arithmetic on, say, 5 x 10 entries): `_projection_simplex_row` of each
    row."""
    out = [_projection_simplex_row(z, scale) for z in x.reshape(-1, x.shape[-1]).tolist()]
    return np.array(out).reshape(x.shape)


def _projection_simplex_row(z: list, scale: float) -> list:
    """`projection_simplex` of one point given as a non-empty list of finite floats, as a list
    (the plain-float kernel; `CappedSimplex.project_row_unchecked` serves it to callers).

    The row is shifted by its maximum first (the projection commutes with adding a multiple
    of the all-ones vector), so that the sorted threshold search cannot lose the row to
    rounding however large its entries: `[1e16, 0, 0]` and `[1e308, -1e308, 0]` map to
    `[1, 0, 0]`. The rounding error of the sum is then spread over the free coordinates, as
    `_polish` does. The numpy path's projection up to rounding: the running sum starts from
    `-scale` and the spread sums left to right, so the last bits may differ from the numpy
    path's; the recorded seeded runs of `tests/onlineboost/test_boblo.py` pin this kernel's.

    Examples
    --------
    >>> from onlineboost import sets
    >>> sets._projection_simplex_row([0.5, 1.5, -2.0], 1.0)
    [0.0, 1.0, 0.0]
    >>> sets._projection_simplex_row([1e308, -1e308, 0.0], 1.0)
    [1.0, 0.0, 0.0]
    """
    m = max(z)
    total, tau = -scale, 0.0
    for j, u in enumerate(sorted(z, reverse=True), start=1):
        u -= m
        total += u
        t = total / j
        if u <= t:  # the support ends before u (u * j <= css, the sorted test)
            break
        tau = t
    # (`w if not 0.0 > w else 0.0` is `max(w, 0.0)`, without the builtin's call)
    p = [w if not 0.0 > (w := (v - m) - tau) else 0.0 for v in z]
    free = len([v for v in p if 0.0 < v])
    if free:  # the free coordinates move by the sum's rounding error, the others stay
        r = (scale - sum(p)) / free
        p = [(w if not 0.0 > (w := v + r) else 0.0) if 0.0 < v else v for v in p]
    return p


def projection_capped_simplex(x: np.ndarray, cap: float, scale: float = 1.0) -> np.ndarray:
    r"""Euclidean projection onto $\{p : \sum_i p_i = \text{scale},\ 0 \le p_i \le \text{cap}\}$.

    The solution is $p = \operatorname{clip}(x - \tau, 0, \text{cap})$ where $\tau$ solves
    $g(\tau) = \sum_i \operatorname{clip}(x_i - \tau, 0, \text{cap}) = \text{scale}$. $g$ is
    piecewise linear with breakpoints $x_i - \text{cap}$ and $x_i$; we sort the $2d$ breakpoints,
    evaluate $g$ at all of them with cumulative sums, find the piece where $g$ crosses `scale`
    and solve it exactly on its active set (an exact breakpoint search, $O(d \log d)$; compare
    Wang & Lu 2015, Condat 2016). Requires $d \cdot \text{cap} \ge \text{scale}$.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost import sets
    >>> sets.projection_capped_simplex(np.array([2.0, 1.0, 0.0]), cap=0.5)
    array([0.5, 0.5, 0. ])
    """
    d = np.shape(x)[-1]
    if d * cap < scale * (1 - 1e-12):
        raise ValueError(f"cap must be >= scale / d = {scale / d}, got {cap!r}")
    x = _capped_window(np.asarray(x, dtype=np.float64), scale, cap)
    # Breakpoints: at x_i - cap coordinate i leaves the cap (slope -1 starts), at x_i it hits 0.
    points = np.concatenate([x - cap, x], axis=-1)
    kinds = np.concatenate([np.ones_like(x), -np.ones_like(x)], axis=-1)
    order = np.argsort(points, axis=-1, kind="stable")
    b = np.take_along_axis(points, order, axis=-1)
    n_active = np.cumsum(np.take_along_axis(kinds, order, axis=-1), axis=-1)  # on (b_k, b_k+1)
    g = d * cap - np.concatenate(
        [np.zeros_like(b[..., :1]), np.cumsum(n_active[..., :-1] * np.diff(b, axis=-1), axis=-1)],
        axis=-1,
    )  # g(b_k), non-increasing from d*cap to 0
    k = np.clip(np.count_nonzero(g >= scale, axis=-1, keepdims=True) - 1, 0, 2 * d - 2)
    b_k = np.take_along_axis(b, k, axis=-1)
    b_next = np.take_along_axis(b, k + 1, axis=-1)
    tau = 0.5 * (b_k + b_next)  # a point inside the crossing piece fixes the active set ...
    active = (x - tau > 0) & (x - tau < cap)
    saturated = x - tau >= cap
    n = active.sum(axis=-1, keepdims=True)
    free_sum = np.where(active, x, 0.0).sum(-1, keepdims=True)
    exact = (free_sum + cap * saturated.sum(-1, keepdims=True) - scale) / np.maximum(n, 1)
    tau = np.where(n > 0, exact, b_k)  # ... on which g(tau) = scale is linear and solved exactly
    p = _polish(x, np.clip(x - tau, 0.0, cap), scale, cap)
    bad = np.abs(p.sum(axis=-1) - scale) > 1e-12 * scale
    if np.any(bad):  # breakpoints rounded together (spreads near 2^52): bisect those rows
        p[bad] = _bisect_capped(x[bad], scale, cap)
    return p


def _bisect_capped(x, scale: float, cap: float) -> np.ndarray:
    """The capped-simplex projection by bisection on tau (robust, slower): rows of `x`."""
    lo = x.min(axis=-1, keepdims=True) - cap  # g(lo) = d cap >= scale
    hi = x.max(axis=-1, keepdims=True)  # g(hi) = 0
    for _ in range(2100):  # enough to walk a bracket of 1e308 down to adjacent doubles
        mid = 0.5 * lo + 0.5 * hi
        above = np.clip(x - mid, 0.0, cap).sum(axis=-1, keepdims=True) > scale
        new_lo, new_hi = np.where(above, mid, lo), np.where(above, hi, mid)
        if np.array_equal(new_lo, lo) and np.array_equal(new_hi, hi):
            break
        lo, hi = new_lo, new_hi
    return _polish(x, np.clip(x - hi, 0.0, cap), scale, cap)


def _capped_window(x, scale: float, cap: float) -> np.ndarray:
    r"""`x` shifted and clipped to a window that holds the threshold $\tau$: same projection.

    With $u$ sorted decreasingly, $k = \lfloor s/\text{cap} \rfloor$ and
    $m = \lceil s/\text{cap} \rceil$: at least $m$ coordinates are positive, so
    $\tau < u_m$, and at most $k$ sit at the cap, so $\tau > u_{k+1} - \text{cap}$. A
    coordinate above $\tau + \text{cap}$ stays at the cap and one below $\tau$ stays at 0
    when moved within those sides, so clipping to $[u_{k+1} - \text{cap} - 1,
    u_m + \text{cap} + 1]$ (shifted by $u_m$) changes nothing, and the breakpoint search runs
    at the scale of the answer: $[10^{300}, 0, 0, 0]$ is solved as exactly as $[1, 0, 0, 0]$.
    When $u_m - u_{k+1}$ exceeds $10^{300}$ ($s/\text{cap}$ an integer: the top $m$ saturate)
    the lower side is $-10^{300}$, which is exact too and keeps every sum finite.
    """
    d = x.shape[-1]
    u = -np.sort(-x, axis=-1)
    ratio = scale / cap
    k = min(int(math.floor(ratio + 1e-12)), d - 1)
    m = min(max(int(math.ceil(ratio - 1e-12)), 1), d)
    ref = u[..., m - 1 : m]
    with np.errstate(over="ignore"):
        low = np.maximum(u[..., k : k + 1] - ref - cap - 1.0, -1e300)
        return np.minimum(np.maximum(x - ref, low), cap + 1.0)


def _shifted(x, floor: float) -> np.ndarray:
    """`x - max(x)` along the last axis, raised to `floor` (overflow to -inf is raised too).

    The simplex projections are invariant under adding a constant to every coordinate, so the
    shift is exact; it keeps the threshold search at the scale of the answer, not of `x`, so
    $[10^{16}, 0, 0]$ and $[10^{308}, -10^{308}, 0]$ are solved without rounding or overflow.
    """
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore"):
        return np.maximum(x - np.max(x, axis=-1, keepdims=True), floor)


def _polish(x, p, scale, cap):
    """Spread the rounding error of sum(p) over the free coordinates.

    For huge inputs (|x| ~ 1e9) the threshold tau carries a rounding error of order ulp(|x|),
    which the sum of p would otherwise show; this one correction makes sum(p) = scale to
    within ulp(scale) without changing the exact solution.
    """
    free = (p > 0) & (p < cap)
    n = free.sum(axis=-1, keepdims=True)
    r = (scale - p.sum(axis=-1, keepdims=True)) / np.maximum(n, 1)
    return np.clip(np.where(free, p + r, p), 0.0, cap)


# ----------------------------------------------------------------------------- sets


class ConvexSet(base.Base):
    """A closed convex set K in $\\mathbb{R}^d$: projection, distance, membership and geometry.

    Subclasses implement `_project` (on a validated float array of shape `(..., d)`; public
    as `project_unchecked`), `dim`,
    `diameter`, `centroid` and `_sample`. Inputs are validated here: NaN/inf or a last axis
    other than `dim` raise `ValueError` naming `x`.
    """

    #: the properties below are computed from the parameters
    dim: int

    def _points(self, x, name: str = "x") -> tuple[np.ndarray, bool]:
        arr = np.asarray(x, dtype=np.float64)
        scalar = arr.ndim == 0
        if scalar:
            if self.dim != 1:
                raise ValueError(f"{name} must have last axis of size {self.dim}, got a scalar")
            arr = arr.reshape(1)
        elif arr.shape[-1] != self.dim:
            raise ValueError(
                f"{name} must have last axis of size {self.dim}, got shape {arr.shape}"
            )
        # One reduction and no temporary: a finite sum means finite entries (a sum that
        # overflows falls through to the exact check).
        with np.errstate(over="ignore", invalid="ignore"):
            total = np.add.reduce(arr, axis=None)
        if not np.isfinite(total) and not np.isfinite(arr).all():
            raise ValueError(f"{name} must be finite (no NaN or inf)")
        return arr, scalar

    def project(self, x) -> np.ndarray:
        """Euclidean projection $\\Pi_K(x)$ of a point or a stack of points."""
        arr, scalar = self._points(x)
        p = self._project(arr)
        return p[0] if scalar else p

    def project_unchecked(self, x: np.ndarray) -> np.ndarray:
        """`project` for a float64 array of shape `(..., dim)` with finite entries, unchecked.

        The hot path of boosters and learners whose points are finite by construction; the
        result is in K for every finite input (no overflow up to the largest double). Passing
        anything else is undefined.

        Examples
        --------
        >>> import numpy as np
        >>> from onlineboost import sets
        >>> sets.Simplex(3).project_unchecked(np.array([1e16, 0.0, 0.0]))
        array([1., 0., 0.])
        """
        return self._project(x)

    def project_row_unchecked(self, z: list) -> list:
        """`project_unchecked` of one point given as a list of finite floats, as a list: the
        per-round path of callers that hold a short row in plain floats (sets with a plain-float
        kernel override it; this default goes through `project_unchecked`)."""
        return self._project(np.array(z)).tolist()

    def distance(self, x) -> np.ndarray:
        """$\\operatorname{Dist}(x, K) = \\|x - \\Pi_K(x)\\|_2$, one value a point."""
        arr, _ = self._points(x)
        return np.linalg.norm(arr - self._project(arr), axis=-1)

    def contains(self, x, atol: float = 1e-9) -> np.ndarray:
        """Whether each point is in K, up to `atol` in distance (relative to the set's scale)."""
        scale = max(1.0, self.diameter, float(np.max(np.abs(self.centroid))))
        return self.distance(x) <= atol * scale

    def sample(self, n: int, rng: np.random.Generator | None = None) -> np.ndarray:
        """`n` points drawn uniformly from K, shape `(n, dim)` (for tests and benchmarks)."""
        return self._sample(int(n), rng if rng is not None else np.random.default_rng())

    @property
    def diameter(self) -> float:
        raise NotImplementedError

    @property
    def centroid(self) -> np.ndarray:
        raise NotImplementedError


def _finite_vector(value, name: str) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(value, dtype=np.float64))
    if arr.ndim != 1 or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be a finite scalar or vector, got {value!r}")
    return arr


class Box(ConvexSet):
    r"""The box $\{x \in \mathbb{R}^d : lo_i \le x_i \le hi_i\}$.

    Parameters
    ----------
    lo
        Lower corner (a vector of length $d$).
    hi
        Upper corner (a vector of length $d$); `hi >= lo` coordinate-wise.

    Examples
    --------
    >>> from onlineboost import sets
    >>> K = sets.Box([0.0, -1.0], [1.0, 1.0])
    >>> K.project([[2.0, 0.5], [-1.0, -3.0]])
    array([[ 1. ,  0.5],
           [ 0. , -1. ]])
    >>> float(K.distance([2.0, 2.0])), K.diameter, K.centroid
    (1.414213..., 2.236067..., array([0.5, 0. ]))
    """

    def __init__(self, lo, hi):
        self.lo = lo
        self.hi = hi
        self._lo = _finite_vector(lo, "lo")
        self._hi = _finite_vector(hi, "hi")
        if self._lo.shape != self._hi.shape:
            raise ValueError(f"lo and hi must have the same length, got {lo!r} and {hi!r}")
        if np.any(self._lo > self._hi):
            raise ValueError(f"lo must be <= hi coordinate-wise, got lo={lo!r}, hi={hi!r}")

    @property
    def dim(self) -> int:
        return self._lo.shape[0]

    @property
    def lower(self) -> np.ndarray:
        """The lower corner as a read-only float array `(dim,)`."""
        v = self._lo.view()
        v.flags.writeable = False
        return v

    @property
    def upper(self) -> np.ndarray:
        """The upper corner as a read-only float array `(dim,)`."""
        v = self._hi.view()
        v.flags.writeable = False
        return v

    def _project(self, x):
        return projection_box(x, self._lo, self._hi)

    @property
    def diameter(self) -> float:
        return float(np.linalg.norm(self._hi - self._lo))

    @property
    def centroid(self) -> np.ndarray:
        return 0.5 * (self._lo + self._hi)

    def _sample(self, n, rng):
        return rng.uniform(self._lo, self._hi, size=(n, self.dim))


class Interval(Box):
    r"""The interval $[lo, hi] \subset \mathbb{R}$: a 1-D `Box` that also takes scalars.

    Parameters
    ----------
    lo
        Lower end.
    hi
        Upper end, `hi >= lo`.

    Examples
    --------
    >>> from onlineboost import sets
    >>> K = sets.Interval(-1.0, 1.0)
    >>> float(K.project(3.0)), float(K.distance(3.0)), K.diameter
    (1.0, 2.0, 2.0)
    >>> K.project([[0.5], [-7.0]])
    array([[ 0.5],
           [-1. ]])
    """

    def __init__(self, lo: float = -1.0, hi: float = 1.0):
        if np.ndim(lo) != 0 or np.ndim(hi) != 0:
            raise ValueError(f"lo and hi must be scalars, got {lo!r} and {hi!r}")
        super().__init__(lo, hi)

    @property
    def bounds(self) -> tuple[float, float]:
        """`(lo, hi)` as Python floats (the parameters `lo` / `hi` are stored as given).

        Examples
        --------
        >>> from onlineboost import sets
        >>> sets.Interval(-1, 2).bounds
        (-1.0, 2.0)
        """
        return float(self._lo[0]), float(self._hi[0])

    @classmethod
    def _unit_test_params(cls):
        yield {"lo": -1.0, "hi": 1.0}


class Ball(ConvexSet):
    r"""The Euclidean ball $\{x : \|x - c\|_2 \le r\}$.

    Parameters
    ----------
    center
        The centre $c$ (a vector; its length sets the dimension).
    radius
        The radius $r > 0$.

    Examples
    --------
    >>> from onlineboost import sets
    >>> K = sets.Ball([0.0, 0.0], 2.0)
    >>> K.project([[3.0, 4.0], [0.1, 0.2]])
    array([[1.2, 1.6],
           [0.1, 0.2]])
    """

    def __init__(self, center=(0.0,), radius: float = 1.0):
        self.center = center
        self.radius = radius
        self._center = _finite_vector(center, "center")
        if not (np.isfinite(radius) and radius > 0):
            raise ValueError(f"radius must be finite and > 0, got {radius!r}")

    @property
    def dim(self) -> int:
        return self._center.shape[0]

    def _project(self, x):
        return projection_l2_ball(x, self._center, float(self.radius))

    @property
    def diameter(self) -> float:
        return 2.0 * float(self.radius)

    @property
    def centroid(self) -> np.ndarray:
        return self._center.copy()

    def _sample(self, n, rng):
        z = rng.standard_normal((n, self.dim))
        z /= np.linalg.norm(z, axis=-1, keepdims=True)
        return self._center + z * self.radius * rng.random((n, 1)) ** (1.0 / self.dim)


class CappedSimplex(ConvexSet):
    r"""The capped simplex $\{w \in \mathbb{R}^d : \sum_i w_i = 1,\ 0 \le w_i \le \text{cap}\}$.

    Parameters
    ----------
    d
        Dimension $d \ge 1$.
    cap
        Upper bound on every coordinate; $d \cdot \text{cap} \ge 1$ (else the set is empty).
        `cap >= 1` gives the plain simplex.

    Examples
    --------
    >>> from onlineboost import sets
    >>> K = sets.CappedSimplex(4, cap=0.3)
    >>> K.project([1.0, 0.0, 0.0, 0.0])
    array([0.3      , 0.2333..., 0.2333..., 0.2333...])
    """

    def __init__(self, d: int = 2, cap: float = 1.0):
        if not (isinstance(d, (int, np.integer)) and d >= 1):
            raise ValueError(f"d must be an integer >= 1, got {d!r}")
        if not (np.isfinite(cap) and cap > 0):
            raise ValueError(f"cap must be finite and > 0, got {cap!r}")
        if d * cap < 1 - 1e-12:
            raise ValueError(f"cap must be >= 1/d = {1 / d}, got {cap!r}: the set would be empty")
        self.d = d
        self.cap = cap

    @property
    def dim(self) -> int:
        return int(self.d)

    def _project(self, x):
        if self.cap >= 1:
            return projection_simplex(x)
        return projection_capped_simplex(x, float(self.cap))

    def project_row_unchecked(self, z: list) -> list:
        # the plain simplex's own kernel, with no round trip through numpy, unless a subclass
        # projects otherwise (its `_project` then decides)
        if (self.cap >= 1 and len(z) <= _SMALL
                and type(self)._project is CappedSimplex._project):
            return _projection_simplex_row(z, 1.0)
        return super().project_row_unchecked(z)

    def _vertex(self) -> np.ndarray:
        """A vertex sorted decreasingly: k coordinates at cap, one remainder, zeros."""
        cap = min(float(self.cap), 1.0)
        k = min(int(math.floor(1.0 / cap + 1e-12)), self.dim)
        v = np.zeros(self.dim)
        v[:k] = cap
        if k < self.dim:
            v[k] = max(1.0 - k * cap, 0.0)
        return v

    @property
    def diameter(self) -> float:
        # All vertices are permutations of one vector v; by the rearrangement inequality the
        # farthest pair pairs v sorted decreasingly with v sorted increasingly.
        v = self._vertex()
        return float(np.sqrt(max(2.0 * (v @ v) - 2.0 * (v @ v[::-1]), 0.0)))

    @property
    def centroid(self) -> np.ndarray:
        return np.full(self.dim, 1.0 / self.dim)

    def _sample(self, n, rng):
        if self.dim * self.cap <= 1 + 1e-12:  # the set is the single point (1/d, ..., 1/d)
            return np.tile(self.centroid, (n, 1))
        # Uniform on the simplex (Dirichlet(1)) conditioned on the cap is uniform on the set.
        z = rng.dirichlet(np.ones(self.dim), size=max(4 * n, 256))
        z = z[np.all(z <= self.cap, axis=-1)]
        if len(z) >= n:
            return z[:n]
        return self._hit_and_run(n, rng)

    def _hit_and_run(self, n, rng, thin: int = 20):
        """Approximately uniform points by hit-and-run from the centroid (when rejection from
        the simplex would accept too rarely, i.e. cap close to 1/d)."""
        w, out = self.centroid, np.empty((n, self.dim))
        for k in range(n * thin + 100):
            u = rng.standard_normal(self.dim)
            u -= u.mean()  # stay on the hyperplane sum(w) = 1
            u /= np.linalg.norm(u)
            # the chord {w + s u} within 0 <= w_i <= cap
            with np.errstate(divide="ignore"):
                lo_s = np.where(u > 0, -w / u, (self.cap - w) / u)
                hi_s = np.where(u > 0, (self.cap - w) / u, -w / u)
            w = np.clip(w + rng.uniform(lo_s.max(), hi_s.min()) * u, 0.0, self.cap)
            if k >= 100 and (k - 100) % thin == 0:
                out[(k - 100) // thin] = w
        return out


class Simplex(CappedSimplex):
    r"""The probability simplex $\Delta_d = \{w \in \mathbb{R}^d : w \ge 0, \sum_i w_i = 1\}$.

    Parameters
    ----------
    d
        Dimension $d \ge 1$.

    Examples
    --------
    >>> from onlineboost import sets
    >>> K = sets.Simplex(3)
    >>> K.project([0.5, 1.5, -2.0]), round(K.diameter, 6)
    (array([0., 1., 0.]), 1.414214)
    """

    def __init__(self, d: int = 2):
        super().__init__(d, 1.0)

    def _get_params(self):
        return {"d": self.d}
