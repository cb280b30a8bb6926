r"""Whether a correction has anything to correct: the Bayes factor, in the played arms' losses,
of structure beyond a linear model of the context.

BoBLO's default copy plays $m(c) + w\,\hat g(c)$ (`learners.feature_policy`): the loss model
$m$, linear in the context, plus a correction $\hat g$ over random Fourier features $\psi(c)$.
Where the arms' mean losses are linear in the context the correction can only fit noise, and
that noise costs reward (issue 13: about 0.0016 a round on `streams.LinearBandit`, 10% of its
regret); where they are not, the same correction earns 0.01 to 0.2 a round. Which of the two
a stream is shows in its losses, and `StructureEvidence` weighs it: two Bayesian models of each
arm's loss $\ell$ on the rounds that arm was played, the second containing the first,

* $M_0$: $\ell = \theta_a^\top (1, c) + \varepsilon$, prior $\theta_a \sim N(0, \sigma^2 I)$;
* $M_1$: $\ell = \theta_a^\top (1, c) + \beta_a^\top \chi(c) + \varepsilon$, the same prior on
  $\theta_a$; $\chi(c)$ holds the $D$ random features $\psi(c)$ (whose squares average 1) and
  the stumps $\mathbb 1\{c_j > \tau_m\}$ of each of the $p$ context columns at $M$ thresholds
  (`cuts`; by default five per column up to 12 columns, at most 64 stumps in all, `auto_cuts`:
  structure along single columns, steps and trees, then shows as early as smooth structure
  does), $\beta_a \sim N(0, \sigma^2 s/(D + Mp) I)$, so that the structure's prior variance is
  about $s$ times the noise's ($s$ `snr`);

$\varepsilon \sim N(0, \sigma^2)$. Each arm's posterior is a recursive least squares
($A_a = \Lambda + \sum x x^\top$ over its rounds), and the played arm's loss has the
predictive density $N(\hat\theta_a^\top x,\ \sigma^2 (1 + x^\top A_a^{-1} x))$ under either
model. Summed over the rounds, the log ratio of the two models' predictive densities is the
log Bayes factor $\log p(\ell_{1..t} \mid M_1) - \log p(\ell_{1..t} \mid M_0)$, exactly when
$\sigma^2$ is known (`noise`; the tests check it against the joint Gaussian densities). By
default $\sigma^2$ is not known: each round uses the running mean of $M_0$'s standardised
squared prediction errors $(\ell - \hat\ell_0)^2 / (1 + x^\top A^{-1} x)$ so far, started at
0.25 (the largest variance of a loss in $[0, 1]$) with the weight of four rounds.

The posterior probability of structure is
$\pi_t = 1/(1 + e^{-(\log o + \log B_t)})$, $o$ the prior odds (`prior_odds`) and $B_t$ the
Bayes factor. Where the losses are linear in the context the factor falls like a power of
$t$ (Occam's factor of $M_1$'s extra columns, as the BIC's $-\tfrac{D_{\text{eff}}}{2}\log t$),
and where they are not it grows linearly in $t$, so $\pi_t$ goes to 0 or 1.
`learners.FeaturePolicy(structure_odds=...)` plays its correction at $w\,\pi_t$.

`onlineboost.boblo.STRUCTURE` (odds $10^6$, `snr` 3) was chosen on tuning seeds by a rule and
confirmed on fresh ones (its comment there): a strong prior for structure, since switching the
correction off where it earns costs far more than keeping it where it does not, and a diffuse
$M_1$, so that a stream without structure sheds the correction within a few hundred rounds.
The price of a diffuse $M_1$ is weak structure: where the correction earns a little and late
(tree-shaped classes), $\pi_t$ fell in mid-stream before the structure showed while $M_1$ had
the random features alone; the stumps catch such structure early.

Examples
--------
>>> import numpy as np
>>> from learners.structure_evidence import StructureEvidence
>>> rng = np.random.default_rng(0)
>>> W, b = rng.normal(size=(16, 2)), rng.uniform(0, 2 * np.pi, 16)
>>> def row(c):  # (1, psi(c), c), as the correction's map
...     return np.concatenate([[1.0], np.sqrt(2) * np.cos(W @ c + b), c])
>>> linear, ring = StructureEvidence(2, 16), StructureEvidence(2, 16)
>>> for _ in range(1000):
...     c, arm = rng.normal(size=2), int(rng.integers(2))
...     noise = 0.1 * rng.normal()
...     linear.update(row(c), arm, 0.5 + 0.2 * c[arm] + noise)
...     ring.update(row(c), arm, float(abs(np.linalg.norm(c) - 1) < 0.5) + noise)
>>> round(linear.probability(), 6), round(ring.probability(), 6)
(0.0, 1.0)
"""

from __future__ import annotations

import math

import numpy as np

from . import _stack_kernels

__all__ = ["MAX_ROW", "StructureEvidence"]

#: rows with a larger entry are not counted: contexts that far from standardised would swamp the
#: ridge models' arithmetic (their squares against priors of variance 1)
MAX_ROW = 1e6


class StructureEvidence:
    r"""The posterior probability that the played arms' losses have structure beyond a linear
    model of the context (module docstring).

    Parameters
    ----------
    k
        Number of arms.
    n_features
        $D \ge 1$: the rows handed to `update` are $(1, \psi(c), c)$ with $D$ random features
        $\psi(c)$ (the correction's map); the context columns may grow from one row to the next.
    prior_odds
        $o > 0$: the prior odds of structure ($M_1$) against none ($M_0$).
    snr
        $s > 0$: the structure's prior variance over the noise's.
    noise
        `None` (the running estimate of the module docstring) or a known noise variance
        $\sigma^2 > 0$.
    cuts
        `"auto"` (`auto_cuts` of the first row's context columns) or thresholds
        $\tau_1 < \dots < \tau_M$: $M_1$ also regresses on the stumps
        $\mathbb 1\{c_j > \tau_m\}$ of every context column $j$ (column by column, $M$ each),
        so that structure along single columns (steps, trees) shows as early as smooth structure
        does; `()`: the random features alone. The structure's $D + Mp$ columns ($p$ the context
        columns of the first row) each have the prior variance $\sigma^2 s/(D + Mp)$.
    """

    #: (a switch for the tests: False runs the numpy step) the step through `_stack_kernels`
    _JIT = _stack_kernels.AVAILABLE

    def __init__(self, k: int, n_features: int, prior_odds: float = 1e6, snr: float = 3.0,
                 noise: float | None = None, cuts="auto"):
        self.k = int(k)
        self.n_features = int(n_features)
        self.prior_odds = float(prior_odds)
        self.snr = float(snr)
        self.noise = None if noise is None else float(noise)
        self.cuts = (cuts if isinstance(cuts, str)
                     else np.array(cuts, dtype=np.float64).reshape(-1))
        self.log_factor = 0.0  # log B_t
        self._sq, self._count = 1.0, 4.0  # the noise estimate's sum and weight: 0.25 x 4
        self._p = None  # context columns (None: no row yet; the models are built at the first)
        self._P0 = self._theta0 = self._P1 = self._theta1 = self._u = self._x1 = None
        self._log_odds0 = math.log(self.prior_odds)
        self._prior = None  # the structure's columns' prior variance (its share of snr)

    @property
    def noise_variance(self) -> float:
        r"""$\sigma^2$ as the next round will use it."""
        return self.noise if self.noise is not None else self._sq / self._count

    def log_odds(self) -> float:
        r"""$\log o + \log B_t$: the posterior log odds of structure."""
        return self._log_odds0 + self.log_factor

    def probability(self) -> float:
        r"""$\pi_t$, the posterior probability of structure."""
        z = self.log_odds()
        if z >= 0.0:
            return 1.0 / (1.0 + math.exp(-z))
        e = math.exp(z)
        return e / (1.0 + e)

    def row(self, phi: np.ndarray) -> np.ndarray:
        r"""$M_1$'s row $(1, \psi(c), c, \text{the stumps of } c)$ for `phi` $= (1, \psi(c),
        c)$."""
        c = phi[1 + self.n_features:]
        if isinstance(self.cuts, str):  # (before the first row: "auto"'s cuts for this one)
            self.cuts = auto_cuts(len(c))
        stumps = (c[:, None] > self.cuts[None, :]).astype(np.float64).reshape(-1)
        return np.concatenate([phi, stumps])

    def _build(self, p: int) -> None:
        r"""The models at the first row, with `p` context columns (and `"auto"`'s cuts)."""
        if isinstance(self.cuts, str):
            self.cuts = auto_cuts(p)
        D, M, k = self.n_features, len(self.cuts), self.k
        self._p = p
        self._prior = self.snr / (D + M * p)
        q0, q1 = 1 + p, 1 + D + p + M * p
        self._P0 = np.repeat(np.eye(q0)[None], k, axis=0)
        self._theta0 = np.zeros((k, q0))
        d = np.ones(q1)
        d[1:1 + D] = d[1 + D + p:] = self._prior
        self._P1 = np.repeat(np.diag(d)[None], k, axis=0)
        self._theta1 = np.zeros((k, q1))
        self._u = np.empty(q1)
        self._x1 = np.empty(q1)

    def _grow(self, p: int) -> None:
        r"""Context columns up to `p` (and their stumps), each with its prior and no data."""
        D, M, k, old = self.n_features, len(self.cuts), self.k, self._p
        extra = p - old
        q0 = 1 + p
        P0 = np.zeros((k, q0, q0))
        P0[:, :1 + old, :1 + old] = self._P0
        new = np.arange(1 + old, q0)
        P0[:, new, new] = 1.0
        self._P0 = P0
        self._theta0 = np.concatenate([self._theta0, np.zeros((k, extra))], axis=1)
        # M_1's columns: (1, psi, c, stumps); the old ones keep their places up to c's end, the
        # old stumps move past the new context columns
        q1 = 1 + D + p + M * p
        keep = np.r_[np.arange(1 + D + old), np.arange(1 + D + p, 1 + D + p + M * old)]
        P1 = np.zeros((k, q1, q1))
        P1[:, keep[:, None], keep[None, :]] = self._P1
        theta1 = np.zeros((k, q1))
        theta1[:, keep] = self._theta1
        new = np.setdiff1d(np.arange(q1), keep)
        P1[:, new, new] = np.where(new < 1 + D + p, 1.0, self._prior)
        self._P1, self._theta1 = P1, theta1
        self._u = np.empty(q1)
        self._x1 = np.empty(q1)
        self._p = p

    def update(self, phi: np.ndarray, arm: int, loss: float) -> None:
        r"""Add the round where `arm` was played on the row `phi` $= (1, \psi(c), c)$ (float64,
        at least as many context columns as before; fewer are padded with 0) and lost `loss`.
        A row with an entry beyond `MAX_ROW` in magnitude changes nothing. Not validated: the
        caller passes finite floats."""
        p = self._p
        if p is None or len(phi) != 1 + self.n_features + p:
            p = len(phi) - 1 - self.n_features
            if not float(np.max(np.abs(phi))) <= MAX_ROW:
                return
            if self._p is None:
                self._build(p)
            elif p > self._p:
                self._grow(p)
            else:
                phi = np.concatenate([phi, np.zeros(self._p - p)])
        s2 = self.noise_variance
        if self._JIT:
            ok, step, e0 = _stack_kernels.evidence_step(
                self._P0, self._theta0, self._P1, self._theta1, arm, phi, self.n_features,
                self.cuts, loss, s2, MAX_ROW, self._u, self._x1)
            if not ok:
                return
        else:
            if not float(np.max(np.abs(phi))) <= MAX_ROW:
                return
            D, p = self.n_features, self._p
            x1 = self.row(phi)
            x0 = np.concatenate([x1[:1], x1[1 + D:1 + D + p]])
            m0, v0 = _ridge_step(self._P0[arm], self._theta0[arm], x0, loss)
            m1, v1 = _ridge_step(self._P1[arm], self._theta1[arm], x1, loss)
            e0 = (loss - m0) ** 2 / (1.0 + v0)
            e1 = (loss - m1) ** 2 / (1.0 + v1)
            step = -0.5 * math.log((1.0 + v1) / (1.0 + v0)) - 0.5 * (e1 - e0) / s2
        self.log_factor += step
        self._sq += e0
        self._count += 1.0

    def discount(self, factor: float) -> None:
        r"""Count every past round $1/$`factor` as much (a drift's reset, as the stacks'
        `discount`): both models' information matrices (their priors' share too) and the
        noise estimate's weight divided by `factor`, the log Bayes factor as well."""
        if self._p is not None:
            self._P0 *= factor
            self._P1 *= factor
        self.log_factor /= factor
        self._sq /= factor
        self._count /= factor


def auto_cuts(p: int) -> np.ndarray:
    r"""`"auto"`'s thresholds for `p` context columns: $M = \min(5, \max(1, \lfloor 64/p
    \rfloor))$ per column, evenly spaced on $[-1.2, 1.2]$ (0 alone for one): at most 64 stumps
    in all, five per column up to 12 columns.

    >>> auto_cuts(10).tolist(), auto_cuts(18).tolist(), auto_cuts(64).tolist()
    ([-1.2, -0.6, 0.0, 0.6, 1.2], [-1.2, 0.0, 1.2], [0.0])
    """
    m = min(5, max(1, 64 // max(int(p), 1)))
    return np.linspace(-1.2, 1.2, m) if m > 1 else np.zeros(1)


def _ridge_step(P: np.ndarray, theta: np.ndarray, x: np.ndarray, y: float) -> tuple:
    r"""`_stack_kernels._ridge_step` in numpy (the same operations, BLAS's sums)."""
    u = P @ x
    v = float(x @ u)
    m = float(theta @ x)
    s = 1.0 + v
    theta += ((y - m) / s) * u
    w = u / math.sqrt(s)
    P -= w[:, None] * w
    return m, v
