r"""BoOCO: boosting for online convex optimisation (Hazan & Singh 2021, Algorithm 1).

Each round, N copies $W_1, \dots, W_N$ of a weak online learner propose points of K; BoOCO chains
them Frank–Wolfe style with the $1/\gamma$ rescaling about the centroid $\mu$ of K,

$$x^0 = \mu, \qquad
  x^i = (1 - \eta_i)\, x^{i-1} + \eta_i \mu + \frac{\eta_i}{\gamma}\,(W_i(c_t) - \mu),$$

plays $x_t = \Pi_K(x^N)$, and then trains copy $i$ on the linear loss
$a \mapsto \langle \nabla \hat f_t(x^{i-1}), a \rangle$ of the extended loss
$\hat f_t = X_{K,\delta,\kappa}[f_t]$ (`onlineboost.extension`).
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from river import base

from . import losses as losses_
from . import sets
from .extension import Extension, prox_distance_interval

__all__ = ["BoOCO"]


def _is_regressor(model) -> bool:
    """A plain regressor (river, or scikit-learn with `partial_fit`), not a weak OCO learner."""
    return isinstance(model, base.Regressor) or hasattr(model, "partial_fit")


def _step_sizes(step_size, n: int) -> np.ndarray:
    if isinstance(step_size, str):
        i = np.arange(1, n + 1)
        if step_size == "theory":
            return np.minimum(2.0 / i, 1.0)  # eta_i = min(2 / i, 1), Theorem 6
        if step_size == "frank-wolfe":
            return 2.0 / (i + 1.0)  # the classic schedule: eta_1 = 1, then 2/3, 1/2, ...
        raise ValueError(
            f"step_size must be 'theory', 'frank-wolfe', a number or a sequence, got {step_size!r}"
        )
    eta = np.broadcast_to(np.asarray(step_size, dtype=np.float64), (n,)).copy()
    if not np.all((eta > 0) & (eta <= 1)):
        raise ValueError(f"step_size must lie in (0, 1], got {step_size!r}")
    return eta


def _chain_matrix(eta: np.ndarray, gamma: float) -> np.ndarray:
    r"""Lower-triangular $A$ with $z^i = \sum_{k \le i} A_{ik} (W_k - \mu)$, $z^i = x^i - \mu$.

    Unrolls step 2's recurrence $z^i = (1 - \eta_i) z^{i-1} + (\eta_i / \gamma)(W_i - \mu)$ so
    that all $N$ iterates come from one matrix product.
    """
    n = len(eta)
    A = np.zeros((n, n))
    for i in range(n):
        if i:
            A[i, :i] = (1.0 - eta[i]) * A[i - 1, :i]
        A[i, i] = eta[i] / gamma
    return A


class _LoopedCopies:
    """N independent copies of a weak learner driven one by one (for learners with no stack)."""

    def __init__(self, copies):
        self.copies = copies

    def predict(self, x):
        return np.stack([np.asarray(w.predict_one(x), dtype=np.float64).reshape(-1)
                         for w in self.copies])

    def learn(self, x, G):
        for w, g in zip(self.copies, G):
            w.learn_one(x, g)


class _BoOCOCore(base.Base):
    """Algorithm 1 on loss parameters y in the loss's own encoding; shared by both faces."""

    def __init__(self, learner=None, n_learners: int = 5, gamma: float = 0.1,
                 step_size="theory", delta="theory", kappa=None, decision_set=None, loss=None,
                 lam="auto", seed: int | None = None):
        if not (isinstance(n_learners, numbers.Integral) and n_learners >= 1):
            raise ValueError(f"n_learners must be an integer >= 1, got {n_learners!r}")
        if not (isinstance(gamma, numbers.Real) and 0 < gamma <= 1):
            raise ValueError(f"gamma must lie in (0, 1], got {gamma!r}")
        if not (delta == "theory" or (isinstance(delta, numbers.Real) and np.isfinite(delta)
                                      and delta > 0)):
            raise ValueError(f"delta must be 'theory' or a number > 0, got {delta!r}")
        if not (kappa is None or (isinstance(kappa, numbers.Real) and np.isfinite(kappa)
                                  and kappa >= 0)):
            raise ValueError(f"kappa must be None or a number >= 0, got {kappa!r}")
        if not (lam == "auto" or (isinstance(lam, numbers.Real) and np.isfinite(lam)
                                  and lam > 0)):
            raise ValueError(f"lam must be 'auto' or a number > 0, got {lam!r}")
        if decision_set is not None and not isinstance(decision_set, sets.ConvexSet):
            raise ValueError(f"decision_set must be an onlineboost.sets set, got {decision_set!r}")
        if loss is not None and not isinstance(loss, losses_.Loss):
            raise ValueError(f"loss must be an onlineboost.losses loss, got {loss!r}")
        self.learner = learner
        self.n_learners = n_learners
        self.gamma = gamma
        self.step_size = step_size
        self.delta = delta
        self.kappa = kappa
        self.decision_set = decision_set
        self.loss = loss
        self.lam = lam
        self.seed = seed

        self._K = decision_set if decision_set is not None else self._default_set()
        self._loss = loss if loss is not None else self._default_loss()
        self._mu = self._K.centroid
        self._eta = _step_sizes(step_size, n_learners)
        self._A = _chain_matrix(self._eta, gamma)
        D = self._K.diameter
        self._delta = float(np.sqrt(D**2 / (gamma * n_learners))) if delta == "theory" else delta
        if self._delta <= 0:
            raise ValueError(f"delta: the theory value sqrt(D^2 / (gamma N)) is 0 for {self._K!r}")
        self._kappa = 0.0 if kappa is None else float(kappa)  # running max of G_t when None
        self._ext = Extension(self._loss, self._K, self._delta, self._kappa)
        self._copies, self._grad_scale = self._make_copies()
        self._set_fast_paths()

    def _set_fast_paths(self) -> None:
        """Derived constants of the per-round path (nothing here is learnt)."""
        # copies that validate x themselves before any state change spare BoOCO's own check
        self._x_checked = bool(getattr(self._copies, "validates_x", False))
        K = self._K
        self._interval = ((float(K._lo[0]), float(K._hi[0]))
                          if isinstance(K, sets.Box) and K.dim == 1 else None)
        # squared loss on an interval: steps 4-11 in plain floats (scalar y, scalar prox)
        self._scalar_squared = self._interval is not None and type(self._loss) is losses_.Squared
        self._scale = self._grad_scale[:, 0].tolist()
        self._mu_zero = not np.any(self._mu)  # K centred at 0 (as the paper assumes): z^i = x^i
        self._vector = (hasattr(self._copies, "predict_vector")
                        and hasattr(self._copies, "learn_vector"))

    def _default_set(self):
        return sets.Interval(-1.0, 1.0)

    def _default_loss(self):
        return losses_.Squared()

    def _make_copies(self):
        import learners  # the default weak learner and the regressor reduction live there

        proto = self.learner if self.learner is not None else learners.LinearOGD()
        scale = np.ones((self.n_learners, 1))
        if _is_regressor(proto):
            # Regressor reduction: copy i minimises <g, a> + (lam_i / 2)|a - mu|^2. With the
            # default lam_i = eta_i / gamma, stage i adds its fitted residual at full size.
            lam_i = self._eta / self.gamma if self.lam == "auto" else np.full(self.n_learners,
                                                                              float(self.lam))
            proto = learners.RegressorOCO(proto, decision_set=self._K, lam=1.0)
            scale = (1.0 / lam_i)[:, None]  # target mu - g / lam_i, via the linear loss g / lam_i
        elif "decision_set" in proto._get_params():
            proto = proto.clone({"decision_set": self._K})
        rng = np.random.default_rng(self.seed)
        has_seed = "seed" in proto._get_params()
        seeds = ([int(s) for s in rng.integers(0, 2**31 - 1, self.n_learners)]
                 if has_seed and self.seed is not None else None)
        if hasattr(proto, "stack"):
            copies = proto.stack(self.n_learners, seeds)
        else:
            copies = _LoopedCopies([
                proto.clone({"seed": seeds[i]}) if seeds else proto.clone()
                for i in range(self.n_learners)
            ])
        return copies, scale

    # -- Algorithm 1 -------------------------------------------------------------------------

    def _check_x(self, x: dict):
        try:
            values = np.fromiter(x.values(), dtype=np.float64, count=len(x))
        except (TypeError, ValueError) as e:
            raise ValueError(f"x must map feature names to numbers: {e}") from None
        if not np.isfinite(values).all():
            raise ValueError("x must be finite (no NaN or inf feature values)")

    # -- the public round: Algorithm 1 in two calls ------------------------------------------

    def iterates(self, x) -> np.ndarray:
        r"""$x^1, \dots, x^N$ of Algorithm 1 (steps 1-2) for the context `x`, as rows (N, d).

        Every $W_i(c_t)$ is known before any $x^i$ is formed, so the recurrence
        $z^i = (1 - \eta_i) z^{i-1} + (\eta_i/\gamma)(W_i(c_t) - \mu)$, $z^i = x^i - \mu$, is
        one product with the lower-triangular matrix that unrolls it. The rows are not projected:
        the played point is $\Pi_K(x^N)$, the last row projected. `x` is a feature dict, or a
        float vector when the copies offer vector entry points (`predict_vector`).
        """
        if isinstance(x, np.ndarray):
            if not self._vector:
                raise ValueError("x must be a dict of features for these weak learners")
            W = self._copies.predict_vector(x)
        else:
            if not self._x_checked:
                self._check_x(x)
            W = self._copies.predict(x)  # every W_i(c_t) at once: (N, d)
        if self._mu_zero:
            return self._A @ W
        return self._mu + self._A @ (W - self._mu)

    def learn_iterates(self, x, X: np.ndarray, y) -> None:
        r"""Steps 3-4 of Algorithm 1 for the round whose iterates are `X = self.iterates(x)`.

        Copy $i$ is trained on the linear loss $a \mapsto \langle \nabla \hat f_t(x^{i-1}),
        a\rangle$, $\hat f_t = X_{K,\delta,\kappa}[\ell(\cdot, y)]$, with $x^0 = \mu$ and
        $x^1, \dots, x^{N-1}$ the first rows of `X`. `X` must come from `iterates(x)` with no
        learning in between (the caller holds it, so nothing is cached here). `y` is validated
        before any state changes.
        """
        N = self.n_learners
        if self._scalar_squared and type(y) is float:
            if not math.isfinite(y):
                self._loss._check_y(y)  # raises, naming y
            lo, hi = self._interval
            if self.kappa is None:
                self._ext.kappa = self._kappa = max(self._kappa, abs(lo - y), abs(hi - y))
            # step 4 at every x^{i-1}: p* = prox_{lam Dist}((x + delta y) / (1 + delta)),
            # lam = delta kappa / (1 + delta) (`onlineboost.extension`), in plain floats
            delta = self._ext.delta
            lam = delta * self._ext.kappa / (1.0 + delta)
            dy = delta * y
            grads = []
            v = float(self._mu[0])
            for i, scale in enumerate(self._scale):
                p = prox_distance_interval((v + dy) / (1.0 + delta), lo, hi, lam)
                grads.append((v - p) / delta * scale)
                v = float(X[i, 0])
            G = np.array(grads).reshape(N, 1)
        else:
            y = self._loss._check_y(y)  # validates y before any state changes
            if isinstance(self._loss, losses_.Linear) and y.shape != (self._K.dim,):
                raise ValueError(f"y must be a cost vector of length {self._K.dim}, "
                                 f"got {y.shape}")
            if self.kappa is None:
                G_t = self._loss.lipschitz(self._K, y)
                self._ext.kappa = self._kappa = max(self._kappa, G_t)
            X_prev = np.vstack([self._mu[None, :], X[:-1]])  # x^0, ..., x^{N-1}
            # step 4, at every x^{i-1}
            G = (X_prev - self._ext._prox(X_prev, y)) / self._delta * self._grad_scale
        if isinstance(x, np.ndarray):
            self._copies.learn_vector(x, G)
        else:
            self._copies.learn(x, G)

    def _action(self, x: dict) -> np.ndarray:
        return self._K._project(self.iterates(x)[-1])  # step 3: Pi_K(x^N)

    def _scalar_action(self, x: dict) -> float:
        """`_action` for an interval K, as a float."""
        lo, hi = self._interval
        return min(max(float(self.iterates(x)[-1, 0]), lo), hi)

    def _learn(self, x: dict, y) -> None:
        self.learn_iterates(x, self.iterates(x), y)

    def _staged_actions(self, x: dict) -> np.ndarray:
        return self._K._project(self.iterates(x))

    @property
    def parameters_in_use(self) -> dict:
        """Step sizes $\\eta_i$, smoothing $\\delta$ and current $\\kappa$."""
        return {"eta": self._eta.copy(), "delta": self._delta, "kappa": self._kappa}

    @property
    def takes_vectors(self) -> bool:
        """Whether `iterates` and `learn_iterates` accept the context as a dense float vector
        (the copies offer `predict_vector` / `learn_vector`), besides a feature dict."""
        return self._vector


class BoOCO(_BoOCOCore, base.Regressor):
    r"""Boosting for online convex optimisation (Hazan & Singh 2021, Algorithm 1).

    `learner` is the weak learner $W$ (cloned $N$ times), `n_learners` is $N$, `gamma` is the
    weak learner's edge $\gamma$, `step_size` gives $\eta_i$, `delta` is $\delta$, `kappa` is
    $\kappa$, `decision_set` is $K$ and `loss` is $\ell$ with $f_t = \ell(\cdot, y_t)$.

    `predict_one(x)` returns the action $x_t = \Pi_K(x^N)$: a float when K is an `Interval`,
    an array otherwise. `learn_one(x, y)` receives $f_t = \ell(\cdot, y)$ (for the `Linear`
    loss, `y` is the cost vector). As a river `Regressor` it fits in pipelines and in
    `river.evaluate.progressive_val_score`.

    Parameters
    ----------
    learner
        The weak learner prototype: a weak OCO learner (`predict_one(x)` → point of K,
        `learn_one(x, g)` on the linear loss $\langle g, \cdot \rangle$), or a regressor (a river
        `Regressor` or a scikit-learn estimator with `partial_fit`), which is wrapped in
        `learners.RegressorOCO` automatically. Defaults to `learners.LinearOGD()`. Learners with
        a `stack` method serve all $N$ copies with one array operation per step.
    n_learners
        Number of weak learners $N \ge 1$.
    gamma
        The edge $\gamma \in (0, 1]$; weak predictions are scaled by $1/\gamma$ about the
        centroid $\mu$ of K (the paper assumes K centred at 0).
    step_size
        `"theory"` for $\eta_i = \min(2/i, 1)$ (Theorem 6), `"frank-wolfe"` for the classic
        $\eta_i = 2/(i + 1)$ (beyond the paper: Theorem 6's schedule has $\eta_2 = 1$, which
        discards the first learner's output), a constant in $(0, 1]$ (the paper's experiments
        use 0.01), or a sequence of $N$ values.
    delta
        Smoothing $\delta > 0$ of the extension; `"theory"` is $\sqrt{D^2 / (\gamma N)}$ with
        $D$ the diameter of K.
    kappa
        Weight $\kappa$ of the distance to K in the extension; `None` uses the running maximum
        of the loss's Lipschitz bound over K, $G_t = \max_{a \in K}\|\nabla \ell(a, y_t)\|$.
    decision_set
        The convex decision set K (`onlineboost.sets`); default `Interval(-1, 1)`.
    loss
        The loss $\ell$ (`onlineboost.losses`); default `Squared()`.
    lam
        Only for regressor learners: the reduction's $\lambda_i$ (copy $i$ is trained towards
        $\mu - g_i/\lambda_i$). `"auto"` is $\lambda_i = \eta_i / \gamma$, so that each stage
        adds its fitted residual at full size.
    seed
        Seeds the copies of a random weak learner (copy $i$ gets its own seed).

    Examples
    --------
    >>> from river import evaluate, metrics, preprocessing
    >>> from onlineboost import BoOCO
    >>> from learners import OnlineStump
    >>> from streams import StumpMixture
    >>> stream = StumpMixture(n_features=4, n_stumps=4, seed=1)
    >>> model = BoOCO(OnlineStump(), n_learners=8, gamma=1.0, step_size="frank-wolfe",
    ...               delta=0.01, lam=0.05)
    >>> evaluate.progressive_val_score(stream.take(3000), model, metrics.MSE())
    MSE: 0.059...
    >>> evaluate.progressive_val_score(stream.take(3000), OnlineStump(), metrics.MSE())
    MSE: 0.085...

    On this stream (a convex combination of four stumps) eight boosted stumps cut the squared
    error of one stump by a third.

    References
    ----------
    [^1]: Hazan, E. and Singh, K., 2021. Boosting for Online Convex Optimization. ICML 2021,
    PMLR 139. arXiv:2102.09305v1.
    """

    def predict_one(self, x: dict, **kwargs):
        if isinstance(self._K, sets.Interval):
            return self._scalar_action(x)
        return self._action(x)

    def learn_one(self, x: dict, y, **kwargs) -> None:
        if type(y) is not float and isinstance(y, numbers.Real) and not isinstance(y, bool):
            y = float(y)
        self._learn(x, y)

    def staged_predict_one(self, x: dict) -> np.ndarray:
        """$\\Pi_K(x^i)$ for $i = 1, \\dots, N$, one row each (a 1-D array for an `Interval`).

        Copy $i$ only ever sees $x^{i-1}$, which depends on copies $1..i-1$ alone, so row $i$ is
        exactly what `BoOCO(n_learners=i)` would play, whenever $\\delta$ and the step sizes do
        not depend on $N$ (a numeric `delta`): one pass evaluates every $N$ at once.
        """
        a = self._staged_actions(x)
        return a[:, 0] if isinstance(self._K, sets.Interval) else a

    @classmethod
    def _unit_test_params(cls):
        import learners

        yield {"learner": learners.LinearOGD(), "n_learners": 3}
        yield {"learner": learners.OnlineStump(), "n_learners": 2, "gamma": 0.5,
               "step_size": 0.5, "decision_set": sets.Interval(-1.0, 1.0)}
