r"""Where the sweeps' joblib grids run: local processes, a Dask cluster or a Ray cluster.

`engine(backend, scheduler)` is a context manager under which joblib's `Parallel` (as used by
`onlineboost.app.table.run_table`) sends its tasks to the chosen engine, through
`joblib.parallel_config`. Every task of a sweep carries its own seed and the results are gathered
in task order, so the numbers do not depend on the engine.

* `None`/`"loky"` (default), `"threading"`, `"multiprocessing"`: joblib's own, on this machine;
* `"dask"`: a `distributed.Client` on `scheduler` (e.g. `tcp://10.0.0.5:8786`), or on a fresh
  `LocalCluster` of `n_workers` processes when no address is given
  (`pip install "onlineboost[dask]"`);
* `"ray"`: `ray.init(address=scheduler)` and Ray's joblib backend (`pip install
  "onlineboost[ray]"`).

Workers must be able to import `onlineboost`, `learners` and `streams` (install the package on
every worker): tasks are module-level functions sent by reference.
"""

from __future__ import annotations

import contextlib

__all__ = ["BACKENDS", "engine", "is_distributed"]

BACKENDS = ("loky", "threading", "multiprocessing", "dask", "ray")


def is_distributed(backend: str | None, scheduler: str | None = None) -> bool:
    """Whether the grid leaves this machine's joblib pool (then `n_jobs=-1`: every worker)."""
    return backend in ("dask", "ray") or (backend is None and scheduler is not None)


@contextlib.contextmanager
def engine(backend: str | None = None, scheduler: str | None = None,
           n_workers: int | None = None):
    """Run joblib's `Parallel` calls inside this block on `backend`; yields the backend name.

    A `scheduler` address alone means Dask. Clients and clusters started here are closed on
    exit; an existing cluster is left running.

    Examples
    --------
    >>> from joblib import Parallel, delayed
    >>> from onlineboost.app.backends import engine
    >>> with engine("threading") as name:
    ...     print(name, Parallel(n_jobs=2)(delayed(pow)(2, k) for k in range(5)))
    threading [1, 2, 4, 8, 16]
    """
    from joblib import parallel_config

    if backend is None and scheduler is not None:
        backend = "dask"
    if backend not in (None, *BACKENDS):
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if scheduler is not None and backend not in ("dask", "ray"):
        raise ValueError(f"scheduler is for the dask or ray backends, not {backend!r}")
    if backend == "dask":
        try:
            from distributed import Client, LocalCluster
        except ImportError:  # pragma: no cover - optional extra
            raise ValueError('backend "dask" needs dask.distributed: '
                             'pip install "onlineboost[dask]"') from None
        with contextlib.ExitStack() as stack:
            if scheduler is None:
                cluster = stack.enter_context(LocalCluster(
                    n_workers=n_workers, processes=True, threads_per_worker=1,
                    dashboard_address=None))
                scheduler = cluster.scheduler_address
            stack.enter_context(Client(scheduler))
            with parallel_config(backend="dask"):
                yield "dask"
        return
    if backend == "ray":
        try:
            import ray
            from ray.util.joblib import register_ray
        except ImportError:  # pragma: no cover - optional extra
            raise ValueError('backend "ray" needs ray: pip install "onlineboost[ray]"') from None
        started = not ray.is_initialized()
        if started:
            ray.init(address=scheduler)
        register_ray()
        try:
            with parallel_config(backend="ray"):
                yield "ray"
        finally:
            if started:
                ray.shutdown()
        return
    if backend is None:
        yield None
        return
    with parallel_config(backend=backend):
        yield backend
