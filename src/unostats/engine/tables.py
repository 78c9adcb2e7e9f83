"""Many tables in one engine call, their seats given by index: one game per table, each with
its own seats and seed (tournament stages; ``simulate.simulate_tables`` takes each table's
Seats).

A ``TablePlayer`` plays tables of one rule set; the seats of its tables are given as indices
into a few distinct Seats (``which[i, s]``: the seat in place s of table i), so the kernel's
per-game seat setups are built with numpy whatever the number of tables, and the kernel
inputs of the rules (options, deck, points) are built once per table size and reused from
call to call.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..rules import RuleSet
from ..seats import Seat
from ._inputs import KernelInputs
from ._output import Batch
from .simulate import play_tables


class TablePlayer:
    """Plays tables under ``rules`` on ``threads`` (None: all), reusing what does not depend
    on the tables (the rules' kernel inputs, per table size)."""

    def __init__(self, rules: RuleSet, threads: int | None = None) -> None:
        self.rules = rules
        self.threads = threads
        self._inputs: dict[int, KernelInputs] = {}  # by table size

    def play(self, seats: Sequence[Seat], which: np.ndarray, seeds: np.ndarray,
             streams: np.ndarray | None = None) -> Batch:
        """Table i seats ``seats[which[i, s]]`` in place s (``which``: int [k, players]) and
        plays game ``streams[i]`` (None: 0) of a run seeded ``seeds[i]``: row for row the game
        ``simulate_batches`` plays for those seats and that seed, but for its number, which is
        i. The Batch holds pyarrow Tables."""
        which = np.asarray(which, dtype=np.int64)
        players = which.shape[1]
        inputs = self._inputs.get(players)
        if inputs is None:
            inputs = self._inputs[players] = KernelInputs.build(self.rules, players, seats[0])
        return play_tables(inputs, seats, which, np.asarray(seeds, dtype=np.uint64),
                           None if streams is None else np.asarray(streams, dtype=np.int64),
                           self.threads)
