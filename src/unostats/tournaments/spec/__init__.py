"""What a championship is, below the store and the scenario loader: ``bracket`` (the
championship's pure logic), ``section`` (the ``tournament:`` section of a scenario file) and
``tables`` (the store's tournament tables and views). This ``__init__`` imports nothing.
"""
