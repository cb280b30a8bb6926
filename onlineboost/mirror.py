r"""Regularisers, Bregman divergences and mirror-descent weight updaters (MABoost's engine).

A regulariser $R$ gives the mirror map $\nabla R$, its inverse $\nabla R^*$, the Bregman
divergence $B_R(x, y) = R(x) - R(y) - \langle \nabla R(y), x - y \rangle$ and the Bregman
projection $\Pi_S(y) = \arg\min_{w \in S} B_R(w, y)$ onto a constraint set
(`onlineboost.bregman`: `Simplex`, `Box`, `CappedSimplex`). `MirrorDescent` turns them into an
optax-shaped updater, `init(n) -> state` and `update(state, d, eta) -> state`:

$$\text{lazy: } \nabla R(z_{t+1}) = \nabla R(z_t) + \eta_t d_t, \qquad
\text{active: } \nabla R(z_{t+1}) = \nabla R(w_t) + \eta_t d_t, \qquad
w_{t+1} = \Pi_S(z_{t+1}).$$

The state holds the dual point $\theta_t = \nabla R(z_t)$, never $z_t$, so the entropic
updates run in the log domain.

References
----------
[^1]: Naghibi, T. and Pfister, B., 2014. A Boosting Framework on Grounds of Online Learning.
    NeurIPS 2014, arXiv:1409.7202v1 (Algorithm 1, Lemma 4).
"""

from __future__ import annotations

import typing

import numpy as np
from river import base
from scipy import optimize, special

from onlineboost import bregman, sets
from onlineboost.bregman import Box, CappedSimplex, Simplex

__all__ = ["MirrorDescent", "MirrorDescentState", "NegativeEntropy", "Quadratic", "Regulariser"]


class Regulariser(base.Base):
    r"""A 1-strongly convex regulariser $R$; subclass it and implement `value`, `grad`, `grad_conj`.

    `bregman` follows from those three; `project` falls back on a numerical solve of
    $\min_{w \in S} B_R(w, y)$ (scipy's SLSQP), so a new $R$ works with every constraint at once.
    `norm` names the norm $R$ is strongly convex in ("l1" or "l2"); it fixes the bound $L$ on
    $\|d\|_*^2$ for $d \in [-1, 1]^n$ (`dual_bound`).
    """

    norm = "l2"

    def value(self, w: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def grad(self, w: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def grad_conj(self, theta: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def bregman(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """$B_R(x, y)$, one value per point of a stack."""
        x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
        return self.value(x) - self.value(y) - np.sum(self.grad(y) * (x - y), axis=-1)

    def dual_bound(self, n: int) -> float:
        r"""$L = \max_{d \in [-1, 1]^n} \|d\|_*^2$: 1 for the dual norm $\ell_\infty$, else n."""
        return 1.0 if self.norm == "l1" else float(n)

    def project(self, y: np.ndarray, constraint) -> np.ndarray:
        """Bregman projection of the point `y` (one point) onto `constraint`, numerically."""
        constraint, _ = bregman.as_constraint(constraint)
        y = np.asarray(y, dtype=np.float64)
        n = y.shape[-1]
        lo, hi = constraint.bounds(n)
        cons = [] if constraint.scale is None else [
            {"type": "eq", "fun": lambda w: w.sum() - constraint.scale, "jac": lambda w: np.ones(n)}
        ]
        start = np.clip(y, lo, hi)
        res = optimize.minimize(
            lambda w: self.bregman(w, y), start, jac=lambda w: self.grad(w) - self.grad(y),
            bounds=[(lo, hi if np.isfinite(hi) else None)] * n, constraints=cons,
            method="SLSQP", options={"ftol": 1e-13, "maxiter": 500},
        )
        return np.clip(res.x, lo, hi)

    def project_dual(self, theta: np.ndarray, constraint) -> np.ndarray:
        r"""$\Pi_S(\nabla R^*(\theta))$, the projection of the point whose mirror image is `theta`.
        """
        return self.project(self.grad_conj(theta), bregman.as_constraint(constraint)[0])


class NegativeEntropy(Regulariser):
    r"""$R(w) = \sum_i w_i \log w_i$, 1-strongly convex in $\ell_1$ on the simplex.

    $\nabla R(w) = 1 + \log w$, $\nabla R^*(\theta) = e^{\theta - 1}$, and $B_R$ is the
    generalised KL divergence. Projections are exact and done in the log domain
    (`onlineboost.bregman`).

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost import mirror
    >>> R = mirror.NegativeEntropy()
    >>> R.project_dual(np.array([1e7, 0.0, 1e7]), mirror.Simplex())
    array([0.5, 0. , 0.5])
    >>> float(R.bregman(np.array([0.5, 0.5]), np.array([0.25, 0.75])))
    0.143841...
    """

    norm = "l1"

    def value(self, w):
        return np.sum(special.xlogy(w, w), axis=-1)

    def grad(self, w):
        with np.errstate(divide="ignore"):
            return 1.0 + np.log(np.asarray(w, dtype=np.float64))

    def grad_conj(self, theta):
        return np.exp(np.asarray(theta, dtype=np.float64) - 1.0)

    def bregman(self, x, y):
        x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
        return np.sum(special.xlogy(x, x) - special.xlogy(x, y) - x + y, axis=-1)

    def project(self, y, constraint):
        return self.project_dual(self.grad(y), constraint)

    def project_dual(self, theta, constraint):
        constraint, _ = bregman.as_constraint(constraint)
        log_z = np.asarray(theta, dtype=np.float64) - 1.0
        if isinstance(constraint, Box):
            return bregman.kl_projection_box(log_z, constraint.lo, constraint.hi)
        if isinstance(constraint, CappedSimplex):
            return bregman.kl_projection_capped_simplex(log_z, constraint.cap, constraint.scale)
        if isinstance(constraint, Simplex):
            return bregman.kl_projection_simplex(log_z, constraint.scale)
        return super().project(self.grad_conj(theta), constraint)


class Quadratic(Regulariser):
    r"""$R(w) = \frac{1}{2}\|w\|_2^2$, 1-strongly convex in $\ell_2$: $B_R(x, y) = \|x - y\|^2 / 2$.

    The mirror map is the identity and the projections are the exact Euclidean kernels of
    `onlineboost.sets`; on the simplex they set coordinates exactly to zero (SparseBoost).

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost import mirror
    >>> mirror.Quadratic().project(np.array([0.9, 0.5, -0.2]), mirror.Simplex())
    array([0.7, 0.3, 0. ])
    """

    norm = "l2"

    def value(self, w):
        w = np.asarray(w, dtype=np.float64)
        return 0.5 * np.sum(w * w, axis=-1)

    def grad(self, w):
        return np.array(w, dtype=np.float64)

    def grad_conj(self, theta):
        return np.array(theta, dtype=np.float64)

    def project(self, y, constraint):
        constraint, _ = bregman.as_constraint(constraint)
        y = np.asarray(y, dtype=np.float64)
        if isinstance(constraint, Box):
            return sets.projection_box(y, constraint.lo, constraint.hi)
        if isinstance(constraint, Simplex):
            # both projections commute with adding a constant to every coordinate: shifting the
            # largest to 0 keeps the sum constraint resolvable when |y| dwarfs the scale (a
            # step of 1e16 would otherwise round the mass away and return all zeros)
            y = y - np.max(y, axis=-1, keepdims=True)
            cap, scale = float(min(getattr(constraint, "cap", np.inf), constraint.scale)), float(
                constraint.scale)
            if cap < scale:
                w = sets.projection_capped_simplex(y, cap, scale)
            else:
                w = sets.projection_simplex(y, scale)
            if y.ndim == 1 and not (abs(w.sum() - scale) <= 1e-12 * scale * len(w)
                                    and w.min() >= 0 and w.max() <= cap * (1 + 1e-12)):
                w = _euclidean_capped_simplex_exact(y, cap, scale)
            return w
        return super().project(y, constraint)


def _euclidean_capped_simplex_exact(y: np.ndarray, cap: float, scale: float) -> np.ndarray:
    r"""Euclidean projection onto $\{w : \sum w = s, 0 \le w \le u\}$ when the coordinates of
    `y` are so far apart that $y_i - \tau$ cannot be formed in floating point.

    $w = \operatorname{clip}(y - \tau, 0, u)$: the top $k$ sorted coordinates sit at $u$, the
    next $f$ are free, the rest are 0. The split is located by bisection on $\tau$ (up to the
    neighbouring splits, which are tried as well) and the free weights are computed as
    $y_j - \bar y_F + (s - k u) / f$, which needs no $\tau$ and sums to $s$ exactly.
    """
    n = len(y)
    b = np.sort(y)[::-1]

    def g(tau):
        return np.clip(b - tau, 0.0, cap).sum() - scale

    lo, hi = float(b[-1]) - scale - cap, float(b[0])
    for _ in range(2100):  # bisection over floats: ends when lo and hi are adjacent
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        lo, hi = (mid, hi) if g(mid) > 0 else (lo, mid)
    k0 = int(np.sum(b - hi >= cap))
    f0 = max(1, int(np.sum((b - hi > 0) & (b - hi < cap))))
    best = None
    for k in (k0, k0 - 1, k0 + 1, k0 - 2, k0 + 2):
        for f in (f0, f0 - 1, f0 + 1, f0 + 2, f0 - 2):
            if k < 0 or f < 1 or k + f > n or k * cap > scale:
                continue
            free = b[k:k + f]
            w_free = (free - free.mean()) + (scale - k * cap) / f
            tau = free[0] - w_free[0]
            tol = 1e-9 * max(cap, 1e-300)
            if (w_free.min() >= -tol and w_free.max() <= cap + tol
                    and (k == 0 or b[k - 1] - tau >= cap - tol)
                    and (k + f == n or b[k + f] - tau <= tol)):
                best = (k, f, np.clip(w_free, 0.0, cap))
                break
        if best is not None:
            break
    if best is None:  # cannot happen for a finite y: keep the fast kernel's answer
        return sets.projection_capped_simplex(y, cap, scale) if cap < scale else \
            sets.projection_simplex(y, scale)
    k, f, w_free = best
    w_sorted = np.zeros(n)
    w_sorted[:k], w_sorted[k:k + f] = cap, w_free
    out = np.empty(n)
    out[np.argsort(-y, kind="stable")] = w_sorted
    return out


class MirrorDescentState(typing.NamedTuple):
    """State of `MirrorDescent`."""

    t: int  # steps taken
    theta: np.ndarray  # (n,) dual point: grad R(z_t)
    w: np.ndarray  # (n,) the projected weights w_t, in the constraint set


class MirrorDescent(base.Base):
    r"""Mirror-descent weight updater, lazy or active, with an optional double projection.

    $$\theta_{t+1} = \begin{cases} \theta_t + \eta_t d_t & \text{lazy} \\
    \nabla R(w_t) + \eta_t d_t & \text{active} \end{cases}, \qquad
    w_{t+1} = \Pi_S\big(\Pi_C(\nabla R^*(\theta_{t+1}))\big)$$

    `regulariser` is $R$, `constraint` is $S$, `pre_constraint` is $C$ (no $C$: a single
    projection). The sign follows MABoost: $d_t$ is a loss vector and weights move *towards*
    large $d$ (mirror ascent). Start: $\theta_1 = 0$, so $w_1 = \arg\min_{w \in S} R(w)$
    (uniform on the simplex).

    Parameters
    ----------
    regulariser
        A `Regulariser` ($R$).
    constraint
        The set $S$ the weights live in (`Simplex`, `CappedSimplex`, `Box`).
    mode
        `"lazy"` (dual averaging: $\theta$ accumulates every $\eta_t d_t$) or `"active"`
        (restart each step from the projected $w_t$).
    pre_constraint
        Optional set $C \supseteq S$ for the double projection $\Pi_S(\Pi_C(z))$ of Lemma 4.
        Lemma 4 covers the active mode; the paper's conclusion notes that the lazy mode works
        too in special cases, MadaBoost's: the negative entropy with a box $C = [0, u]^N$ and the
        simplex $S$, where $w_{t+1} \propto \min(u, e^{\theta_{t+1} - 1})$ (with $u = e^{-1}$,
        the start $\nabla R^*(0)$: MadaBoost's $w_i \propto \min(1, e^{-a_i F(x_i)})$). Lazy
        mode with any other double projection is refused.

    `constraint` and `pre_constraint` are `onlineboost.bregman` sets, or the `onlineboost.sets`
    sets of the same kind (`bregman.as_constraint`; those fix the dimension `init` accepts).

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost import mirror
    >>> md = mirror.MirrorDescent(mirror.NegativeEntropy(), mirror.Simplex(), mode="lazy")
    >>> state = md.init(3)
    >>> for _ in range(1000):  # theta reaches 1e7: still finite in the log domain
    ...     state = md.update(state, np.array([1.0, -1.0, 1.0]), eta=1e4)
    >>> state.t, state.w
    (1000, array([0.5, 0. , 0.5]))
    """

    def __init__(self, regulariser: Regulariser, constraint, mode: str = "active",
                 pre_constraint=None):
        if not isinstance(regulariser, Regulariser):
            raise ValueError(f"regulariser must be a Regulariser, got {regulariser!r}")
        if mode not in ("lazy", "active"):
            raise ValueError(f"mode must be 'lazy' or 'active', got {mode!r}")
        S, dim = bregman.as_constraint(constraint, "constraint")
        C, dim_C = (None, None) if pre_constraint is None else bregman.as_constraint(
            pre_constraint, "pre_constraint")
        if dim is not None and dim_C is not None and dim != dim_C:
            raise ValueError(f"pre_constraint has dimension {dim_C}, constraint {dim}")
        madaboost = (isinstance(regulariser, NegativeEntropy) and isinstance(C, Box)
                     and C.lo == 0 and type(S) is Simplex)
        if C is not None and mode == "lazy" and not madaboost:
            raise ValueError("pre_constraint with mode='lazy' is only valid in MadaBoost's case "
                             "(NegativeEntropy, a Box [0, u] then a Simplex); Lemma 4's double "
                             "projection otherwise needs mode='active'")
        self.regulariser = regulariser
        self.constraint = constraint
        self.mode = mode
        self.pre_constraint = pre_constraint
        self._S, self._C, self._dim = S, C, dim if dim is not None else dim_C

    def project(self, theta: np.ndarray) -> np.ndarray:
        r"""$\Pi_S(\Pi_C(\nabla R^*(\theta)))$, or $\Pi_S(\nabla R^*(\theta))$ without $C$."""
        R = self.regulariser
        if self._C is None:
            return R.project_dual(theta, self._S)
        C = self._C
        if isinstance(R, NegativeEntropy) and isinstance(C, Box):
            # Stay in the log domain: the KL projection onto a box clips log z to
            # [log lo, log hi], and the box image may underflow to all zeros in the primal.
            with np.errstate(divide="ignore"):
                log_lo, log_hi = np.log(C.lo), np.log(C.hi)
            log_box = np.clip(np.asarray(theta, dtype=np.float64) - 1.0, log_lo, log_hi)
            return R.project_dual(log_box + 1.0, self._S)
        return R.project(R.project_dual(theta, C), self._S)

    def init(self, n: int) -> MirrorDescentState:
        if isinstance(n, (bool, np.bool_)) or not (isinstance(n, (int, np.integer)) and n >= 1):
            raise ValueError(f"n must be an integer >= 1, got {n!r}")
        if self._dim is not None and n != self._dim:
            raise ValueError(f"n must be {self._dim}, the dimension of the constraint, got {n}")
        self._S.bounds(n)  # raises if S is empty in dimension n
        theta = np.zeros(n)
        return MirrorDescentState(t=0, theta=theta, w=self.project(theta))

    def update(self, state: MirrorDescentState, d: np.ndarray, eta: float) -> MirrorDescentState:
        d = np.asarray(d, dtype=np.float64)
        if d.shape != state.w.shape or not np.all(np.isfinite(d)):
            raise ValueError(f"d must be finite with shape {state.w.shape}, got shape {d.shape}")
        if not np.isfinite(eta):
            raise ValueError(f"eta must be finite, got {eta!r}")
        base_theta = state.theta if self.mode == "lazy" else self.regulariser.grad(state.w)
        with np.errstate(over="ignore", invalid="ignore"):
            theta = base_theta + eta * d  # Algorithm 1: grad R(z_{t+1}) = grad R(.) + eta d
        if not np.all(np.isfinite(theta) | (theta == -np.inf)):
            raise ValueError(f"eta * d overflows: eta={eta!r} is too large for this d")
        return MirrorDescentState(t=state.t + 1, theta=theta, w=self.project(theta))
