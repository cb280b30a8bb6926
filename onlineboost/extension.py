r"""The extension operator of Hazan & Singh (2021), §2.2: $X_{K,\delta,\kappa}[f] = M_\delta[f +
\kappa \operatorname{Dist}(\cdot, K)]$.

$$\hat f(x) = \min_p \; f(p) + \kappa \operatorname{Dist}(p, K) + \frac{\|x - p\|^2}{2\delta},
\qquad \nabla \hat f(x) = \frac{x - p^\star(x)}{\delta}$$

where $p^\star(x)$ is the minimiser (the proximal point). Everything reduces to computing
$p^\star$, exactly:

* the prox of $\lambda \operatorname{Dist}(\cdot, K)$ is closed form for any K with a projection:
  $z - \lambda (z - \Pi_K z) / \operatorname{Dist}(z, K)$ if $\operatorname{Dist}(z, K) > \lambda$,
  else $\Pi_K z$ (Beck 2017, Lemma 6.43);
* linear $f = \langle c, \cdot\rangle$: $p^\star = \operatorname{prox}_{\delta\kappa
  \operatorname{Dist}}(x - \delta c)$ (DESIGN §5);
* squared $f = \frac12\|\cdot - y\|^2$ on any K: completing the square,
  $p^\star = \operatorname{prox}_{\lambda \operatorname{Dist}}((x + \delta y) / (1 + \delta))$ with
  $\lambda = \delta\kappa / (1 + \delta)$ (this covers `Interval` and `Box`, and also balls and
  simplices);
* any other loss in one dimension: bisection on the (monotone) subdifferential of the
  objective, to machine precision;
* any other loss in $d > 1$: ADMM splitting $f$ from $\kappa \operatorname{Dist} + \|x -
  \cdot\|^2/(2\delta)$, both of whose proxes are closed form, until the primal and dual
  residuals fall below `tol` (on the proximal point, so the gradient is exact to `tol / delta`).
"""

from __future__ import annotations

import math

import numpy as np

from . import _boost_kernels, sets
from . import losses as losses_

__all__ = ["Extension", "prox_distance", "prox_distance_interval"]


def prox_distance(z: np.ndarray, K: sets.ConvexSet, lam: float) -> np.ndarray:
    r"""$\arg\min_p \lambda \operatorname{Dist}(p, K) + \frac12\|p - z\|^2$, vectorised.

    Examples
    --------
    >>> from onlineboost import extension, sets
    >>> K = sets.Interval(-1.0, 1.0)
    >>> extension.prox_distance([[3.0], [1.5], [0.2]], K, lam=1.0)
    array([[2. ],
           [1. ],
           [0.2]])
    """
    z = np.asarray(z, dtype=np.float64)
    proj = K.project_unchecked(z)
    if z.ndim and 0 < z.size <= _SMALL and z.size == z.shape[-1]:  # one short row: floats
        rows = _prox_distance_rows(z.reshape(1, -1).tolist(), proj.reshape(1, -1).tolist(), lam)
        return np.array(rows).reshape(z.shape)
    r = z - proj
    # |r| as np.linalg.norm(r, axis=-1) computes it, without its dispatch
    dist = np.sqrt(np.add.reduce(r * r, axis=-1, keepdims=True))
    if lam > 0:
        keep = np.where(dist > lam, 1.0 - lam / np.maximum(dist, lam), 0.0)
    else:  # no pull (kappa = 0): r whole wherever z is off K (1 - 0 / dist), with no 0/0
        keep = np.where(dist > 0.0, 1.0, 0.0)
    return proj + keep * r


_SMALL = 64  # one row of at most this many entries: `_prox_distance_rows` (more rows, or
# longer ones: numpy's kernel is cheaper than the Python loop)


def _prox_distance_rows(Z: list, P: list, lam: float) -> list:
    """`prox_distance` of the rows `Z` (lists of floats) whose projections are `P`, in plain
    floats: a dozen numpy calls on a row of, say, 10 entries cost more than the arithmetic. The
    same operations entry by entry (the squared distance is summed left to right, as numpy does
    for rows of up to 8 entries; longer rows may differ from numpy's blocked sum in the last
    bit)."""
    out = []
    for z, p in zip(Z, P):
        r = [a - b for a, b in zip(z, p)]
        dist = math.sqrt(sum([v * v for v in r]))
        if dist > lam:  # pulled towards K by lam, short of it
            keep = 1.0 - lam / dist
            p = [b + keep * v for b, v in zip(p, r)]
        out.append(p)
    return out


def prox_distance_interval(z: float, lo: float, hi: float, lam: float) -> float:
    r"""`prox_distance` for one point of an interval $[lo, hi]$, in plain floats.

    The same closed form, for BoOCO's per-sample path on a 1-D decision set, where a numpy call
    costs more than the arithmetic.

    Examples
    --------
    >>> from onlineboost import extension
    >>> extension.prox_distance_interval(3.0, -1.0, 1.0, lam=1.0)
    2.0
    """
    proj = min(max(z, lo), hi)
    r = z - proj
    dist = abs(r)
    return proj + (1.0 - lam / dist) * r if dist > lam else proj


class Extension:
    r"""The extended loss $\hat f = X_{K,\delta,\kappa}[\ell(\cdot, y)]$: value and exact gradient.

    `loss` is $\ell$, `decision_set` is $K$, `delta` is $\delta$ (the smoothing: $\nabla\hat f$ is
    $1/\delta$-Lipschitz) and `kappa` is $\kappa$ (the pull back to $K$; Lemma 5 wants
    $\kappa \ge G$, the Lipschitz bound of the loss over $K$).

    Parameters
    ----------
    loss
        A loss from `onlineboost.losses`.
    decision_set
        The convex set $K$ (`onlineboost.sets`).
    delta
        Smoothing parameter $\delta > 0$.
    kappa
        Weight $\kappa \ge 0$ of the distance to $K$.
    tol
        Tolerance on the proximal point for the iterative (ADMM) path.
    max_iter
        Iteration cap of the ADMM path.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost import extension, losses, sets
    >>> ext = extension.Extension(losses.Squared(), sets.Interval(-1, 1), delta=0.5, kappa=2.0)
    >>> value, grad = ext.value_and_gradient(np.array([[0.0], [3.0]]), 0.5)
    >>> value.round(6), grad.round(6)
    (array([0.083333, 3.75    ]), array([[-0.333333],
           [ 3.      ]]))

    At $x = 3$, far outside $K$, the gradient is the loss's pull ($p^\star - y = 1$) plus
    $\kappa = 2$ towards $K$; inside $K$ it is close to the loss's own gradient $x - y$.
    """

    def __init__(self, loss: losses_.Loss, decision_set: sets.ConvexSet, delta: float,
                 kappa: float, tol: float = 1e-10, max_iter: int = 20_000):
        if not (np.isfinite(delta) and delta > 0):
            raise ValueError(f"delta must be finite and > 0, got {delta!r}")
        if not (np.isfinite(kappa) and kappa >= 0):
            raise ValueError(f"kappa must be finite and >= 0, got {kappa!r}")
        self.loss = loss
        self.decision_set = decision_set
        self.delta = float(delta)
        self.kappa = float(kappa)
        self.tol = tol
        self.max_iter = max_iter

    # -- the proximal point ------------------------------------------------------------------

    def prox(self, x, y) -> np.ndarray:
        """The minimiser $p^\\star(x)$ of the inner problem, for a point or a stack."""
        x, scalar = self.decision_set._points(x)
        y = self.loss._check_y(y)
        if isinstance(self.loss, losses_.Linear) and y.shape[-1:] != (self.decision_set.dim,):
            raise ValueError(f"y must be a cost vector of length {self.decision_set.dim}, "
                             f"got shape {y.shape}")
        p = self.prox_unchecked(x, y)
        return p[0] if scalar else p

    def gradient_unchecked(self, x: np.ndarray, y) -> np.ndarray:
        r"""`gradient` for a float64 stack `x` `(n, d)` of finite points and a `y` the loss has
        validated, unchecked: $(x - p^\star(x))/\delta$, the per-round path of the boosters.

        The linear loss on one short row (BoBLO with one weak learner) runs in plain floats,
        with the same operations as `prox_distance`'s: $p^\star = \operatorname{prox}_{\delta\kappa
        \operatorname{Dist}}(x - \delta y)$."""
        if type(self.loss) is losses_.Linear and x.ndim == 2:
            if x.shape[0] == 1 and 0 < x.size <= _SMALL:
                return np.array([self.linear_gradient_row(x.tolist()[0], y.tolist())])
            if self._JIT and self._rows_compiled(x):  # (a booster's N > 1 points)
                out = np.empty(x.shape)
                _boost_kernels.linear_gradient_rows(x, y, self.delta,
                                                        self.delta * self.kappa, out)
                return out
        return (x - self.prox_unchecked(x, y)) / self.delta

    #: (a switch for the tests: False keeps every stack on numpy; off without numba) the
    #: linear loss on the simplex at a few points through `_boost_kernels` (the same floats)
    _JIT = _boost_kernels.AVAILABLE

    def _rows_compiled(self, x: np.ndarray) -> bool:
        """Whether `_boost_kernels.linear_gradient_rows` gives `gradient_unchecked` of the
        stack `x` (the linear loss): K the plain simplex and `x` a stack its projection takes
        in plain floats (`sets.projection_simplex`: `_projection_simplex_small`), C-ordered."""
        n, size = x.shape[0], x.size
        return (type(self.decision_set) is sets.Simplex and 0 < size <= sets._SMALL
                and (n <= sets._ROWS or size <= sets._ANY_STACK)
                and x.dtype == np.float64 and x.flags.c_contiguous)

    def linear_gradient_row(self, x: list, y: list) -> list:
        r"""`gradient_unchecked` of one point for the linear loss $\langle y, \cdot\rangle$,
        in plain floats: `x` and the cost vector `y` are lists of $d$ finite floats (at most
        64: the set's plain-float projection), the gradient $(x - p^\star(x))/\delta$ comes
        back as a list. $p^\star = \operatorname{prox}_{\delta\kappa\operatorname{Dist}}(x -
        \delta y)$ with the operations of `prox_distance` (the set's `project_row_unchecked`,
        then the pull towards it), so the numbers are `gradient_unchecked`'s. Unchecked: the
        per-round path of a one-copy booster (BoOCO with $N = 1$).

        Examples
        --------
        >>> from onlineboost import extension, losses, sets
        >>> ext = extension.Extension(losses.Linear(), sets.Simplex(3), delta=0.1, kappa=1.0)
        >>> [round(g, 6) for g in ext.linear_gradient_row([0.5, 0.5, 0.0], [1.0, 0.0, 0.0])]
        [0.666667, -0.333333, -0.333333]

        (Within $K$ and a step $\delta y$ that stays near it, the gradient is $y$ minus its
        mean over the coordinates that stay positive: the cost vector's part along $K$.)
        """
        delta = self.delta
        z = [a - delta * b for a, b in zip(x, y)]
        p = self.decision_set.project_row_unchecked(z)
        # `_prox_distance_rows` of the one row, inlined
        r = [a - b for a, b in zip(z, p)]
        dist = math.sqrt(sum([v * v for v in r]))
        lam = delta * self.kappa
        if dist > lam:  # pulled towards K by lam, short of it
            keep = 1.0 - lam / dist
            p = [b + keep * v for b, v in zip(p, r)]
        return [(a - b) / delta for a, b in zip(x, p)]

    def prox_unchecked(self, x: np.ndarray, y) -> np.ndarray:
        """`prox` for a float64 stack `x` `(..., d)` of finite points and a `y` the loss has
        validated (`y` a finite float64 cost vector of length d for the linear loss),
        unchecked: the per-round path of the boosters. Passing anything else is undefined."""
        K, loss, delta, kappa = self.decision_set, self.loss, self.delta, self.kappa
        if isinstance(loss, losses_.Linear):
            return prox_distance(x - delta * y, K, delta * kappa)
        if isinstance(loss, losses_.Squared):
            return prox_distance((x + delta * y) / (1.0 + delta), K, delta * kappa / (1.0 + delta))
        if K.dim == 1:
            return self._bisect(x, y)
        return self._admm(x, y)

    def _bisect(self, x, y):
        """1-D: the objective's derivative is increasing; bisect on its sign."""
        K, delta, kappa = self.decision_set, self.delta, self.kappa
        slope = min(self.loss.slope_bound, 1e300)
        if not np.isfinite(self.loss.slope_bound):
            raise ValueError(f"no exact 1-D solver for {self.loss!r}")  # pragma: no cover
        radius = delta * (slope + kappa)  # |p* - x| <= delta * (|f'| + kappa)
        lo, hi = x - radius, x + radius
        for _ in range(100):
            mid = 0.5 * (lo + hi)
            dist_slope = np.sign(mid - K.project_unchecked(mid))
            deriv = self.loss._gradient(mid, y) + kappa * dist_slope + (mid - x) / delta
            up = deriv > 0
            hi, lo = np.where(up, mid, hi), np.where(up, lo, mid)
            if np.all(hi - lo <= 1e-15 * (1.0 + np.abs(mid))):
                break
        return 0.5 * (lo + hi)

    def _admm(self, x, y):
        r"""Scaled ADMM on $f(p) + g(q)$, $p = q$, with $g = \kappa\operatorname{Dist} +
        \|x - \cdot\|^2/(2\delta)$ and penalty $\rho = 1/\delta$ (Boyd et al. 2011, §3.1)."""
        K, loss, delta, kappa = self.decision_set, self.loss, self.delta, self.kappa
        rho = 1.0 / delta
        q = K.project_unchecked(x)
        u = np.zeros_like(x)
        scale = 1.0 + np.abs(x).max()
        for _ in range(self.max_iter):
            p = loss._prox(q - u, y, 1.0 / rho)
            q_prev = q
            m = (x / delta + rho * (p + u)) / (1.0 / delta + rho)
            q = prox_distance(m, K, kappa / (1.0 / delta + rho))
            u = u + p - q
            primal = np.abs(p - q).max()
            dual = np.abs(q - q_prev).max()
            if primal <= self.tol * scale and dual <= self.tol * scale:
                break
        return q

    # -- value and gradient --------------------------------------------------------------------

    def value_and_gradient(self, x, y) -> tuple[np.ndarray, np.ndarray]:
        r"""$\hat f(x)$ (one value a point) and $\nabla \hat f(x) = (x - p^\star)/\delta$."""
        K = self.decision_set
        x_arr, _ = K._points(x)
        y = self.loss._check_y(y)
        p = self.prox(x_arr, y)
        value = (self.loss.value(p, y) + self.kappa * K.distance(p)
                 + np.sum((x_arr - p) ** 2, axis=-1) / (2.0 * self.delta))
        grad = (x_arr - p) / self.delta
        if np.ndim(x) == 0:
            return value[()] if np.ndim(value) else value, grad[0]
        return value, grad

    def value(self, x, y) -> np.ndarray:
        """$\\hat f(x)$."""
        return self.value_and_gradient(x, y)[0]

    def gradient(self, x, y) -> np.ndarray:
        """$\\nabla \\hat f(x)$, exact (to `tol / delta` on the ADMM path)."""
        x_arr = np.asarray(x, dtype=np.float64)
        return (x_arr - self.prox(x_arr, y)) / self.delta
