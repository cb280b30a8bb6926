"""The round protocol shared by the contextual bandit environments of `streams`.

A bandit stream yields `(context, arm_ids)` and answers exactly one `reward(arm_id)` query per
round, so a policy never sees the reward of an arm it did not play:

    for context, arm_ids in stream:
        arm = policy.pull(arm_ids, context)
        policy.update(arm, context, stream.reward(arm))

Evaluators (`onlineboost.evaluate.bandit`) may also read the whole reward vector of the round
through `_round_rewards()` (for a full-information skyline) and, when the environment knows
them, the expected rewards through `_round_expected()` (for exact regret). Policies must not.
"""

from __future__ import annotations

import numpy as np

__all__ = ["BanditStream"]


class BanditStream:
    """Base class: subclasses implement `_rounds()` yielding `(context, rewards, expected)`,
    with `rewards` and `expected` arrays over `arm_ids` (`expected` is `None` when unknown)."""

    arm_ids: list

    def _rounds(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def __iter__(self):
        self._index = {arm: i for i, arm in enumerate(self.arm_ids)}
        for context, rewards, expected in self._rounds():
            self._rewards, self._expected, self._answered = rewards, expected, False
            yield context, list(self.arm_ids)
        self._rewards = self._expected = None

    def reward(self, arm_id) -> float:
        """The reward of `arm_id` in the current round; one query per round.

        Raises `ValueError` for an unknown arm, outside a round, or on a second query.
        """
        if getattr(self, "_rewards", None) is None:
            raise ValueError("reward: no round in progress (iterate over the stream first)")
        try:
            i = self._index[arm_id]
        except (KeyError, TypeError):
            raise ValueError(f"arm_id {arm_id!r} is not one of {self.arm_ids}") from None
        if self._answered:
            raise ValueError("reward: already queried this round (one arm per round)")
        self._answered = True
        return float(self._rewards[i])

    def _round_rewards(self) -> np.ndarray:
        """Realised rewards of every arm this round (for evaluators only)."""
        return self._rewards

    def _round_expected(self) -> np.ndarray | None:
        """Expected rewards of every arm this round if the environment knows them, else None."""
        return self._expected
