"""Plain-games and design runs played as tasks on a Ray cluster (``--executor ray``): the driver
(``driver.RayExecutor``), what each worker runs (``worker``) and the cluster's address and
loopback set-up (``cluster``, importable before Ray is). Importing this package imports no Ray."""
