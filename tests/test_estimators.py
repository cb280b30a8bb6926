"""Contract checks on every public estimator: river's checks for online ones, scikit-learn's
`check_estimator` for batch ones. They test contracts, not numbers; numbers are tested elsewhere."""

from __future__ import annotations

import inspect

import pytest
from river import base as river_base
from river import checks as river_checks
from sklearn.base import BaseEstimator
from sklearn.utils.estimator_checks import check_estimator

import learners
import onlineboost
import onlineboost.batch
import streams


def _public_classes():
    for module in (onlineboost, onlineboost.batch, learners, streams):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) and not inspect.isabstract(obj):
                yield obj


def _river_estimators():
    for cls in _public_classes():
        if issubclass(cls, river_base.Estimator) and "_unit_test_params" in cls.__dict__:
            for params in cls._unit_test_params():
                yield cls(**params)


def _sklearn_estimators():
    for cls in _public_classes():
        if issubclass(cls, BaseEstimator):
            yield cls()


def _river_ids():
    return [
        (model, check)
        for model in _river_estimators()
        for check in river_checks.yield_checks(model)
    ]


@pytest.mark.parametrize(
    "model, check",
    [pytest.param(m, c, id=f"{m}:{c.__name__}") for m, c in _river_ids()],
)
def test_river_checks(model, check):
    check(model.clone())


@pytest.mark.parametrize("estimator", list(_sklearn_estimators()), ids=lambda e: type(e).__name__)
def test_sklearn_checks(estimator):
    check_estimator(estimator)
