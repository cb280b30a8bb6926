"""The Table-1 sweep and the bandit comparison give the same numbers on a real Dask cluster (two
worker processes) as when run here, one task after another: same seeds, same order, same
floats."""

from __future__ import annotations

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

import onlineboost  # noqa: E402
from onlineboost.app import cli, table  # noqa: E402
from onlineboost.app.backends import engine  # noqa: E402


def _worker_package():
    import onlineboost

    return onlineboost.__file__


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as c:
        yield c


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = np.clip(np.sin(2 * X[:, 0]) + 0.3 * X[:, 1] * X[:, 2], -1, 1)
    return {"toy": (X, y)}


def test_run_table_is_identical_on_dask_and_local_processes(cluster):
    kwargs = {"runs": 3, "n_max": 3, "gamma": 0.5, "step_size": "0.5", "progress": False}
    local = table.run_table(_data(), ["ridge", "stump"], jobs=1, **kwargs)  # in this process
    with engine(scheduler=cluster.scheduler_address) as name:
        client = distributed.get_client()
        # the workers are separate processes that import this very package
        paths = client.run(_worker_package)
        assert len(paths) == 2 and set(paths.values()) == {onlineboost.__file__}
        on_dask = table.run_table(_data(), ["ridge", "stump"], jobs=-1, **kwargs)
        assert client.run(lambda dask_worker: len(dask_worker.data) >= 0)  # the cluster was used
    assert name == "dask"
    assert local.keys() == on_dask.keys()
    for key in local:
        for field in ("baseline", "boosted", "normalised"):
            np.testing.assert_array_equal(local[key][field], on_dask[key][field])
    assert np.ptp(local[("toy", "stump")]["normalised"]) > 0  # N matters: not a constant table


def test_cli_table_scheduler_flag(cluster, tmp_path):
    argv = ["table", "--datasets", "diabetes", "--learners", "ridge", "--runs", "2",
            "--n-max", "2", "--no-progress"]
    assert cli.main([*argv, "--jobs", "1", "--markdown", str(tmp_path / "local.md")]) == 0
    assert cli.main([*argv, "--scheduler", cluster.scheduler_address,
                     "--markdown", str(tmp_path / "dask.md")]) == 0
    assert (tmp_path / "local.md").read_text() == (tmp_path / "dask.md").read_text()


def test_bandit_comparison_is_identical_on_dask(cluster):
    """The bandit comparison's grid (policies x data sets x seeds): the same rewards on Dask."""
    from benchmarks import bandit_compare

    policies = [bandit_compare.DEFAULTS, "river EpsilonGreedy(0.1)"]
    local = bandit_compare.table(policies, ["LinearBandit"], [0, 1], 1, n_rounds=200)
    with engine(scheduler=cluster.scheduler_address):
        on_dask = bandit_compare.table(policies, ["LinearBandit"], [0, 1], -1, n_rounds=200)
    assert local.keys() == on_dask.keys() and len(local) == 2
    for key in local:  # (average reward, decisions/s): the timing differs, the reward may not
        assert [v[0] for v in local[key]] == [v[0] for v in on_dask[key]]
    rewards = {key: [v[0] for v in vs] for key, vs in local.items()}
    assert len({r for rs in rewards.values() for r in rs}) == 4  # seeds and policies differ


def test_engine_rejects_unknown_backends():
    with pytest.raises(ValueError, match="backend"):
        with engine("spark"):
            pass
    with pytest.raises(ValueError, match="scheduler"):
        with engine("loky", scheduler="tcp://127.0.0.1:1"):
            pass
