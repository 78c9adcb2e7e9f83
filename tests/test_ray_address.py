"""Which cluster `--executor ray` joins, read before Ray is imported (``executors.ray.cluster.joins``),
and whether it stays on the loopback address (then the loopback environment is set first: Ray
reads it once, at import, and without it a driver waits for a head at the machine's interface
address), and whether a head answers there at all before Ray is asked to join it
(``unreachable``; only 127.0.0.1 is ever tried)."""

from __future__ import annotations

import socket

import pytest

from unostats.executors.ray.cluster import (
    CONNECT_TIMEOUT,
    CONNECT_TIMEOUT_ENV,
    connect_timeout,
    is_loopback,
    joins,
    unreachable,
)


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


def test_a_head_is_tried_on_its_port_before_ray_is_asked():
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        port = listening.getsockname()[1]
        assert unreachable(f"127.0.0.1:{port}", 5) is None
        assert unreachable(f"ray://127.0.0.1:{port}", 5) is None
    # the socket closed: nothing listens on that port now
    assert unreachable(f"127.0.0.1:{port}", 5) == "connection refused"
    assert unreachable(None, 5) is None and unreachable("auto", 5) is None
    assert "not HOST:PORT" in unreachable("127.0.0.1", 5)
    assert "not HOST:PORT" in unreachable("127.0.0.1:99999", 5)


def test_the_connect_timeout_is_configurable(monkeypatch):
    monkeypatch.delenv(CONNECT_TIMEOUT_ENV, raising=False)
    assert connect_timeout() == CONNECT_TIMEOUT
    monkeypatch.setenv(CONNECT_TIMEOUT_ENV, "12.5")
    assert connect_timeout() == 12.5
    for bad in ("x", "0", "-1", "nan", "1e9"):
        monkeypatch.setenv(CONNECT_TIMEOUT_ENV, bad)
        with pytest.raises(ValueError, match=CONNECT_TIMEOUT_ENV):
            connect_timeout()
