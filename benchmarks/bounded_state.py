"""Learner state under ever-new feature names (issue 14, item 20): size and speed stay flat.

Run: `python -m benchmarks.bounded_state` (`--quick` for a smoke run). Writes the
`bounded_state` section of BENCHMARKS.md. Every record brings a feature name never seen before
(`id<t>` = 1) next to one recurring feature; each learner runs with its default cap on the
number of feature names (`learners._features.FeatureIndex`: LinearOGD 10,000, OnlineRidge,
OnlineStump and OnlineTreeRegressor 1,000; the bandit policies `BoBLO()` and `NeighbourBoBLO()`
1,000 context names, `BoBLO(max_features=...)`, three arms, reward 1 for the arm the recurring
feature's sign names). The table gives the pickled state after each window of records and the
records/s within the window: both grow / fall until the cap is reached, then stay flat.
"""

from __future__ import annotations

import argparse
import pickle
import time

import numpy as np

import learners
from benchmarks import report
from onlineboost import BoBLO, NeighbourBoBLO


def _learners():
    """name -> (factory, its default cap on feature names)."""
    return {
        "LinearOGD": (lambda: learners.LinearOGD(), 10_000),
        "OnlineRidge": (lambda: learners.OnlineRidge(), 1_000),
        "OnlineStump": (lambda: learners.OnlineStump(), 1_000),
        "OnlineTreeRegressor": (lambda: learners.OnlineTreeRegressor(), 1_000),
        "BoBLO()": (lambda: BoBLO(seed=0), 1_000),
        "NeighbourBoBLO()": (lambda: NeighbourBoBLO(seed=0), 1_000),
    }


def _records(n: int):
    rng = np.random.default_rng(0)
    for t in range(n):
        a = float(rng.normal())
        yield {f"id{t}": 1.0, "a": a}, float(a > 0) - 0.5


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    fractions = (0.5, 1.0, 1.5, 2.0)  # of each learner's cap
    rows = {}
    for name, (make, cap) in _learners().items():
        cap = cap // 10 if args.quick else cap
        marks = [int(f * cap) for f in fractions]
        model = make()
        cells, done, start = [], 0, time.perf_counter()
        for t, (x, y) in enumerate(_records(marks[-1]), 1):
            if hasattr(model, "pull"):  # a bandit policy: the arm the sign of "a" names
                arm = model.pull([0, 1, 2], x)
                model.update(arm, x, float(arm == int(y > 0)))
            elif name == "LinearOGD":
                model.learn_one(x, np.array([float(model.predict_one(x)[0]) - y]))
            else:
                model.predict_one(x)
                model.learn_one(x, y)
            if t in marks:
                rate = (t - done) / (time.perf_counter() - start)
                cells.append((t, len(pickle.dumps(model)) / 1e6, rate))
                print(f"{name:20s} {t:6d} records {cells[-1][1]:8.2f} MB {rate:8.0f}/s",
                      flush=True)
                done, start = t, time.perf_counter()
        rows[name] = cells
    lines = [
        "## Bounded learner state under ever-new feature names",
        "",
        f"`python -m benchmarks.bounded_state{' --quick' if args.quick else ''}` "
        f"({report.machine()}). Every record brings a new feature name; each learner keeps at "
        "most its default `max_features` names (LinearOGD: 10,000; OnlineRidge, OnlineStump, "
        "OnlineTreeRegressor, BoBLO and NeighbourBoBLO's first stage: 1,000) and ignores later "
        "new names as absent (the bandit policies: three arms, reward 1 for the arm the sign of "
        "the recurring feature names). Each cell: "
        "records so far (half the cap, the cap, 1.5 and 2 times it), the pickled state then "
        "and the records per second within the window since the previous cell.",
        "",
        "| learner | " + " | ".join(f"{f:g} x cap" for f in fractions) + " |",
        "|---|" + "---:|" * len(fractions),
    ]
    for name, cells in rows.items():
        lines.append(f"| {name} | " + " | ".join(f"{t:,}: {mb:.2f} MB, {rate:,.0f}/s"
                                               for t, mb, rate in cells) + " |")
    report.write_section("bounded_state", "\n".join(lines))


if __name__ == "__main__":
    main()
