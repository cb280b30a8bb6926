r"""What a run does with one record, by task: answer it, learn from it, measure the answer.

A `Task` is the one place that knows how a model is asked and taught: the run loop calls
`answer(model, x)` (the text written to the answers and the value to learn and measure with),
then `learn(model, x, y, answer)`; `metrics()` gives the matching running metrics, fed with
`measure(y, answer)` and the answer.

* `Regression`: `predict_one(x)`; the answer must be finite numbers (a number, or a vector for
  a vector decision set), written as `LINE,VALUE[,VALUE...]`;
* `Classification`: `predict_proba_one(x)`; written `LINE,LABEL,P_TRUE`;
* `Bandit`: `pull(arms[, x])`, then `update(arm[, x], reward)` with the pulled arm's reward.

An answer that is not one (non-finite, a probability outside [0, 1], an arm that is not on
offer) raises `ValueError`, so the record is rejected before the model learns from it.
"""

from __future__ import annotations

import inspect
import math

import numpy as np

from . import metrics

__all__ = ["Bandit", "Classification", "Regression", "Task", "make_task"]


class Task:
    name = ""

    def answer(self, model, x):
        """`(text, answer)`: the text to write after `LINE,` and the value to learn from."""
        raise NotImplementedError

    def learn(self, model, x, y, answer) -> None:
        raise NotImplementedError

    def metrics(self) -> metrics.Metrics:
        raise NotImplementedError

    def measure(self, y, answer):
        """What the metric compares the answer with: the target (bandits: the reward)."""
        del answer
        return y


def _fmt(value: float) -> str:
    return repr(float(value))


class Regression(Task):
    """`LINE,PREDICTION` (a vector answer: its coordinates, comma-separated).

    >>> from onlineboost.app.task import Regression
    >>> class Const:
    ...     def predict_one(self, x): return [0.5, 0.25]
    >>> Regression().answer(Const(), {})
    ('0.5,0.25', array([0.5 , 0.25]))
    """

    name = "regression"

    def answer(self, model, x):
        raw = model.predict_one(x)
        if isinstance(raw, float):  # the common case, without numpy's overhead
            if not math.isfinite(raw):
                raise ValueError(f"the model answered {raw!r}, not a finite number")
            value = float(raw)
            return repr(value), value
        try:
            a = np.asarray(raw, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"the model answered {raw!r}, not a number") from None
        if a.ndim > 1 or a.size == 0 or not np.all(np.isfinite(a)):
            raise ValueError(f"the model answered {raw!r}, not finite numbers")
        if a.ndim == 0:
            value = float(a)
            return _fmt(value), value
        return ",".join(_fmt(v) for v in a), a

    def learn(self, model, x, y, answer) -> None:
        model.learn_one(x, y)

    def metrics(self):
        return metrics.RegressionMetrics()


class Classification(Task):
    """`LINE,LABEL,P_TRUE` from `predict_proba_one`."""

    name = "classification"

    def answer(self, model, x):
        proba = model.predict_proba_one(x)
        try:
            p = float(proba.get(True, 0.0))
        except (AttributeError, TypeError, ValueError):
            raise ValueError(f"the model answered {proba!r}, not class probabilities") from None
        if not (math.isfinite(p) and 0.0 <= p <= 1.0):
            raise ValueError(f"the model answered P(True) = {p!r}, not a probability")
        label = p > 0.5
        return f"{int(label)},{_fmt(p)}", (label, p)

    def learn(self, model, x, y, answer) -> None:
        model.learn_one(x, y)

    def metrics(self):
        return metrics.ClassificationMetrics()


class Bandit(Task):
    """`LINE,ARM`: the arm pulled (with the context when the policy takes one)."""

    name = "bandit"

    def __init__(self, arms, contextual: bool):
        self.arms = list(arms)
        self.contextual = contextual

    def answer(self, model, x):
        arm = model.pull(self.arms, x) if self.contextual else model.pull(self.arms)
        if arm not in self.arms:
            raise ValueError(f"the policy pulled {arm!r}, not one of the arms {self.arms}")
        return str(arm), arm

    def learn(self, model, x, y, answer) -> None:
        if self.contextual:
            model.update(answer, x, y[answer])
        else:
            model.update(answer, y[answer])

    def metrics(self):
        return metrics.BanditMetrics()

    def measure(self, y, answer):
        return y[answer]


def is_contextual(model) -> bool:
    """Whether a policy's `pull` takes a context (a second argument)."""
    pull = getattr(model, "pull", None)
    if pull is None:
        return False
    try:
        return len(inspect.signature(pull).parameters) >= 2
    except (TypeError, ValueError):
        return False


def make_task(settings: dict, model) -> Task:
    """The task of resolved `settings` for `model`; `ValueError` if the model cannot do it."""
    data = settings["data"]
    kind = data["task"]
    need = {"regression": ("predict_one", "learn_one"),
            "classification": ("predict_proba_one", "learn_one"),
            "bandit": ("pull", "update")}[kind]
    missing = [m for m in need if not callable(getattr(model, m, None))]
    if missing:
        raise ValueError(f"task {kind!r} needs a model with {' and '.join(need)}; "
                         f"{type(model).__name__} lacks {', '.join(missing)}")
    if kind == "regression":
        return Regression()
    if kind == "classification":
        return Classification()
    return Bandit(data["rewards"], is_contextual(model))

