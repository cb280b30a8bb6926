"""BoBLO against river's bandit policies and Vowpal Wabbit on contextual bandit streams.

Run: `python -m benchmarks.bandit_compare` (`--quick` for a smoke run, `--seeds`, `--jobs`).
Writes the `bandits` section of BENCHMARKS.md. Every policy sees contexts standardised online
(river `StandardScaler`, held by BoBLO, or applied by
`evaluate.bandit(transformer=...)`); the metric is the
progressive average reward, mean ± std over seeds (each seed shuffles the stream and seeds the
policy), and decisions per second of policy time (`pull` + `update`).

BoBLO configurations were chosen on separate tuning seeds (100, 101) with
`python -m benchmarks.bandit_compare --tune`; the evaluation seeds are 0, 1, ...
Vowpal Wabbit (`pip install onlineboost[compare]`) is skipped with a notice when absent.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed
from river import bandit as river_bandit
from river import compose, datasets, preprocessing
from sklearn.datasets import load_digits

from benchmarks import report
from learners import SoftmaxPolicy
from onlineboost import BoBLO, evaluate
from streams import ClassificationBandit, LinearBandit

DATASETS = {
    "ImageSegments": lambda seed: ClassificationBandit(datasets.ImageSegments(), seed=seed),
    "digits": lambda seed: ClassificationBandit(load_digits(), seed=seed),
    "LinearBandit": lambda seed: LinearBandit(d=10, k=5, noise=0.5, seed=seed, n_rounds=3000),
}

_BASE = dict(gamma=0.5, exploration=0.005, baseline=0.5, delta=0.1)
BOBLO = {  # name -> (SoftmaxPolicy lr, BoBLO parameters); chosen on seeds 100, 101
    "BoBLO paper estimator, N=1": (0.02, dict(_BASE, n_learners=1, estimator="paper",
                                              exploration=0.05, baseline=0.0)),
    "BoBLO paper estimator, N=5": (0.02, dict(_BASE, n_learners=5, estimator="paper",
                                              exploration=0.05, baseline=0.0)),
    "BoBLO IPS, b=0.5, N=1": (0.02, dict(_BASE, n_learners=1, estimator="ips")),
    "BoBLO DR, N=1": (0.02, dict(_BASE, n_learners=1, estimator="dr")),
    "BoBLO DR, N=5, gamma=0.5, theory steps": (0.02, dict(_BASE, n_learners=5, estimator="dr")),
    "BoBLO DR, N=5, gamma=1, eta_i=0.5": (0.05, dict(_BASE, n_learners=5, estimator="dr",
                                                     gamma=1.0, step_size=0.5)),
    "BoBLO DR, N=10, gamma=1, eta_i=0.3": (0.02, dict(_BASE, n_learners=10, estimator="dr",
                                                      gamma=1.0, step_size=0.3)),
}


class VWPolicy:
    """Vowpal Wabbit `--cb_explore_adf` (shared context x arm interactions, `-q sa`) behind
    river's contextual policy methods."""

    def __init__(self, args: str, seed: int):
        import vowpalwabbit

        self.vw = vowpalwabbit.Workspace(f"--cb_explore_adf -q sa --quiet --random_seed {seed} "
                                         + args)
        self.rng = np.random.default_rng(seed)
        self._last = None

    def _lines(self, x, arm_ids, label=None):
        shared = "shared |s " + " ".join(f"f{i}:{v:.6g}" for i, v in enumerate(x.values()))
        out = [shared]
        for i, arm in enumerate(arm_ids):
            prefix = f"0:{label[1]}:{label[2]} " if label is not None and label[0] == i else ""
            out.append(f"{prefix}|a arm{i}")
        return out

    def pull(self, arm_ids, context):
        x = context
        pmf = np.asarray(self.vw.predict(self._lines(x, arm_ids)), dtype=np.float64)
        i = int(min(np.searchsorted(np.cumsum(pmf / pmf.sum()), self.rng.random()),
                    len(arm_ids) - 1))
        self._last = (x, list(arm_ids), i, float(pmf[i]))
        return arm_ids[i]

    def update(self, arm_id, context, reward):
        x, arm_ids, i, p = self._last
        self.vw.learn(self._lines(x, arm_ids, (i, 1.0 - reward, p)))  # VW minimises cost


def make_policy(name: str, seed: int):
    if name in BOBLO:
        lr, params = BOBLO[name]
        return BoBLO(SoftmaxPolicy(lr=lr), transformer=preprocessing.StandardScaler(),
                     seed=seed, **params)
    if name.startswith("river LinUCBDisjoint"):
        return river_bandit.LinUCBDisjoint(alpha=LINUCB[0], beta=LINUCB[1], seed=seed)
    if name == "river EpsilonGreedy(0.1)":
        return river_bandit.EpsilonGreedy(0.1, seed=seed)
    if name == "river RandomPolicy":
        return river_bandit.RandomPolicy(seed=seed)
    if name == "VW --squarecb":
        return VWPolicy("--squarecb", seed)
    if name == "VW --epsilon 0.05":
        return VWPolicy("--epsilon 0.05", seed)
    raise ValueError(name)


RAW = Path(__file__).parent / "results" / "40_bandits.json"
LINUCB = (1.0, 5.0)  # (alpha, beta) of the grid in --tune, best on ImageSegments (seed 100)


def _scaler(policy_name):
    """Online standardisation for policies without a transformer of their own (BoBLO holds
    one); LinUCB also gets a constant bias feature."""
    if policy_name in BOBLO:
        return None
    scaler = preprocessing.StandardScaler()
    if policy_name.startswith("river LinUCB"):
        return scaler | compose.FuncTransformer(_add_bias)
    return scaler


def _add_bias(x):
    return {**x, "__bias__": 1.0}


def run_one(policy_name, data_name, seed, n_rounds=None):
    warnings.simplefilter("ignore")
    stream = DATASETS[data_name](seed)
    result = evaluate.bandit(make_policy(policy_name, seed), stream, n_rounds=n_rounds,
                             skyline=None, transformer=_scaler(policy_name))
    return result.average_reward, result.decisions_per_second


def run_skyline(data_name, seed, n_rounds=None):
    warnings.simplefilter("ignore")
    stream = DATASETS[data_name](seed)
    result = evaluate.bandit(river_bandit.RandomPolicy(seed=seed), stream, n_rounds=n_rounds)
    return result.skyline_average_reward, float("nan")


def vw_available() -> bool:
    try:
        import vowpalwabbit  # noqa: F401
    except ImportError:
        print("vowpalwabbit is not installed (pip install onlineboost[compare]): VW skipped")
        return False
    return True


def table(policies, datas, seeds, jobs, n_rounds=None):
    tasks = [(p, d, s) for p in policies for d in datas for s in seeds]
    out = Parallel(n_jobs=jobs)(
        delayed(run_skyline if p == "skyline" else run_one)(*((d, s) if p == "skyline"
                                                              else (p, d, s)), n_rounds)
        for p, d, s in tasks)
    res = {}
    for (p, d, s), v in zip(tasks, out):
        res.setdefault((p, d), []).append(v)
    return res


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--tune", action="store_true")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--render", action="store_true")
    args = parser.parse_args(argv)
    global LINUCB
    datas = list(DATASETS)
    n_rounds = 300 if args.quick else None
    if args.tune:
        for ab in [(1.0, 1.0), (1.0, 5.0), (0.1, 5.0), (1.0, 20.0)]:
            LINUCB = ab
            res = table(["river LinUCBDisjoint"], datas[:2], [100, 101], args.jobs, n_rounds)
            print("LinUCB", ab, {d: round(np.mean([v[0] for v in vs]), 3)
                                 for (_, d), vs in res.items()}, flush=True)
        res = table(list(BOBLO), datas[:2], [100, 101], args.jobs, n_rounds)
        for (p, d), vs in res.items():
            print(p, d, round(np.mean([v[0] for v in vs]), 3), flush=True)
        return
    policies = list(BOBLO) + ["river LinUCBDisjoint", "river EpsilonGreedy(0.1)",
                              "river RandomPolicy"]
    if vw_available():
        policies += ["VW --squarecb", "VW --epsilon 0.05"]
    policies += ["skyline"]
    seeds = list(range(1 if args.quick else args.seeds))
    tic = time.time()
    if args.render:  # re-render the last full run's measurements (e.g. after editing NOTE)
        raw = json.loads(RAW.read_text())
        seeds, policies = raw["seeds"], raw["policies"]
        res = {tuple(k.split("@@")): v for k, v in raw["results"].items()}
    else:
        res = table(policies, datas, seeds, args.jobs, n_rounds)
        if not args.quick:
            RAW.write_text(json.dumps({"seeds": seeds, "policies": policies, "results": {
                f"{p}@@{d}": v for (p, d), v in res.items()}}, indent=1))
    head = "| policy | " + " | ".join(f"{d} reward | {d} decisions/s" for d in datas) + " |"
    lines = [head, "|---|" + "---:|---:|" * len(datas)]
    for p in policies:
        cells = []
        for d in datas:
            vs = np.array(res[(p, d)])
            cells.append(f"{vs[:, 0].mean():.3f} ± {vs[:, 0].std():.3f}")
            cells.append("—" if p == "skyline" else f"{np.mean(vs[:, 1]):,.0f}")
        name = "full-information softmax regression (skyline)" if p == "skyline" else p
        if p == "river LinUCBDisjoint":
            name = f"river LinUCBDisjoint, bias feature, alpha={LINUCB[0]}, beta={LINUCB[1]}"
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    md = "\n".join(lines)
    print(md)
    print(f"{time.time() - tic:.0f} s")
    if not args.quick:
        text = (f"## Contextual bandits: BoBLO vs river and Vowpal Wabbit\n\n"
                f"`python -m benchmarks.bandit_compare` — {report.machine()}. "
                f"{len(seeds)} seeds (0..{len(seeds) - 1}), contexts standardised online, "
                f"progressive average reward (mean ± std over seeds), decisions per second of "
                f"policy time (the machine was shared with other jobs: compare speeds within "
                f"this table only).\n\n{md}\n\n{NOTE}\n")
        report.write_section("40_bandits", text)


NOTE = ""  # filled in with the measured conclusions

if __name__ == "__main__":
    main()
