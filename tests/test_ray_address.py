"""Which cluster `--executor ray` joins, read before Ray is imported (``runs.ray_cluster.joins``),
and whether it stays on the loopback address (then the loopback environment is set first: Ray
reads it once, at import, and without it a driver waits for a head at the machine's interface
address)."""

from __future__ import annotations

import pytest

from unostats.runs.ray_cluster import is_loopback, joins


@pytest.fixture
def env(monkeypatch, tmp_path):
    for name in ("RAY_ADDRESS", "TMPDIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RAY_TMPDIR", str(tmp_path))
    return tmp_path


def test_auto_is_read_from_the_address_file_that_ray_start_leaves(env):
    assert joins("auto") == "auto"  # nothing started: Ray will say so itself
    (env / "ray").mkdir()
    (env / "ray" / "ray_current_cluster").write_text("127.0.0.1:6379")
    assert joins("auto") == "127.0.0.1:6379" and is_loopback(joins("auto"))


def test_ray_address_and_given_addresses(env, monkeypatch):
    assert joins(None) is None and is_loopback(None)  # a local instance of the driver's own
    assert joins("10.0.0.5:6379") == "10.0.0.5:6379" and not is_loopback("10.0.0.5:6379")
    monkeypatch.setenv("RAY_ADDRESS", "10.1.2.3:6379")
    assert joins(None) == joins("auto") == "10.1.2.3:6379"
    assert not is_loopback(joins("auto"))
    assert is_loopback("localhost:6379")
