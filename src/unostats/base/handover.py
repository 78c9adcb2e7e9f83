"""The hand-over between a thread that makes batches and the thread that stores them.

``BatchThread`` is a daemon thread with a queue of one item, a halt flag that every wait
watches, and room for ``in_flight`` batches: the maker takes room before it makes a batch
(``take_room``) and the storer gives it back once the batch is stored (``stored``), so at most
that many batches exist at once however fast the maker is. Subclasses write ``run``, handing
items over with ``_put`` (False: halted, stop making) and None at the end; the storer takes
them with ``items``. Plain games (``games.driver``) and whole tournaments (``tournaments.driver``)
use it.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import Any


class BatchThread(threading.Thread):
    def __init__(self, name: str, in_flight: int) -> None:
        super().__init__(name=name, daemon=True)
        self.queue: queue.Queue = queue.Queue(maxsize=1)
        self._halt = threading.Event()
        self._room = threading.Semaphore(in_flight)  # batches not yet stored
        self.finished = False  # the maker handed over its last item (``items`` saw None)

    def halt(self) -> None:
        self._halt.set()
        try:  # unblock a maker waiting to hand over a batch
            while True:
                self.queue.get_nowait()
        except queue.Empty:
            pass

    def join(self, timeout: float | None = None) -> None:
        if self.is_alive() or self.ident is not None:
            super().join(timeout)

    def stored(self) -> None:
        """The storer has stored a batch: another may be made."""
        self._room.release()

    def _take_room(self) -> bool:
        """Wait until a batch may be made (False: halted)."""
        while not self._halt.is_set():
            if self._room.acquire(timeout=0.1):
                return True
        return False

    def _put(self, item: Any) -> bool:
        """Hand ``item`` over (False: halted while waiting)."""
        while not self._halt.is_set():
            try:
                self.queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def items(self, stop: Any) -> Iterator[Any]:
        """The items handed over, in order, until the end (then ``finished`` is True) or a stop
        request (``stop.requested``); an exception the maker handed over is raised here."""
        while not stop.requested:
            try:
                item = self.queue.get(timeout=0.1)
            except queue.Empty:
                continue
            if stop.requested:
                return
            if item is None:
                self.finished = True
                return
            if isinstance(item, BaseException):
                raise item
            yield item
