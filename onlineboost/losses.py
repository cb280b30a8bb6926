r"""Convex losses $\ell(a, y)$ of an action $a \in \mathbb{R}^d$, vectorised over stacks of actions.

Every loss offers `value(a, y)` (one number a point), `gradient(a, y)` (a subgradient where
$\ell$ has a kink), `prox(v, y, t)` $= \arg\min_p \ell(p, y) + \|p - v\|^2 / (2t)$ (closed form
for all but the logistic loss, which is solved by bisection to machine precision), and
`lipschitz(K, y)` $= \max_{a \in K} \|\nabla_a \ell(a, y)\|_2$. Points lie on the last axis, as
in `onlineboost.sets`. All but `Linear` are sums over coordinates of a scalar loss; `y` is the
target (broadcast over coordinates), a label in $\{-1, +1\}$ for `Logistic` and `Hinge`, and the
cost vector for `Linear`.
"""

from __future__ import annotations

import numpy as np
from river import base

from . import sets

__all__ = ["Absolute", "Hinge", "Huber", "Linear", "Logistic", "Loss", "Squared"]


def _as_actions(a) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    return a.reshape(1) if a.ndim == 0 else a


def _max_distance(K: sets.ConvexSet, y: np.ndarray) -> float:
    """$\\max_{a \\in K} \\|a - y\\|_2$, exactly: a convex function peaks at an extreme point."""
    y = np.broadcast_to(np.asarray(y, dtype=np.float64), (K.dim,))
    if isinstance(K, sets.Box):
        return float(np.linalg.norm(np.maximum(np.abs(K.lower - y), np.abs(K.upper - y))))
    if isinstance(K, sets.Ball):
        return float(np.linalg.norm(y - K._center) + K.radius)
    if isinstance(K, sets.CappedSimplex):
        # vertices are the permutations of v; <v, y> is smallest with v against y reversed
        v = K._vertex()  # sorted decreasingly, so pair it with y sorted increasingly
        return float(np.sqrt(max(v @ v + y @ y - 2.0 * (v @ np.sort(y)), 0.0)))
    return float(np.linalg.norm(y - K.centroid) + K.diameter)  # a valid bound for any K


class Loss(base.Base):
    """Base class: a convex loss summed over the coordinates of the action."""

    #: sup over the real line of |d/da of the scalar loss| (inf when unbounded)
    slope_bound: float = np.inf

    def _check_y(self, y) -> np.ndarray:
        y = np.asarray(y, dtype=np.float64)
        if not np.all(np.isfinite(y)):
            raise ValueError(f"y must be finite, got {y!r}")
        return y

    def value(self, a, y) -> np.ndarray:
        """$\\ell(a, y)$, one value a point of the stack `a`."""
        a = _as_actions(a)
        return np.sum(self._value(a, self._check_y(y)), axis=-1)

    def gradient(self, a, y) -> np.ndarray:
        """$\\nabla_a \\ell(a, y)$ (a subgradient at kinks), same shape as `a`."""
        a = _as_actions(a)
        return np.broadcast_to(self._gradient(a, self._check_y(y)), a.shape).copy()

    def prox(self, v, y, t) -> np.ndarray:
        """$\\arg\\min_p \\ell(p, y) + \\|p - v\\|^2 / (2t)$ for $t > 0$, coordinate-wise."""
        v = _as_actions(v)
        return np.broadcast_to(self._prox(v, self._check_y(y), t), v.shape).copy()

    def lipschitz(self, K: sets.ConvexSet, y) -> float:
        """$G = \\max_{a \\in K} \\|\\nabla_a \\ell(a, y)\\|_2$: exact for the squared and linear
        losses, and for every loss on a box; a valid upper bound otherwise."""
        y = self._check_y(y)
        if isinstance(K, sets.Box):
            corners = np.stack([K.lower, K.upper])
            g = np.abs(self._gradient(corners, y))  # |slope| peaks at an end of each coordinate
            return float(np.linalg.norm(g.max(axis=0)))
        return self._lipschitz_bound(K, y)

    def _lipschitz_bound(self, K, y) -> float:
        return float(self.slope_bound * np.sqrt(K.dim))


class Squared(Loss):
    r"""Squared loss $\ell(a, y) = \tfrac12 \|a - y\|_2^2$, gradient $a - y$.

    Examples
    --------
    >>> from onlineboost import losses, sets
    >>> loss = losses.Squared()
    >>> float(loss.value([0.5], 1.0)), loss.gradient([0.5], 1.0)
    (0.125, array([-0.5]))
    >>> loss.lipschitz(sets.Interval(-1, 1), 0.5)
    1.5
    """

    def _value(self, a, y):
        return 0.5 * (a - y) ** 2

    def _gradient(self, a, y):
        return a - y

    def _prox(self, v, y, t):
        return (v + t * y) / (1.0 + t)

    def lipschitz(self, K, y) -> float:
        if type(K) is sets.Interval and np.ndim(y) == 0:  # the common case, in plain floats
            y = float(self._check_y(y))
            return max(abs(float(K.lo) - y), abs(float(K.hi) - y))
        return _max_distance(K, self._check_y(y))


class Absolute(Loss):
    r"""Absolute loss $\ell(a, y) = \|a - y\|_1$, subgradient $\operatorname{sign}(a - y)$.

    Examples
    --------
    >>> from onlineboost import losses
    >>> loss = losses.Absolute()
    >>> float(loss.value([0.5, -1.0], 0.0)), loss.prox([3.0], 0.0, 1.0)
    (1.5, array([2.]))
    """

    slope_bound = 1.0

    def _value(self, a, y):
        return np.abs(a - y)

    def _gradient(self, a, y):
        return np.sign(a - y)

    def _prox(self, v, y, t):
        r = v - y  # soft thresholding towards y
        return y + np.sign(r) * np.maximum(np.abs(r) - t, 0.0)


class Huber(Loss):
    r"""Huber loss: $\tfrac12 r^2$ for $|r| \le h$, else $h(|r| - h/2)$, with $r = a - y$.

    Parameters
    ----------
    h
        The threshold $h > 0$ between the quadratic and the linear part.

    Examples
    --------
    >>> from onlineboost import losses
    >>> loss = losses.Huber(h=1.0)
    >>> float(loss.value([3.0], 0.0)), loss.gradient([3.0, 0.5], 0.0)
    (2.5, array([1. , 0.5]))
    """

    def __init__(self, h: float = 1.0):
        if not (np.isfinite(h) and h > 0):
            raise ValueError(f"h must be finite and > 0, got {h!r}")
        self.h = h

    @property
    def slope_bound(self) -> float:
        return float(self.h)

    def _value(self, a, y):
        r = np.abs(a - y)
        return np.where(r <= self.h, 0.5 * r**2, self.h * (r - 0.5 * self.h))

    def _gradient(self, a, y):
        return np.clip(a - y, -self.h, self.h)

    def _prox(self, v, y, t):
        r = v - y
        inner = np.abs(r) <= self.h * (1.0 + t)
        return y + np.where(inner, r / (1.0 + t), r - t * self.h * np.sign(r))

    def _lipschitz_bound(self, K, y):
        return min(_max_distance(K, y), self.h * np.sqrt(K.dim))


class _Margin(Loss):
    """A loss of the margin $y a$ with labels $y \\in \\{-1, +1\\}$."""

    slope_bound = 1.0

    def _check_y(self, y):
        y = np.asarray(y, dtype=np.float64)
        if not np.all(np.isin(y, (-1.0, 1.0))):
            raise ValueError(f"y must be a label in {{-1, +1}}, got {y!r}")
        return y


class Logistic(_Margin):
    r"""Logistic loss on a score, $\ell(a, y) = \log(1 + e^{-y a})$, labels $y \in \{-1, +1\}$.

    Examples
    --------
    >>> from onlineboost import losses, sets
    >>> loss = losses.Logistic()
    >>> round(float(loss.value([0.0], 1)), 6), loss.gradient([0.0], 1)
    (0.693147, array([-0.5]))
    >>> round(loss.lipschitz(sets.Interval(-2, 2), 1), 6)  # sigma(2)
    0.880797
    """

    def _value(self, a, y):
        return np.logaddexp(0.0, -y * a)

    def _gradient(self, a, y):
        return -y * np.exp(-np.logaddexp(0.0, y * a))  # -y * sigmoid(-y a), overflow-free

    def _prox(self, v, y, t):
        # h(p) = p + t l'(p) - v is increasing with h' = 1 + t s (1 - s) in [1, 1 + t/4]; its
        # root lies in [v - t, v + t] since |l'| <= 1. Newton, kept inside that bracket by
        # bisection, converges in a handful of steps for every entry of the stack at once.
        v, y = np.broadcast_arrays(np.asarray(v, dtype=np.float64), y)
        lo, hi, p = v - t, v + t, v.copy()
        for _ in range(100):
            s = np.exp(-np.logaddexp(0.0, -y * p))  # sigmoid(y p)
            h = p - t * y * (1.0 - s) - v
            if np.all(np.abs(h) <= 2e-15 * (1.0 + np.abs(v) + t)):  # a few ulps
                break
            hi, lo = np.where(h > 0, p, hi), np.where(h > 0, lo, p)
            newton = p - h / (1.0 + t * s * (1.0 - s))
            p = np.where((newton > lo) & (newton < hi), newton, 0.5 * (lo + hi))
        return p


class Hinge(_Margin):
    r"""Hinge loss on a score, $\ell(a, y) = \max(0, 1 - y a)$, labels $y \in \{-1, +1\}$.

    Examples
    --------
    >>> from onlineboost import losses
    >>> loss = losses.Hinge()
    >>> float(loss.value([0.25], 1)), loss.gradient([0.25, 2.0], 1)
    (0.75, array([-1., -0.]))
    """

    def _value(self, a, y):
        return np.maximum(0.0, 1.0 - y * a)

    def _gradient(self, a, y):
        return np.where(y * a < 1.0, -y, 0.0 * y)

    def _prox(self, v, y, t):
        u = y * v  # in margin space the prox is a shift towards 1, stopping at 1
        return y * np.where(u > 1.0, u, np.minimum(u + t, 1.0))


class Linear(Loss):
    r"""Linear loss $\ell(a, c) = \langle c, a \rangle$ with cost vector $c$ (passed as `y`).

    Examples
    --------
    >>> from onlineboost import losses, sets
    >>> loss = losses.Linear()
    >>> float(loss.value([0.2, 0.8], [1.0, -1.0])), loss.lipschitz(sets.Simplex(2), [3.0, 4.0])
    (-0.6000000000000001, 5.0)
    """

    def value(self, a, y):
        a = _as_actions(a)
        return a @ self._check_y(y)

    def _gradient(self, a, y):
        return y

    def _prox(self, v, y, t):
        return v - t * y

    def lipschitz(self, K, y) -> float:
        return float(np.linalg.norm(self._check_y(y)))
