r"""The paper's three weak learner classes, ready for `RegressorOCO` / `BoOCO`.

Hazan & Singh (2021, §7) boost decision stumps, ridge regression and a tiny MLP with one hidden
unit trained by online gradient descent, implemented with scikit-learn models. `paper_weak_learners`
gives both readings: the native online learners of this package (`"online"`), and
scikit-learn models made online (`"sklearn"`): a depth-1 `DecisionTreeRegressor` refitted on a
geometric schedule (`RefitRegressor`), `SGDRegressor(penalty="l2")` and
`MLPRegressor((1,), solver="sgd")` trained one `partial_fit` step a sample.
"""

from __future__ import annotations

__all__ = ["paper_weak_learners"]


def paper_weak_learners(source: str = "online", seed: int | None = None) -> dict:
    """Regressors for the paper's three weak learner classes, by name.

    Parameters
    ----------
    source
        `"online"`: `OnlineStump`, `OnlineRidge`, `TinyMLP` (stackable, fast). `"sklearn"`:
        `RefitRegressor(DecisionTreeRegressor(max_depth=1))`,
        `SGDRegressor(penalty="l2", learning_rate="constant", eta0=0.01)` and
        `MLPRegressor(hidden_layer_sizes=(1,), activation="tanh", solver="sgd",
        learning_rate_init=0.01)` (`partial_fit`, one sample at a time).
    seed
        Seed of the random ones (`TinyMLP`; `random_state` of the scikit-learn models).

    Returns
    -------
    A dict `{"stump": ..., "ridge": ..., "mlp": ...}` of unfitted regressors; wrap one in
    `RegressorOCO` (or hand it to `BoOCO`, which does so) to use it as a weak OCO learner.

    Examples
    --------
    >>> import numpy as np
    >>> from learners import RegressorOCO, paper_weak_learners
    >>> sorted(paper_weak_learners("sklearn"))
    ['mlp', 'ridge', 'stump']
    >>> learner = RegressorOCO(paper_weak_learners("sklearn", seed=0)["stump"])
    >>> for v in [0.1, 0.9, 0.2, 0.8]:  # gradient of (a - y)^2 / 2 at a = 0, y = +-0.5
    ...     learner.learn_one({"c": v}, np.array([-0.5 if v > 0.5 else 0.5]))
    >>> learner.predict_one({"c": 0.95}), learner.predict_one({"c": 0.05})
    (array([0.5]), array([-0.5]))
    """
    if source == "online":
        from .mlp import TinyMLP
        from .ridge import OnlineRidge
        from .stump import OnlineStump

        return {"stump": OnlineStump(), "ridge": OnlineRidge(), "mlp": TinyMLP(seed=seed)}
    if source == "sklearn":
        from sklearn.linear_model import SGDRegressor
        from sklearn.neural_network import MLPRegressor
        from sklearn.tree import DecisionTreeRegressor

        from .refit import RefitRegressor

        return {
            "stump": RefitRegressor(DecisionTreeRegressor(max_depth=1), seed=seed),
            "ridge": SGDRegressor(penalty="l2", alpha=1e-4, learning_rate="constant", eta0=0.01,
                                  random_state=seed),
            "mlp": MLPRegressor(hidden_layer_sizes=(1,), activation="tanh", solver="sgd",
                                learning_rate_init=0.01, random_state=seed),
        }
    raise ValueError(f"source must be 'online' or 'sklearn', got {source!r}")
