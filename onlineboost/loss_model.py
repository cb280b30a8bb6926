r"""Loss models for BoBLO's doubly robust estimate that choose their ridge penalty online.

BoBLO's `"dr"` estimator fills in the unplayed arms with a per-arm ridge regression $m_t$ of the
loss on $\tilde c = (1, c)$ (`boblo._ArmRidge`, LinUCB's own model), and its default weak
learner plays on that model. The penalty $\lambda$ matters: on the development streams the
best fixed $\lambda$ is 1 on ImageSegments (7 arms, 19 columns), about 100 on digits (10 arms,
65 columns) and about 5 on `LinearBandit`, which is also what tuning river's LinUCB per data set
finds. A fixed number fits one stream; `RidgeMixture` picks it from the data instead.

`RidgeMixture` runs one per-arm ridge model per penalty $\lambda_1, \dots, \lambda_M$ on the
same rounds (every model learns every played arm's loss) and predicts with their exponentially
weighted average (Vovk's aggregating rule for an exp-concave loss):
$$m_t(a) = \sum_j w_{t,j}\, \hat\theta^{(j)}_{t,a} \cdot \tilde c, \qquad
  w_{t,j} \propto \exp\Bigl(-\frac{1}{2}\sum_{s < t} \bigl(\hat\theta^{(j)}_{s,a_s}\cdot
  \tilde c_s - \ell_s\bigr)^2\Bigr),$$
the weights following each model's prequential squared error on the played arm's observed loss
(measured before the model learns it, so no model is scored on what it has seen). For
predictions and losses in $[0, 1]$ the squared loss is $1/2$-exp-concave, so the mixture's
cumulative squared error is within $2 \ln M$ of the best penalty's in hindsight on the played
rounds (Kivinen & Warmuth 1999; Cesa-Bianchi & Lugosi 2006, Prop. 3.1), whatever the arms
played. The mixture is itself a linear model per arm, with weights
$\sum_j w_j \hat\theta^{(j)}_a$ (`theta`).

The cost per round is that of $M$ ridge models: one batched $(M, q, q)$ rank-one update of
the played arm and an $(M, k, q)$ prediction.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["RidgeMixture"]


class RidgeMixture:
    r"""Per-arm online ridge regressions at several penalties, mixed by exponential weights
    on their prequential squared errors (module docstring).

    The interface is `boblo._ArmRidge`'s (the "dr" loss model BoBLO holds): `lower(v)`,
    `costs(v)`, `extend(c)`, `predict(ce, optimism)`, `learn(ce, a, residual, U)`, `theta`.

    Parameters
    ----------
    k
        Number of arms.
    penalties
        The ridge penalties $\lambda_j > 0$ of the $M$ models.
    start
        The constant prediction every model starts from.
    optimism
        $\alpha \ge 0$: `costs` / `lower` give $m_t(a) - \alpha\sqrt{\sum_j w_j\,\tilde c^\top
        P^{(j)}_a \tilde c}$ (the weighted confidence width).
    rate
        $\eta > 0$ of the exponential weights ($1/2$: the squared loss on $[0, 1]$).

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost.loss_model import RidgeMixture
    >>> rng = np.random.default_rng(0)
    >>> model = RidgeMixture(2, penalties=(1.0, 100.0), start=0.5)
    >>> for _ in range(300):  # arm 0's loss is 0.5 + 0.3 c: the small penalty fits it sooner
    ...     c = rng.normal(size=1)
    ...     ce, costs, U = model.lower(c)
    ...     loss = 0.5 + 0.3 * c[0] + 0.1 * rng.normal()
    ...     model.learn(ce, 0, loss - float(model.theta[0] @ ce), U)
    >>> model.weights.round(3)
    array([0.983, 0.017])
    >>> model.costs(np.array([1.0])).round(3)
    array([0.794, 0.5  ])
    """

    def __init__(self, k: int, penalties, start: float, optimism: float = 0.0,
                 rate: float = 0.5, forget: float = 1.0, per_arm: bool = False,
                 width: str = "sqrt"):
        lam = np.asarray(penalties, dtype=np.float64).reshape(-1)
        if lam.size == 0 or not np.all(np.isfinite(lam)) or np.any(lam <= 0.0):
            raise ValueError(f"penalties must be finite positive numbers, got {penalties!r}")
        if not (math.isfinite(rate) and rate > 0.0):
            raise ValueError(f"rate must be a finite positive number, got {rate!r}")
        self.k = int(k)
        self.penalties = lam
        self.optimism = float(optimism)
        self.rate = float(rate)
        self.forget = float(forget)
        self.per_arm = bool(per_arm)
        self.width = width  # (experimental) "linucb": sigma_t sqrt(1 + c P c), sigma_t online
        self._n = 0
        M = lam.size
        self.P = np.broadcast_to((1.0 / lam)[:, None, None, None], (M, self.k, 1, 1)).copy()
        self.Theta = np.full((M, self.k, 1), float(start))  # (M, k, q), bias first
        self.loss = [0.0] * M  # cumulative prequential squared errors
        self.weights = np.full(M, 1.0 / M)
        if self.per_arm:  # (experimental) one mixture per arm, scored on its own rounds
            self.loss = np.zeros((M, self.k))
            self.weights = np.full((M, self.k), 1.0 / M)
        self._theta = None  # the mixed weights, until the next `learn`
        self._last = None  # (v, its bytes, ce, bounds, U) of the last context, until `learn`

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_last": None, "_theta": None}

    @property
    def theta(self) -> np.ndarray:
        r"""The mixture's per-arm weights $\sum_j w_j \hat\theta^{(j)}_a$, `(k, q)`."""
        if self._theta is None:
            M, k, q = self.Theta.shape
            if self.per_arm:
                self._theta = np.einsum("mk,mkq->kq", self.weights, self.Theta)
            else:
                self._theta = (self.weights @ self.Theta.reshape(M, k * q)).reshape(k, q)
        return self._theta

    def lower(self, v: np.ndarray) -> tuple:
        """`(ce, bounds, U)` for the context vector `v`, as `_ArmRidge.lower` (computed once
        per context between two `learn`s)."""
        last = self._last
        if last is not None and last[0] is v and last[1] == v.tobytes():
            return last[2:]
        ce = self.extend(v)
        bounds, U = self.predict(ce, self.optimism)
        self._last = (v, v.tobytes(), ce, bounds, U)
        return ce, bounds, U

    def costs(self, v: np.ndarray) -> np.ndarray:
        """Every arm's predicted loss (minus the optimism's width) for `v`, `(k,)`, without
        growing: columns not yet seen count with weight 0 and prior precision $\\lambda_j$."""
        q = self.P.shape[2]
        if len(v) + 1 <= q:
            return np.array(self.lower(v)[1])
        ce = np.empty(q)
        ce[0] = 1.0
        ce[1:] = v[:q - 1]
        m = self.theta @ ce
        if not self.optimism:
            return m
        extra = float(v[q - 1:] @ v[q - 1:]) / self.penalties  # (M,)
        w = np.einsum("i,jaik,k->ja", ce, self.P, ce) + extra[:, None]
        return m - self.optimism * np.sqrt(np.maximum(self.weights @ w, 0.0))

    def extend(self, c: np.ndarray) -> np.ndarray:
        """`(1, c)`, growing every model to `c`'s columns (new columns: weight 0, prior
        precision $\\lambda_j$)."""
        q = self.P.shape[2]
        if len(c) + 1 > q:
            M, k, q2 = len(self.penalties), self.k, len(c) + 1
            P = np.eye(q2)[None, None] / self.penalties[:, None, None, None]
            P = np.broadcast_to(P, (M, k, q2, q2)).copy()
            P[:, :, :q, :q] = self.P
            self.P = P
            self.Theta = np.concatenate([self.Theta, np.zeros((M, k, q2 - q))], axis=2)
            self._theta = None
            q = q2
        ce = np.zeros(q)
        ce[0] = 1.0
        ce[1:len(c) + 1] = c
        return ce

    def predict(self, ce: np.ndarray, optimism: float) -> tuple[list, np.ndarray | None]:
        r"""Every arm's mixed prediction minus `optimism` times the weighted width, and the
        rows $P^{(j)}_a \tilde c$ `(M, k, q)` (`None` without optimism) for `learn`."""
        m = (self.theta @ ce).tolist()
        if not optimism:
            return m, None
        U = self.P @ ce  # (M, k, q)
        w = (self.weights @ (U @ ce)).tolist()
        if self.width == "linucb":  # LinUCB's sqrt(1/beta + c (alpha I + beta X X)^-1 c)
            s2 = float(self.weights @ np.array(self.loss)) / max(self._n, 1)
            sig = math.sqrt(s2) if self._n else 0.5
            return [v - optimism * sig * math.sqrt(1.0 + max(x, 0.0)) for v, x in zip(m, w)], U
        return [v - optimism * math.sqrt(max(s, 0.0)) for v, s in zip(m, w)], U

    def learn(self, ce: np.ndarray, a: int, residual: float, U: np.ndarray | None = None) -> None:
        """Score every model on arm `a`'s loss `residual + theta[a] @ ce` (the residual of the
        mixture, as `_ArmRidge.learn` takes it), reweight, then one recursive-least-squares
        step of arm `a` in every model."""
        loss = residual + float(self.theta[a] @ ce)
        self._n += 1
        self._last = None
        self._theta = None
        Pa = self.P[:, a]  # (M, q, q), a view
        u = Pa @ ce if U is None else U[:, a]  # (M, q)
        theta = self.Theta[:, a]  # (M, q), a view
        r = loss - theta @ ce  # (M,) prequential residuals
        if self.per_arm:
            La = self.loss[:, a]
            La *= self.forget
            La += r * r
            w = np.exp(self.rate * (La.min() - La))
            self.weights[:, a] = w / w.sum()
        else:  # the weights in plain floats (a handful of penalties)
            f = self.forget
            cum = self.loss = [f * L + e * e for L, e in zip(self.loss, r.tolist())]
            low, rate = min(cum), self.rate
            w = [math.exp(rate * (low - L)) for L in cum]
            total = sum(w)
            self.weights = np.array([x / total for x in w])
        v = u / (1.0 + u @ ce)[:, None]  # (M, q)
        theta += r[:, None] * v
        Pa -= u[:, :, None] * v[:, None, :]


class _FeatureMixture(RidgeMixture):
    """(Experimental) `RidgeMixture` on $(1, c, \\sqrt2\\cos(Wc + b))$: $D$ random Fourier
    features (bandwidth 1 on standardised contexts) after the context's columns."""

    def __init__(self, k, penalties, start, n_features=64, bandwidth=1.0, seed=0, **kw):
        super().__init__(k, penalties, start, **kw)
        self.n_features = int(n_features)
        self.bandwidth = float(bandwidth)
        self._rng = np.random.default_rng(seed)
        self._b = self._rng.uniform(0.0, 2.0 * math.pi, self.n_features)
        self._W = np.zeros((self.n_features, 0))
        self._p = 0

    def extend(self, c):
        p = len(c)
        if p > self._p:
            scale = 1.0 / (self.bandwidth * math.sqrt(p))
            new = self._rng.normal(0.0, scale, (self.n_features, p - self._p))
            self._W = np.concatenate([self._W, new], axis=1)
            self._p = p
            super().extend(np.zeros(p + self.n_features))
        elif p < self._p:
            c = np.concatenate([c, np.zeros(self._p - p)])
        z = np.cos(self._W @ c + self._b) * math.sqrt(2.0)
        return super().extend(np.concatenate([c, z]))

    def costs(self, v):
        return np.array(self.lower(v[:self._p] if len(v) > self._p else v)[1])


class _Union:
    """(Experimental) several mixtures as one: exponential weights over all their models."""

    def __init__(self, parts, k):
        self.parts = parts
        self.k = k
        self.optimism = 0.0
        self._last = None

    @property
    def weights(self):
        return np.concatenate([p.weights * z for p, z in zip(self.parts, self._z())])

    def _z(self):
        low = min(min(p.loss) for p in self.parts)
        rate = self.parts[0].rate
        z = [sum(math.exp(rate * (low - L)) for L in p.loss) for p in self.parts]
        t = sum(z)
        return [x / t for x in z]

    @property
    def theta(self):
        return np.zeros((self.k, 1))

    def lower(self, v):
        last = self._last
        if last is not None and last[0] is v and last[1] == v.tobytes():
            return last[2:]
        ms = [np.array(p.lower(v)[1]) for p in self.parts]
        m = sum(z * x for z, x in zip(self._z(), ms)).tolist()
        ce = np.zeros(1)
        self._last = (v, v.tobytes(), ce, m, None)
        return ce, m, None

    def costs(self, v):
        return np.array(self.lower(v)[1])

    def learn(self, ce, a, residual, U=None):
        v = self._last[0]
        self._last = None
        for p in self.parts:
            ce_p = p.lower(v)[0]
            p.learn(ce_p, a, residual - float(p.theta[a] @ ce_p))  # (residual is the loss)
            # (residual = loss here: `theta` is 0; each part takes its own residual)
        # NB: parts' learn adds theta[a] @ ce back, so they see the loss itself
