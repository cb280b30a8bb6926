"""BoBLO without a context: Bernoulli arms, against river's multi-armed bandit policies.

`BoBLO` is a contextual policy; with `context=None` (or `{}`) its loss model is a per-arm mean
and its law the annealed softmax of those means. This benchmark measures what that gives on
plain Bernoulli bandits, a use the development streams do not cover (reported, nothing chosen
from it): four arm sets, 2,000 rounds, seeds 0-39; the regret is the expected one,
$\\sum_t \\mu^\\star - \\mu_{a_t}$, per round, and the runs whose regret per round exceeds 0.05
(for `BoBLO()`, runs that settled on a worse arm; for UCB, runs still exploring). Rows:
`BoBLO()`, `BoBLO(count_bonus=0)` (its play without the count bonus),
`NeighbourBoBLO()` (the neighbours of an empty context are every stored round of an arm),
`BoBLO()` with the learner's correction weight fixed at 1 (`FeaturePolicy(**FIXED_WEIGHT_LEARNER)`,
the default to the twentieth session; the weight is learnt online since the twenty-first),
river's `ThompsonSampling` with Beta posteriors and `UCB(delta=1)`.

    python -m benchmarks.bandit_noncontextual [--seeds 0-39] [--jobs 2]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from joblib import Parallel, delayed
from river import bandit, proba

from benchmarks import report
from benchmarks.bandit_compare import parse_seeds
from learners import FeaturePolicy
from onlineboost import BoBLO, NeighbourBoBLO
from onlineboost.boblo import FIXED_WEIGHT_LEARNER

CASES = {
    "3 arms 0.2 / 0.8 / 0.5": [0.2, 0.8, 0.5],
    "2 arms 0.4 / 0.5": [0.4, 0.5],
    "5 arms 0.1 .. 0.5": [0.1, 0.2, 0.3, 0.4, 0.5],
    "10 arms 0.5 x 9, 0.6": [0.5] * 9 + [0.6],
}
POLICIES = {
    "BoBLO()": lambda seed: BoBLO(seed=seed),
    "BoBLO(count_bonus=0)": lambda seed: BoBLO(seed=seed, count_bonus=0.0),
    "NeighbourBoBLO()": lambda seed: NeighbourBoBLO(seed=seed),
    "BoBLO(), weight fixed at 1": lambda seed: BoBLO(
        learner=FeaturePolicy(**FIXED_WEIGHT_LEARNER), seed=seed),
    "river ThompsonSampling(Beta)": lambda seed: bandit.ThompsonSampling(
        reward_obj=proba.Beta(), seed=seed),
    "river UCB(delta=1)": lambda seed: bandit.UCB(delta=1.0, seed=seed),
}
ROUNDS = 2000
STUCK = 0.05


def run(case: str, policy_name: str, seed: int, n_rounds: int = ROUNDS) -> float:
    """The expected regret per round of `policy_name` on `case`'s arms (rewards drawn by a
    generator of its own, seeded by `seed`, the same for every policy)."""
    warnings.simplefilter("ignore")
    mu = CASES[case]
    arms = list(range(len(mu)))
    policy = POLICIES[policy_name](seed)
    contextual = isinstance(policy, (BoBLO, NeighbourBoBLO))
    rng = np.random.default_rng(10_000 + seed)
    regret = 0.0
    for _ in range(n_rounds):
        arm = policy.pull(arms, None) if contextual else policy.pull(arms)
        reward = float(rng.random() < mu[arm])
        regret += max(mu) - mu[arm]
        if contextual:
            policy.update(arm, None, reward)
        else:
            policy.update(arm, reward)
    return regret / n_rounds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", default="0-39")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    seeds = parse_seeds(args.seeds)
    tasks = [(c, p, s) for c in CASES for p in POLICIES for s in seeds]
    out = Parallel(n_jobs=args.jobs)(delayed(run)(*task) for task in tasks)
    res = {}
    for (c, p, _), r in zip(tasks, out):
        res.setdefault((c, p), []).append(r)
    lines = ["| arms | " + " | ".join(POLICIES) + " |", "|---|" + "---:|" * len(POLICIES)]
    for c in CASES:
        cells = []
        for p in POLICIES:
            v = np.array(res[(c, p)])
            cells.append(f"{v.mean():.4f} ({(v > STUCK).sum()} above {STUCK}, worst {v.max():.3f})")
        lines.append(f"| {c} | " + " | ".join(cells) + " |")
    table = "\n".join(lines)
    print(table)
    text = (f"## Bandits without a context: BoBLO against river's multi-armed policies\n\n"
            f"`python -m benchmarks.bandit_noncontextual` — {report.machine()}. Bernoulli arms, "
            f"{ROUNDS:,} rounds, seeds {args.seeds} ({len(seeds)} runs a cell): the expected "
            f"regret per round, mean over the runs; in parentheses the runs whose regret per "
            f"round exceeds {STUCK} and the worst run.\n\n"
            f"{table}\n\n{NOTE}\n")
    report.write_section("bandit_noncontextual", text)


NOTE = """\
**Twenty-first session.** `BoBLO()`'s learner now learns its correction's weight online (the
default; `bandit_compare`'s twenty-first-session paragraph): the rows `BoBLO()` and
`BoBLO(count_bonus=0)` are measured with it, the row `BoBLO(), weight fixed at 1` is the
default before (the old `BoBLO()` row's figures to the last digit), and `NeighbourBoBLO()`
keeps the fixed weight as its stage 1. `BoBLO()`'s regret 0.0026 / 0.0065 / 0.0154 / 0.0378
stays below Thompson sampling's on all four arm sets.

**Twentieth session.** The row `BoBLO(), learn_weight=0.2` is the option that learns the
weight of the learner's correction online (`learners.feature_policy`'s module docstring; not the
default). Without a context the correction is one cost per arm beside the model's arm means,
and its learnt weight leaves the regret as it was, within the seed noise (a scratch run on seeds
100-139, the count bonus's guard seeds, gave differences of +0.0002 / -0.0006 / -0.0033 /
+0.0013, SE 0.0003-0.0028). On this table's seeds it is 0.0026 / 0.0065 / 0.0154 / 0.0378
against `BoBLO()`'s 0.0028 / 0.0056 / 0.0143 / 0.0401, below Thompson sampling's regret on
all four arm sets.

**Fifteenth session.** Without a context `BoBLO()`'s law is the annealed softmax of per-arm ridge
means, $\\tau_t = 0.02/\\sqrt{1 + t/50}$, with an exploration floor of $\\eta/k$ ($\\eta$ =
0.001). Without the count bonus (`BoBLO(count_bonus=0)`, the fourteenth session's play) an arm
misjudged by its first few draws can fall below the softmax's reach before it is tried again, and
the policy keeps a worse arm for good: 3-6 of 40 runs on the first three arm sets, regret per round
up to 0.30, where Thompson sampling's worst is 0.013-0.038. This is the mechanism of river's LED
stream (`bandit_heldout`'s thirteenth-session reading) and of `BoBLO()`'s shortfall against
LinUCB on `LinearBandit`: there an arm is misjudged in a region of the contexts, here
everywhere. This table is what led to the count bonus, UCB1's optimism on an arm's play count
subtracted from its cost in the softmax (`BoBLO(count_bonus=...)`); its scale was then chosen on
the development streams' tuning seeds with these arm sets on seeds 100-139 as a guard
(`bandit_compare`'s fifteenth-session paragraph), not on this table's seeds 0-39. With it (the
default) `BoBLO()`'s mean regret is below Thompson sampling's on all four arm sets, one run of
40 stays above 0.05 on the five-armed set, and on the ten-armed set (nine arms 0.1 below the
best) 9 runs against Thompson sampling's 19. `NeighbourBoBLO()` plays `BoBLO()`'s arms on the
first three sets (without a context the neighbour stage only repeats the arm means, and its test
does not pass); on the ten-armed set it passed on a few runs, to the same regret."""


if __name__ == "__main__":
    main()
