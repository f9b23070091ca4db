"""The native core: the C extension ``_kernel`` (the compiled inner loop of the Model Exchange
right-hand side, the compiled joint coupling, batched FMU transfers, the navigation filter) and
its Python wrappers ``kernel.py``, ``transfer.py`` and ``navigation.py``."""
