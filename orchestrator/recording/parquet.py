"""``timeseries.parquet``: the recorded columns as a Parquet file (pyarrow), for large runs.

Same columns as ``timeseries.csv`` (``time`` in s first, then ``<instance>.<variable>``), all
float64; each field carries its unit in its metadata (key ``unit``). Rows are buffered and
written a row group at a time; the file is complete when the run ends (also when it stops on
an error or an interrupt).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROW_GROUP = 2000  # rows per row group


class ParquetTimeseriesWriter:
    """Writes recorded rows to a Parquet file, one row group per ``ROW_GROUP`` rows."""

    def __init__(self, path: Path, columns: list[str], units: dict[str, str]) -> None:
        self.path = path
        fields = [pa.field("time", pa.float64(), metadata={"unit": "s"})]
        fields += [
            pa.field(name, pa.float64(), metadata={"unit": units.get(name, "")}) for name in columns
        ]
        self.schema = pa.schema(fields)
        self._writer = pq.ParquetWriter(path, self.schema)
        self._buffer: list[np.ndarray] = []

    def write(self, time: float, values: np.ndarray) -> None:
        """Append one row; a full buffer becomes a row group."""
        self._buffer.append(np.concatenate(([time], values)))
        if len(self._buffer) >= ROW_GROUP:
            self._flush()

    def _flush(self) -> None:
        if self._buffer:
            block = np.vstack(self._buffer)
            arrays = [pa.array(block[:, k]) for k in range(block.shape[1])]
            self._writer.write_table(pa.Table.from_arrays(arrays, schema=self.schema))
            self._buffer = []

    def close(self) -> None:
        """Write the remaining rows and the file footer."""
        self._flush()
        self._writer.close()
