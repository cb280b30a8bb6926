r"""BoOCO against a literal transcription of Algorithm 1 (Hazan & Singh 2021), written from the
paper line by line and sharing no code with `onlineboost`.

The transcription keeps its own N copies of a weak learner that really learns, runs steps 4-11
of Algorithm 1 on a seeded stream, and is compared with `BoOCO` on every round:

* every staged action $\Pi_K(x^i_t)$, $i = 1..N$, against `BoOCO.staged_predict_one`;
* the played action $\Pi_K(x^N_t)$ against `BoOCO.predict_one`;
* the linear loss $\nabla \hat f_t(x^{i-1}_t)$ that each copy $W_i$ receives (the copies inside
  BoOCO record what they are passed).

Since the copies learn from what they are passed, a wrong gradient, step size, $\delta$ or
rescaling changes every later round. The extension gradient $\nabla \hat f(x) = (x -
p^\star)/\delta$ of $\hat f = M_\delta[f + \kappa\,\mathrm{Dist}(\cdot, K)]$ is computed here
from scratch: by an exhaustive case analysis of the piecewise-quadratic objective on an
interval, and by the prox of the distance function (Beck 2017, Lemma 6.43; checked against
`scipy.optimize` below) on a box or a simplex.

Algorithm 1 assumes K centred at 0 ($x^i = (1 - \eta_i) x^{i-1} + \eta_i \frac{1}{\gamma}
W_i(c_t)$). For a set with centroid $\mu \ne 0$ the recurrence is run in the coordinates
$x - \mu$ (K translated to be centred at 0), with $x^0 = \mu$.
"""

from __future__ import annotations

import numpy as np
import pytest
from river import base
from scipy import optimize

import learners
from onlineboost import BoOCO, losses, sets

# Every BoOCO in this module is built from PAPER_KW plus the case's own parameters, so that an
# option added later (e.g. an aggregate over the stages) can be switched off here in one place.
PAPER_KW: dict = {"aggregate": False}  # pure Algorithm 1: no online aggregate over the stages


# -- the decision sets, written out (no onlineboost code) -------------------------------------


class BoxK:
    """$K = [lo, hi]$ (an interval when 1-D): projection, centre, diameter."""

    def __init__(self, lo, hi):
        self.lo, self.hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
        self.d = len(self.lo)
        self.mu = (self.lo + self.hi) / 2
        self.D = float(np.sqrt(np.sum((self.hi - self.lo) ** 2)))

    def project(self, v):
        return np.minimum(np.maximum(v, self.lo), self.hi)

    def onlineboost_set(self):
        if self.d == 1:
            return sets.Interval(float(self.lo[0]), float(self.hi[0]))
        return sets.Box(self.lo.tolist(), self.hi.tolist())


class SimplexK:
    """The probability simplex in $\\mathbb{R}^d$; Euclidean projection by sorting."""

    def __init__(self, d):
        self.d = d
        self.mu = np.full(d, 1.0 / d)
        self.D = float(np.sqrt(2.0))

    def project(self, v):
        u = np.sort(v)[::-1]
        css = np.cumsum(u) - 1.0
        k = np.arange(1, self.d + 1)
        rho = np.nonzero(u - css / k > 0)[0][-1]
        return np.maximum(v - css[rho] / (rho + 1), 0.0)

    def onlineboost_set(self):
        return sets.Simplex(self.d)


# -- the extension X_{K, delta, kappa}[f] and its gradient -------------------------------------


def squared_objective_1d(p, x, b, K, delta, kappa):
    dist = max(K.lo[0] - p, 0.0, p - K.hi[0])
    return 0.5 * (p - b) ** 2 + kappa * dist + (x - p) ** 2 / (2 * delta)


def prox_point_squared_interval(x, b, K, delta, kappa):
    """argmin_p 1/2 (p - b)^2 + kappa Dist(p, [lo, hi]) + (x - p)^2 / (2 delta), by cases.

    The objective is a convex quadratic on each of (-inf, lo], [lo, hi], [hi, inf): its minimiser
    is a stationary point of one piece lying in that piece, or a breakpoint.
    """
    lo, hi = float(K.lo[0]), float(K.hi[0])
    candidates = [lo, hi]
    left = (x + delta * (b + kappa)) / (1 + delta)  # b - p + kappa + (x - p)/delta = 0
    middle = (x + delta * b) / (1 + delta)
    right = (x + delta * (b - kappa)) / (1 + delta)
    candidates += [p for p, ok in ((left, left <= lo), (middle, lo <= middle <= hi),
                                   (right, right >= hi)) if ok]
    values = [squared_objective_1d(p, x, b, K, delta, kappa) for p in candidates]
    return candidates[int(np.argmin(values))]


def prox_of_distance(z, K, lam):
    """argmin_p lam Dist(p, K) + |p - z|^2 / 2 (Beck 2017, Lemma 6.43)."""
    proj = K.project(z)
    dist = float(np.linalg.norm(z - proj))
    return proj if dist <= lam else z - lam * (z - proj) / dist


def prox_point(x, y, K, loss, delta, kappa):
    r"""$p^\star = \arg\min_p f(p) + \kappa \mathrm{Dist}(p, K) + |x - p|^2 / (2\delta)$."""
    if loss == "squared":  # f(p) = |p - y|^2 / 2
        if isinstance(K, BoxK) and K.d == 1:
            return np.array([prox_point_squared_interval(float(x[0]), float(y[0]), K, delta,
                                                         kappa)])
        # completing the square: (1 + delta)/(2 delta) |p - (x + delta y)/(1 + delta)|^2 + const
        return prox_of_distance((x + delta * y) / (1 + delta), K, delta * kappa / (1 + delta))
    # f(p) = <y, p>: |p - (x - delta y)|^2 / (2 delta) + const
    return prox_of_distance(x - delta * y, K, delta * kappa)


def extension_gradient(x, y, K, loss, delta, kappa):
    return (x - prox_point(x, y, K, loss, delta, kappa)) / delta


@pytest.mark.parametrize("K, loss", [(BoxK([-1.0, 0.0], [1.0, 2.0]), "squared"),
                                     (SimplexK(3), "linear"), (SimplexK(4), "squared")])
def test_the_transcription_prox_is_the_minimiser(K, loss):
    """The closed-form proximal point beats a numerical minimiser of the same objective."""
    rng = np.random.default_rng(0)
    delta, kappa = 0.3, 1.7
    for _ in range(20):
        x, y = 2.0 * rng.normal(size=K.d), rng.normal(size=K.d)

        def objective(p):
            f = 0.5 * np.sum((p - y) ** 2) if loss == "squared" else y @ p
            return (f + kappa * np.linalg.norm(p - K.project(p))
                    + np.sum((x - p) ** 2) / (2 * delta))

        p = prox_point(x, y, K, loss, delta, kappa)
        best = min((optimize.minimize(objective, start, method="Nelder-Mead",
                                      options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 20000})
                    for start in (x, K.project(x), p + 0.1)), key=lambda r: r.fun)
        assert objective(p) <= best.fun + 1e-9
        np.testing.assert_allclose(p, best.x, atol=1e-4)


def test_the_interval_case_analysis_agrees_with_a_fine_grid():
    K, rng = BoxK([-1.0], [1.0]), np.random.default_rng(1)
    grid = np.linspace(-6.0, 6.0, 1_200_001)
    for _ in range(30):
        x, b = 3.0 * rng.normal(), rng.normal()
        delta, kappa = rng.uniform(0.05, 2.0), rng.uniform(0.0, 3.0)
        values = [squared_objective_1d(p, x, b, K, delta, kappa) for p in (grid[::1000])]
        coarse = grid[::1000][int(np.argmin(values))]
        fine = grid[(grid > coarse - 0.02) & (grid < coarse + 0.02)]
        objective = 0.5 * (fine - b) ** 2 + kappa * np.maximum.reduce(
            [K.lo[0] - fine, 0 * fine, fine - K.hi[0]]) + (x - fine) ** 2 / (2 * delta)
        assert prox_point_squared_interval(x, b, K, delta, kappa) == pytest.approx(
            fine[int(np.argmin(objective))], abs=2e-5)


# -- Algorithm 1 ----------------------------------------------------------------------------


class Algorithm1:
    """Algorithm 1 of Hazan & Singh (2021), line by line, on its own copies of a weak learner."""

    def __init__(self, copies, K, loss, gamma, eta, delta, kappa):
        self.W, self.K, self.loss = copies, K, loss  # 1: N copies of the gamma-WOCL
        self.gamma, self.eta, self.delta, self.kappa = gamma, eta, delta, kappa  # parameters
        self.N = len(copies)

    def iterates(self, c):
        """Steps 4-7: x^0, ..., x^N (in K's own coordinates)."""
        mu = self.K.mu
        x = [np.zeros(self.K.d)]  # 4: x^0 = mu, i.e. 0 about the centre
        for i in range(1, self.N + 1):  # 5
            W_i = np.asarray(self.W[i - 1].predict_one(c), dtype=float).reshape(-1) - mu
            x.append((1 - self.eta[i - 1]) * x[i - 1] + self.eta[i - 1] * W_i / self.gamma)  # 6
        return [mu + v for v in x]

    def play(self, c):
        """Step 8 for every stage: Pi_K(x^i), i = 1..N (the last one is played)."""
        return np.array([self.K.project(v) for v in self.iterates(c)[1:]])

    def learn(self, c, y):
        """Steps 9-12: copy i gets the linear loss <grad f^_t(x^{i-1}), .>; returns the grads."""
        x = self.iterates(c)
        grads = [extension_gradient(x[i - 1], np.atleast_1d(np.asarray(y, dtype=float)), self.K,
                                    self.loss, self.delta, self.kappa)
                 for i in range(1, self.N + 1)]  # 9-11
        for W_i, g in zip(self.W, grads):
            W_i.learn_one(c, g.copy())
        return np.array(grads)


# -- a weak learner that learns, and records what it is passed ----------------------------------

CREATED: list = []


class RecordingOGD(base.Base):
    r"""$c \mapsto \Pi_K(\Theta c + b)$ trained by online gradient descent on the linear losses it
    receives; records every gradient. K is a box (`lo`, `hi`) or the simplex (`simplex=d`)."""

    def __init__(self, lo=None, hi=None, simplex=None, lr=0.3):
        self.lo, self.hi, self.simplex, self.lr = lo, hi, simplex, lr
        self._K = SimplexK(simplex) if simplex else BoxK(lo, hi)
        self._theta = np.zeros((self._K.d, 0))
        self._b = self._K.mu.copy()
        self._names: list = []
        self.received: list = []
        CREATED.append(self)

    def _c(self, x):
        for k in x:
            if k not in self._names:
                self._names.append(k)
                self._theta = np.hstack([self._theta, np.zeros((self._K.d, 1))])
        return np.array([x.get(k, 0.0) for k in self._names])

    def predict_one(self, x):
        c = self._c(x)
        return self._K.project(self._theta @ c + self._b)

    def learn_one(self, x, g):
        g = np.asarray(g, dtype=float).reshape(-1)
        self.received.append(g.copy())
        c = self._c(x)
        self._theta = self._theta - self.lr * np.outer(g, c)
        self._b = self._b - self.lr * g


def learner_for(K, lr=0.3):
    if isinstance(K, SimplexK):
        return RecordingOGD(simplex=K.d, lr=lr)
    return RecordingOGD(K.lo.tolist(), K.hi.tolist(), lr=lr)


def paper_eta(step_size, N):
    if step_size == "theory":
        return [min(2.0 / i, 1.0) for i in range(1, N + 1)]  # Theorem 6: eta_i = min(2/i, 1)
    return list(np.broadcast_to(np.asarray(step_size, dtype=float), (N,)))


def paper_delta(delta, K, gamma, N):
    return float(np.sqrt(K.D**2 / (gamma * N))) if delta == "theory" else delta  # Theorem 6


def target(loss, K, c, rng):
    if loss == "linear":
        return rng.normal(size=K.d) + np.array([c["c0"], -c["c1"], 0.5, 0.0][: K.d])
    y = np.tanh(np.array([c["c0"] - c["c1"], c["c1"] + 0.3 * c["c2"]][: K.d]))
    return (K.mu + (K.hi - K.lo) / 2 * y + 0.3 * rng.normal(size=K.d)
            if isinstance(K, BoxK) else K.project(y) + 0.3 * rng.normal(size=K.d))


def contexts(n, seed):
    rng = np.random.default_rng(seed)
    return [{f"c{j}": float(v) for j, v in enumerate(rng.normal(size=3))} for _ in range(n)]


# (K, loss, gamma, N, step_size, delta, kappa)
CASES = {
    "interval-theory": (BoxK([-1.0], [1.0]), "squared", 0.3, 5, "theory", "theory", 3.0),
    "interval-offcentre": (BoxK([-2.0], [3.0]), "squared", 0.5, 4, 0.4, 0.3, 6.0),
    "box-theory": (BoxK([-1.0, -1.0], [1.0, 1.0]), "squared", 0.4, 6, "theory", "theory", 4.0),
    "box-sequence": (BoxK([-1.0, 0.0], [1.0, 2.0]), "squared", 0.25, 4,
                     [0.9, 0.5, 0.3, 0.2], 0.2, 4.0),
    "simplex-theory": (SimplexK(3), "linear", 0.4, 6, "theory", "theory", 3.0),
    "simplex-sequence": (SimplexK(4), "linear", 0.5, 3, [1.0, 0.6, 0.35], 0.15, 3.0),
}


def build(K, loss, gamma, N, step_size, delta, kappa, lr=0.3):
    """BoOCO with every parameter explicit, and the transcription on its own copies."""
    start = len(CREATED)
    model = BoOCO(**{"learner": learner_for(K, lr), "n_learners": N, "gamma": gamma,
                     "step_size": step_size, "delta": delta, "kappa": kappa,
                     "decision_set": K.onlineboost_set(),
                     "loss": losses.Squared() if loss == "squared" else losses.Linear(),
                     **PAPER_KW})
    inner = [w for w in CREATED[start + 1:]]  # the prototype first, then BoOCO's N clones
    assert len(inner) == N, f"BoOCO made {len(inner)} clones of the weak learner, expected N"
    paper = Algorithm1([learner_for(K, lr) for _ in range(N)], K, loss, gamma,
                       paper_eta(step_size, N), paper_delta(delta, K, gamma, N), kappa)
    return model, inner, paper


def staged(model, c):
    return np.asarray(model.staged_predict_one(c), dtype=float).reshape(model.n_learners, -1)


@pytest.mark.parametrize("case", list(CASES))
def test_booco_is_algorithm_1(case):
    K, loss, gamma, N, step_size, delta, kappa = CASES[case]
    model, inner, paper = build(*CASES[case])
    rng = np.random.default_rng(1)
    moved = 0.0
    for t, c in enumerate(contexts(60, 2)):
        expected = paper.play(c)
        np.testing.assert_allclose(staged(model, c), expected, atol=1e-9, err_msg=f"round {t}")
        np.testing.assert_allclose(np.atleast_1d(model.predict_one(c)), expected[-1],
                                   atol=1e-9, err_msg=f"round {t}")
        y = target(loss, K, c, rng)
        model.learn_one(c, float(y[0]) if K.d == 1 and loss == "squared" else y)
        grads = paper.learn(c, y)
        for i, w in enumerate(inner):
            assert len(w.received) == t + 1
            np.testing.assert_allclose(w.received[-1], grads[i], atol=1e-9,
                                       err_msg=f"round {t}, copy {i + 1}")
        moved = max(moved, float(np.abs(expected - K.mu).max()))
    assert moved > 0.1  # the weak learners have left the centre: the chain is exercised


@pytest.mark.parametrize("case", ["interval-theory", "box-theory", "simplex-theory"])
def test_the_theory_parameters_are_theorem_6(case):
    """step_size="theory" and delta="theory" behave as eta_i = min(2/i, 1), delta = sqrt(D^2/(gamma
    N)) given explicitly (a wrong schedule or delta makes the two boosters part)."""
    K, loss, gamma, N, *_, kappa = CASES[case]
    named, _, _ = build(K, loss, gamma, N, "theory", "theory", kappa)
    explicit, _, _ = build(K, loss, gamma, N, paper_eta("theory", N),
                           paper_delta("theory", K, gamma, N), kappa)
    rng = np.random.default_rng(3)
    for c in contexts(30, 4):
        np.testing.assert_allclose(staged(named, c), staged(explicit, c), atol=1e-12)
        y = target(loss, K, c, rng)
        y = float(y[0]) if K.d == 1 and loss == "squared" else y
        named.learn_one(c, y)
        explicit.learn_one(c, y)


def test_booco_with_linear_ogd_is_algorithm_1():
    """The same comparison with the library's stacked `LinearOGD` copies (one array operation for
    all N) against N separate `LinearOGD` learners driven by the transcription."""
    K = BoxK([-1.0], [1.0])
    gamma, N = 0.3, 5
    model = BoOCO(**{"learner": learners.LinearOGD(lr=0.5), "n_learners": N, "gamma": gamma,
                     "step_size": "theory", "delta": "theory", "kappa": 3.0,
                     "decision_set": K.onlineboost_set(), "loss": losses.Squared(), **PAPER_KW})
    copies = [learners.LinearOGD(decision_set=sets.Interval(-1.0, 1.0), lr=0.5)
              for _ in range(N)]
    paper = Algorithm1(copies, K, "squared", gamma, paper_eta("theory", N),
                       paper_delta("theory", K, gamma, N), 3.0)
    rng = np.random.default_rng(5)
    for t, c in enumerate(contexts(80, 6)):
        np.testing.assert_allclose(staged(model, c), paper.play(c), atol=1e-9,
                                   err_msg=f"round {t}")
        y = float(np.tanh(c["c0"] + c["c1"]) + 0.2 * rng.normal())
        model.learn_one(c, y)
        paper.learn(c, y)
