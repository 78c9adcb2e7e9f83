"""A Ray cluster of several nodes on this machine, on the loopback address only: what the tests
and ``make bench`` play against (``ray.cluster_utils.Cluster``: a head node and worker nodes,
each its own raylet and object store, as on separate machines).

Every node is started with node IP 127.0.0.1 and ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` in the
environment of the driver and the nodes (without it Ray replaces 127.0.0.1 with the machine's
interface address), no dashboard, no usage statistics, and a small object store; its sessions,
logs and address file go to ``temp_dir`` (``RAY_TMPDIR``), so ``--address auto`` elsewhere on the
machine is not redirected to it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from .ray_games import LOOPBACK_ENV

LOOPBACK = "127.0.0.1"
QUIET_ENV = {**LOOPBACK_ENV, "RAY_USAGE_STATS_ENABLED": "0"}


@contextmanager
def local_cluster(*, nodes: int = 2, cpus_per_node: int = 1, temp_dir: str,
                  object_store_mb: int = 100) -> Iterator[str]:
    """Start ``nodes`` nodes (the first is the head), yield the cluster's address, shut every
    node down at the end. The environment variables it sets stay set for the process (the
    driver that connects afterwards needs them too)."""
    os.environ.update(QUIET_ENV)
    os.environ["RAY_TMPDIR"] = temp_dir  # sessions, logs and the address file of "auto"
    os.makedirs(os.path.join(temp_dir, "ray"), exist_ok=True)
    from ray.cluster_utils import Cluster

    node = {"num_cpus": cpus_per_node, "node_ip_address": LOOPBACK,
            "object_store_memory": object_store_mb * 2**20, "include_dashboard": False,
            "env_vars": dict(QUIET_ENV)}
    cluster = Cluster(initialize_head=True,
                      head_node_args={**node, "dashboard_host": LOOPBACK})
    try:
        for _ in range(nodes - 1):
            cluster.add_node(**node)
        cluster.wait_for_nodes()
        yield cluster.address
    finally:
        cluster.shutdown()
