"""Studies that reproduce published results, and the benchmarks: run from the repository
checkout (``murcosim bench``, ``buoy-study``, ``rendezvous-study``, ``docking-study``), not
installed with the package."""
