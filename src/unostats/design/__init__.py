"""The design kind of run: a search of house rules for what a table wants.

``spec`` is what a design is, below the scenario loader (which checks every kind's section):
``spec.goals`` the statistics a design aims at (one entry each), ``spec.plan`` the checked
design (what may change, the goals, the budget) and ``spec.section`` the ``design:`` section of
a scenario. Above them: ``driver`` plays a run (an optimiser proposes candidates, each played
with growing game counts while it is still in contention), ``summary`` is what ``simulate``
and ``unostats design`` print (the Pareto set with intervals) and the scenario variants written
from it.

This ``__init__`` and ``spec``'s import nothing, so the loader reaches ``spec.section`` without
the driver.
"""
