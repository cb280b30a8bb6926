"""A river regressor that is the first (and only) copy of its own stacked form."""

from __future__ import annotations

from river import base

from ._features import check_targets

__all__ = ["OneCopyRegressor"]


class OneCopyRegressor(base.Regressor):
    """`learn_one` / `predict_one` through `self._stack`, a stack of one copy.

    The stacked built-in regressors (`OnlineRidge`, `OnlineStump`, `TinyMLP`, `RefitRegressor`)
    keep their single model as a one-copy stack, so the looped and stacked forms run the same
    code and agree exactly.
    """

    def learn_one(self, x: dict, y: float) -> None:
        self._stack.learn(x, check_targets(y, (1,), "y"))

    def predict_one(self, x: dict) -> float:
        return float(self._stack.predict(x)[0])
