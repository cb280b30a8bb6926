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
        return self.project(self.grad_conj(theta), constraint)


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
        if isinstance(constraint, Box):
            y = np.asarray(y, dtype=np.float64)
            return sets.projection_box(y, constraint.lo, constraint.hi)
        if isinstance(constraint, CappedSimplex) and constraint.cap < constraint.scale:
            return sets.projection_capped_simplex(y, constraint.cap, constraint.scale)
        if isinstance(constraint, Simplex):
            return sets.projection_simplex(y, constraint.scale)
        return super().project(y, constraint)


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
        Optional set $C \supseteq S$ for the double projection $\Pi_S(\Pi_C(z))$ of Lemma 4. Only
        valid in the active mode (the paper's guarantee does not cover the lazy one), so it is
        refused there.

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
        if pre_constraint is not None and mode == "lazy":
            raise ValueError("pre_constraint (the double projection of Lemma 4) is only valid "
                             "with mode='active', got mode='lazy'")
        self.regulariser = regulariser
        self.constraint = constraint
        self.mode = mode
        self.pre_constraint = pre_constraint

    def project(self, theta: np.ndarray) -> np.ndarray:
        r"""$\Pi_S(\Pi_C(\nabla R^*(\theta)))$, or $\Pi_S(\nabla R^*(\theta))$ without $C$."""
        R = self.regulariser
        if self.pre_constraint is None:
            return R.project_dual(theta, self.constraint)
        C = self.pre_constraint
        if isinstance(R, NegativeEntropy) and isinstance(C, Box):
            # Stay in the log domain: the KL projection onto a box clips log z to
            # [log lo, log hi], and the box image may underflow to all zeros in the primal.
            with np.errstate(divide="ignore"):
                log_lo, log_hi = np.log(C.lo), np.log(C.hi)
            log_box = np.clip(np.asarray(theta, dtype=np.float64) - 1.0, log_lo, log_hi)
            return R.project_dual(log_box + 1.0, self.constraint)
        return R.project(R.project_dual(theta, C), self.constraint)

    def init(self, n: int) -> MirrorDescentState:
        if not (isinstance(n, (int, np.integer)) and n >= 1):
            raise ValueError(f"n must be an integer >= 1, got {n!r}")
        self.constraint.bounds(n)  # raises if S is empty in dimension n
        theta = np.zeros(n)
        return MirrorDescentState(t=0, theta=theta, w=self.project(theta))

    def update(self, state: MirrorDescentState, d: np.ndarray, eta: float) -> MirrorDescentState:
        d = np.asarray(d, dtype=np.float64)
        if d.shape != state.w.shape or not np.all(np.isfinite(d)):
            raise ValueError(f"d must be finite with shape {state.w.shape}, got shape {d.shape}")
        if not np.isfinite(eta):
            raise ValueError(f"eta must be finite, got {eta!r}")
        base_theta = state.theta if self.mode == "lazy" else self.regulariser.grad(state.w)
        theta = base_theta + eta * d  # Algorithm 1 of [^1]: grad R(z_{t+1}) = grad R(.) + eta d
        return MirrorDescentState(t=state.t + 1, theta=theta, w=self.project(theta))
