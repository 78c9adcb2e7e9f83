"""Where a run's games play, other than this machine's threads (the kinds' own drivers): an
executor ``check``s the kind (``RunKind.executors``), ``connect``s, then ``play``s like a kind's
driver (``runs.simulate``). One executor so far: ``ray``."""
