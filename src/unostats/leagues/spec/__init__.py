"""What a league is, below the store and the scenario loader: ``seatings`` (the balanced
design), ``section`` (the ``league:`` section of a scenario file) and ``tables`` (the store's
ratings table and view). This ``__init__`` imports nothing.
"""
