"""Long streams: 10^6 steps through BoOCO and the mirror-descent updaters stay finite in bounded
memory; and the throughput of `onlineboost run` with and without checkpoints.

    python -m benchmarks.long_stream                 # 10^6 steps each (a few minutes a config)
    python -m benchmarks.long_stream --steps 20000   # a quick look (does not write results)
    python -m benchmarks.long_stream --new-names-only --records 20000   # only issue 14 item 20
                                                     # (writes results/long_stream_names.md)

Each configuration runs in a fresh process (spawn), so its peak resident memory (`ru_maxrss`)
is its own. Memory is sampled ten times along the stream (VmRSS); "growth" is the resident
size at the end minus that at 10% of the stream: bounded memory shows as a growth near 0.
Data are generated in blocks of 10^4 steps from a seeded generator, so the stream itself takes
no memory.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import multiprocessing
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

BLOCK = 10_000


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")  # pragma: no cover


def _blocks(steps: int, d: int, seed: int):
    rng = np.random.default_rng(seed)
    w = rng.normal(size=d) / np.sqrt(d)
    done = 0
    while done < steps:
        n = min(BLOCK, steps - done)
        X = rng.normal(size=(n, d))
        yield X, np.tanh(X @ w) + 0.1 * rng.normal(size=n)
        done += n


def booco_stream(learner: str, steps: int, n_learners: int = 5) -> dict:
    """BoOCO over `steps` rounds of a seeded regression stream (prequential)."""
    import learners as L
    from onlineboost import BoOCO

    weak = {"linear-ogd": L.LinearOGD(), "ridge": L.OnlineRidge(),
            "stump": L.OnlineStump()}[learner]
    model = BoOCO(weak, n_learners=n_learners, gamma=0.5, step_size=0.5, seed=0)
    names = [f"x{j}" for j in range(5)]
    samples, se, worst, t = [], 0.0, 0.0, 0
    start = time.perf_counter()
    for X, y in _blocks(steps, 5, seed=1):
        for row, target in zip(X.tolist(), y.tolist()):
            x = dict(zip(names, row))
            a = model.predict_one(x)
            se += (a - target) ** 2
            worst = max(worst, abs(a))
            model.learn_one(x, target)
            t += 1
            if t % (steps // 10 or 1) == 0:
                samples.append(_rss_mb())
    elapsed = time.perf_counter() - start
    finite = bool(np.isfinite(se) and np.isfinite(worst) and worst <= 1.0)
    return _result(f"BoOCO({learner}, N={n_learners})", steps, elapsed, samples, finite,
                   f"MSE {se / steps:.4f}, max abs action {worst:.3f}")


def mirror_stream(regulariser: str, constraint: str, mode: str, steps: int, n: int = 100) -> dict:
    """`steps` mirror-descent updates of `n` weights on bounded random loss vectors."""
    from onlineboost import bregman, mirror

    R = {"entropy": mirror.NegativeEntropy(), "quadratic": mirror.Quadratic()}[regulariser]
    S = {"simplex": bregman.Simplex(), "capped": bregman.CappedSimplex(cap=5.0 / n)}[constraint]
    cap = 5.0 / n if constraint == "capped" else 1.0
    md = mirror.MirrorDescent(R, S, mode=mode)
    state = md.init(n)
    rng = np.random.default_rng(2)
    bias = rng.uniform(-0.2, 0.2, size=n)  # a persistent edge, so lazy weights drift for good
    samples, t, ok = [], 0, True
    start = time.perf_counter()
    while t < steps:
        D = np.clip(rng.uniform(-1, 1, size=(BLOCK, n)) + bias, -1, 1)
        for d in D[: steps - t]:
            state = md.update(state, d, 0.05)
            t += 1
            if t % (steps // 10 or 1) == 0:
                samples.append(_rss_mb())
                w = state.w
                ok &= bool(np.all(np.isfinite(w)) and abs(w.sum() - 1.0) < 1e-6
                           and w.min() >= -1e-12 and w.max() <= cap + 1e-12)
    elapsed = time.perf_counter() - start
    w = state.w
    return _result(f"MirrorDescent({regulariser}, {constraint}, {mode}, n={n})", steps, elapsed,
                   samples, ok, f"max weight {w.max():.4f}, zeros {int(np.sum(w == 0))}, "
                                f"max abs theta {np.max(np.abs(state.theta)):.3g}")


def _result(name, steps, elapsed, samples, finite, note) -> dict:
    return {"name": name, "steps": steps, "seconds": elapsed, "us_per_step": 1e6 * elapsed / steps,
            "rss_10": samples[0] if samples else float("nan"),
            "rss_end": samples[-1] if samples else float("nan"),
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "finite": finite, "note": note}


def run_throughput(records: int) -> list[dict]:
    """records/s of `onlineboost run` on a CSV file, without and with checkpoints."""
    out = []
    with tempfile.TemporaryDirectory() as d:
        data = os.path.join(d, "in.csv")
        with open(data, "w") as f:
            f.write("x0,x1,x2,x3,x4,y\n")
            for X, y in _blocks(records, 5, seed=3):
                f.writelines(",".join(map(repr, row)) + f",{t!r}\n"
                             for row, t in zip(X.tolist(), y.tolist()))
        for label, extra in [("no checkpoint", []),
                             ("checkpoint every 10^4", ["--checkpoint", os.path.join(d, "ck"),
                                                         "--checkpoint-every", "10000"]),
                             ("checkpoint every 10^3", ["--checkpoint", os.path.join(d, "ck"),
                                                         "--checkpoint-every", "1000"])]:
            for name in ("ck", "ck.lock"):  # each setting is a fresh run
                if os.path.exists(os.path.join(d, name)):
                    os.unlink(os.path.join(d, name))
            cmd = [sys.executable, "-m", "onlineboost.app.cli", "run", data, "--target", "y",
                   "--learner", "linear-ogd", "-N", "5", "-o", os.path.join(d, "out"),
                   "--report-every", "0", *extra]
            proc = subprocess.run(cmd, capture_output=True, text=True, check=True,
                                  env={**os.environ, "PYTHONPATH": os.getcwd()})
            rate = float(proc.stderr.split("records_per_s=")[1].split()[0])
            size = os.path.getsize(os.path.join(d, "ck")) if extra else 0
            out.append({"setting": label, "rate": rate, "ckpt_kb": size / 1024})
    return out


def _proc_kb(pid: int, field: str) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return float("nan")


def run_new_names(records: int, learner: str, max_features: int) -> dict:
    """`onlineboost run` on a stream where every record brings a new feature name (issue 14
    item 20): resident memory of the run sampled along the stream, and its final checkpoint."""
    with tempfile.TemporaryDirectory() as d:
        data = os.path.join(d, "in.jsonl")
        rng = np.random.default_rng(4)
        with open(data, "w") as f:
            for t in range(records):
                u = float(rng.normal())
                f.write(f'{{"u": {u!r}, "x{t}": 1.0, "y": {float(np.tanh(u))!r}}}\n')
        ck = os.path.join(d, "ck")
        cmd = [sys.executable, "-m", "onlineboost", "run", data, "--target", "y", "--learner",
               learner, "-N", "5", "--max-features", str(max_features), "-o",
               os.path.join(d, "out"), "--rejects", os.path.join(d, "rej"), "--checkpoint", ck,
               "--checkpoint-every", str(max(records // 10, 1)), "--report-every", "0"]
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "PYTHONPATH": os.getcwd()})
        samples = []  # (records done, RSS MB)
        while proc.poll() is None:
            done = sum(os.path.getsize(os.path.join(d, n)) > 0 and
                       _count_lines(os.path.join(d, n)) for n in ("out", "rej")
                       if os.path.exists(os.path.join(d, n)))
            rss = _proc_kb(proc.pid, "VmRSS") / 1024
            if rss == rss:
                samples.append((done, rss))
            time.sleep(0.05)
        err = proc.stderr.read()
        elapsed = time.perf_counter() - start
        if proc.returncode != 0:
            raise RuntimeError(err)
        at = {}
        for frac in (0.1, 0.5, 1.0):
            later = [rss for done, rss in samples if done >= frac * records * 0.999]
            at[frac] = later[0] if later else (samples[-1][1] if samples else float("nan"))
        summary = dict(p.split("=") for p in err.split("done: ")[1].split())
        return {"learner": learner, "cap": max_features, "records": records,
                "answered": int(summary["answered"]), "rejected": int(summary["rejected"]),
                "rss_10": at[0.1], "rss_50": at[0.5], "rss_end": at[1.0],
                "ckpt_kb": os.path.getsize(ck) / 1024, "seconds": elapsed}


def _count_lines(path: str) -> int:
    with open(path, "rb") as f:
        return f.read().count(b"\n")


def new_names_section(rows: list) -> list:
    lines = ["", "`onlineboost run` when every record brings a new feature name (issue 14 item "
             "20): records bringing names beyond `--max-features` are rejected, so the "
             "model's state, its checkpoint and the run's resident memory (RSS, MB, "
             "sampled when 10%, 50% and 100% of the records were done) stay flat:", "",
             "| learner | --max-features | records | answered | rejected | RSS 10% | RSS 50% | "
             "RSS end | checkpoint (KB) | s |", "|---|" + "---:|" * 9]
    lines += [f"| {r['learner']} | {r['cap']} | {r['records']:,} | {r['answered']:,} | "
              f"{r['rejected']:,} | {r['rss_10']:.1f} | {r['rss_50']:.1f} | {r['rss_end']:.1f} | "
              f"{r['ckpt_kb']:.0f} | {r['seconds']:.0f} |" for r in rows]
    return lines


CONFIGS = [("booco", ("linear-ogd",)),
           ("mirror", ("entropy", "simplex", "lazy")), ("mirror", ("entropy", "simplex", "active")),
           ("mirror", ("quadratic", "simplex", "lazy")),
           ("mirror", ("quadratic", "simplex", "active"))]
EXTRA = [("booco", ("stump",)), ("mirror", ("quadratic", "capped", "lazy")),
         ("mirror", ("quadratic", "capped", "active"))]  # --all: slower weak learner / projection


def main(argv=None) -> None:
    from benchmarks import report

    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=1_000_000)
    p.add_argument("--records", type=int, default=50_000, help="for the onlineboost run rate")
    p.add_argument("--all", action="store_true", help="also BoOCO(stump) and capped simplices")
    p.add_argument("--new-names-only", action="store_true",
                   help="only the ever-new feature names runs (printed, not written)")
    args = p.parse_args(argv)
    names = [run_new_names(args.records, learner, cap)
             for learner, cap in (("linear-ogd", 1000), ("ridge", 200), ("stump", 200))]
    print("\n".join(new_names_section(names)), flush=True)
    if args.new_names_only:
        if args.records >= 20_000:
            from benchmarks import report

            report.write_section("long_stream_names", "\n".join([
                "## Long streams: ever-new feature names (issue 14 item 20)", "",
                f"`python -m benchmarks.long_stream --new-names-only --records {args.records}` "
                f"— {report.machine()}."] + new_names_section(names)))
        return
    rows = []
    load = os.getloadavg()[1]
    ctx = multiprocessing.get_context("spawn")
    for kind, params in CONFIGS + (EXTRA if args.all else []):
        with concurrent.futures.ProcessPoolExecutor(1, mp_context=ctx) as pool:
            fn = booco_stream if kind == "booco" else mirror_stream
            row = pool.submit(fn, *params, args.steps).result()
        print(row, flush=True)
        rows.append(row)
    rates = run_throughput(args.records)
    print(rates, flush=True)
    lines = [
        "## Long streams (issue 7)", "",
        f"`python -m benchmarks.long_stream` — {report.machine()}; {args.steps:,} steps each, "
        "each configuration in its own process. RSS in MB: at 10% of the stream, at its end, and "
        "the process's peak (imports included). The machine was shared: 5-minute load "
        f"average {load:.1f} at the start and {os.getloadavg()[1]:.1f} at the end, on 2 cores.", "",
        "| stream | µs/step | total s | RSS 10% | RSS end | peak | finite, in K | notes |",
        "|---|---:|---:|---:|---:|---:|---|---|"]
    for r in rows:
        lines.append(f"| {r['name']} | {r['us_per_step']:.1f} | {r['seconds']:.0f} | "
                     f"{r['rss_10']:.1f} | {r['rss_end']:.1f} | {r['peak_mb']:.1f} | "
                     f"{'yes' if r['finite'] else 'NO'} | {r['note']} |")
    lines += ["", f"`onlineboost run` on a {args.records:,}-record CSV (BoOCO, LinearOGD, N=5; "
              "answers to a file, flushed per record; checkpoints fsynced):", "",
              "| setting | records/s | checkpoint size (KB) |", "|---|---:|---:|"]
    lines += [f"| {r['setting']} | {r['rate']:.0f} | {r['ckpt_kb']:.1f} |" for r in rates]
    lines += new_names_section(names)
    if args.steps >= 1_000_000:
        report.write_section("long_stream", "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
