"""The master: the loop (``master.py``) over a stepping strategy, manipulators and observers
(``protocols.py``), with every signal name resolved once (``signals.py``). Strategies:
``strong.py`` (Model Exchange with FMI events, over ``integrators.py`` and ``jacobian.py``),
``weak.py`` (weak coupling). Manipulators: ``sampled.py`` (Co-Simulation units under strong
coupling), ``topology.py`` (docking, undocking, scheduled events), ``sampling.py`` (controller
samples). Observers: ``recorder.py`` (rows); ``probe.py`` serves callbacks. Also the assembly
of a scenario's parts, the summary of a run and stepping from outside (``stepping.py``)."""
