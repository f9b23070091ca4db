"""Analysis that works on any scenario: sweeps of varied values (``sweep.py``,
``variations.py``), the drift of a scenario under step sizes, the docking report of a docking
run, the cross-check of built FMUs against OpenModelica, and regression against stored
references (``regression/``)."""
