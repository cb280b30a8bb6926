"""OnlineMABoost's cost per sample against river's AdaBoostClassifier (issue 12, item 4).

`OnlineMABoostClassifier()` (binary streams) and `OnlineMABoostMultiClassifier()` (every
stream) at their defaults (10 Hoeffding trees) against river's
`AdaBoostClassifier(HoeffdingTreeClassifier(), n_models=10)`, on the development streams of
issue 12, loaded as `benchmarks.dropin_classification` loads them (seed 0: the files in their
own order, the generators seeded 0), each cut to its first `--n` examples. Each model runs
predict-then-learn (`predict_proba_one`, then `learn_one`) over the stream, once as it is and
once behind a river `StandardScaler` (where x is re-scaled after the scaler learns, so
`learn_one` cannot reuse the learners' outputs from the prediction: see "Predict, then learn"
in `onlineboost.online_maboost`).

Timing is the CPU time of this process (`time.process_time`), not wall time: the machine is
shared, and CPU time is what one model costs. The models are interleaved (every model of a
stream, then the next repeat), and "x Ada" is the median over repeats of AdaBoost's CPU time
over the model's in the same repeat (above 1: cheaper than AdaBoost).

`--baseline REV` also times the boosters as they were at git revision `REV` (their two modules
loaded from `git show`), in the same interleaved run: the before/after of a speed change.

    python -m benchmarks.maboost_speed [--n 2000] [--repeat 3] [--baseline da5caf9] [--quick]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from river import ensemble, preprocessing, tree

from benchmarks import report
from benchmarks.dropin_classification import STREAMS
from onlineboost import OnlineMABoostClassifier, OnlineMABoostMultiClassifier

ADA = "river AdaBoost(HT, 10)"
MODULES = {"OnlineMABoostClassifier": "online_maboost",
           "OnlineMABoostMultiClassifier": "online_maboost_multiclass"}


def _baseline(rev: str) -> dict:
    """The two booster classes as they were at git revision `rev`, loaded under private module
    names (the multiclass module imports helpers from the binary one: it gets the old one)."""
    root = report.ROOT
    tmp = Path(tempfile.mkdtemp(prefix="maboost_baseline_"))
    classes = {}
    for cls, module in MODULES.items():
        text = subprocess.run(["git", "-C", str(root), "show", f"{rev}:onlineboost/{module}.py"],
                              check=True, capture_output=True, text=True).stdout
        text = text.replace("from onlineboost.online_maboost import",
                            "from _baseline_online_maboost import")
        path = tmp / f"_baseline_{module}.py"
        path.write_text(text)
        spec = importlib.util.spec_from_file_location(f"_baseline_{module}", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
        classes[cls] = getattr(mod, cls)
    return classes


def models(is_multiclass: bool, baseline: dict | None, rev: str | None) -> dict:
    """name -> factory of a fresh model (seed 0)."""
    out = {ADA: lambda: ensemble.AdaBoostClassifier(tree.HoeffdingTreeClassifier(),
                                                    n_models=10, seed=0)}
    ours = {"OnlineMABoostMultiClassifier": OnlineMABoostMultiClassifier}
    if not is_multiclass:
        ours = {"OnlineMABoostClassifier": OnlineMABoostClassifier, **ours}
    for name, cls in ours.items():
        out[f"{name}()"] = lambda cls=cls: cls(seed=0)
        if baseline is not None:
            out[f"{name}() at {rev}"] = lambda cls=baseline[name]: cls(seed=0)
    return out


def cpu_time(model, stream) -> tuple[float, float]:
    """CPU and wall seconds of predict-then-learn over `stream`."""
    cpu, wall = time.process_time(), time.perf_counter()
    for x, y in stream:
        model.predict_proba_one(x)
        model.learn_one(x, y)
    return time.process_time() - cpu, time.perf_counter() - wall


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=2000, help="examples per stream")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", default=None, help="git revision to time as 'before'")
    parser.add_argument("--streams", nargs="*", default=list(STREAMS))
    parser.add_argument("--quick", action="store_true", help="300 examples, 1 repeat")
    args = parser.parse_args(argv)
    n, repeat = (300, 1) if args.quick else (args.n, args.repeat)
    baseline = _baseline(args.baseline) if args.baseline else None
    start = time.perf_counter()
    times: dict = {}  # (stream, pipeline, model) -> [(cpu, wall)] over repeats
    data = {name: STREAMS[name][0](0, n) for name in args.streams}
    for r in range(repeat):
        for name in args.streams:
            stream = data[name]
            for scaled in (False, True):
                for model_name, make in models(STREAMS[name][1], baseline,
                                               args.baseline).items():
                    model = preprocessing.StandardScaler() | make() if scaled else make()
                    t = cpu_time(model, stream)
                    times.setdefault((name, scaled, model_name), []).append(t)
                    print(f"repeat {r} {name} {'scaled ' if scaled else ''}{model_name}: "
                          f"{len(stream) / t[0]:,.0f}/s CPU, {len(stream) / t[1]:,.0f}/s wall",
                          flush=True)
    elapsed = time.perf_counter() - start
    text = markdown(times, data, args, n, repeat, elapsed)
    report.write_section("maboost_speed", text)
    return text


def markdown(times: dict, data: dict, args, n: int, repeat: int, elapsed: float) -> str:
    cmd = "python -m benchmarks.maboost_speed" + (
        " --quick" if args.quick else f" --n {n} --repeat {repeat}") + (
        f" --baseline {args.baseline}" if args.baseline else "")
    lines = [
        "## OnlineMABoost: cost per sample against river AdaBoost",
        "",
        f"`{cmd}` ({report.machine()}; {elapsed / 60:.1f} min wall). Predict-then-learn on "
        f"the development streams of issue 12 (seed 0, the first {n:,} examples; Phishing has "
        f"1,250), {repeat} interleaved repeats. Samples/s are per CPU second of the process "
        "(`time.process_time`, median over repeats); \"× Ada\" is river "
        "`AdaBoostClassifier(HoeffdingTreeClassifier(), 10)`'s CPU time over the model's in "
        "the same repeat (median; above 1 is cheaper). \"scaled\": the model behind a river "
        "`StandardScaler`, which re-scales x after it learns, so the boosters' learn_one reads "
        "the learners again instead of reusing the prediction's outputs."
        + (f" Rows \"at {args.baseline}\" are the boosters' code at that revision, timed in "
           "the same run." if args.baseline else ""),
        "",
        "| stream | pipeline | model | samples/s (CPU) | × Ada |",
        "|---|---|---|---|---|",
    ]
    verdict = []
    for name in data:
        for scaled in (False, True):
            ada = [t[0] for t in times[(name, scaled, ADA)]]
            for (stream, s, model), ts in times.items():
                if stream != name or s != scaled:
                    continue
                cpu = [t[0] for t in ts]
                sps = len(data[name]) / statistics.median(cpu)
                ratio = statistics.median(a / c for a, c in zip(ada, cpu))
                lines.append(f"| {name} | {'StandardScaler' if scaled else 'plain'} | {model} "
                             f"| {sps:,.0f} | {ratio:.2f} |")
                if model != ADA and " at " not in model:
                    verdict.append((ratio, name, scaled, model))
    worst = min(verdict)
    met = all(r >= 1.0 for r, *_ in verdict)
    lines += [
        "",
        f"Issue 12, item 4 (per-sample cost at most AdaBoost's, every development stream): "
        f"**{'met' if met else 'not met'}** in this run; the lowest ratio is {worst[0]:.2f} "
        f"({worst[3]}, {worst[1]}, {'behind a StandardScaler' if worst[2] else 'plain'}).",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(main())
