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

import numpy as np
from river import base

import learners.base as weak  # the weak-learner protocol and the one place `learner` is resolved

from . import losses as losses_
from . import sets
from ._checks import check_features, check_int, check_real, check_seed, check_target
from .extension import Extension, prox_distance_interval

__all__ = ["BoOCO"]

#: admissible ranges of the numeric parameters: outside them the per-round arithmetic leaves
#: the float range (1/gamma, gamma/eta_i, 1/delta and kappa multiply the copies' outputs and
#: gradients) or drowns in rounding, so they are refused at construction
_GAMMA_MIN, _ETA_MIN, _DELTA_RANGE, _KAPPA_MAX, _LAM_RANGE = 1e-6, 1e-8, (1e-12, 1e12), 1e12, \
    (1e-8, 1e8)


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
    values = step_size if isinstance(step_size, (list, tuple, np.ndarray)) else [step_size]
    for v in np.ravel(np.asarray(values, dtype=object)):
        check_real("step_size", v, _ETA_MIN, 1.0)
    try:
        eta = np.broadcast_to(np.asarray(step_size, dtype=np.float64), (n,)).copy()
    except ValueError:
        raise ValueError(f"step_size must be one number or {n} numbers, got {step_size!r}") \
            from None
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


class _BoOCOCore(base.Base):
    """Algorithm 1 on loss parameters y in the loss's own encoding; shared by both faces."""

    def __init__(self, learner=None, n_learners: int = 5, gamma: float = 0.1,
                 step_size="theory", delta="theory", kappa=None, decision_set=None, loss=None,
                 lam="auto", seed: int | None = None):
        check_int("n_learners", n_learners, 1)
        check_real("gamma", gamma, _GAMMA_MIN, 1.0)
        if delta != "theory":
            check_real("delta", delta, *_DELTA_RANGE)
        if kappa is not None:
            check_real("kappa", kappa, 0.0, _KAPPA_MAX)
        if lam != "auto":
            check_real("lam", lam, *_LAM_RANGE)
        check_seed(seed)
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
        self._A = _chain_matrix(self._eta, float(gamma))
        D = self._K.diameter
        self._delta = float(np.sqrt(D**2 / (gamma * n_learners))) if delta == "theory" else delta
        if not _DELTA_RANGE[0] <= self._delta <= _DELTA_RANGE[1]:
            raise ValueError(f"delta: the theory value sqrt(D^2 / (gamma N)) = {self._delta} for "
                             f"{self._K!r} is outside {_DELTA_RANGE}; pass delta")
        self._kappa = 0.0 if kappa is None else float(kappa)  # running max of G_t when None
        self._ext = Extension(self._loss, self._K, self._delta, self._kappa)
        self._copies, self._grad_scale = self._make_copies()
        self._set_fast_paths()

    def _set_fast_paths(self) -> None:
        """Derived constants of the per-round path (nothing here is learnt)."""
        K = self._K
        # stacks that refuse a bad x (a ValueError naming x[key], before any state moves) spare
        # BoOCO's own check (`learners.base`: `validates_x`)
        self._x_checked = bool(getattr(self._copies, "validates_x", False))
        self._interval = K.bounds if isinstance(K, sets.Interval) else None
        # squared loss on an interval: steps 4-11 in plain floats (scalar y, scalar prox)
        self._scalar_squared = self._interval is not None and type(self._loss) is losses_.Squared
        self._scale = self._grad_scale[:, 0].tolist()
        self._mu_zero = not np.any(self._mu)  # K centred at 0 (as the paper assumes): z^i = x^i
        self._vector = (hasattr(self._copies, "predict_vector")
                        and hasattr(self._copies, "learn_vector"))
        # the linear loss (BoBLO's case): a float cost vector of length d takes a short check,
        # kappa's G_t = |y| comes from one dot product, x^0 = mu is a fixed row
        self._linear = type(self._loss) is losses_.Linear
        self._y_shape = (K.dim,)
        self._mu_row = self._mu[None, :]
        self._unit_scale = bool(np.all(self._grad_scale == 1.0))  # (x * 1.0 is x: skip it)
        # N = 1: x^1 = mu + A_11 (W_1 - mu), the same arithmetic as the chain product
        self._chain_one = ((float(self._A[0, 0]), self._mu.tolist()) if self.n_learners == 1
                           else None)

    def _default_set(self):
        return sets.Interval(-1.0, 1.0)

    def _default_loss(self):
        return losses_.Squared()

    def _regression_face(self) -> bool:
        """Whether `learner=None` means the regression default (`learners.base`)."""
        return False

    def _make_copies(self):
        """The N copies and the per-copy scale of their linear losses (`learners.base`)."""
        regression = self._regression_face()
        proto, reduced = weak.resolve_learner(self.learner, self._K, regression=regression)
        scale = np.ones((self.n_learners, 1))
        if reduced:
            # Regressor reduction: copy i minimises <g, a> + (lam_i / 2)|a - mu|^2. With the
            # default lam_i = eta_i / gamma, stage i adds its fitted residual at full size.
            lam_i = self._eta / self.gamma if self.lam == "auto" else np.full(self.n_learners,
                                                                              float(self.lam))
            if not np.all((lam_i >= _LAM_RANGE[0]) & (lam_i <= _LAM_RANGE[1])):
                raise ValueError(f"lam: eta_i / gamma = {lam_i} leaves {_LAM_RANGE}; pass lam")
            scale = (1.0 / lam_i)[:, None]  # target mu - g / lam_i, via the linear loss g / lam_i
        # the default learner is random (TinyMLP): seeded from 0 when no seed is given, so that
        # BoOCO() is reproducible and its copies start apart
        seed = 0 if self.seed is None and self.learner is None and regression else self.seed
        return weak.make_stack(proto, self.n_learners, seed), scale

    # -- the public round: Algorithm 1 in two calls ------------------------------------------

    def _check_x(self, x) -> None:
        check_features(x)

    def _weak_points(self, x) -> np.ndarray:
        """Every $W_i(c_t)$ at once: (N, d)."""
        if isinstance(x, np.ndarray):
            if not self._vector:
                raise ValueError("x must be a dict of features for these weak learners")
            return self._copies.predict_vector(x)
        if not self._x_checked:
            check_features(x)
        return self._copies.predict(x)

    def _chain(self, W: np.ndarray) -> np.ndarray:
        if self._mu_zero:
            return self._A @ W
        if self._chain_one is not None and W.size <= 64:  # N = 1, a few entries: plain floats
            a, mu = self._chain_one
            return np.array([[m + a * (w - m) for w, m in zip(W.tolist()[0], mu)]])
        return self._mu + self._A @ (W - self._mu)

    def iterates(self, x, points: bool = False) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        r"""$x^1, \dots, x^N$ of Algorithm 1 (steps 1-2) for the context `x`, as rows (N, d);
        with `points=True` the pair `(X, W)`, `W` the copies' own points $W_i(c_t)$ (N, d)
        the rows are chained from (the same call: nothing predicted twice).

        Every $W_i(c_t)$ is known before any $x^i$ is formed, so the recurrence
        $z^i = (1 - \eta_i) z^{i-1} + (\eta_i/\gamma)(W_i(c_t) - \mu)$, $z^i = x^i - \mu$, is
        one product with the lower-triangular matrix that unrolls it. The rows are not projected:
        the played point is $\Pi_K(x^N)$, the last row projected (`decision_set.
        project_unchecked`). `x` is a feature dict, or a float vector when the copies offer
        vector entry points (`predict_vector`).
        """
        if type(x) is np.ndarray and self._vector:  # (`_weak_points`, inlined)
            W = self._copies.predict_vector(x)
        else:
            W = self._weak_points(x)
        return (self._chain(W), W) if points else self._chain(W)

    def iterate_one(self, x) -> list:
        r"""$x^1$ for the context `x` as a list of floats: `iterates(x)[0]`, the same numbers,
        for a caller that holds a short row in plain floats (BoBLO's per-round path). With one
        copy ($N = 1$) the played point is $\Pi_K(x^1)$, and the round is learnt with
        `learn_iterates(x, None, y)` (copy 1 learns at $x^0 = \mu$: no iterate is read).

        Examples
        --------
        >>> import numpy as np
        >>> import learners
        >>> from onlineboost import BoOCO, losses, sets
        >>> booco = BoOCO(learners.RidgePolicy(), n_learners=1, decision_set=sets.Simplex(3),
        ...               loss=losses.Linear())
        >>> c = np.array([0.5, -1.0])
        >>> booco.iterate_one(c) == booco.iterates(c)[0].tolist()
        True
        >>> booco.learn_iterates(c, None, np.array([1.0, 0.0, 0.0]))
        >>> [round(v, 3) for v in booco.iterate_one(c)]  # arm 0 cost 1: the other two
        [0.0, 0.5, 0.5]
        """
        one = self._chain_one
        if one is not None and type(x) is np.ndarray and self._vector and not self._mu_zero:
            W = self._copies.predict_vector(x)
            if W.size <= 64:  # (`_chain`'s plain floats, without the array)
                a, mu = one
                return [m + a * (w - m) for w, m in zip(W.tolist()[0], mu)]
            return self._chain(W)[0].tolist()
        return self.iterates(x)[0].tolist()

    def _check_loss_y(self, y):
        """`y` validated for the loss (before any state moves), scalar y as a float."""
        if type(y) is float and math.isfinite(y) and self._scalar_squared:
            return y
        if (self._linear and type(y) is np.ndarray and y.dtype == np.float64
                and y.shape == self._y_shape and math.isfinite(sum(y.tolist()))):
            return y  # a finite float cost vector of length d (a finite sum: finite entries)
        y = check_target(y)
        dim = self._K.dim
        if isinstance(self._loss, losses_.Linear):
            if np.shape(y) != (dim,):
                raise ValueError(f"y must be a cost vector of length {dim}, got shape "
                                 f"{np.shape(y)}")
        elif np.ndim(y) and np.shape(y) != (dim,):
            raise ValueError(f"y must be a number or a vector of length {dim}, got shape "
                             f"{np.shape(y)}")
        y = self._loss._check_y(y)
        if self._scalar_squared:
            return float(y.reshape(-1)[0])  # shape () or (1,)
        return y

    def learn_iterates(self, x, X: np.ndarray, y) -> None:
        r"""Steps 3-4 of Algorithm 1 for the round whose iterates are `X = self.iterates(x)`.

        Copy $i$ is trained on the linear loss $a \mapsto \langle \nabla \hat f_t(x^{i-1}),
        a\rangle$, $\hat f_t = X_{K,\delta,\kappa}[\ell(\cdot, y)]$, with $x^0 = \mu$ and
        $x^1, \dots, x^{N-1}$ the first rows of `X`. `X` must come from `iterates(x)` with no
        learning in between (the caller holds it, so nothing is cached here); with one copy
        ($N = 1$) it is not read and may be None (`iterate_one`). `y` is validated (value and
        shape) before any state changes.
        """
        if X is None and self.n_learners > 1:
            raise ValueError("X: the iterates are needed with more than one copy "
                             "(X = iterates(x))")
        G = self._gradients(X, self._check_loss_y(y))
        if isinstance(x, np.ndarray):
            self._copies.learn_vector(x, G)
        else:
            self._copies.learn(x, G)

    def _gradients(self, X: np.ndarray, y) -> np.ndarray:
        """Step 4 for every copy (moves kappa when it is the running max): G, shape (N, d)."""
        N = self.n_learners
        if self._scalar_squared:
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
                if i + 1 < N:
                    v = float(X[i, 0])
            return np.array(grads).reshape(N, 1)
        if N == 1 and self._linear and self._unit_scale and y.ndim == 1 and len(y) <= 64:
            # one copy, the linear loss on a short row (BoBLO's default round): step 4 at
            # x^0 = mu in plain floats (`Extension.linear_gradient_row`, the same numbers)
            if self.kappa is None:
                G_t = math.sqrt(float(np.dot(y, y)))
                self._ext.kappa = self._kappa = max(self._kappa, G_t)
            return np.array([self._ext.linear_gradient_row(self._chain_one[1], y.tolist())])
        if self.kappa is None:
            # G_t = max over K of |grad l(., y)|; for the linear loss |y| (`Linear.lipschitz`)
            G_t = (math.sqrt(float(np.dot(y, y))) if self._linear
                   else self._loss.lipschitz(self._K, y))
            self._ext.kappa = self._kappa = max(self._kappa, G_t)
        # x^0, ..., x^{N-1}
        X_prev = self._mu_row if N == 1 else np.concatenate((self._mu_row, X[:-1]))
        # step 4, at every x^{i-1}
        G = self._ext.gradient_unchecked(X_prev, y)
        return G if self._unit_scale else G * self._grad_scale

    def _scalar_action(self, x: dict) -> float:
        r"""Step 3 on an interval K, as a float: $\Pi_K(x^N)$, the last iterate clipped."""
        lo, hi = self._interval
        return min(max(float(self.iterates(x)[-1, 0]), lo), hi)

    def _learn(self, x: dict, y) -> None:
        self.learn_iterates(x, self.iterates(x), y)

    def _staged_actions(self, x: dict) -> np.ndarray:
        return self._K.project_unchecked(self.iterates(x))

    @property
    def domain(self) -> sets.ConvexSet:
        """The decision set K Algorithm 1 runs on (`decision_set`, or its default)."""
        return self._K

    def project(self, points: np.ndarray) -> np.ndarray:
        """$\\Pi_K$ of rows from `iterates` (finite float arrays, unchecked: the hot path)."""
        return self._K.project_unchecked(points)

    @property
    def parameters_in_use(self) -> dict:
        """Step sizes $\\eta_i$, smoothing $\\delta$ and current $\\kappa$."""
        return {"eta": self._eta.copy(), "delta": self._delta, "kappa": self._kappa}

    @property
    def copies(self):
        """The N weak learners in use: the learner's own stack (`learners.base.WeakStack`) or
        the looped adapter around N clones. The booster's, not a copy: its owner may hand it
        what the stack's protocol offers (BoBLO gives an `on_model` stack its loss model)."""
        return self._copies

    @property
    def takes_vectors(self) -> bool:
        """Whether `iterates` and `learn_iterates` accept the context as a dense float vector
        (the copies offer `predict_vector` / `learn_vector`), besides a feature dict."""
        return self._vector


class BoOCO(_BoOCOCore, base.Regressor):
    r"""Boosting for online convex optimisation (Hazan & Singh 2021, Algorithm 1), as a river
    regressor that takes raw targets.

    `learner` is the weak learner $W$ (cloned $N$ times), `n_learners` is $N$, `gamma` is the
    weak learner's edge $\gamma$, `step_size` gives $\eta_i$, `delta` is $\delta$, `kappa` is
    $\kappa$, `decision_set` is $K$ and `loss` is $\ell$ with $f_t = \ell(\cdot, y_t)$.

    **Raw targets.** With `decision_set=None` and a regression loss (squared, absolute,
    Huber) the decision set follows the running range of the targets: after targets
    $y_1..y_t$, $K_t = [\min_s y_s, \max_s y_s]$. It is run as Algorithm 1 on the fixed
    $K = [-1, 1]$ in model units $u = (y - c_t)/h_t$, $c_t$ and $h_t$ the centre and half-width
    of the range (`target_units`; $h_t = |c_t|$, or 1, while the range is a point), so a
    point $u$ of K is played as $c_t + h_t u$. Round $t$ learns $u_t$ in the units of the
    range that includes $y_t$, so every target the copies see lies in K, as in the paper's
    protocol (Table 1 scales the targets to $[-1, 1]$ by their range); the model is exactly
    scale- and shift-equivariant. A given `decision_set` is used as is, in target units
    (`decision_set=sets.Interval(-1, 1)` with `aggregate=False` is the paper's protocol).

    **The aggregate.** Copy $i$ only sees $x^{i-1}$, so the first copy alone, $W_1(c_t)$, and
    the staged points $\Pi_K(x^1), \dots, \Pi_K(x^N)$ (what BoOCO with $1, \dots, N$ copies
    would play) come free every round. With the squared loss (`aggregate="auto"`) BoOCO plays
    an online mixture of these $N + 1$ experts, weights $w_i \propto \pi_i e^{-\eta L_i}$, $L_i$
    the expert's cumulative loss $\frac12\|P_i - \Pi_K(u_s)\|^2$ in model units, and the prior
    $\pi$ putting half its mass on the first copy (the weak learner alone) and $1/(2N)$ on each
    stage (prior mass on a benchmark, as (A, B)-Prod does):

    * on an interval $[lo, hi]$, $D = hi - lo$: Vovk's aggregating algorithm. With
      $g(y) = -\frac1\eta \ln \sum_i w_i e^{-\eta (P_i - y)^2/2}$ it plays
      $a = \frac{lo + hi}{2} + \frac{g(lo) - g(hi)}{D}$, which makes
      $\frac12(a - y)^2 \le g(y)$ for every $y \in K$ when $\eta \le 4/D^2$ (the squared
      loss on $[-B, B]$ is $1/B^2$-mixable); $\eta = 4/D^2$, so for every $T$ and every
      expert $i$, $\sum_{t \le T} \frac12(a_t - u_t)^2 - L_{i,T} \le \frac{D^2}{4}\ln(1/\pi_i)$:
      $\ln 2$ against the weak learner and $\ln(2N)$ against each stage on the raw-target
      $K = [-1, 1]$;
    * on any other K: exponential weights with the weighted mean, $\eta = 1/D^2$
      ($\frac12\|a - y\|^2$ is $1/D^2$-exp-concave on K since $\|a - y\| \le D$: the Hessian
      $I \succeq \eta (a - y)(a - y)^\top$), regret $\le D^2 \ln(1/\pi_i)$ (Hazan 2016, §4.4).

    **Mixing only once a stage leads.** The aggregate plays the first copy alone, exactly, until
    some stage's cumulative loss is below the first copy's by $B = \ln(1/\pi_1)/\eta$ (its own
    bound against the first copy: $\ln 2$ in model units on the raw-target K); from the next
    round on it runs the algorithm above afresh (losses counted from that round). Before, its
    regret against the first copy is 0, and against a stage below $B$ plus one round's loss
    ($\le D^2/2$); after, the algorithm's bounds add. So at every round, against the first
    copy the regret is at most $B$, and against each stage at most
    $B + \ln(1/\pi_i)/\eta + D^2/2$ ($\ln 2$ and $\ln 4N + 2$ on the raw-target K). Where
    no stage ever gets ahead of the weak learner by $B$ (on the development stream
    ChickWeights the first copy's residual holds nothing the later copies can learn), BoOCO
    plays exactly what `BoOCO(n_learners=1)` plays, instead of paying part of $B$ for weights
    that, in hindsight, only had to find the first copy (measured: $N = 10$ lost 0.01-0.08% MAE
    to $N = 1$ there, over copy seeds 0-4, when it mixed from the first round).

    So the model is never worse than the weak learner alone, or than any $N' \le N$, by more
    than that bound, and tracks the best $N$ in hindsight. Targets outside a given K are
    projected onto it in the aggregate's loss (the bound is on that loss). `aggregate=False`
    plays Algorithm 1's $\Pi_K(x^N)$; `aggregate_weights` / `aggregate_state` expose it.

    **Defaults** (issue 11; tuned only on the development streams Diabetes, Boston,
    California, TrumpApproval, ChickWeights and `StumpMixture`, see BENCHMARKS.md). The rule
    for `gamma="auto"`, `step_size="auto"` depends on what the copies play:

    * a regressor through the reduction (`learner=None` on raw targets, which is `TinyMLP`, or
      any river / scikit-learn regressor): $\gamma = \eta$, a constant step $\eta = 0.01$ (the
      paper's experimental step; a given number for either one is used for both), so that
      $\lambda_i = \eta_i/\gamma = 1$. The reduction then trains copy $i$ toward $\mu - g_i$,
      $g_i$ the extension's gradient at $x^{i-1}$, which for the squared loss is the residual
      $(u_t - x^{i-1})/(1 + \delta)$ (inside K), and step 2 reads
      $x^i = (1 - \eta)\,x^{i-1} + W_i(c_t)$: the first copy fits the target, every later copy
      what the stages before it left over, added at full size (online gradient boosting); the
      Frank-Wolfe contraction $1 - \eta$ is a bias of at most $\eta\,|x^{i-1}| \le 0.01$ (model
      units) that the next stage sees in its residual. The step does not depend on $N$, so
      the staged predictions are those of smaller boosters. (With $\gamma = 1$, Frank-Wolfe
      steps $2/(i+1)$ and $\lambda_i = \eta_i/\gamma$, the previous defaults, a perfect copy
      $i$ plays $x^i = u_t - \eta_i x^{i-1}$: the later stages undo the first copy's fit, and
      on the development streams $N = 10$ lost to $N = 1$ on four of six.)
    * an OCO learner (points of K, e.g. `LinearOGD`, the default on a given K): $\gamma = 1$
      with Frank-Wolfe steps $\eta_i = 2/(i+1)$, the averaging the points of K need.

    $\delta = 0.01$; $N = 10$ (the issue's comparison point; the aggregate bounds what larger
    $N$ can lose, cost grows linearly) and, among `LinearOGD`, `OnlineRidge`, `OnlineStump`,
    `TinyMLP`, the learner at or below river's best regressor on the most development streams:
    `TinyMLP` (`learners.base.default_learner`), seeded from 0 when `seed` is None.

    `predict_one(x)` returns the action: a float when K is an `Interval`, an array otherwise.
    `learn_one(x, y)` receives $f_t = \ell(\cdot, y)$ (for the `Linear` loss, `y` is the cost
    vector). Feature values and targets must be real numbers (bools, strings, bytes, None,
    complex, `Decimal`, ints beyond the float range and non-finite values are refused with a
    `ValueError` naming `x[key]` or `y`, before any state moves).

    Parameters
    ----------
    learner
        The weak learner prototype: a weak OCO learner (`predict_one(x)` → point of K,
        `learn_one(x, g)` on the linear loss $\langle g, \cdot \rangle$; see `learners.base`
        for the stacked protocol), or a regressor (a river `Regressor` or a scikit-learn
        estimator with `partial_fit`), which is wrapped in `learners.RegressorOCO`. `None`:
        `TinyMLP` for raw targets, `LinearOGD` on a given K (`learners.base`).
    n_learners
        Number of weak learners $N \ge 1$.
    gamma
        The edge $\gamma \in [10^{-6}, 1]$; weak predictions are scaled by $1/\gamma$ about
        the centroid $\mu$ of K (the paper assumes K centred at 0). `"auto"`: see Defaults.
    step_size
        `"auto"` (see Defaults), `"theory"` for $\eta_i = \min(2/i, 1)$ (Theorem 6),
        `"frank-wolfe"` for the classic $\eta_i = 2/(i + 1)$ (beyond the paper: Theorem 6's
        schedule has $\eta_2 = 1$, which discards the first learner's output), a constant
        in $[10^{-8}, 1]$ (the paper's experiments use 0.01), or a sequence of $N$ values.
    delta
        Smoothing $\delta \in [10^{-12}, 10^{12}]$ of the extension; `"theory"` is
        $\sqrt{D^2 / (\gamma N)}$ with $D$ the diameter of K.
    kappa
        Weight $\kappa \in [0, 10^{12}]$ of the distance to K in the extension; `None` uses the
        running maximum of the loss's Lipschitz bound over K,
        $G_t = \max_{a \in K}\|\nabla \ell(a, y_t)\|$.
    decision_set
        The convex decision set K (`onlineboost.sets`); `None`: the running target range
        (above) for regression losses, `Interval(-1, 1)` otherwise.
    loss
        The loss $\ell$ (`onlineboost.losses`); default `Squared()`.
    lam
        Only for regressor learners: the reduction's $\lambda_i$ (copy $i$ is trained towards
        $\mu - g_i/\lambda_i$). `"auto"` is $\lambda_i = \eta_i / \gamma$, so that each stage
        adds its fitted residual at full size.
    seed
        Seeds the copies of a random weak learner (copy $i$ gets its own seed).
    aggregate
        `"auto"` (on for the squared loss), `True` (the squared loss only) or `False`
        (Algorithm 1's own output).

    The ranges above are enforced at construction: beyond them $1/\gamma$, $\gamma/\eta_i$,
    $1/\delta$ and $\kappa$ push the copies' targets and gradients out of the float range.

    Examples
    --------
    On raw targets in a river pipeline (TrumpApproval's targets are around 40-50):

    >>> from river import datasets, evaluate, metrics, preprocessing
    >>> from onlineboost import BoOCO
    >>> model = preprocessing.StandardScaler() | BoOCO()
    >>> evaluate.progressive_val_score(datasets.TrumpApproval(), model, metrics.MAE())
    MAE: 0.350004

    The paper's setting: stumps on a stream whose target is a convex combination of stumps,
    K = [-1, 1] given, Algorithm 1's own output:

    >>> from learners import OnlineStump
    >>> from onlineboost import sets
    >>> from streams import StumpMixture
    >>> stream = StumpMixture(n_features=4, n_stumps=4, seed=1)
    >>> model = BoOCO(OnlineStump(), n_learners=8, gamma=1.0, step_size="frank-wolfe",
    ...               delta=0.01, lam=0.05, decision_set=sets.Interval(-1, 1),
    ...               aggregate=False)
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
    [^2]: Vovk, V., 2001. Competitive on-line statistics. International Statistical Review
    69(2), 213-248.
    [^3]: Hazan, E., 2016. Introduction to Online Convex Optimization. Foundations and Trends
    in Optimization 2(3-4).
    """

    def __init__(self, learner=None, n_learners: int = 10, gamma="auto", step_size="auto",
                 delta=0.01, kappa=None, decision_set=None, loss=None, lam="auto",
                 seed: int | None = None, aggregate="auto"):
        if not (aggregate in ("auto", True, False) and not isinstance(aggregate, int)
                or aggregate is True or aggregate is False):
            raise ValueError(f"aggregate must be 'auto', True or False, got {aggregate!r}")
        self.aggregate = aggregate
        gamma_, step_ = self._auto_steps(learner, gamma, step_size, decision_set, loss)
        super().__init__(learner=learner, n_learners=n_learners, gamma=gamma_,
                         step_size=step_, delta=delta, kappa=kappa,
                         decision_set=decision_set, loss=loss, lam=lam, seed=seed)
        self.gamma, self.step_size = gamma, step_size  # verbatim (river: clone, _get_params)
        squared = type(self._loss) is losses_.Squared
        if aggregate is True and not squared:
            raise ValueError("aggregate=True needs the squared loss (exp-concave on K); got "
                             f"{self._loss!r}")
        self._aggregate = squared and aggregate is not False
        # target units: decision_set=None on a regression loss -> K follows the target range
        self._scaled = self._regression_face()
        self._y_lo, self._y_hi = math.inf, -math.inf  # running range of the targets
        self._c, self._h = 0.0, 1.0  # y = c + h u: model units u (K) to target units y
        D = self._K.diameter
        # an interval: Vovk's aggregating algorithm, (1/2)(a - y)^2 is 4/D^2-mixable there;
        # any other K: exponential weights with the weighted mean, (1/2)|a - y|^2 is
        # 1/D^2-exp-concave on K
        self._eta_ew = (4.0 if self._interval is not None else 1.0) / D**2 if D > 0 else 1.0
        self._expert_loss = np.zeros(n_learners + 1)  # first copy, then x^1 .. x^N
        # prior: half the mass on the first copy (the weak learner alone), the rest shared by
        # the N stages, so the regret against the weak learner is ln 2 / eta, not ln(N + 1) / eta
        # (prior mass on a benchmark, as in Sani, Neu & Lazaric's (A, B)-Prod)
        self._log_prior = np.log(np.r_[0.5, np.full(n_learners, 0.5 / n_learners)])
        self._aggregate_loss = 0.0
        # the weak learner is played until a stage leads it by the aggregate's own bound against
        # it, ln(1/pi_1)/eta; from the next round on, the aggregating algorithm, started afresh
        self._lead = -self._log_prior[0] / self._eta_ew
        self._mixing = False
        self._since = np.zeros(n_learners + 1)  # the experts' losses since mixing began

    def __setstate__(self, state):
        # pickled before the aggregate waited for a stage to lead: it mixed from its first round
        if "_expert_loss" in state and "_mixing" not in state:
            state = dict(state, _mixing=True, _since=state["_expert_loss"].copy(),
                         _lead=-state["_log_prior"][0] / state["_eta_ew"])
        self.__dict__.update(state)

    @staticmethod
    def _face(decision_set, loss) -> bool:
        # the drop-in regressor: no decision set given and a regression loss
        return decision_set is None and (loss is None or type(loss) in (
            losses_.Squared, losses_.Absolute, losses_.Huber))

    def _regression_face(self) -> bool:
        return self._face(self.decision_set, self.loss)

    #: step (and gamma) for a regressor through the reduction: the paper's experimental step
    _AUTO_STEP = 0.01

    @classmethod
    def _auto_steps(cls, learner, gamma, step_size, decision_set, loss):
        """`gamma` and `step_size` with `"auto"` resolved (the rule: class docstring)."""
        def auto(v):
            return isinstance(v, str) and v == "auto"

        if isinstance(gamma, str) and not auto(gamma):
            raise ValueError(f"gamma must be 'auto' or a number, got {gamma!r}")
        if isinstance(step_size, str) and step_size not in ("auto", "theory", "frank-wolfe"):
            raise ValueError("step_size must be 'auto', 'theory', 'frank-wolfe', a number or a "
                             f"sequence, got {step_size!r}")
        reduced = (weak.is_regressor(learner) if learner is not None
                   else cls._face(decision_set, loss))  # None: TinyMLP on the regression face
        if not reduced:  # an OCO learner plays points of K: Frank-Wolfe averaging
            return (1.0 if auto(gamma) else gamma,
                    "frank-wolfe" if auto(step_size) else step_size)
        # a regressor through the reduction: eta = gamma, so lambda_i = 1 (residual boosting)
        if auto(step_size):
            step_size = cls._AUTO_STEP if auto(gamma) else gamma
        if auto(gamma):
            scalar = isinstance(step_size, (int, float)) and not isinstance(step_size, bool)
            if scalar:  # refused as step_size, not as the gamma it becomes
                check_real("step_size", step_size, _ETA_MIN, 1.0)
            gamma = step_size if scalar else cls._AUTO_STEP
        return gamma, step_size

    # -- target units ----------------------------------------------------------------------------

    @staticmethod
    def _units(lo: float, hi: float) -> tuple[float, float]:
        """`(c, h)` with `[lo, hi] = [c - h, c + h]`; h > 0 always (a point gets h = |c| or 1)."""
        c = 0.5 * lo + 0.5 * hi  # halves first: no overflow up to the largest double
        h = 0.5 * hi - 0.5 * lo
        if not h > 0:
            h = abs(c) if c != 0 else 1.0
        return c, h

    @property
    def target_units(self) -> tuple[float, float]:
        """`(c, h)`: a point $u$ of K is played as the target $c + h u$ (`(0, 1)` when K is
        given)."""
        return self._c, self._h

    # -- the online aggregate --------------------------------------------------------------------

    def _experts(self, W: np.ndarray, X: np.ndarray) -> np.ndarray:
        """The N + 1 experts: the first copy alone, then $\\Pi_K(x^1), \\dots, \\Pi_K(x^N)$."""
        K = self._K
        if self._interval is not None:
            lo, hi = self._interval
            P = np.concatenate([W[:1, 0], X[:, 0]])
            return np.minimum(np.maximum(P, lo), hi)[:, None]
        return K.project_unchecked(np.vstack([W[:1], X]))

    def _mix(self, P: np.ndarray) -> np.ndarray:
        """The aggregate's point for the experts' points `P` (N + 1, d)."""
        if not self._mixing:
            return P[0].copy()  # the weak learner alone
        w = self._weights()
        if self._interval is None:
            return w @ P
        # Vovk's substitution: with g(y) = -(1/eta) ln sum_i w_i exp(-eta (P_i - y)^2 / 2) at
        # the ends y = lo, hi of K, a = c + (g(lo) - g(hi)) / (hi - lo) has loss <= g(y) for
        # every y in K when eta <= 4/D^2 (D = hi - lo)
        lo, hi = self._interval
        if hi == lo:
            return np.array([lo])
        eta, p = self._eta_ew, P[:, 0]

        def g(y):
            e = -eta * 0.5 * (p - y) ** 2
            m = e.max()
            return -(m + math.log(float(w @ np.exp(e - m)))) / eta

        a = 0.5 * (lo + hi) + (g(lo) - g(hi)) / (hi - lo)
        return np.array([min(max(a, lo), hi)])

    def _weights(self) -> np.ndarray:
        if not self._mixing:
            return np.eye(1, self.n_learners + 1)[0]  # all on the weak learner
        e = self._log_prior - self._eta_ew * self._since  # w_i = pi_i e^{-eta L_i}
        w = np.exp(e - e.max())
        return w / w.sum()

    @property
    def aggregate_weights(self) -> np.ndarray:
        """Weights of the experts: the first copy alone, then $N = 1, \\dots, N$ (a copy); all on
        the first copy until the aggregate mixes."""
        return self._weights()

    @property
    def aggregate_state(self) -> dict:
        r"""Cumulative losses, in model units, of the aggregate and of every expert (first copy,
        then $N = 1..N$), the rate $\eta$ ($4/D^2$ on an interval, $1/D^2$ otherwise), whether
        the aggregate mixes yet (`"mixing"`), and the regret bound against each expert (class
        docstring): $\ln(1/\pi_1)/\eta = \ln 2/\eta$ against the first copy, and
        $(\ln(1/\pi_1) + \ln(1/\pi_i))/\eta + D^2/2 = \ln(4N)/\eta + D^2/2$ against
        each stage."""
        D2 = self._K.diameter ** 2
        bound = self._lead - self._log_prior / self._eta_ew + 0.5 * D2
        bound[0] = self._lead
        return {"aggregate": self._aggregate_loss, "experts": self._expert_loss.copy(),
                "eta": self._eta_ew, "mixing": self._mixing, "bound": bound}

    # -- the river face --------------------------------------------------------------------------

    def predict_one(self, x: dict, **kwargs):
        W = self._weak_points(x)
        X = self._chain(W)
        if self._aggregate:
            a = self._mix(self._experts(W, X))
        elif self._interval is not None:
            lo, hi = self._interval
            a = np.array([min(max(float(X[-1, 0]), lo), hi)])
        else:
            a = self._K.project_unchecked(X[-1])
        if self._interval is not None:
            return self._c + self._h * float(a[0])
        return self._c + self._h * a

    def learn_one(self, x: dict, y, **kwargs) -> None:
        if type(y) is not float or not math.isfinite(y):
            y = check_target(y)
        fwd, copies = None, self._copies
        # a stack with an explicit forward pass (`learners.base`) reads x once per round; an
        # instance-level `predict` / `learn` (a test recording the gradients) is respected
        if (hasattr(copies, "learn_forward") and not isinstance(x, np.ndarray)
                and "learn" not in vars(copies) and "predict" not in vars(copies)):
            fwd = copies.forward(x)  # validates x; held here, not cached in the stack
            W = copies.predict_forward(fwd)
        else:
            W = self._weak_points(x)  # validates x
        X = self._chain(W)
        if self._scaled:
            if np.ndim(y):
                raise ValueError(f"y must be a number, got shape {np.shape(y)}")
            lo, hi = min(self._y_lo, y), max(self._y_hi, y)
            c, h = self._units(lo, hi)
            u = (y - c) / h  # in [-1, 1]: K = [-1, 1] is the running range [lo, hi]
        else:
            u = y
        u = self._check_loss_y(u)  # before any state moves
        if self._aggregate:
            P = self._experts(W, X)
            a = self._mix(P)
        if fwd is not None:
            copies.learn_forward(fwd, self._gradients(X, u))
        else:
            self.learn_iterates(x, X, u)
        if self._aggregate:
            target = (min(max(u, self._interval[0]), self._interval[1])
                      if self._interval is not None else self._K.project_unchecked(
                          np.broadcast_to(u, (self._K.dim,)).astype(np.float64)))
            loss = 0.5 * np.sum((P - target) ** 2, axis=-1)
            self._expert_loss += loss
            self._aggregate_loss += 0.5 * float(np.sum((a - target) ** 2))
            if self._mixing:
                self._since += loss
            else:  # mix from the next round once a stage leads the weak learner by the bound
                self._mixing = bool(np.max(self._expert_loss[0] - self._expert_loss)
                                    >= self._lead)
        if self._scaled:
            self._y_lo, self._y_hi, self._c, self._h = lo, hi, c, h

    def staged_predict_one(self, x: dict) -> np.ndarray:
        """$\\Pi_K(x^i)$ for $i = 1, \\dots, N$, one row each (a 1-D array for an `Interval`),
        in target units ($c + h\\,\\Pi_K(x^i)$, see `target_units`).

        Copy $i$ only ever sees $x^{i-1}$, which depends on copies $1..i-1$ alone, so row $i$ is
        exactly what `BoOCO(n_learners=i, aggregate=False)` would play, whenever $\\delta$ and
        the step sizes do not depend on $N$ (a numeric `delta`): one pass evaluates every $N$.
        """
        a = self._c + self._h * self._staged_actions(x)
        return a[:, 0] if isinstance(self._K, sets.Interval) else a

    @classmethod
    def _unit_test_params(cls):
        import learners

        yield {"learner": learners.LinearOGD(), "n_learners": 3}
        yield {"learner": learners.OnlineStump(), "n_learners": 2, "gamma": 0.5,
               "step_size": 0.5, "decision_set": sets.Interval(-1.0, 1.0)}
