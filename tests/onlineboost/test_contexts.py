"""ContextVectors: river StandardScaler's arithmetic, vectorised; validation before mutation."""

from __future__ import annotations

import numpy as np
import pytest
from river import preprocessing

from onlineboost._contexts import ContextVectors


@pytest.mark.parametrize("scale", [True, False])
def test_equals_river_standard_scaler_with_missing_and_new_keys(scale):
    rng = np.random.default_rng(0)
    reader, river_scaler = ContextVectors(scale=scale), preprocessing.StandardScaler()
    for t in range(300):
        keys = [k for k in "abcd" if t >= 5 * "abcd".index(k) and rng.random() < 0.8]
        x = {k: float(rng.normal(loc=3.0, scale=2.0)) for k in keys}
        if t % 7 == 0:
            x["const"] = 4.0  # variance 0: standardised to 0
        v = reader.read(x)
        if scale:
            river_scaler.learn_one(x)
            x = river_scaler.transform_one(x)
        expected = np.zeros(len(reader))
        for k, value in x.items():
            expected[reader.names.index(k)] = value
        np.testing.assert_allclose(v, expected, rtol=1e-12, atol=1e-12)


def test_bad_context_raises_and_changes_nothing():
    reader = ContextVectors(scale=True)
    reader.read({"a": 1.0, "b": 2.0})
    for bad in [{"a": float("nan")}, {"a": 1.0, "z": float("inf")}, {"a": "x"}, [1.0]]:
        with pytest.raises(ValueError, match="context"):
            reader.read(bad)
    assert reader.names == ["a", "b"]
    twin = ContextVectors(scale=True)
    twin.read({"a": 1.0, "b": 2.0})
    np.testing.assert_array_equal(reader.read({"a": 3.0, "b": 1.0}),
                                  twin.read({"a": 3.0, "b": 1.0}))
