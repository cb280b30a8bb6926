r"""Loss models for BoBLO's doubly robust estimate that choose their ridge penalty online.

BoBLO's `"dr"` estimator fills in the unplayed arms with a per-arm ridge regression $m_t$ of the
loss on $\tilde c = (1, c)$ (`_ArmRidge`, LinUCB's own model), and its default weak
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

The cost per round is that of $M$ ridge models in a few numpy calls: arm $a$ of model $j$ keeps
$[P^{(j)}_a; \hat\theta^{(j)}_a]$ as one $(q + 1, q)$ block, the played arm's blocks of every
model one contiguous $(M, q + 1, q)$ array, so one batched product gives every model's
$P_a\tilde c$ and prequential prediction, one rank-one update moves both, and one $(M, k, q)$
product predicts; the weights are plain floats (two penalties written out), and the costs of a
context are computed once between two `learn`s (`costs`, `costs_and_row` and `lower` share
them). The model's part of a round still costs about twice one ridge model's (about 10-15% of
a `BoBLO()` round on the development streams): the calls are batched, not fewer.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["RidgeMixture"]


class _ContextCache:
    """The per-context cache BoBLO's loss models share: the play and the estimate of a round
    ask for the same context's costs, and the weak learner on the model for its row (1, c).

    A model names its columns (`_columns()`, q = 1 + the context columns it knows) and its
    means for a row (`_means(ce)`, an array) and has `extend(c)` and `predict(ce, optimism)`;
    the entry `(v, v's bytes, ce, bounds, U, bounds as an array)` holds until its `learn`
    resets `_last` to None.
    """

    _last = None
    #: the constant under the width's square root: 0 for the parameter's deviation
    #: sqrt(c' P c) (LinUCB's paper), 1 for the predictive one sqrt(1 + c' P c) (river's
    #: LinUCBDisjoint, noise plus parameter); BoBLO's `width` (models pickled before it: 0)
    width0 = 0.0

    # the cache is no state: a pickled model is the same whatever it holds
    def __getstate__(self) -> dict:
        return {**self.__dict__, "_last": None}

    def _lower(self, v: np.ndarray) -> tuple:
        """The cache entry of `v` (computed unless it holds `v`, unchanged)."""
        last = self._last
        if last is not None and last[0] is v and last[1] == v.tobytes():
            return last
        if len(v) + 1 == self._columns():  # (1, v) where the model knows v's columns
            ce = np.empty(len(v) + 1)
            ce[0] = 1.0
            ce[1:] = v
        else:  # (`extend` grows the model)
            ce = self.extend(v)
        optimism = self.optimism
        if optimism:
            bounds, U = self.predict(ce, optimism)
            arr = np.array(bounds)
        else:  # (`predict` without optimism: the means, kept as an array too)
            arr = self._means(ce)
            bounds, U = arr.tolist(), None
        last = self._last = (v, v.tobytes(), ce, bounds, U, arr)
        return last

    def lower(self, v: np.ndarray) -> tuple:
        """`(ce, bounds, U)` for the context vector `v`: its extended row (the model grows to
        its columns), `predict(ce, optimism)` and the rows for `learn`. Computed once per
        context between two `learn`s (the play and the estimate of a round share it)."""
        return self._lower(v)[2:5]

    def costs(self, v: np.ndarray) -> np.ndarray:
        r"""Every arm's predicted loss minus the optimism's width for the context vector `v`,
        `(k,)` (the cached array: not to be written to): the costs a weak learner with
        `on_model` plays its corrections on. The model does not move: columns it has not
        seen count with weight 0 and their prior precision (what `extend` would give them)."""
        q = self._columns()
        if len(v) + 1 <= q:
            return self._lower(v)[5]
        ce = np.empty(q)
        ce[0] = 1.0
        ce[1:] = v[:q - 1]
        m = self.theta.dot(ce)
        if not self.optimism:
            return m
        tail = v[q - 1:]
        w = self._widths_unseen(ce, float(tail @ tail))
        return m - self.optimism * np.sqrt(np.maximum(w, 0.0) + self.width0)

    def discount(self, factor: float) -> None:
        r"""Count every past round $1/$`factor` as much: each arm's (and each penalty's)
        $A \leftarrow A/\text{factor}$, its weights kept (`BoBLO`'s `drift_discount`). Not
        validated."""
        self._discount(factor)
        self._last = None  # (its widths' rows P c~ moved)

    def costs_and_row(self, v: np.ndarray) -> tuple:
        r"""`(costs(v), row)`: the row $\tilde c = (1, v)$ the model uses for `v` (the cached
        array: not to be written to), or None unless the model has exactly v's columns (it
        does not grow here); lent to a weak learner on the model that builds the same row
        (`learners.FeaturePolicy`)."""
        if len(v) + 1 == self._columns():
            last = self._lower(v)
            return last[5], last[2]
        return self.costs(v), None


class RidgeMixture(_ContextCache):
    r"""Per-arm online ridge regressions at several penalties, mixed by exponential weights
    on their prequential squared errors (module docstring).

    The interface is `_ArmRidge`'s (the "dr" loss model BoBLO holds): `lower(v)`,
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
    >>> model.weights.round(3)  # (lambda = 1, lambda = 100)
    array([0.967, 0.033])
    >>> model.theta.round(3)  # the mixture's weights per arm: bias, slope; arm 1 never played
    array([[0.504, 0.298],
           [0.5  , 0.   ]])
    >>> model.costs(np.array([1.0])).round(3)
    array([0.802, 0.5  ])
    """

    def __init__(self, k: int, penalties, start: float, optimism: float = 0.0,
                 rate: float = 0.5):
        lam = np.asarray(penalties, dtype=np.float64).reshape(-1)
        if lam.size == 0 or not np.all(np.isfinite(lam)) or np.any(lam <= 0.0):
            raise ValueError(f"penalties must be finite positive numbers, got {penalties!r}")
        if not (math.isfinite(rate) and rate > 0.0):
            raise ValueError(f"rate must be a finite positive number, got {rate!r}")
        self.k = int(k)
        self.penalties = lam
        self.optimism = float(optimism)
        self.rate = float(rate)
        M = lam.size
        # G[a, j] = [P_a; theta_a], (q + 1, q): arm a's inverse Gram matrix of model j with its
        # weights as one more row, so one product gives P_a c~ and theta_a . c~ (arm-major:
        # the played arm's blocks of every model are one contiguous (M, q + 1, q) array)
        self.G = np.empty((self.k, M, 2, 1))
        self.G[:, :, 0, 0] = 1.0 / lam
        self.G[:, :, 1, 0] = float(start)  # bias first
        self.loss = [0.0] * M  # cumulative prequential squared errors
        self.weights = np.full(M, 1.0 / M)
        self._T = self.G[:, :, -1].swapaxes(0, 1)  # every model's weights (a view of G)
        self._theta = None  # the mixed weights, until the next `learn`
        # (v, its bytes, ce, bounds, U, bounds as an array) of the last context, until `learn`
        self._last = None

    # the caches are no state (and a view is pickled as a copy): rebuilt from G
    def __getstate__(self) -> dict:
        state = {**self.__dict__, "_last": None, "_theta": None}
        state.pop("_T", None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._T = self.G[:, :, -1].swapaxes(0, 1)

    @property
    def P(self) -> np.ndarray:
        """Every model's per-arm inverse Gram matrices, `(M, k, q, q)` (a view)."""
        return self.G[:, :, :-1].swapaxes(0, 1)

    @property
    def Theta(self) -> np.ndarray:
        """Every model's per-arm weights, `(M, k, q)` (a view), bias first."""
        return self._T

    @property
    def theta(self) -> np.ndarray:
        r"""The mixture's per-arm weights $\sum_j w_j \hat\theta^{(j)}_a$, `(k, q)`."""
        if self._theta is None:
            self._theta = self._T.transpose(1, 2, 0).dot(self.weights)
        return self._theta

    def _columns(self) -> int:
        return self.G.shape[3]

    def _discount(self, factor: float) -> None:
        self.G[:, :, :-1] *= factor  # (every P block; the weights' rows kept)

    def _means(self, ce: np.ndarray) -> np.ndarray:
        return self.weights.dot(self._T @ ce)

    def _widths_unseen(self, ce: np.ndarray, tail: float) -> np.ndarray:
        """The weighted squared widths for the row `ce` plus unseen columns of squared norm
        `tail` (prior precision $\\lambda_j$ in model $j$), `(k,)`."""
        w = np.einsum("i,jaik,k->ja", ce, self.P, ce) + (tail / self.penalties)[:, None]
        return self.weights @ w

    def extend(self, c: np.ndarray) -> np.ndarray:
        """`(1, c)`, growing every model to `c`'s columns (new columns: weight 0, prior
        precision $\\lambda_j$)."""
        q = self.G.shape[3]
        if len(c) + 1 > q:
            M, k, q2 = len(self.penalties), self.k, len(c) + 1
            G = np.zeros((k, M, q2 + 1, q2))
            G[:, :, :q2] = np.eye(q2) / self.penalties[:, None, None]
            G[:, :, :q, :q] = self.G[:, :, :q]
            G[:, :, q2, :q] = self.G[:, :, -1]
            self.G = G
            self._T = G[:, :, -1].swapaxes(0, 1)
            self._theta = None
            q = q2
        ce = np.zeros(q)
        ce[0] = 1.0
        ce[1:len(c) + 1] = c
        return ce

    def predict(self, ce: np.ndarray, optimism: float) -> tuple[list, np.ndarray | None]:
        r"""Every arm's mixed prediction minus `optimism` times the weighted width, and the
        rows $P^{(j)}_a \tilde c$ `(M, k, q)` (`None` without optimism) for `learn`."""
        m = self.weights.dot(self._T @ ce).tolist()
        if not optimism:
            return m, None
        U = self.P @ ce  # (M, k, q)
        w = self.weights.dot(U.dot(ce)).tolist()
        s0 = self.width0
        return [v - optimism * math.sqrt(max(s, 0.0) + s0) for v, s in zip(m, w)], U

    def learn(self, ce: np.ndarray, a: int, residual: float, U: np.ndarray | None = None) -> None:
        """`learn_loss` on arm `a`'s loss `residual + theta[a] @ ce` (the residual of the
        mixture, as `_ArmRidge.learn` takes it): `learn(ce, a, loss - theta[a] @ ce)` and
        `learn_loss(ce, a, loss)` agree up to rounding."""
        self.learn_loss(ce, a, residual + float(self.theta[a] @ ce), U)

    def learn_loss(self, ce: np.ndarray, a: int, loss: float, U: np.ndarray | None = None) -> None:
        """Score every model on arm `a`'s observed `loss`, reweight, then one
        recursive-least-squares step of arm `a` in every model (`U`, `predict`'s rows, is not
        needed: one product gives them with the models' predictions)."""
        self._last = None
        self._theta = None
        Ga = self.G[a]  # (M, q + 1, q), a contiguous view
        g = Ga @ ce  # (M, q + 1): P_a c~ and, last, theta_a . c~ (the prequential predictions)
        u = g[:, :-1]
        r = g[:, -1]  # (a view)
        r -= loss  # (the residuals' negatives)
        # the weights in plain floats (a handful of penalties; two written out: the default)
        cum, rate = self.loss, self.rate
        if len(cum) == 2:
            (s0, s1), (e0, e1) = u.dot(ce).tolist(), r.tolist()  # s: c~' P_a c~ per model
            L0, L1 = cum[0] + e0 * e0, cum[1] + e1 * e1
            low = min(L0, L1)
            if low == math.inf:  # both errors overflowed (losses beyond 1e150): uniform
                L0 = L1 = low = 0.0
            self.loss = [L0, L1]
            w0, w1 = math.exp(rate * (low - L0)), math.exp(rate * (low - L1))
            total = w0 + w1
            self.weights = np.array((w0 / total, w1 / total))
            c = np.array(((1.0 / (1.0 + s0),), (1.0 / (1.0 + s1),)))
        else:
            s = u.dot(ce).tolist()
            cum = self.loss = [L + e * e for L, e in zip(cum, r.tolist())]
            low = min(cum)
            if low == math.inf:  # every model's error overflowed: uniform
                low = 0.0
                cum = self.loss = [0.0] * len(cum)
            w = [math.exp(rate * (low - L)) for L in cum]  # (exp(-inf) = 0: an overflowed model)
            total = sum(w)
            self.weights = np.array([x / total for x in w])
            c = np.array([[1.0 / (1.0 + x)] for x in s])
        # [P; theta] -= [u; -r] u' / (1 + c~' u): the rank-one step and the weights' step
        h = g * c
        Ga -= h[:, :, None] * u[:, None, :]


class _ArmRidge(_ContextCache):
    r"""Per-arm online ridge regression of the loss on $\tilde c = (1, c)$ (the "dr" model).

    Arm $a$ keeps $P_a = (\lambda I + \sum \tilde c \tilde c^\top)^{-1}$ over the rounds it was
    played and weights $\theta_a$ (recursive least squares, LinUCB's own per-arm model),
    starting from the constant prediction `start`.
    """

    def __init__(self, k: int, l2: float, start: float, optimism: float = 0.0):
        self.l2 = l2
        self.optimism = optimism
        self.P = np.eye(1)[None].repeat(k, axis=0) / l2  # (k, q, q)
        self.theta = np.full((k, 1), float(start))  # (k, q), bias first
        # (v, its bytes, ce, bounds, U, bounds as an array) of the last context, until `learn`
        self._last = None

    def _columns(self) -> int:
        return self.P.shape[1]

    def _discount(self, factor: float) -> None:
        self.P *= factor

    def _means(self, ce: np.ndarray) -> np.ndarray:
        return self.theta.dot(ce)

    def _widths_unseen(self, ce: np.ndarray, tail: float) -> np.ndarray:
        """The squared widths for the row `ce` plus unseen columns of squared norm `tail`
        (prior precision $\\lambda$), `(k,)`."""
        return np.einsum("i,aij,j->a", ce, self.P, ce) + tail / self.l2

    def extend(self, c: np.ndarray) -> np.ndarray:
        q = self.P.shape[1]
        if len(c) + 1 > q:
            k, q2 = len(self.theta), len(c) + 1
            P = np.eye(q2)[None].repeat(k, axis=0) / self.l2
            P[:, :q, :q] = self.P
            self.P = P
            self.theta = np.hstack([self.theta, np.zeros((k, q2 - q))])
            q = q2
        ce = np.zeros(q)
        ce[0] = 1.0
        ce[1:len(c) + 1] = c
        return ce

    def predict(self, ce: np.ndarray, optimism: float) -> tuple[np.ndarray, np.ndarray | None]:
        r"""Every arm's predicted loss minus `optimism` times its confidence width
        $\sqrt{\tilde c^\top P_a \tilde c}$ (a lower confidence bound, as LinUCB's upper one
        on rewards), and the rows $P_a \tilde c$ (`None` without optimism) for `learn`."""
        m = self.theta.dot(ce).tolist()  # (`.dot`: `@`'s products, cheaper to call)
        if not optimism:
            return m, None
        U = self.P @ ce  # (k, q); row a is P[a] @ ce, bit for bit
        # (U @ ce >= 0 but for rounding; a handful of arms: plain floats)
        s0 = self.width0
        return ([v - optimism * math.sqrt(max(w, 0.0) + s0) for v, w in zip(m, U.dot(ce).tolist())],
                U)

    def learn(self, ce: np.ndarray, a: int, residual: float, U: np.ndarray | None = None) -> None:
        """One recursive-least-squares step of arm `a` (`U`: `predict`'s rows, if at hand)."""
        self._last = None
        P = self.P[a]
        u = P.dot(ce) if U is None else U[a]
        s = 1.0 + float(ce.dot(u))
        theta = self.theta[a]  # (a view: updated in place)
        theta += (residual / s) * u
        P -= u[:, None] * (u / s)  # np.outer(u, u / s), without its dispatch

    def learn_loss(self, ce: np.ndarray, a: int, loss: float, U: np.ndarray | None = None) -> None:
        """`learn` on the residual `loss` minus arm `a`'s prediction (the same numbers)."""
        self._last = None
        P = self.P[a]
        theta = self.theta[a]  # (a view: updated in place)
        u = P.dot(ce) if U is None else U[a]
        s = 1.0 + float(ce.dot(u))
        theta += ((loss - float(theta.dot(ce))) / s) * u
        P -= u[:, None] * (u / s)
