"""Results: the tables and their units (``tables.py``), writers (CSV, Parquet, MCAP),
readers, the results folder of a run, its provenance record and signal-name patterns."""
