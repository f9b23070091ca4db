"""The regression suite file: test cases, where their references live, and the tolerance tubes.

A suite is a TOML file (relative paths start at its folder)::

    references = "references"        # folder of the stored reference results (the default)

    [tolerance]                      # every signal's tube unless a case or a pattern says more
    atol = 1e-6                      # absolute, in the signal's unit
    rtol = 1e-6                      # relative to the reference's local value
    time = 0.0                       # s, shift allowed in time (steps, events)
    events = 1e-6                    # s, allowed difference of an event's time

    [cases.single]                   # a scenario file, run as `murcosim run` runs it
    scenario = "../scenarios/bluerov2_heavy_single.toml"
    stop_time = 10.0                 # optional: a shorter run than the file's
    signals = ["rov.p[*]", "rov.q[*]"]   # optional: recorded columns to compare (default all)
    [cases.single.tolerances."rov.nu[*]"]
    atol = 1e-4                      # a pattern (* any text, ? one character) narrows the tube

    [cases.thruster_step]            # an FMU alone: its DefaultExperiment, inputs from a CSV
    fmu = "fmus/fmi2/LaggedThruster.fmu"
    inputs = "thruster_in.csv"       # time + input columns, each value held from its row's time
    parameters = { T = 0.2 }

Every key is checked; a bad value is one line naming the file and the key.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from orchestrator.errors import ScenarioError
from orchestrator.recording.patterns import matches


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Tolerance(_Strict):
    """A tolerance tube around the reference (pyfunnel's L1 rectangles): at each reference point
    a rectangle of half-width ``time`` (s) and half-height ``atol + rtol |y_ref|``."""

    atol: float = Field(1e-6, ge=0, description="Absolute tolerance, in the signal's unit")
    rtol: float = Field(1e-6, ge=0, description="Relative to the reference's local value")
    time: float = Field(0.0, ge=0, description="Shift allowed in time (s)")
    events: float = Field(1e-6, ge=0, description="Allowed difference of an event's time (s)")


class TolerancePatch(_Strict):
    """Tolerances that replace the suite's for some signals or cases; keys left out keep them."""

    atol: float | None = Field(None, ge=0)
    rtol: float | None = Field(None, ge=0)
    time: float | None = Field(None, ge=0)
    events: float | None = Field(None, ge=0)

    def over(self, base: Tolerance) -> Tolerance:
        """``base`` with the keys given here replaced."""
        return base.model_copy(update=self.model_dump(exclude_none=True))


class Case(_Strict):
    """One test case: a scenario file, or an FMU run alone (optionally with CSV inputs)."""

    scenario: str | None = Field(None, description="Scenario file, relative to the suite")
    fmu: str | None = Field(None, description="FMU file run alone, relative to the suite")
    inputs: str | None = Field(
        None, description="CSV of the FMU's inputs: 'time' and one column per input, held"
    )
    parameters: dict[str, float | bool | str] = Field(
        default_factory=dict, description="Parameter values of the FMU run alone"
    )
    start: dict[str, float | bool | str] = Field(
        default_factory=dict, description="Start values of the FMU run alone"
    )
    fmu_dir: str | None = Field(None, description="FMU folder of a scenario (relative to suite)")
    stop_time: float | None = Field(None, gt=0, description="Stop time (s) instead of the case's")
    output_interval: float | None = Field(
        None, gt=0, description="Recording interval (s) of an FMU run alone (default: 500 points)"
    )
    signals: list[str] | None = Field(
        None, description="Recorded columns to compare, patterns with * and ? (default: all)"
    )
    tolerance: TolerancePatch = TolerancePatch()
    tolerances: dict[str, TolerancePatch] = Field(
        default_factory=dict, description="Per signal pattern (* and ?), in file order"
    )

    @model_validator(mode="after")
    def _one_source(self) -> Case:
        if (self.scenario is None) == (self.fmu is None):
            raise ValueError("expected exactly one of 'scenario' and 'fmu'")
        if self.scenario is not None:
            only_fmu = ("inputs", "parameters", "start", "output_interval")
            given = [k for k in only_fmu if k in self.model_fields_set]
            if given:
                raise ValueError(f"'{given[0]}' applies to an FMU case (fmu = ...), not a scenario")
        if self.fmu is not None and self.fmu_dir is not None:
            raise ValueError("'fmu_dir' applies to a scenario case, not an FMU case")
        return self

    def tolerance_of(self, signal: str, suite: Tolerance) -> Tolerance:
        """The tube of ``signal``: the suite's, the case's, then every matching pattern's."""
        tube = self.tolerance.over(suite)
        for pattern, patch in self.tolerances.items():
            if matches(signal, pattern):
                tube = patch.over(tube)
        return tube


class Suite(_Strict):
    """A regression suite: its cases by name, the reference folder and the default tube."""

    references: str = Field("references", description="Reference folder, relative to the suite")
    tolerance: Tolerance = Tolerance()
    cases: dict[str, Case] = Field(min_length=1, description="Test cases by name")


def load_suite(path: Path) -> Suite:
    """Read and validate a suite file; errors are one line naming the file and the key."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ScenarioError(f"{path}: regression suite not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(f"{path}: cannot read the regression suite ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{path}: not valid TOML ({exc})") from None
    try:
        suite = Suite.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(part) for part in error["loc"]) or "(top level)"
        message = error["msg"].removeprefix("Value error, ")
        raise ScenarioError(f"{path}: {key}: {message}") from None
    bad = [name for name in suite.cases if not name or "/" in name or name.startswith(".")]
    if bad:
        raise ScenarioError(f"{path}: cases.{bad[0]}: a case name must be usable as a file name")
    return suite
