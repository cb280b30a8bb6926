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
* $M_1$: $\ell = \theta_a^\top (1, c) + \beta_a^\top \psi(c) + \varepsilon$, the same prior on
  $\theta_a$ and $\beta_a \sim N(0, \sigma^2 (s/D) I)$ on the $D$ random features (whose
  squares average 1), so that the structure's prior variance is $s$ times the noise's ($s$
  `snr`);

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
The price of that diffuse $M_1$ is weak structure: where the correction earns a little and
late (tree-shaped classes), $\pi_t$ can fall in mid-stream before the structure shows, which is
why it is an option of `BoBLO`, not its default.

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
    """The posterior probability that the played arms' losses have structure beyond a linear
    model of the context (module docstring).

    Parameters
    ----------
    k
        Number of arms.
    n_features
        $D \\ge 1$: the rows are $(1, \\psi(c), c)$ with $D$ random features $\\psi(c)$ (the
        correction's map); the context columns may grow from one row to the next.
    prior_odds
        $o > 0$: the prior odds of structure ($M_1$) against none ($M_0$).
    snr
        $s > 0$: the structure's prior variance over the noise's.
    noise
        `None` (the running estimate of the module docstring) or a known noise variance
        $\\sigma^2 > 0$.
    """

    #: (a switch for the tests: False runs the numpy step) the step through `_stack_kernels`
    _JIT = _stack_kernels.AVAILABLE

    def __init__(self, k: int, n_features: int, prior_odds: float = 1e6, snr: float = 3.0,
                 noise: float | None = None):
        self.k = int(k)
        self.n_features = int(n_features)
        self.prior_odds = float(prior_odds)
        self.snr = float(snr)
        self.noise = None if noise is None else float(noise)
        self.log_factor = 0.0  # log B_t
        self._sq, self._count = 1.0, 4.0  # the noise estimate's sum and weight: 0.25 x 4
        D = self.n_features
        self._P0 = np.zeros((self.k, 1, 1))  # (grown to the first row's columns)
        self._theta0 = np.zeros((self.k, 1))
        self._P1 = np.zeros((self.k, 1 + D, 1 + D))
        self._theta1 = np.zeros((self.k, 1 + D))
        self._P0[:, 0, 0] = self._P1[:, 0, 0] = 1.0
        idx = np.arange(1, 1 + D)
        self._P1[:, idx, idx] = self.snr / D
        self._u = np.empty(1 + D)

    @property
    def noise_variance(self) -> float:
        """$\\sigma^2$ as the next round will use it."""
        return self.noise if self.noise is not None else self._sq / self._count

    def log_odds(self) -> float:
        """$\\log o + \\log B_t$: the posterior log odds of structure."""
        return math.log(self.prior_odds) + self.log_factor

    def probability(self) -> float:
        """$\\pi_t$, the posterior probability of structure."""
        z = self.log_odds()
        if z >= 0.0:
            return 1.0 / (1.0 + math.exp(-z))
        e = math.exp(z)
        return e / (1.0 + e)

    def _grow(self, p: int) -> None:
        """Context columns up to `p`, each with the prior's variance (1) and no data."""
        q1 = self._P1.shape[1]
        D = self.n_features
        extra = 1 + D + p - q1
        for name in ("_P0", "_P1"):
            P = getattr(self, name)
            q = P.shape[1]
            Q = np.zeros((self.k, q + extra, q + extra))
            Q[:, :q, :q] = P
            new = np.arange(q, q + extra)
            Q[:, new, new] = 1.0
            setattr(self, name, Q)
        self._theta0 = np.concatenate([self._theta0, np.zeros((self.k, extra))], axis=1)
        self._theta1 = np.concatenate([self._theta1, np.zeros((self.k, extra))], axis=1)
        self._u = np.empty(1 + D + p)

    def update(self, phi: np.ndarray, arm: int, loss: float) -> None:
        """Add the round where `arm` was played on the row `phi` $= (1, \\psi(c), c)$ (float64,
        at least as many context columns as before; fewer are padded with 0) and lost `loss`.
        A row with an entry beyond `MAX_ROW` in magnitude changes nothing. Not validated: the
        caller passes finite floats."""
        if not float(np.max(np.abs(phi))) <= MAX_ROW:
            return
        D = self.n_features
        q1 = self._P1.shape[1]
        if len(phi) > q1:
            self._grow(len(phi) - 1 - D)
        elif len(phi) < q1:
            phi = np.concatenate([phi, np.zeros(q1 - len(phi))])
        s2 = self.noise_variance
        if self._JIT:
            m0, v0, m1, v1 = _stack_kernels.evidence_step(
                self._P0, self._theta0, self._P1, self._theta1, int(arm),
                np.ascontiguousarray(phi, dtype=np.float64), D, float(loss), self._u)
        else:
            x0 = np.concatenate([phi[:1], phi[1 + D:]])
            m0, v0 = _ridge_step(self._P0[arm], self._theta0[arm], x0, loss)
            m1, v1 = _ridge_step(self._P1[arm], self._theta1[arm], phi, loss)
        e0 = (loss - m0) ** 2 / (1.0 + v0)
        e1 = (loss - m1) ** 2 / (1.0 + v1)
        self.log_factor += -0.5 * math.log((1.0 + v1) / (1.0 + v0)) - 0.5 * (e1 - e0) / s2
        self._sq += e0
        self._count += 1.0

    def discount(self, factor: float) -> None:
        """Count every past round $1/$`factor` as much (a drift's reset, as the stacks'
        `discount`): both models' information matrices (their priors' share too) and the
        noise estimate's weight divided by `factor`, the log Bayes factor as well."""
        for P in (self._P0, self._P1):
            P *= factor
        self.log_factor /= factor
        self._sq /= factor
        self._count /= factor


def _ridge_step(P: np.ndarray, theta: np.ndarray, x: np.ndarray, y: float) -> tuple:
    """`_stack_kernels._ridge_step` in numpy (the same operations, BLAS's sums)."""
    u = P @ x
    v = float(x @ u)
    m = float(theta @ x)
    s = 1.0 + v
    theta += ((y - m) / s) * u
    w = u / math.sqrt(s)
    P -= w[:, None] * w
    return m, v
