"""The master: the time loop (``master.py``) with its stepping strategies (``strong.py``: Model
Exchange with FMI events; ``weak.py``: weak coupling; ``sampled.py``: Co-Simulation units under
strong coupling), integrators and their Jacobian, observers (``probe.py``, the summary of a
run), the assembly of a scenario's parts, and stepping from outside (``stepping.py``)."""
