r"""Hazan & Singh (2021), Table 1: online regression with the square loss, reproduced.

Protocol (paper §7, completed where the paper is silent and said so here):

* data: Diabetes (bundled with scikit-learn), Boston and California housing (CSV files);
  features standardised online (river's `StandardScaler`, updated after each prediction);
  targets scaled to $[-1, 1]$ by the data set's range; $K = [-1, 1]$;
* each run is one shuffle of the rows (seeded), streamed once, prequentially;
* the baseline (normalised loss 1.000) is the weak regressor alone, trained directly on the
  targets, on the same shuffle; BoOCO uses $N$ copies of the same regressor through the
  regression reduction, $\gamma = 0.1$ and $\eta_i = 0.01$ (or `"theory"`);
* the loss of a run is the mean squared error of its predictions; a cell is the mean over
  runs of BoOCO's loss divided by the mean over runs of the baseline's.

One pass of BoOCO with $N_{max}$ copies gives the predictions of every $N \le N_{max}$
(`BoOCO.staged_predict_one`), so a run costs one booster pass and one baseline pass.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from river import preprocessing

from .. import sets
from ..booco import BoOCO

__all__ = ["PAPER", "LEARNERS", "make_learner", "run_once", "run_table"]

#: Table 1 of the paper: normalised loss for N = 1 (the weak learner), 2, 3, 4, 5.
PAPER = {
    ("boston", "stump"): (1.000, 0.941, 0.891, 0.853, 0.821),
    ("boston", "ridge"): (1.000, 0.980, 0.985, 1.009, 1.060),
    ("boston", "mlp"): (1.000, 0.987, 0.966, 0.934, 0.920),
    ("diabetes", "stump"): (1.000, 0.975, 0.960, 0.952, 0.941),
    ("diabetes", "ridge"): (1.000, 0.986, 0.974, 0.965, 0.956),
    ("diabetes", "mlp"): (1.000, 0.982, 0.981, 0.987, 0.965),
    ("california", "stump"): (1.000, 0.969, 0.946, 0.932, 0.922),
    ("california", "ridge"): (1.000, 1.019, 1.041, 1.066, 1.094),
    ("california", "mlp"): (1.000, 0.860, 0.861, 0.888, 0.835),
}

#: weak learners by name: ours (online) and paper-like scikit-learn ones.
LEARNERS = ("stump", "ridge", "mlp", "sk-stump", "sk-ridge", "sk-mlp")


def make_learner(name: str, seed: int = 0):
    """A fresh weak regressor by name (see `LEARNERS`): `learners.paper_weak_learners`, the
    native online ones or (prefix `sk-`) the paper-like scikit-learn ones."""
    from learners import paper_weak_learners

    if name not in LEARNERS:
        raise ValueError(f"learner must be one of {LEARNERS}, got {name!r}")
    source = "sklearn" if name.startswith("sk-") else "online"
    return paper_weak_learners(source, seed=seed)[name.removeprefix("sk-")]


def _as_river(regressor):
    """The baseline runs a scikit-learn `partial_fit` model through river's adapter."""
    from river import compat

    return compat.SKL2RiverRegressor(regressor) if hasattr(regressor, "partial_fit") else regressor


@dataclasses.dataclass
class RunResult:
    """Mean squared errors of one shuffle: the weak learner alone and BoOCO for N = 1..N_max."""

    baseline: float
    boosted: np.ndarray  # (N_max,)


def run_once(X: np.ndarray, y: np.ndarray, learner: str, seed: int, n_max: int = 5,
             gamma: float = 0.1, step_size="0.01", delta: float = 0.01) -> RunResult:
    """One prequential pass over a seeded shuffle of `(X, y)` (targets already in [-1, 1])."""
    step = step_size if step_size in ("theory", "frank-wolfe") else float(step_size)
    order = np.random.default_rng(seed).permutation(len(y))
    names = [f"x{j}" for j in range(X.shape[1])]
    scaler = preprocessing.StandardScaler()
    weak = _as_river(make_learner(learner, seed))
    booster = BoOCO(make_learner(learner, seed), n_learners=n_max, gamma=gamma, step_size=step,
                    delta=delta, seed=seed, decision_set=sets.Interval(-1.0, 1.0))  # Table 1's K
    base_se, boost_se = 0.0, np.zeros(n_max)
    try:
        for t in order:
            raw = dict(zip(names, X[t]))
            x = scaler.transform_one(raw)
            target = float(y[t])
            base_se += (float(np.clip(weak.predict_one(x), -1.0, 1.0)) - target) ** 2
            boost_se += (booster.staged_predict_one(x) - target) ** 2
            scaler.learn_one(raw)
            weak.learn_one(x, target)
            booster.learn_one(x, target)
    except ValueError as e:  # an SGD-trained weak learner diverged: report it, do not crash
        if "non-finite" not in str(e):
            raise
        return RunResult(float("nan"), np.full(n_max, np.nan))
    return RunResult(base_se / len(y), boost_se / len(y))


def run_table(datasets: dict, learners_: list[str], runs: int = 20, n_max: int = 5,
              gamma: float = 0.1, step_size="0.01", delta: float = 0.01, jobs: int = 1,
              progress: bool = True, backend=None) -> dict:
    """Every (data set, learner) cell: normalised loss per N, through joblib.

    `datasets` maps a name to `(X, y)` with y scaled to [-1, 1]. Returns
    `{(dataset, learner): {"normalised": array (N_max,), "baseline": float, ...}}`.
    """
    from joblib import Parallel, delayed

    tasks = [(d, lr, seed) for d in datasets for lr in learners_ for seed in range(runs)]
    parallel = Parallel(n_jobs=jobs, return_as="generator", backend=backend)
    results = parallel(
        delayed(run_once)(*datasets[d], lr, seed, n_max, gamma, step_size, delta)
        for d, lr, seed in tasks
    )
    if progress:
        try:
            from tqdm import tqdm

            results = tqdm(results, total=len(tasks), desc="runs", unit="run")
        except ImportError:  # pragma: no cover
            pass
    cells: dict = {}
    for (d, lr, _), res in zip(tasks, results):
        cells.setdefault((d, lr), []).append(res)
    table = {}
    for key, rs in cells.items():
        finite = [r for r in rs if np.isfinite(r.baseline)]
        base = np.mean([r.baseline for r in finite]) if finite else np.nan
        boosted = np.mean([r.boosted for r in finite], axis=0) if finite else np.full(n_max, np.nan)
        table[key] = {"baseline": float(base), "boosted": boosted, "normalised": boosted / base,
                      "runs": len(rs), "diverged": len(rs) - len(finite)}
    return table


def format_table(results: dict, n_max: int = 5, markdown: bool = False) -> str:
    """Rows of normalised loss per N beside the paper's numbers, and the best improvement."""
    ns = list(range(1, n_max + 1))
    head = ["data set", "learner", "weak MSE"] + [f"N={n}" for n in ns] + ["best", "paper best"]
    rows = []
    for (dataset, learner), cell in sorted(results.items()):
        norm = cell["normalised"]
        best = 1.0 - norm.min()
        paper = PAPER.get((dataset, learner.removeprefix("sk-")))
        paper_best = f"{1.0 - min(paper):.1%}" if paper else "—"
        diverged = cell.get("diverged", 0)
        label = f"{learner} ({diverged}/{cell['runs']} runs diverged)" if diverged else learner
        rows.append([dataset, label, f"{cell['baseline']:.4f}"]
                    + [f"{v:.3f}" for v in norm] + [f"{best:.1%}", paper_best])
        if paper:
            rows.append(["", "(paper)", ""] + [f"{v:.3f}" for v in paper[:n_max]]
                        + [""] * (n_max - len(paper[:n_max])) + ["", ""])
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max(len(str(r[i])) for r in [head] + rows) for i in range(len(head))]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join(fmt.format(*r) for r in [head] + rows)
