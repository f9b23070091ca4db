"""Running a scenario: ``run.py`` (set-up, master, writers, plots) and the supervised child
process that keeps a crash or a hang in an FMU away from the caller (``supervise.py``,
``supervised_child.py``, ``forkserver_setup.py``, the breadcrumbs it leaves, the names of
interrupting signals)."""
