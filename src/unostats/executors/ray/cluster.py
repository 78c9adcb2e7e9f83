"""Ray on this machine's loopback address only: the environment that keeps it there
(``use_loopback``), whether a cluster's head answers at all before Ray is asked to join it
(``unreachable``: Ray itself would wait for ever), and a cluster of several nodes on this machine (``local_cluster``), what the
tests and ``make bench`` play against (``ray.cluster_utils.Cluster``: a head node and worker
nodes, each its own raylet and object store, as on separate machines).

``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` must be in the environment of the driver and the nodes
before Ray is imported (Ray reads it once, at import; without it Ray replaces 127.0.0.1 with the
machine's interface address and a driver waits for a head it cannot reach). Every node is
started with node IP 127.0.0.1, no dashboard, no usage statistics and a small object store; its
sessions, logs and address file go to ``temp_dir`` (``RAY_TMPDIR``), so ``--address auto``
elsewhere on the machine is not redirected to it.

Nothing here imports Ray at module level: the environment comes first.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOOPBACK = "127.0.0.1"
LOOPBACK_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}
CONNECT_TIMEOUT = 5.0  # seconds for a cluster's head to accept a connection
CONNECT_TIMEOUT_ENV = "UNOSTATS_RAY_CONNECT_TIMEOUT"


def joins(address: str | None) -> str | None:
    """The cluster ``ray.init(address=...)`` will join, read without importing Ray: HOST:PORT;
    'auto' (and None under $RAY_ADDRESS) as Ray resolves it, from $RAY_ADDRESS or the address
    file that ``ray start`` leaves in Ray's temp folder ($RAY_TMPDIR, else $TMPDIR, else
    /tmp); None: a new instance of the driver's own; 'auto' when nothing says where."""
    given = os.environ.get("RAY_ADDRESS")
    if address is None and not given:
        return None
    if address not in (None, "auto"):
        return address
    if given and given != "auto":
        return given
    temp = os.environ.get("RAY_TMPDIR") or os.environ.get("TMPDIR") or "/tmp"
    try:
        return (Path(temp) / "ray" / "ray_current_cluster").read_text().strip() or "auto"
    except OSError:
        return "auto"


def is_loopback(address: str | None) -> bool:
    """Does ``address`` (``joins``' answer) stay on this machine's loopback? None (a local
    instance of the driver's own) does."""
    return address is None or address.split(":")[0] in (LOOPBACK, "localhost")


def connect_timeout() -> float:
    """Seconds a head may take to accept a connection: $UNOSTATS_RAY_CONNECT_TIMEOUT, else
    ``CONNECT_TIMEOUT``. Raises ValueError (a sentence) for a value that is not a positive
    number."""
    text = os.environ.get(CONNECT_TIMEOUT_ENV, "").strip()
    if not text:
        return CONNECT_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= 3600:
        raise ValueError(f"${CONNECT_TIMEOUT_ENV}={text!r}: expected seconds from 0 to 3600, "
                         f"e.g. {CONNECT_TIMEOUT:g}")
    return value


def unreachable(address: str | None, timeout: float) -> str | None:
    """Why nothing answers at ``address`` (``joins``' answer: HOST:PORT, or ray://HOST:PORT),
    in a few words, or None when a connection is accepted within ``timeout`` seconds or there is no address to
    try (a local instance of the driver's own; 'auto' with nothing started: Ray says so)."""
    if address is None or address == "auto":
        return None
    host, _, port = address.removeprefix("ray://").rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        return "that is not HOST:PORT (e.g. 127.0.0.1:6379)"
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except TimeoutError:
        return f"no answer within {timeout:g} s"
    except OSError as e:
        return (e.strerror or str(e)).lower()
    return None


def use_loopback() -> None:
    """Set the loopback environment for this process and the Ray processes it starts (call it
    before Ray is imported)."""
    os.environ.update(LOOPBACK_ENV)


@contextmanager
def local_cluster(*, nodes: int = 2, cpus_per_node: int = 1, temp_dir: str,
                  object_store_mb: int = 100) -> Iterator[str]:
    """Start ``nodes`` nodes (the first is the head), yield the cluster's address, shut every
    node down at the end. The environment variables it sets stay set for the process (the
    driver that connects afterwards needs them too)."""
    use_loopback()
    os.environ["RAY_TMPDIR"] = temp_dir  # sessions, logs and the address file of "auto"
    os.makedirs(os.path.join(temp_dir, "ray"), exist_ok=True)
    from ray.cluster_utils import Cluster

    node = {"num_cpus": cpus_per_node, "node_ip_address": LOOPBACK,
            "object_store_memory": object_store_mb * 2**20, "include_dashboard": False,
            "env_vars": dict(LOOPBACK_ENV)}
    cluster = Cluster(initialize_head=True,
                      head_node_args={**node, "dashboard_host": LOOPBACK})
    try:
        for _ in range(nodes - 1):
            cluster.add_node(**node)
        cluster.wait_for_nodes()
        yield cluster.address
    finally:
        cluster.shutdown()
