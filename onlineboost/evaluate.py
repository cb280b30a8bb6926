r"""Progressive evaluation of contextual bandit policies on `streams` bandit environments.

Each round the policy pulls an arm for the context, the stream answers that arm's reward only,
and the policy is updated with it (the policy never sees another arm's reward). Alongside, the
evaluator (not the policy) reads the round's full reward vector to train a full-information
skyline, and the expected rewards, when the environment knows them, for the exact regret
$$R_T = \sum_{t \le T} \mu^\star(c_t) - \mu_{a_t}(c_t)$$
against the optimal policy.
"""

from __future__ import annotations

import dataclasses
import inspect
import time

import numpy as np

__all__ = ["BanditResult", "bandit", "default_skyline"]


def default_skyline():
    """Full-information skyline: online softmax regression on standardised contexts, trained on
    the best arm of every round (river `StandardScaler | SoftmaxRegression`)."""
    from river import linear_model, preprocessing

    return preprocessing.StandardScaler() | linear_model.SoftmaxRegression()


@dataclasses.dataclass
class BanditResult:
    """What `bandit` measured: per-round rewards and the curves derived from them.

    Attributes
    ----------
    name
        The policy's name.
    rewards
        Reward of the played arm, one per round.
    skyline_rewards
        Reward of the full-information skyline's arm, one per round (or `None`).
    regret
        Cumulative regret against the optimal policy, one per round (`None` when unknown).
    decisions_per_second
        Rounds per second of policy time (`pull` plus `update`; the stream is not timed).
    """

    name: str
    rewards: np.ndarray
    skyline_rewards: np.ndarray | None
    regret: np.ndarray | None
    decisions_per_second: float

    @property
    def n_rounds(self) -> int:
        return len(self.rewards)

    @property
    def average_reward(self) -> float:
        """Progressive average reward over all rounds."""
        return float(self.rewards.mean())

    @property
    def skyline_average_reward(self) -> float | None:
        return None if self.skyline_rewards is None else float(self.skyline_rewards.mean())

    @property
    def average_reward_curve(self) -> np.ndarray:
        """Average reward of rounds $1..t$, for every $t$."""
        return np.cumsum(self.rewards) / np.arange(1, self.n_rounds + 1)

    @property
    def skyline_regret(self) -> np.ndarray | None:
        """Cumulative reward the skyline earned more than the policy, one per round."""
        if self.skyline_rewards is None:
            return None
        return np.cumsum(self.skyline_rewards - self.rewards)

    def __repr__(self) -> str:
        parts = [f"average reward {self.average_reward:.3f}"]
        if self.skyline_rewards is not None:
            parts.append(f"skyline {self.skyline_average_reward:.3f}")
        if self.regret is not None:
            parts.append(f"regret {self.regret[-1]:.1f}")
        parts.append(f"{self.decisions_per_second:,.0f} decisions/s")
        return f"{self.name} over {self.n_rounds} rounds: " + ", ".join(parts)

    def plot(self, ax=None, label: str | None = None, skyline: bool = True):
        """Draw the progressive average reward (and the skyline's, dashed) on `ax`.

        Returns the matplotlib axes; pass the same `ax` to draw several results together.
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4))
        t = np.arange(1, self.n_rounds + 1)
        ax.plot(t, self.average_reward_curve, label=label or self.name)
        if skyline and self.skyline_rewards is not None:
            ax.plot(t, np.cumsum(self.skyline_rewards) / t, "k--", lw=1,
                    label="full-information skyline")
        ax.set_xlabel("round")
        ax.set_ylabel("progressive average reward")
        ax.legend(loc="lower right")
        return ax


def bandit(policy, stream, n_rounds: int | None = None, skyline="default",
           name: str | None = None, transformer=None) -> BanditResult:
    r"""Run `policy` on the bandit `stream` and measure it.

    `policy` has river's contextual policy methods `pull(arm_ids, context)` and
    `update(arm_id, context, reward)`, or river's non-contextual ones `pull(arm_ids)` and
    `update(arm_id, reward)` (e.g. `river.bandit.RandomPolicy`, `EpsilonGreedy`); `stream` is a
    bandit environment from `streams`.

    Parameters
    ----------
    policy
        The contextual bandit policy (updated in place).
    stream
        A `streams` bandit environment (`ClassificationBandit`, `LinearBandit`).
    n_rounds
        Stop after this many rounds (`None`: the whole stream).
    skyline
        A river classifier trained with full information on the best arm of every round;
        `"default"` is `default_skyline()`, `None` skips it.
    name
        The policy's name in the result (default: its class name).
    transformer
        Optional river transformer (e.g. `preprocessing.StandardScaler()`), cloned, learning
        online from every context and applied to it before the policy sees it (for policies that
        hold no transformer of their own, such as river's); its time counts as policy time.

    Examples
    --------
    >>> from river import bandit as river_bandit
    >>> from onlineboost import evaluate
    >>> from streams import LinearBandit
    >>> stream = LinearBandit(d=4, k=3, noise=0.5, seed=0, n_rounds=1000)
    >>> result = evaluate.bandit(river_bandit.RandomPolicy(seed=0), stream)
    >>> result.average_reward, result.skyline_average_reward, round(float(result.regret[-1]), 1)
    (0.511, 0.706, 209.3)
    """
    skyline_model = default_skyline() if isinstance(skyline, str) and skyline == "default" \
        else skyline
    contextual = "context" in inspect.signature(policy.pull).parameters
    transformer = transformer.clone() if transformer is not None else None
    rewards, sky, regret_steps = [], [], []
    policy_time = 0.0
    for t, (context, arm_ids) in enumerate(stream):
        if n_rounds is not None and t >= n_rounds:
            break
        raw = context
        tic = time.perf_counter()
        if transformer is not None:
            transformer.learn_one(context)
            context = transformer.transform_one(context)
        arm = policy.pull(arm_ids, context) if contextual else policy.pull(arm_ids)
        policy_time += time.perf_counter() - tic
        r = stream.reward(arm)
        tic = time.perf_counter()
        if contextual:
            policy.update(arm, context, r)
        else:
            policy.update(arm, r)
        policy_time += time.perf_counter() - tic
        rewards.append(r)
        all_rewards, expected = stream._round_rewards(), stream._round_expected()
        if expected is not None:
            regret_steps.append(float(expected.max() - expected[arm_ids.index(arm)]))
        if skyline_model is not None:
            guess = skyline_model.predict_one(raw)
            sky.append(float(all_rewards[arm_ids.index(guess)]) if guess in arm_ids else 0.0)
            skyline_model.learn_one(raw, arm_ids[int(np.argmax(all_rewards))])
    n = len(rewards)
    return BanditResult(
        name=name or type(policy).__name__,
        rewards=np.asarray(rewards, dtype=np.float64),
        skyline_rewards=np.asarray(sky) if skyline_model is not None else None,
        regret=np.cumsum(regret_steps) if len(regret_steps) == n and n else None,
        decisions_per_second=n / policy_time if policy_time > 0 else float("inf"),
    )
