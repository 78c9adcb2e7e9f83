"""What a design is, below the scenario loader: ``goals`` (the statistics it aims at), ``plan``
(the checked design) and ``section`` (the ``design:`` section of a scenario file). This
``__init__`` imports nothing.
"""
