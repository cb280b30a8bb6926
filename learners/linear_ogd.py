r"""Linear policies $c \mapsto \Pi_K(\Theta c + b)$ trained by projected online gradient descent."""

from __future__ import annotations

import math

import numpy as np
from river import base

from onlineboost import sets
from onlineboost._checks import check_real

from ._features import FeatureIndex, check_stack, check_targets

__all__ = ["LinearOGD", "LinearOGDStack", "check_decision_set"]

_HUGE = 1e300  # parameters and raw points are kept within +-_HUGE: finite, whatever the context


def check_decision_set(decision_set) -> sets.ConvexSet:
    """The set itself, `Interval(-1, 1)` for `None`, else `ValueError` naming `decision_set`."""
    if decision_set is None:
        return sets.Interval(-1.0, 1.0)
    if not isinstance(decision_set, sets.ConvexSet):
        raise ValueError(
            f"decision_set must be an onlineboost.sets.ConvexSet, got {decision_set!r}"
        )
    return decision_set


class LinearOGDStack:
    r"""$n$ copies of `LinearOGD` on one context stream, as arrays $\Theta$ `(n, dim, p)` and
    $b$ `(n, dim)`; one array operation serves all copies.

    Parameters
    ----------
    n
        Number of copies.
    decision_set
        The convex set $K$.
    lr, decay, bound
        As in `LinearOGD`.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost import sets
    >>> from learners import LinearOGDStack
    >>> stack = LinearOGDStack(2, sets.Interval(-1.0, 1.0), lr=0.5)
    >>> stack.learn({"c": 1.0}, np.array([[1.0], [-1.0]]))
    >>> stack.predict({"c": 1.0})
    array([[-1.],
           [ 1.]])
    """

    def __init__(self, n: int, decision_set, lr: float = 0.1, decay: str = "sqrt",
                 bound: float | None = None):
        check_stack(n, None)
        self.n = int(n)
        self.decision_set = check_decision_set(decision_set)
        self.lr = lr
        self.decay = decay
        self.bound = bound
        K = self.decision_set
        self._mu = np.asarray(K.centroid, dtype=np.float64)
        self._tol = 1e-10 * max(1.0, K.diameter)  # below this Dist(z, K) is rounding noise
        self._index = FeatureIndex()
        self._theta = np.zeros((self.n, K.dim, 0))  # (n, dim, p)
        self._b = np.tile(self._mu, (self.n, 1))  # (n, dim)
        self._t = 0  # steps taken
        self._interval = (tuple(float(v) for v in (K.lower[0], K.upper[0]))
                          if isinstance(K, sets.Box) and K.dim == 1 else None)

    #: `predict` and `learn` validate x (a dict of finite numbers, else `ValueError` naming
    #: `x`) before any state changes, so a caller need not check it again
    validates_x = True

    def _raw(self, c: np.ndarray) -> np.ndarray:
        z = self._theta @ c + self._b  # z = Theta c + b, (n, dim)
        # finite unless Theta c overflowed (a context near the largest double); on an interval
        # a sum in Python floats tells (inf - inf is nan), elsewhere one array check
        if (math.isfinite(sum(z.ravel().tolist())) if self._interval is not None
                else np.isfinite(z).all()):
            return z
        return self._raw_huge(c)

    def _raw_huge(self, c: np.ndarray) -> np.ndarray:
        """z for a context so large that Theta c overflows: computed as s (Theta c/s + b/s),
        s = max|c|, and clipped to +-1e300, where every projection is still exact in
        direction, so the played point is finite and in K."""
        s = float(np.max(np.abs(c)))
        with np.errstate(over="ignore", invalid="ignore"):
            z = (self._theta @ (c / s) + self._b / s) * s
        return np.clip(np.nan_to_num(z, nan=0.0), -_HUGE, _HUGE)

    def forward(self, x: dict) -> tuple:
        r"""The forward pass for `x`, held by the caller: `(c, new keys, z)`.

        `predict_forward` / `learn_forward` take it, so a booster that predicts and then
        learns on one `x` reads the dict and computes $z = \Theta c + b$ once; nothing is
        cached in the stack. It is valid until the next `learn*` call. Validates `x` (a
        `ValueError` naming `x[key]`), changes nothing.
        """
        c, new = self._index.read(x)  # does not change the index
        return c, new, self._raw(c[: len(self._index)] if new else c)  # unseen features: 0

    def raw(self, x: dict) -> np.ndarray:
        r"""The $n$ unprojected points $z_i = \Theta_i c + b_i$, shape `(n, dim)`."""
        return self.forward(x)[2].copy()

    def predict_forward(self, fwd: tuple) -> np.ndarray:
        """`predict` from a `forward` pass."""
        z = fwd[2]  # finite by construction
        if self._interval is not None:  # clipping to float bounds is cheaper than to arrays
            return np.minimum(np.maximum(z, self._interval[0]), self._interval[1])
        return self.decision_set.project_unchecked(z)

    def predict(self, x: dict) -> np.ndarray:
        r"""The $n$ points $\Pi_K(\Theta_i c + b_i)$, shape `(n, dim)`."""
        return self.predict_forward(self.forward(x))

    def learn(self, x: dict, G) -> None:
        r"""One projected gradient step per copy on the linear loss $a \mapsto \langle g_i,
        a\rangle$; row $i$ of `G` (shape `(n, dim)`) is $g_i$."""
        self.learn_forward(self.forward(x), G)

    def learn_forward(self, fwd: tuple, G) -> None:
        """`learn` from a `forward` pass of the same `x` (no learning in between)."""
        c, new, z = fwd
        K = self.decision_set
        shape = (self.n, K.dim)
        if not (type(G) is np.ndarray and G.dtype == np.float64 and G.shape == shape):
            G = check_targets(G, shape, "g")
        # a finite sum means finite entries (an overflowing sum falls through to the check)
        elif not math.isfinite(sum(G.ravel().tolist()) if self._interval is not None
                               else np.add.reduce(G, axis=None)):
            G = check_targets(G, shape, "g")
        if new:
            self._index.add(new)
            pad = np.zeros((self.n, K.dim, len(new)))
            self._theta = np.concatenate([self._theta, pad], axis=2)  # z is unchanged: 0 weights
        # gradient in z of the convex surrogate <g, z> + |g| Dist(z, K): equal to the loss on K,
        # an upper bound of <g, Pi_K z> outside it (the kappa = G extension of [^1], Def. 4)
        self._t += 1
        eta_t = self.lr / math.sqrt(self._t) if self.decay == "sqrt" else self.lr
        if self._interval is not None:  # dim 1, in plain floats: Dist = |d|, outward = sign(d)
            lo, hi = self._interval
            tol = self._tol
            step = []
            for zi, gi in zip(z.ravel().tolist(), G.ravel().tolist()):
                di = zi - min(max(zi, lo), hi)
                if di > tol or -di > tol:
                    gi = gi + abs(gi) * (1.0 if di > 0 else -1.0)
                step.append(eta_t * gi)
            step = np.array(step).reshape(self.n, 1)
        else:
            d = z - K.project_unchecked(z)
            dist = np.sqrt(np.einsum("nd,nd->n", d, d))[:, None] if d.shape[1] > 1 else np.abs(d)
            outward = np.where(dist > self._tol, d / np.maximum(dist, self._tol), 0.0)
            norm_g = np.sqrt((G * G).sum(axis=1, keepdims=True))
            step = eta_t * (G + norm_g * outward)
        self._theta -= step[:, :, None] * c
        self._b -= step
        if not c @ c < 1e300:  # a huge context (|c| > 1e150): keep Theta finite
            np.clip(self._theta, -_HUGE, _HUGE, out=self._theta)
        if self.bound is not None:  # project onto the box |Theta_jk| <= B, |b_j - mu_j| <= B
            np.clip(self._theta, -self.bound, self.bound, out=self._theta)
            self._b = np.clip(self._b, self._mu - self.bound, self._mu + self.bound)


class LinearOGD(base.Estimator):
    r"""Weak OCO learner: a linear policy $c \mapsto \Pi_K(\Theta c + b)$, projected OGD.

    Given the linear loss $a \mapsto \langle g_t, a\rangle$ of round $t$, it takes a gradient
    step on the convex surrogate
    $$\tilde\ell_t(\Theta, b) = \langle g_t, z_t\rangle + \|g_t\|\operatorname{Dist}(z_t, K),
    \qquad z_t = \Theta c_t + b,$$
    which equals the loss wherever $z_t \in K$ and bounds the loss of the played point
    $\Pi_K(z_t)$ from above (the linear part is 1-Lipschitz times $\|g_t\|$), so the regret of
    OGD on $\tilde\ell$ bounds the regret against every linear policy that maps the contexts
    into $K$:
    $$\Theta \leftarrow \Theta - \eta_t \nabla_z\tilde\ell_t\, c_t^\top, \quad
    b \leftarrow b - \eta_t \nabla_z\tilde\ell_t, \quad \eta_t = \text{lr}/\sqrt{t}.$$
    `lr` is the base step size; `decay="constant"` uses $\eta_t = \text{lr}$. It starts at
    $\Theta = 0$, $b = $ the centroid of $K$. Unseen context features count as 0.

    Parameters
    ----------
    decision_set
        The convex set $K$ (`onlineboost.sets`); `None` means `Interval(-1, 1)`.
    lr
        Base step size $\text{lr} > 0$.
    decay
        `"sqrt"` ($\eta_t = \text{lr}/\sqrt{t}$, for sublinear regret with unknown horizon) or
        `"constant"`.
    bound
        If set, every entry of $\Theta$ and of $b - \mu$ is clipped to $[-B, B]$ after every
        step (the Euclidean projection onto a box: the bounded domain of OGD's regret bound);
        `None` leaves the parameters free.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost import sets
    >>> from learners import LinearOGD
    >>> rng = np.random.default_rng(0)
    >>> learner = LinearOGD(sets.Interval(-1.0, 1.0), lr=0.5)
    >>> for _ in range(500):  # the loss favours a = +1 when c > 0.5 and a = -1 otherwise
    ...     c = float(rng.random())
    ...     learner.learn_one({"c": c}, np.array([0.5 - c]))
    >>> learner.predict_one({"c": 0.9}), learner.predict_one({"c": 0.1})
    (array([1.]), array([-1.]))

    References
    ----------
    [^1]: Hazan, E. and Singh, K., 2021. Boosting for Online Convex Optimization. ICML.
        arXiv:2102.09305v1.
    """

    def __init__(self, decision_set: sets.ConvexSet | None = None, lr: float = 0.1,
                 decay: str = "sqrt", bound: float | None = None):
        check_decision_set(decision_set)
        check_real("lr", lr, 0.0, low_open=True)
        if decay not in ("sqrt", "constant"):
            raise ValueError(f"decay must be 'sqrt' or 'constant', got {decay!r}")
        if bound is not None:
            check_real("bound", bound, 0.0, low_open=True)
        self.decision_set = decision_set
        self.lr = lr
        self.decay = decay
        self.bound = bound
        self._stack = self.stack(1)

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"decision_set": sets.Simplex(3), "lr": 0.5, "decay": "constant", "bound": 2.0}

    def stack(self, n: int, seeds: list | None = None) -> LinearOGDStack:
        """$n$ fresh copies as one `LinearOGDStack` (`seeds` ignored: not random)."""
        check_stack(n, seeds)
        return LinearOGDStack(n, self.decision_set, float(self.lr), self.decay,
                              None if self.bound is None else float(self.bound))

    def predict_one(self, x: dict) -> np.ndarray:
        """The point $\\Pi_K(\\Theta c + b)$ of $K$, shape `(dim,)`."""
        return self._stack.predict(x)[0]

    def learn_one(self, x: dict, g) -> None:
        """One step on the linear loss $a \\mapsto \\langle g, a\\rangle$, `g` of shape
        `(dim,)`."""
        self._stack.learn(x, check_targets(g, (self._stack.decision_set.dim,), "g")[None, :])
