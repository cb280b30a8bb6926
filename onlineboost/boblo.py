r"""BoBLO: boosting for bandit linear optimisation (Hazan & Singh 2021, Algorithm 2).

BoBLO runs BoOCO (Algorithm 1) with the `Linear` loss on a set $K \supseteq \Delta_d$ and feeds
it a random cost vector $\tilde f_t$ whose mean is the unseen cost vector $f_t$, built from the
one scalar loss the bandit reveals. Two estimators:

* `"paper"` (Algorithm 2, eq. 2): with probability $\eta$ play a uniform vertex $e_{i_t}$ and pass
  $\tilde f_t = (d/\eta)\, f_t(e_{i_t})\, e_{i_t}$; otherwise play BoOCO's point $x_t$ and pass 0;
* `"ips"` (beyond the paper): play arm $a_t \sim p_t = (1 - \eta) x_t + \eta/d$ and pass the
  importance-weighted $\tilde f_t = (f_t(a_t) - b) / (p_t(a_t) + c)\, e_{a_t}$ in every round;
* `"dr"` (beyond the paper): doubly robust, IPS on the residual of an online per-arm linear
  loss model $m_t$, $\tilde f_t = m_t + (f_t(a_t) - m_t(a_t)) / p_t(a_t)\, e_{a_t}$.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from river import bandit

from . import losses, sets
from .booco import BoOCO

__all__ = ["BoBLO"]


def _real(value, name, low, high, low_open=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) \
            or value < low or value > high or (low_open and value == low):
        raise ValueError(f"{name} must lie in {'(' if low_open else '['}{low}, {high}], "
                         f"got {value!r}")


def _projection_simplex_rows(Z: np.ndarray) -> np.ndarray:
    """Euclidean projection of each row onto the simplex, by sorting (Held et al. 1974): the
    arithmetic of `sets.projection_simplex` without its rounding polish, for small stacks."""
    u = np.sort(Z, axis=1)[:, ::-1]
    css = np.cumsum(u, axis=1) - 1.0
    rho = np.count_nonzero(u * np.arange(1, Z.shape[1] + 1) > css, axis=1)  # >= 1 always
    tau = css[np.arange(len(Z)), rho - 1] / rho
    return np.maximum(Z - tau[:, None], 0.0)


def _draw(w: np.ndarray, rng: np.random.Generator) -> int:
    """An index drawn with probabilities proportional to the weights `w >= 0`."""
    c = np.cumsum(w)
    return int(min(np.searchsorted(c, rng.random() * c[-1], side="right"), len(w) - 1))


class BoBLO(bandit.base.ContextualPolicy):
    r"""Boosting for bandit linear optimisation and $k$-armed contextual bandits (Algorithm 2).

    A BoOCO booster (`onlineboost.BoOCO` with the `Linear` loss on $K$) proposes
    $x_t \in K$; the bandit reveals only the scalar loss of what was played, from which an unbiased
    estimate $\tilde f_t$ of the cost vector is built and passed to BoOCO as full information:

    * `estimator="paper"` is Algorithm 2 exactly: with probability $\eta$ (`exploration`) play a
      uniformly drawn vertex $e_i$ and pass $\tilde f_t = (d/\eta)(f_t(e_i) - b) e_i$; otherwise
      play $x_t$ and pass $\tilde f_t = 0$. Then $\mathbb E \tilde f_t = f_t - b\mathbf 1$, but only
      the $\eta T$ exploration rounds, played uniformly at random, carry any signal.
    * `estimator="ips"` goes beyond the paper so that every round teaches: the arm is drawn from
      $p_t = (1 - \eta) x_t + \eta/d$ and BoOCO gets
      $\tilde f_t = (f_t(a_t) - b)/(p_t(a_t) + c)\, e_{a_t}$, unbiased for $f_t - b\mathbf 1$ when
      $c = 0$ (inverse propensity scoring).
    * `estimator="dr"` (beyond the paper) is doubly robust (Dudík et al. 2011): an online
      per-arm linear model $m_t(c) \in \mathbb R^d$ of the losses (least squares by SGD with
      step `model_lr`, on the transformed context and a bias, trained on the played arm only)
      fills in every arm, and IPS corrects its error on the played one:
      $\tilde f_t = m_t + (f_t(a_t) - m_t(a_t))/(p_t(a_t) + c)\, e_{a_t}$ (unbiased for
      $c = 0$ whatever $m_t$; low variance when $m_t$ is good). It starts from $m_1 = b$, the
      baseline, i.e. as IPS with baseline $b$.

    `baseline` $b$ is a control variate (default 0, the paper): on the simplex $\langle \mathbf 1,
    x\rangle = 1$, so $f_t - b\mathbf 1$ ranks every point as $f_t$ does, while the estimate's
    variance shrinks when $b$ is near the typical loss. `implicit` $c \ge 0$ is implicit
    exploration (Kocák et al. 2014): a small bias for a variance bounded by $1/c$. Both are
    beyond the paper. `kappa=None` is the paper's $\kappa = G$, the running maximum of the
    estimate's Lipschitz bound $\|\tilde f_t\|$ (up to $(d/\eta)\max(b, 1 - b)$); a number
    (e.g. the true bound $\sqrt d$ of losses in $[0, 1]$) keeps the extension's pull to $K$ from
    swamping the loss signal.

    Two faces. The BLO face: `predict_one(context)` plays $x_t \in K$ (a vertex in exploration or
    IPS rounds) and `learn_one(context, loss)` takes the observed loss $f_t(x_t)$. The contextual
    bandit face, with river's `ContextualPolicy` signatures: `pull(arm_ids, context)` returns an
    arm (any hashable ids; $K = \Delta_k$ over them in the order of the first pull) and
    `update(arm_id, context, reward)` takes a reward in $[0, 1]$, loss $= 1 -$ reward. Contexts
    first go through `transformer` (a river transformer such as `StandardScaler`, learning
    online), since a policy cannot sit in a river `Pipeline`.

    Parameters
    ----------
    learner
        Weak learner prototype for BoOCO, with points in K (`learners.SoftmaxPolicy`,
        `learners.LinearOGD`); default `LinearOGD()` (projected onto K by BoOCO).
    n_learners
        $N$, as for `BoOCO`.
    gamma
        $\gamma$, as for `BoOCO`.
    step_size
        $\eta_i$, as for `BoOCO`.
    delta
        $\delta$, as for `BoOCO`. Here it also clips the estimate: the weak learners get
        $(x - \Pi_K(x - \delta\tilde f_t))/\delta$, so the theory value (2 for N = 1, gamma = 0.5)
        flattens most of the signal; 0.1 worked best in `benchmarks/bandit_compare.py`.
    kappa
        $\kappa$, as for `BoOCO` (`None`: running maximum of $\|\tilde f_t\|$).
    exploration
        $\eta \in (0, 1]$: exploration probability (`"paper"`) or uniform mixing weight (`"ips"`).
    estimator
        `"paper"`, `"ips"` or `"dr"`.
    baseline
        $b \in [0, 1]$, subtracted from every observed loss.
    implicit
        $c \ge 0$, added to the propensity (`"ips"` and `"dr"`).
    model_lr
        Step size of the `"dr"` loss model's SGD (normalised by $1 + \|c\|^2$).
    decision_set
        $K \supseteq \Delta_d$; `None` builds $\Delta_k$ at the first pull. The bandit face needs
        a `Simplex`.
    transformer
        Optional river transformer applied to (and learning from) every context.
    seed
        Seed of the exploration, of the arm draws and of BoOCO's copies.

    Examples
    --------
    >>> from river import preprocessing
    >>> from learners import SoftmaxPolicy
    >>> from onlineboost import BoBLO, evaluate
    >>> from streams import LinearBandit
    >>> policy = BoBLO(SoftmaxPolicy(lr=0.05), n_learners=1, gamma=0.5, delta=0.01,
    ...                exploration=0.05, estimator="ips", baseline=0.5, seed=0)
    >>> evaluate.bandit(policy, LinearBandit(d=5, k=4, seed=1, n_rounds=3000), skyline=None)
    BoBLO over 3000 rounds: average reward 0.664, regret 230.9, ... decisions/s

    References
    ----------
    [^1]: Hazan, E. and Singh, K., 2021. Boosting for Online Convex Optimization. ICML 2021,
    arXiv:2102.09305v1, Algorithm 2 and Corollary 11.
    [^2]: Dudík, M., Langford, J. and Li, L., 2011. Doubly robust policy evaluation and
    learning. ICML.
    [^3]: Kocák, T., Neu, G., Valko, M. and Munos, R., 2014. Efficient learning by implicit
    exploration in bandit problems with side observations. NeurIPS.
    """

    def __init__(self, learner=None, n_learners: int = 5, gamma: float = 0.5,
                 step_size="theory", delta="theory", kappa=None, exploration: float = 0.05,
                 estimator: str = "paper", baseline: float = 0.0, implicit: float = 0.0,
                 model_lr: float = 0.1, decision_set=None, transformer=None,
                 seed: int | None = None):
        super().__init__(reward_obj=None, burn_in=0)
        _real(exploration, "exploration", 0.0, 1.0, low_open=True)
        if estimator not in ("paper", "ips", "dr"):
            raise ValueError(f"estimator must be 'paper', 'ips' or 'dr', got {estimator!r}")
        _real(model_lr, "model_lr", 0.0, math.inf, low_open=True)
        _real(baseline, "baseline", 0.0, 1.0)
        _real(implicit, "implicit", 0.0, math.inf)
        if decision_set is not None:
            if not isinstance(decision_set, sets.ConvexSet):
                raise ValueError(f"decision_set must be an onlineboost.sets set, "
                                 f"got {decision_set!r}")
            if not np.all(decision_set.contains(np.eye(decision_set.dim))):
                raise ValueError(f"decision_set must contain the simplex, got {decision_set!r}")
        if transformer is not None and not (hasattr(transformer, "transform_one")
                                            and hasattr(transformer, "learn_one")):
            raise ValueError(f"transformer must be a river transformer, got {transformer!r}")
        self.learner = learner
        self.n_learners = n_learners
        self.gamma = gamma
        self.step_size = step_size
        self.delta = delta
        self.kappa = kappa
        self.exploration = exploration
        self.estimator = estimator
        self.baseline = baseline
        self.implicit = implicit
        self.model_lr = model_lr
        self.decision_set = decision_set
        self.transformer = transformer
        self.seed = seed
        self._rng = np.random.default_rng(seed)
        self._transformer = transformer.clone() if transformer is not None else None
        self._arms: list | None = None
        self._arm_index: dict = {}
        self._booco = None
        if decision_set is not None:
            self._booco = self._make_booco(decision_set)  # validates the BoOCO parameters
        else:
            self._make_booco(sets.Simplex(2))  # validate them now; the real one at first pull
        self._pending = None  # (context, x, arm index or None, played point, propensity, explored)
        self._last_cost = None
        self._arm_probabilities = None
        self._columns: dict = {}  # feature name -> column of the "dr" loss model
        self._model = np.zeros((0, 1))  # (d, p + 1) "dr" loss model weights, bias last

    def _make_booco(self, K) -> BoOCO:
        return BoOCO(self.learner, n_learners=self.n_learners, gamma=self.gamma,
                     step_size=self.step_size, delta=self.delta, kappa=self.kappa,
                     decision_set=K, loss=losses.Linear(), seed=self.seed)

    @property
    def booco(self) -> BoOCO | None:
        """The BoOCO booster fed with the estimated cost vectors."""
        return self._booco

    @property
    def arm_probabilities(self) -> np.ndarray | None:
        """The law $p_t = (1 - \\eta) x_t + \\eta / d$ of the last arm (or vertex) played."""
        return None if self._arm_probabilities is None else self._arm_probabilities.copy()

    @property
    def last_cost_vector(self) -> np.ndarray | None:
        """The estimate $\\tilde f_t$ passed to BoOCO at the last update."""
        return None if self._last_cost is None else self._last_cost.copy()

    # -- Algorithm 1 for the linear loss, lean: the same arithmetic as BoOCO._action/_learn ------

    def _project(self, Z: np.ndarray) -> np.ndarray:
        K = self._booco._K
        return _projection_simplex_rows(Z) if isinstance(K, sets.Simplex) else K._project(Z)

    def _iterates(self, x: dict) -> np.ndarray:
        """$x^1, \\dots, x^N$ of Algorithm 1 (steps 1-2) for the context, as rows."""
        booco = self._booco
        W = booco._copies.predict(x)
        return booco._mu + booco._A @ (W - booco._mu)

    def _booco_learn(self, x: dict, X: np.ndarray, cost: np.ndarray) -> None:
        r"""Algorithm 1 step 4 on $f_t = \langle \tilde f_t, \cdot\rangle$: copy $i$ gets
        $\nabla \hat f_t(x^{i-1}) = (x^{i-1} - p^\star)/\delta$ with
        $p^\star = \operatorname{prox}_{\delta\kappa \operatorname{Dist}}(x^{i-1} - \delta
        \tilde f_t)$ (`onlineboost.extension`, linear case), equal to `BoOCO.learn_one`."""
        booco = self._booco
        X_prev = np.vstack([booco._mu, X[:-1]])  # x^0, ..., x^{N-1}
        if self.kappa is None:  # the running max of G_t = |f~_t|, as BoOCO does
            booco._kappa = booco._ext.kappa = max(booco._kappa, float(np.linalg.norm(cost)))
        delta, lam = booco._delta, booco._delta * booco._kappa
        Z = X_prev - delta * cost
        P = self._project(Z)
        dist = np.linalg.norm(Z - P, axis=1, keepdims=True)
        keep = np.where(dist > lam, 1.0 - lam / np.maximum(dist, lam + 1e-300), 0.0)
        grads = (X_prev - (P + keep * (Z - P))) / delta
        booco._cache = None
        booco._copies.learn(x, grads * booco._grad_scale)

    # -- one round -------------------------------------------------------------------------------

    def _features(self, context) -> dict:
        if context is None:
            context = {}
        if not isinstance(context, dict):
            raise ValueError(f"context must be a dict of features, got {type(context).__name__}")
        try:
            self._booco._check_x(context)
        except ValueError as e:
            raise ValueError(f"context: {e}") from None
        if self._transformer is None:
            return context
        self._transformer.learn_one(context)  # unsupervised, online (as a river pipeline does)
        return self._transformer.transform_one(context)

    def _play(self, context) -> tuple[int | None, np.ndarray]:
        """Algorithm 2 steps 3-10 up to the play: the arm index (if a vertex or arm is drawn)
        and the played point."""
        x = self._features(context)
        K, d, eta = self._booco._K, self._booco._K.dim, self.exploration
        X = self._iterates(x)
        x_t = self._project(X[-1:])[0]  # BoOCO's point A(c_t) = Pi_K(x^N)
        # on K = simplex x_t is a distribution; on a larger K its projection onto the simplex
        w = x_t if isinstance(K, sets.Simplex) else _projection_simplex_rows(x_t[None])[0]
        # the arm's law, p_t = (1 - eta) x_t + eta / d, under either estimator
        p = (1.0 - eta) * np.clip(w, 0.0, None) + eta / d
        self._arm_probabilities = p / p.sum()
        if self.estimator == "paper":
            if self._rng.random() < eta:  # b_t = 1: explore a uniform vertex e_{i_t}
                i = int(self._rng.integers(d))
                self._pending = (context, x, i, X, eta / d, True)
                return i, np.eye(d)[i]
            self._pending = (context, x, None, X, None, False)
            return None, x_t
        a = _draw(p, self._rng)  # IPS: a_t ~ p_t
        self._pending = (context, x, a, X, float(self._arm_probabilities[a]), False)
        return a, np.eye(d)[a]

    def _feedback(self, loss: float) -> None:
        """Build $\\tilde f_t$ from the observed loss and pass it to BoOCO (Algorithm 2, 8/10)."""
        _, x, i, X, prob, explored = self._pending
        d = self._booco._K.dim
        cost = np.zeros(d)
        if self.estimator == "paper":
            if explored:  # eq. (2): (d / eta) f_t(e_i) e_i, with the baseline beyond the paper
                cost[i] = (loss - self.baseline) / prob
        elif self.estimator == "ips":
            cost[i] = (loss - self.baseline) / (prob + self.implicit)
        else:
            v = self._model_features(x)
            if self._model.shape[0] != d:
                self._model = np.full((d, 1), float(self.baseline))  # m_1 = b: IPS with b
            if self._model.shape[1] < len(v):
                pad = np.zeros((d, len(v) - self._model.shape[1]))
                self._model = np.hstack([self._model[:, :-1], pad, self._model[:, -1:]])
            m = self._model @ v  # predicted loss of every arm
            cost[:] = m
            cost[i] += (loss - m[i]) / (prob + self.implicit)
            self._model[i] += self.model_lr * (loss - m[i]) * v / (v @ v)  # NLMS step
        self._booco_learn(x, X, cost)
        self._last_cost = cost
        self._pending = None

    def _model_features(self, x: dict) -> np.ndarray:
        """The context as a vector over the columns seen so far (new keys appended) and 1."""
        for key in x:
            if key not in self._columns:
                self._columns[key] = len(self._columns)
        v = np.zeros(len(self._columns) + 1)
        for key, value in x.items():
            v[self._columns[key]] = value
        v[-1] = 1.0
        return v

    def _check_pending(self, context):
        if self._pending is None:
            raise ValueError("no pending pull or predict_one to learn from (update without pull)")
        if context is not None and context != self._pending[0]:
            raise ValueError("context differs from the context of the pending pull")

    # -- the BLO face ----------------------------------------------------------------------------

    def predict_one(self, context: dict) -> np.ndarray:
        """Play $x_t \\in K$ for the context (a vertex in exploration or IPS rounds)."""
        if self._booco is None:
            raise ValueError("decision_set is None: the BLO face needs an explicit decision_set")
        return self._play(context)[1]

    def learn_one(self, context: dict, loss: float) -> None:
        """Learn from the observed scalar loss $f_t(x_t)$ of the last `predict_one`."""
        _real(loss, "loss", -math.inf, math.inf)
        self._check_pending(context)
        self._feedback(float(loss))

    # -- the contextual bandit face (river's ContextualPolicy signatures) -----------------------

    def _pull(self, arm_ids, context):
        if self._arms is None:
            arms = list(arm_ids)
            try:
                index = {arm: i for i, arm in enumerate(arms)}
            except TypeError:
                raise ValueError("arm_ids must be hashable") from None
            if len(index) != len(arms) or len(arms) < 2:
                raise ValueError(f"arm_ids must hold at least 2 distinct arms, got {arm_ids!r}")
            if self._booco is None:
                self._booco = self._make_booco(sets.Simplex(len(arms)))
            elif not isinstance(self._booco._K, sets.Simplex) or self._booco._K.dim != len(arms):
                raise ValueError(f"arm_ids: the bandit face needs decision_set = Simplex(k) with "
                                 f"k = {len(arms)} arms")
            self._arms, self._arm_index = arms, index
        elif list(arm_ids) != self._arms:
            raise ValueError(f"arm_ids must be the arms of the first pull, {self._arms}")
        i, x_t = self._play(context)
        if i is None:  # x_t is a distribution over the arms: sample the arm from it
            i = _draw(np.clip(x_t, 0.0, None), self._rng)
            self._pending = self._pending[:2] + (i,) + self._pending[3:]
        return self._arms[i]

    def pull(self, arm_ids, context: dict | None = None):
        """Pick an arm for the context (river's `ContextualPolicy.pull`)."""
        return self._pull(arm_ids, context)

    def update(self, arm_id, context, reward) -> None:
        """Learn from the reward in $[0, 1]$ of the pulled arm (loss $= 1 -$ reward)."""
        if self._arms is None or arm_id not in self._arm_index:
            raise ValueError(f"arm_id {arm_id!r} is not one of the arms {self._arms}")
        _real(reward, "reward", 0.0, 1.0)
        self._check_pending(context)
        if self._arms[self._pending[2]] != arm_id:
            raise ValueError(f"arm_id {arm_id!r} is not the arm of the pending pull")
        self._feedback(1.0 - float(reward))
        super().update(arm_id, None, float(reward))  # river's per-arm reward statistics

    @classmethod
    def _unit_test_params(cls):
        import learners

        yield {"learner": learners.SoftmaxPolicy(), "n_learners": 2, "estimator": "ips",
               "seed": 0}
