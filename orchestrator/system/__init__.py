"""The assembled system: the FMUs of a scenario, their connections, environment and ocean
(``system.py``), the recorded columns and their units, and the SSP exchange of a system."""
