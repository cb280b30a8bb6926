r"""Constraint sets for weight vectors and exact KL (negative-entropy) Bregman projections.

A constraint here is dimension-free: it describes $S \subseteq \mathbb{R}^n$ for any $n$, so one
updater serves a training set of any size. The KL kernels take the point in the log domain,
$\log z$, never $z$ itself, so that a lazy mirror-descent state that has drifted to $\pm 10^7$
projects without overflow. For $R(w) = \sum_i w_i \log w_i$ the Bregman divergence is the
generalised KL divergence $B_R(w, z) = \sum_i w_i \log(w_i / z_i) - w_i + z_i$, and

$$\Pi_S(z) = \arg\min_{w \in S} B_R(w, z).$$

The Euclidean (quadratic $R$) projections are the kernels of `onlineboost.sets`.
"""

from __future__ import annotations

import numpy as np
from river import base

__all__ = [
    "Box",
    "CappedSimplex",
    "Simplex",
    "as_constraint",
    "kl_projection_box",
    "kl_projection_capped_simplex",
    "kl_projection_simplex",
]


class Simplex(base.Base):
    r"""The scaled simplex $\{w \in \mathbb{R}^n : w \ge 0,\ \sum_i w_i = \text{scale}\}$.

    Parameters
    ----------
    scale
        The total mass, > 0.

    Examples
    --------
    >>> from onlineboost import bregman
    >>> bregman.Simplex().contains([0.25, 0.75]), bregman.Simplex().contains([0.5, 0.6])
    (True, False)
    """

    def __init__(self, scale: float = 1.0):
        if not (np.isfinite(scale) and scale > 0):
            raise ValueError(f"scale must be finite and > 0, got {scale!r}")
        self.scale = scale

    def bounds(self, n: int) -> tuple[float, float]:
        return 0.0, float(self.scale)

    def contains(self, w, atol: float = 1e-9) -> bool:
        w = np.asarray(w, dtype=np.float64)
        lo, hi = self.bounds(w.shape[-1])
        tol = atol * self.scale
        return bool(np.all(w >= lo - tol) and np.all(w <= hi + tol)
                    and np.all(np.abs(w.sum(-1) - self.scale) <= tol * w.shape[-1]))


class CappedSimplex(Simplex):
    r"""The capped simplex $\{w : \sum_i w_i = \text{scale},\ 0 \le w_i \le \text{cap}\}$.

    Non-empty for $n$ coordinates when $n \cdot \text{cap} \ge \text{scale}$.

    Parameters
    ----------
    cap
        Upper bound $u$ on every coordinate, > 0.
    scale
        The total mass, > 0.

    Examples
    --------
    >>> from onlineboost import bregman
    >>> bregman.CappedSimplex(cap=0.5).contains([0.5, 0.5, 0.0])
    True
    """

    def __init__(self, cap: float = 1.0, scale: float = 1.0):
        super().__init__(scale)
        if not (np.isfinite(cap) and cap > 0):
            raise ValueError(f"cap must be finite and > 0, got {cap!r}")
        self.cap = cap

    def bounds(self, n: int) -> tuple[float, float]:
        if n * self.cap < self.scale * (1 - 1e-12):
            raise ValueError(f"cap must be >= scale / n = {self.scale / n} for n = {n}, "
                             f"got {self.cap!r}: the set would be empty")
        return 0.0, float(min(self.cap, self.scale))


class Box(base.Base):
    r"""The box $\{w : lo \le w_i \le hi\}$ (the same bounds on every coordinate).

    Parameters
    ----------
    lo
        Lower bound; >= 0 for the KL projection, which lives on the positive orthant.
    hi
        Upper bound, >= lo (may be `inf`).

    Examples
    --------
    >>> from onlineboost import bregman
    >>> bregman.Box(0.0, 1.0).contains([0.0, 1.0]), bregman.Box(0.0, 1.0).contains([2.0])
    (True, False)
    """

    scale = None  # no constraint on the sum

    def __init__(self, lo: float = 0.0, hi: float = 1.0):
        if not (np.isfinite(lo) and not np.isnan(hi) and hi >= lo):
            raise ValueError(f"lo must be finite and hi >= lo, got lo={lo!r}, hi={hi!r}")
        self.lo = lo
        self.hi = hi

    def bounds(self, n: int) -> tuple[float, float]:
        return float(self.lo), float(self.hi)

    def contains(self, w, atol: float = 1e-9) -> bool:
        w = np.asarray(w, dtype=np.float64)
        return bool(np.all(w >= self.lo - atol) and np.all(w <= self.hi + atol))


def as_constraint(constraint, name: str = "constraint"):
    r"""`(c, dim)`: a constraint of this module for `constraint`, and the dimension it fixes.

    The weight constraints here are dimension-free and share their names with the decision sets
    of `onlineboost.sets`; a set of `onlineboost.sets` of the same kind is translated (its
    dimension is returned, `None` for this module's own constraints): `sets.Simplex(d)` is
    `Simplex()`, `sets.CappedSimplex(d, cap)` is `CappedSimplex(cap)`, and a `sets.Box` with the
    same bounds on every coordinate is `Box(lo, hi)`. Anything else raises `ValueError` naming
    `name`.

    Examples
    --------
    >>> from onlineboost import bregman, sets
    >>> bregman.as_constraint(sets.CappedSimplex(4, 0.5))
    (CappedSimplex (
      cap=0.5
      scale=1.0
    ), 4)
    """
    if isinstance(constraint, (Simplex, Box)):
        return constraint, None
    from onlineboost import sets  # the decision sets (imported here: they are optional input)

    if isinstance(constraint, sets.Simplex):
        return Simplex(), constraint.dim
    if isinstance(constraint, sets.CappedSimplex):
        return CappedSimplex(cap=float(constraint.cap)), constraint.dim
    if isinstance(constraint, sets.Box):
        lo, hi = np.unique(constraint._lo), np.unique(constraint._hi)
        if len(lo) == 1 and len(hi) == 1 and lo[0] >= 0:
            return Box(float(lo[0]), float(hi[0])), constraint.dim
        raise ValueError(f"{name}: a sets.Box is a weight constraint only with the same bounds "
                         f"on every coordinate and lo >= 0, got {constraint!r}")
    raise ValueError(f"{name} must be onlineboost.bregman.Simplex, CappedSimplex or Box (or the "
                     f"sets.Simplex / CappedSimplex / Box of the same kind), got {constraint!r}")


def kl_projection_simplex(log_z: np.ndarray, scale: float = 1.0) -> np.ndarray:
    r"""KL projection of $z = e^{\log z}$ onto the simplex: normalisation, $w = s\,z / \sum_j z_j$.

    Computed as a softmax of `log_z` (`scale` is $s$), so it cannot overflow.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost import bregman
    >>> bregman.kl_projection_simplex(np.array([1e6, 1e6, -1e6]))
    array([0.5, 0.5, 0. ])
    """
    log_z = np.asarray(log_z, dtype=np.float64)
    e = np.exp(log_z - np.max(log_z, axis=-1, keepdims=True))
    return scale * e / e.sum(axis=-1, keepdims=True)


def kl_projection_box(log_z: np.ndarray, lo: float, hi: float) -> np.ndarray:
    r"""KL projection onto the box $[lo, hi]^n$: clipping, $w = \min(\max(z, lo), hi)$.

    The generalised KL divergence is separable and convex in each $w_i$ with its minimum at
    $w_i = z_i$, so clipping is exact.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost import bregman
    >>> bregman.kl_projection_box(np.log([0.5, 2.0]), 0.0, 1.0)
    array([0.5, 1. ])
    """
    with np.errstate(divide="ignore"):
        log_lo, log_hi = np.log(lo), np.log(hi)
    return np.exp(np.clip(np.asarray(log_z, dtype=np.float64), log_lo, log_hi))


def kl_projection_capped_simplex(log_z: np.ndarray, cap: float, scale: float = 1.0) -> np.ndarray:
    r"""KL projection onto the capped simplex, $w_i = \min(u,\ c\, z_i)$ with $\sum_i w_i = s$.

    The KKT conditions give $w_i = \min(u, c z_i)$ for one $c > 0$: the largest coordinates are
    capped. Sorting `log_z` decreasingly and trying $j = 0, 1, \dots$ capped coordinates, the
    remaining mass $s - j u$ is spread in proportion to $z$ over the rest; the answer is the
    smallest $j$ for which the largest uncapped coordinate stays at or below $u$ (the capping
    step of Warmuth, Glocer & Rätsch's SoftBoost). Suffix log-sum-exps keep it in the log
    domain; $O(n \log n)$. `cap` is $u$ and `scale` is $s$; requires $n u \ge s$.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost import bregman
    >>> bregman.kl_projection_capped_simplex(np.log([8.0, 1.0, 1.0]), cap=0.5)
    array([0.5 , 0.25, 0.25])
    """
    log_z = np.asarray(log_z, dtype=np.float64)
    n = log_z.shape[-1]
    if n * cap < scale * (1 - 1e-12):
        raise ValueError(f"cap must be >= scale / n = {scale / n}, got {cap!r}")
    if cap >= scale:
        return kl_projection_simplex(log_z, scale)
    order = np.argsort(-log_z, axis=-1, kind="stable")
    b = np.take_along_axis(log_z, order, axis=-1)  # decreasing
    # suffix[j] = log sum_{k >= j} exp(b_k)
    suffix = np.flip(np.logaddexp.accumulate(np.flip(b, axis=-1), axis=-1), axis=-1)
    j = np.arange(n, dtype=np.float64)
    mass = scale - j * cap  # left for the uncapped coordinates when the top j are capped
    with np.errstate(divide="ignore", invalid="ignore"):
        top = np.log(np.maximum(mass, 0.0)) + (b - suffix)  # log of the largest uncapped w
    # (the capped coordinates' own rounding: a top j that fills the cap exactly, j u = s with
    # the rest far below, gives the largest uncapped weight as u to rounding, not below it)
    ok = (mass > 0) & ((top <= np.log(cap) + 1e-12) | (b == -np.inf))
    # smallest valid j; if none (n * cap == scale) every coordinate sits at the cap
    j_star = np.where(ok.any(-1), np.argmax(ok, axis=-1), n)[..., None]
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(n), axis=-1)
    k = np.minimum(j_star, n - 1)
    log_mass = np.log(np.maximum(scale - j_star * cap, 1e-300))
    with np.errstate(invalid="ignore"):
        free = np.exp(np.minimum(log_mass + (log_z - np.take_along_axis(suffix, k, axis=-1)),
                                 np.log(cap)))  # only capped coordinates are cut here
    free = np.where(log_z == -np.inf, 0.0, free)
    return np.where(rank < j_star, float(cap), free)
