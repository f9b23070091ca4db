"""The FMI layer: FMU instances through FMPy (``fmu.py``), FMI 3 clocks, FMU logging, the
FMU folder of a scenario, what an FMU declares (``info.py``) and its parameter values."""
