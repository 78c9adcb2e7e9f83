"""The checking helpers a scenario's sections share: ``problems`` (a finding, where each key path
came from, the wording) and ``values`` (strings, integers, seats, lists). The scenario loader and
each kind's section (``tournaments.spec.section``, ``leagues.spec.section``) check with them.

This ``__init__`` imports nothing, so a kind's section reaches them without the loader.
"""
