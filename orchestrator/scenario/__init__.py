"""The scenario format: the pydantic model of a scenario file (``model.py``), reading and
validating TOML (``reading.py``), checks across keys (``checks.py``), the sensor and
navigation-filter tables, and the generated reference of every key (``reference.py``)."""
