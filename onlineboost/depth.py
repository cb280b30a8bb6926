r"""Choose a booster's depth from what the bandit reveals: `FitLead` by how well its stages
predict the observed losses, `PlayLead` by whether their decisions beat the first stage's.

A booster's stages $j = 0..M-1$ each play a law $\pi^j_t$ over $k$ arms built from a cost
model $\hat y_{j,t} \in \mathbb R^k$ (BoBLO's residual stack: the loss model plus the summed
corrections of copies $1..j+1$, `predicted_costs`). The bandit reveals the loss
$\ell_t(a_t) \in [0, 1]$ of the played arm every round, so every stage's prediction error **at
the played arm** is observed, with no importance weight. `FitLead` plays expert 0 (the first
stage) exactly until some stage is a better online regression of the played arms' losses than
stage 0 beyond noise, a time-uniform test with no $1/\pi^0$ in it: its margin stays small
when a greedy first stage rarely plays the arms a later stage would, where `exp4.LeadExp4`'s
importance weighted margin explodes (issue 13). It is `BoBLO(n_learners>1)`'s
`aggregate="auto"` under the `"dr"` estimator with weak learners whose stacks predict costs
(from the sixth session, where `LeadExp4` never switched away from the annealed first copy on
`streams.NonlinearBandit`, to the fifteenth, the default's too).

`PlayLead` tests decisions instead (`DecisionLead`, the test of `onlineboost.NeighbourBoBLO`,
one per stage): since the sixteenth session it is what `aggregate="auto"` gives the default
learner's nearest-neighbour later copies, whose gain on issue 13's digits stream a regression
test does not see.
"""

from __future__ import annotations

import numpy as np

from . import _boost_kernels
from ._checks import check_int, check_real
from .exp4 import Exp4, ville_grid, ville_margins

__all__ = ["DecisionLead", "FitLead", "PlayLead"]

#: what `FitLead` plays after the switch
THEN = ("exp4", "follow")
#: the law under which each stage's costs are brought to the reference's level
ANCHORS = ("uniform", "played")


class FitLead:
    r"""Expert 0 alone until a stage predicts the played arms' losses better beyond noise.

    Protocol: `distribution(advice, costs, reference)` then `update(arm, loss)`, losses in
    $[0, 1]$; `advice` `(M, k)` holds the experts' laws (rows on the simplex, expert 0's
    positive), `costs` `(M, k)` every expert's predicted loss of every arm, `reference` `(k,)`
    a calibrated prediction of the losses (BoBLO: its loss model $m_t$) or `None`.

    **The fitted predictions.** A softmax (any law of the costs' differences) ignores a shift
    of a stage's costs common to all arms, and BoBLO's stages carry one (BoOCO passes the
    extended loss's gradient at the simplex's centre, the estimate minus its arm mean: the
    stages predict the loss minus about its arm mean, 0.3-0.8 below the observed losses on the
    development streams, while the loss model $m_t$ is calibrated). So each row is first
    re-anchored by what the play ignores:
    $$\tilde y_{j,t} = \operatorname{clip}_{[0, 1]}\bigl(\hat y_{j,t} - \langle w_t, \hat y_{j,t}
      - r_t\rangle\bigr)$$
    ($r_t$ the `reference`; `None`: no shift, the costs are taken as calibrated), with $w_t$
    the uniform law over the arms (`anchor="uniform"`) or the played law $p_t = \pi^0_t$
    (`"played"`): stage $j$'s arm differences, at the reference's level on average over $w_t$.
    Either way the comparison is invariant to any arm-independent shift of any stage's costs
    (up to the clip, which keeps every increment bounded). The uniform anchor is the default:
    under a nearly greedy played law, anchoring under it pins every stage to the reference
    at the arm that is played, where the stages then agree and the test sees nothing (with
    BoBLO's annealed first copy, `anchor="played"` switched on 1 of 5 `NonlinearBandit`
    tuning seeds, the uniform anchor on 5 of 5).

    **The lead** of expert $j$ over expert 0 is the cumulative difference of squared errors at
    the played arm,
    $$\Lambda_{t,j} = \sum_{s \le t} Z_{s,j}, \quad Z_{s,j} = (\ell_s - \tilde y_{0,s}(a_s))^2
      - (\ell_s - \tilde y_{j,s}(a_s))^2 = d_s(a_s)\,(2\ell_s - \sigma_s(a_s)),$$
    $d = \tilde y_j - \tilde y_0$, $\sigma = \tilde y_j + \tilde y_0 \in [0, 2]$. Its increments
    have mean $D_{s,j} = \mathbb E_{a \sim p_s}\bigl[(\mu_s(a) - \tilde y_{0,s}(a))^2 -
    (\mu_s(a) - \tilde y_{j,s}(a))^2\bigr]$ given the past ($\mu_s(a)$ the arm's mean loss; the
    noise's variance cancels), and are at most $|d_s(a_s)|\cdot 2$: small when the two stages
    predict alike. **The margin**: $\phi_\lambda(x) = e^{\lambda x} - 1 - \lambda x$ is convex,
    so for $\ell \in [0, 1]$, $\phi_\lambda(d(2\ell - \sigma)) \le \max(\phi_\lambda(d(2 -
    \sigma)), \phi_\lambda(-d\sigma))$ and
    $$\psi_{s,j}(\lambda) = \sum_a p_s(a)\max\bigl(\phi_\lambda(d_s(a)(2 - \sigma_s(a))),\
      \phi_\lambda(-d_s(a)\sigma_s(a))\bigr)$$
    is a predictable bound of $\ln \mathbb E e^{\lambda(Z - D)}$; with $\Psi_{t,j} = \sum_{s
    \le t} \psi_{s,j}$ the process $\exp(\lambda(\Lambda_{t,j} - \sum_s D_{s,j}) -
    \Psi_{t,j}(\lambda))$ is a supermartingale for every $\lambda > 0$, and Ville's
    inequality with a union over the experts $j \ne 0$ and the rates $\lambda_i = 2^{-i}$
    (`exp4.ville_grid`, as `LeadExp4`) gives the margin
    $B_{t,j} = \min_i (\ln(1/\delta_i) + \Psi_{t,j}(\lambda_i))/\lambda_i$ (`margins`). After
    the first round where some $\Lambda_{t,j} \ge B_{t,j}$ (the largest excess over the margin
    names the expert, `expert`), **phase 2** plays, by `then`:

    * `"follow"`: that expert's law, $p_t = \pi^j_t$;
    * `"exp4"`: `Exp4` with `prior`, afresh (its losses counted from the next round), as
      `LeadExp4` does.

    **Guarantee.** With probability at least $1 - \delta$ (`confidence`), for every round and
    expert at once, $\sum_{s \le t} D_{s,j} \ge \Lambda_{t,j} - B_{t,j}$; so a switch at round
    $\tau$ to expert $j$ means $\sum_{s \le \tau} D_{s,j} > 0$: stage $j$'s cumulative expected
    squared error of the played arms' mean losses (fitted predictions, arms drawn from the
    played law) was smaller than stage 0's. The null it rejects is "stage $j$ predicts the
    played arms' losses no better than stage 0". This is **not** a statement about the value
    of stage $j$'s policy: a better regression of the arms the first stage plays need not
    rank the arms better where it matters, and nothing bounds the regret against a stage
    whose predictions are worse but whose law is better. Expected regret against expert 0 is
    0 over phase 1 ($p_t = \pi^0_t$, the same floats); after it, Exp4's bound over the
    $T - \tau$ remaining rounds (`"exp4"`), or nothing (`"follow"`: it plays stage $j$).

    Parameters
    ----------
    n_experts
        $M \ge 1$ (expert 0 is the one played in phase 1).
    n_arms
        $k \ge 1$.
    prior
        Exp4's prior in phase 2 under `then="exp4"` (`None`: uniform).
    confidence
        $\delta \in (0, 1)$ of the test.
    then
        `"exp4"` or `"follow"`: what phase 2 plays (above).
    anchor
        `"uniform"` or `"played"`: the law $w$ of the anchoring (above).

    Examples
    --------
    Two stages on two arms of mean losses 0.3 and 0.6; expert 0 predicts 0.5 for both, expert
    1 the true means (shifted by 10 on both arms, which the anchoring to the reference undoes):

    >>> import numpy as np
    >>> from onlineboost.depth import FitLead
    >>> agg = FitLead(n_experts=2, n_arms=2, then="follow")
    >>> rng = np.random.default_rng(0)
    >>> advice = np.array([[0.5, 0.5], [0.9, 0.1]])
    >>> costs = np.array([[0.5, 0.5], [10.3, 10.6]])
    >>> for t in range(400):
    ...     p = agg.distribution(advice, costs, reference=np.array([0.45, 0.45]))
    ...     a = int(rng.random() >= p[0])
    ...     agg.update(a, float(rng.random() < (0.3 if a == 0 else 0.6)))
    >>> agg.switch_round, agg.expert, agg.lead.round(1), agg.margins.round(1)
    (134, 1, array([0. , 5.6]), array([3.7, 5.6]))
    >>> agg.distribution(advice, costs).tolist()  # then expert 1's law
    [0.9, 0.1]

    The fitted rows are $(0.45, 0.45)$ and $(0.3, 0.6)$: each round expert 1's expected
    squared error is $0.0225$ smaller, the lead grows by about that much, and the margin by
    about $\sqrt{t}$ (the increments' range is $2|d| = 0.3$).
    """

    #: (a switch for the tests: False keeps the bounds on numpy; off without numba) the
    #: leads' step and the cumulant bounds through `_boost_kernels.fit_round` (the same floats)
    _JIT = _boost_kernels.AVAILABLE

    def __init__(self, n_experts: int, n_arms: int, prior=None, confidence: float = 0.05,
                 then: str = "exp4", anchor: str = "uniform"):
        self._exp4_args = (n_experts, n_arms, prior)
        proto = Exp4(n_experts, n_arms, prior)  # validates n_experts, n_arms, prior
        self.confidence = check_real("confidence", confidence, 0.0, 1.0, low_open=True)
        if self.confidence >= 1.0:
            raise ValueError(f"confidence must be below 1, got {confidence!r}")
        if then not in THEN:
            raise ValueError(f"then must be 'exp4' or 'follow', got {then!r}")
        self.then = then
        if anchor not in ANCHORS:
            raise ValueError(f"anchor must be 'uniform' or 'played', got {anchor!r}")
        self.anchor = anchor
        self.n_experts, self.n_arms, self.prior = proto.n_experts, proto.n_arms, proto.prior
        M = self.n_experts
        self._lam, self._log_inv = ville_grid(M - 1, self.confidence)
        self._floor = float(self._log_inv.min())  # every margin is at least this (lambda <= 1)
        self._lead = np.zeros(M)  # Lambda_{t,j}: expert 0's squared error minus expert j's
        self._psi = np.zeros((M, len(self._lam)))  # Psi_{t,j}(lambda_i)
        self._t = 0  # rounds charged
        self.switch_round = None  # tau: the round after which phase 2 began
        self.expert = None  # the expert that triggered the switch
        self._exp4 = None  # phase 2's Exp4 (then="exp4")
        self._pending = None  # (advice, fitted predictions) of the last distribution()

    # -- read-outs -------------------------------------------------------------------------------

    @property
    def margins(self) -> np.ndarray:
        r"""$B_{t,j}$ for every expert (class docstring), frozen at the switch."""
        return ville_margins(self._log_inv, self._psi, self._lam)

    @property
    def lead(self) -> np.ndarray:
        r"""$\Lambda_{t,j}$ for every expert (0 for expert 0), frozen at the switch."""
        return self._lead.copy()

    @property
    def mixing(self) -> bool:
        """Whether phase 2 has begun."""
        return self.switch_round is not None

    @property
    def weights(self) -> np.ndarray:
        """The experts' weights: all on expert 0 in phase 1; after, all on the switching
        expert (`"follow"`) or Exp4's."""
        if self._exp4 is not None:
            return self._exp4.weights
        return np.eye(1, self.n_experts, 0 if self.expert is None else self.expert)[0]

    @property
    def last_advice(self) -> np.ndarray | None:
        """The advice of the last `distribution` call not yet charged by `update` (or None)."""
        if self._exp4 is not None:
            return self._exp4.last_advice
        return None if self._pending is None else self._pending[0].copy()

    # -- one round -------------------------------------------------------------------------------

    def _uniform(self, k: int) -> np.ndarray:
        """The uniform law over `k` arms (made once; not to be written to)."""
        w = getattr(self, "_w_uniform", None)  # (aggregators pickled before it)
        if w is None or len(w) != k:
            w = self._w_uniform = np.full(k, 1.0 / k)
        return w

    def fitted(self, p: np.ndarray, costs: np.ndarray, reference=None) -> np.ndarray:
        r"""$\tilde y_j = \operatorname{clip}_{[0,1]}(\hat y_j - \langle w, \hat y_j -
        r\rangle)$ for every row of `costs`, $w$ uniform or the played law `p` (`anchor`;
        class docstring; `reference` $r$ `None`: no shift)."""
        if reference is not None:
            w = p if self.anchor == "played" else self._uniform(len(p))
            costs = costs - (costs @ w - float(reference @ w))[:, None]
        return costs.clip(0.0, 1.0)

    def distribution(self, advice: np.ndarray, costs: np.ndarray, reference=None) -> np.ndarray:
        """Expert 0's row in phase 1 (the same floats); after the switch the switching
        expert's row (`"follow"`) or Exp4's mixture.

        Not validated: the caller passes finite rows on the simplex, expert 0's positive, and
        `costs` of the same shape."""
        if self._exp4 is not None:
            return self._exp4.distribution(advice)
        if self.expert is not None:
            self._pending = (advice, None)
            return advice[self.expert]
        p = advice[0]
        self._pending = (advice, self.fitted(p, costs, reference))
        return p

    def update(self, arm: int, loss: float) -> None:
        """Charge the round; in phase 1 move the leads and cumulant bounds and switch once a
        lead reaches its margin. `loss` in $[0, 1]$ (not validated)."""
        if self._exp4 is not None:
            self._exp4.update(arm, loss)
            return
        advice, Y = self._pending
        self._pending = None
        if self.expert is not None:  # "follow": nothing left to test
            return
        self._t += 1
        p = advice[0]
        lam = self._lam
        if self._JIT:  # (the same floats, one call: the leads' step and the bounds below)
            F = np.empty((len(Y) - 1, Y.shape[1], len(lam)))
            _boost_kernels.fit_round(Y, arm, float(loss), lam, self._lead, F)
        else:
            y0 = Y[0]
            d = Y - y0  # (M, k): d(a)
            s = Y + y0  # sigma(a) in [0, 2]
            self._lead += d[:, arm] * (2.0 * loss - s[:, arm])  # (l - y0)^2 - (l - yj)^2
            # lambda Z at l = 1 and at l = 0, (2, M - 1, k, grid), for the experts j >= 1
            # (expert 0's d is 0: its phi_lambda are 0, its bound stays 0); phi_lambda at both,
            # the larger
            d, s = d[1:], s[1:]
            X = np.empty((2,) + d.shape + lam.shape)
            np.multiply((d * (2.0 - s))[..., None], lam, out=X[0])
            np.multiply((-d * s)[..., None], lam, out=X[1])
            F = np.expm1(X)
            F -= X
            F = np.maximum(F[0], F[1])
        self._psi[1:] += p @ F  # sum_a p(a) max(...), (M - 1, grid)
        lead = self._lead
        if lead.max() >= self._floor:
            excess = lead - self.margins
            if excess.max() >= 0.0:
                self.switch_round = self._t
                self.expert = int(np.argmax(excess))
                if self.then == "exp4":
                    self._exp4 = Exp4(*self._exp4_args)


class DecisionLead:
    r"""The decision lead $\Lambda_t = \sum Z_s$ of bounded increments and its time-uniform
    margin (`onlineboost.neighbours`' module docstring): `add(loss, predicted)` counts $Z = $
    `loss` $-$
    $\operatorname{clip}_{[0,1]}$(`predicted`), `loss` in $[0, 1]$; `passed` is whether
    $\Lambda_t \ge B_t = \min_i (\ln(1/\delta_i) + n_t\lambda_i^2/8)/\lambda_i$ (`exp4.ville_grid`'s
    rates and union). If every counted increment has conditional mean $\le 0$, `passed` is ever
    true with probability at most `confidence`; `n_tests` such tests at once (`PlayLead`'s
    stages) each spend `confidence / n_tests` (the union of `exp4.ville_grid`).

    Examples
    --------
    >>> from onlineboost.depth import DecisionLead
    >>> test = DecisionLead(confidence=0.05)
    >>> for _ in range(40):
    ...     test.add(1.0, 0.2)  # a loss of 1 where 0.2 was predicted for the alternative
    >>> round(test.lead, 6), test.counted, round(test.margin, 3), test.passed
    (32.0, 40, 8.689, True)
    """

    def __init__(self, confidence: float = 0.05, n_tests: int = 1):
        self.confidence = check_real("confidence", confidence, 0.0, 1.0, low_open=True)
        if self.confidence >= 1.0:
            raise ValueError(f"confidence must be below 1, got {confidence!r}")
        self._lam, self._log_inv = ville_grid(n_tests, self.confidence)
        self.lead, self.counted = 0.0, 0
        self._margin = (-1, 0.0)  # (counted, its margin): a function of the count alone

    def add(self, loss: float, predicted: float) -> None:
        self.lead += loss - min(max(predicted, 0.0), 1.0)
        self.counted += 1

    @property
    def margin(self) -> float:
        """$B_t$ for the increments counted so far."""
        if self._margin[0] != self.counted:
            psi = self.counted * 0.125 * self._lam ** 2
            self._margin = (self.counted,
                            float(ville_margins(self._log_inv, psi[None, :], self._lam)[0]))
        return self._margin[1]

    @property
    def passed(self) -> bool:
        return self.lead > 0.0 and self.counted > 0 and self.lead >= self.margin


class PlayLead:
    r"""Expert 0 alone until a stage's greedy arms beat expert 0's where they differ, beyond
    noise; then that stage.

    The protocol is `FitLead`'s: `distribution(advice, costs, reference)` then
    `update(arm, loss)`, losses in $[0, 1]$, `advice` `(M, k)` the experts' laws (expert 0's
    positive), `costs` `(M, k)` every expert's predicted loss of every arm, `reference` `(k,)`
    a calibrated prediction of the losses (BoBLO: its loss model $m_t$) or `None`.

    **The decision leads.** Expert 0's costs are anchored to the reference as `FitLead`
    anchors them (uniform weights), $\tilde y_0 = \operatorname{clip}_{[0,1]}(\hat y_0 -
    \langle w, \hat y_0 - r\rangle)$. Let $g_j = \arg\min_a \hat y_j(a)$ be stage $j$'s greedy
    arm. On a round after the first `warm_up` where expert 0's greedy arm $g_0$ is the arm
    played and $g_j \ne g_0$, stage $j$'s lead grows by $Z = \ell_t - \tilde y_0(g_j)$: the
    observed loss of expert 0's choice against expert 0's own prediction for stage $j$'s
    (`DecisionLead`, the test of `onlineboost.NeighbourBoBLO`, one per stage with the
    confidence shared among the $M - 1$ stages). No importance weight enters: the loss of the
    played arm is seen whatever its probability. The first round on which some stage's lead
    reaches its Hoeffding-Ville margin, the stage whose lead exceeds it most plays from then
    on (its own law, `advice[j]`), for good unless the check below reverts it.

    **The switch checked** (`revert=True`, `BoBLO`'s choice since issue 13's seventeenth
    session). The switch trusts expert 0's prediction for the stage's arm, which where the two
    differ can be as optimistic as its prediction for its own. After the switch to stage $j$,
    a round counts where the arm played is $g_j$ and $g_0 \ne g_j$; its increment is the
    mirror image of the switch's, $Z = \ell_t - \tilde y_0(g_0)$: the stage's observed loss
    against expert 0's own prediction for its arm (a `DecisionLead` at confidence
    $\delta/2$). Once it reaches its margin, expert 0 plays again, for good (`revert_round`):
    a switch that an optimistic expert 0 set off is undone by the same optimism, unless the
    stage's arm really is better.

    **Guarantee.** If for every stage, on the counted rounds, expert 0's arm is in
    expectation no worse than expert 0 predicts the stage's arm to be ($\mathbb E[\ell(g_0)]
    \le \tilde y_0(g_j)$), the switch happens with probability at most `confidence`. It is a
    test of decisions, where `FitLead`'s is one of regression: on issue 13's digits stream
    a stage of nearest-neighbour copies plays better while fitting the played losses worse,
    and only this test sees it (`benchmarks/bandit_neighbours.py`, sixteenth session). No
    regret bound is claimed after the switch. The check reverts with probability at most
    $\delta/2$ if on its rounds the stage's arm is in expectation no worse than expert 0
    predicts its own arm to be ($\mathbb E[\ell(g_j)] \le \tilde y_0(g_0)$).

    Parameters
    ----------
    n_experts, n_arms, prior
        As `exp4.Exp4`'s (`prior` is validated there and not used).
    confidence
        $\delta$: each stage's test spends $\delta/(M - 1)$; the check $\delta/2$.
    warm_up
        Rounds charged before any lead counts.
    revert
        Check the switch and return to expert 0 if the stage loses more where they differ
        than expert 0 predicts for its own arm (above); False: the stage plays for good (the
        sixteenth session's `PlayLead`).

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost.depth import PlayLead
    >>> agg = PlayLead(n_experts=2, n_arms=2, warm_up=0)
    >>> advice = np.array([[0.9, 0.1], [0.1, 0.9]])
    >>> costs = np.array([[0.2, 0.5], [0.6, 0.3]])  # expert 1 would play arm 1
    >>> for t in range(30):  # expert 0's arm 0 keeps losing 1, predicted 0.5 for arm 1
    ...     p = agg.distribution(advice, costs, reference=np.array([0.2, 0.5]))
    ...     agg.update(0, 1.0)
    >>> agg.switch_round, agg.expert, agg.distribution(advice, costs)
    (10, 1, array([0.1, 0.9]))

    Checked, a switch whose stage does worse where the two differ is undone:

    >>> costs = np.array([[0.1, 0.45], [0.6, 0.3]])  # expert 0 predicts 0.45 for arm 1
    >>> agg = PlayLead(n_experts=2, n_arms=2, warm_up=0, revert=True)
    >>> for t in range(1000):  # arm 0 loses 1, 1, 1, 0, 0, ... (0.6 on average)
    ...     p = agg.distribution(advice, costs)
    ...     agg.update(0, float(t % 5 < 3))
    ...     if agg.mixing:
    ...         break
    >>> agg.switch_round, agg.expert
    (98, 1)
    >>> for t in range(1000):  # arm 1 loses 1, where expert 0 predicts 0.1 for arm 0
    ...     p = agg.distribution(advice, costs)
    ...     agg.update(1, 1.0)
    ...     if not agg.mixing:
    ...         break
    >>> agg.revert_round, agg.expert, agg.distribution(advice, costs)
    (104, None, array([0.9, 0.1]))
    """

    # (instances pickled before `revert`: unchecked, no record)
    revert = False
    revert_round = None
    _check = None

    def __init__(self, n_experts: int, n_arms: int, prior=None, confidence: float = 0.05,
                 warm_up: int = 250, revert: bool = False):
        proto = Exp4(n_experts, n_arms, prior)  # validates n_experts, n_arms, prior
        self.n_experts, self.n_arms = proto.n_experts, proto.n_arms
        M = self.n_experts
        self.confidence = check_real("confidence", confidence, 0.0, 1.0, low_open=True)
        self._tests = [DecisionLead(confidence, n_tests=M - 1) for _ in range(M - 1)]
        self.warm_up = check_int("warm_up", warm_up, 0)
        if not isinstance(revert, (bool, np.bool_)):
            raise ValueError(f"revert must be True or False, got {revert!r}")
        self.revert = bool(revert)
        self._t = 0  # rounds charged
        self.switch_round = None  # the round after which the switching stage plays
        self.expert = None  # the stage that switched (None again once reverted)
        self.revert_round = None  # the round after which expert 0 plays again, for good
        self._check = None  # after a switch under `revert`: its DecisionLead
        self._pending = None  # (expert 0's anchored costs, the greedy arms) of the last round
        self._w = np.full(self.n_arms, 1.0 / self.n_arms)

    @property
    def mixing(self) -> bool:
        """Whether a stage plays (the switch happened and was not reverted)."""
        return self.expert is not None

    @property
    def lead(self) -> np.ndarray:
        r"""$\Lambda_{t,j}$ for every expert (0 for expert 0)."""
        return np.array([0.0] + [test.lead for test in self._tests])

    @property
    def margins(self) -> np.ndarray:
        r"""$B_{t,j}$ for every expert (0 for expert 0)."""
        return np.array([0.0] + [test.margin for test in self._tests])

    @property
    def weights(self) -> np.ndarray:
        """All on expert 0 before the switch, on the switching stage after."""
        return np.eye(1, self.n_experts, 0 if self.expert is None else self.expert)[0]

    @property
    def last_advice(self) -> None:
        """(`FitLead`'s read-out; this aggregate keeps none.)"""
        return None

    def distribution(self, advice: np.ndarray, costs: np.ndarray, reference=None) -> np.ndarray:
        """Expert 0's row (the same floats) until the switch, the switching stage's after.
        Not validated: the caller passes finite rows, `costs` of `advice`'s shape."""
        if self.expert is not None:
            if self._check is None:
                self._pending = None
            else:  # (the switch's check: the two greedy arms, expert 0's prediction for its own)
                g0 = int(costs[0].argmin())
                self._pending = (g0, int(costs[self.expert].argmin()),
                                 float(self._anchored(costs[0], reference)[g0]))
            return advice[self.expert]
        if self.revert_round is not None:  # (expert 0 for good: nothing to count)
            self._pending = None
            return advice[0]
        self._pending = (self._anchored(costs[0], reference), costs.argmin(axis=1))
        return advice[0]

    def _anchored(self, y0: np.ndarray, reference) -> np.ndarray:
        """Expert 0's costs anchored to `reference` (uniform weights), clipped to [0, 1]."""
        if reference is not None:
            y0 = y0 - (float(y0 @ self._w) - float(reference @ self._w))
        return y0.clip(0.0, 1.0)

    def update(self, arm: int, loss: float) -> None:
        """Charge the round: count it in every stage's lead where it applies (class
        docstring) and switch on the first lead past its margin. `loss` in $[0, 1]$."""
        pending, self._pending = self._pending, None
        if pending is None:
            return
        self._t += 1
        if self.expert is not None:  # the switch's check (`revert`)
            g0, gj, predicted = pending
            if arm == gj != g0:
                check = self._check
                check.add(float(loss), predicted)
                if check.passed:
                    self.revert_round, self.expert, self._check = self._t, None, None
            return
        y0, greedy = pending
        g0 = int(greedy[0])
        if self._t <= self.warm_up or arm != g0:
            return
        best, excess = None, 0.0
        for j, test in enumerate(self._tests, start=1):
            gj = int(greedy[j])
            if gj != g0:
                test.add(float(loss), float(y0[gj]))
                if test.passed and (best is None or test.lead - test.margin > excess):
                    best, excess = j, test.lead - test.margin
        if best is not None:
            self.switch_round, self.expert = self._t, best
            if self.revert:
                self._check = DecisionLead(self.confidence / 2)
