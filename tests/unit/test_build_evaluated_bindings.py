"""Build: Real parameters that the binding of a structural parameter reads are evaluated with
it and not listed by the FMU.

A structural parameter is a number in the equations (it chooses an if-equation's branch, sizes
an array: :mod:`orchestrator.compiler.structural_parameters`). Where its binding reads a Real
parameter (MSL's ``LossyGear``: ``final parameter Boolean ideal = Matrices.isEqual(lossTable,
...)``), a value set for that Real parameter at run time would change nothing the equations
hold: listed as tunable, the FMU would silently ignore it. So the FMU lists neither.
``tests/data/evaluated_bindings/EvalLib``: a gear that is ideal where its loss table says so
(``Chooser``, ``LossyChooser``) and a chain of integrators whose count comes from a length
(``Sized``); each checked in all four variants (FMI 3.0 and 2.0, Model Exchange and
Co-Simulation) to 1e-6 against its solution by hand, a line in time that the integrators follow
to round-off.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from build_variants import VARIANTS, assert_agrees_in_four_variants, built_fmus
from fmpy import read_model_description
from modelica_support import EVALUATED_BINDINGS

DATA = Path(__file__).parents[1] / "data" / "evaluated_bindings" / "EvalLib"
TIMES = np.linspace(0.0, 1.0, 11)
J = 2.0  # the gear's inertia, kg m2


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return built_fmus(DATA, tmp_path_factory.mktemp("evaluated"))


def _parameters(fmu: Path) -> set[str]:
    described = read_model_description(str(fmu))
    return {v.name for v in described.modelVariables if v.causality == "parameter"}


@pytest.mark.parametrize("model", ["Chooser", "LossyChooser"])
def test_a_table_that_decides_a_branch_is_not_a_parameter(fmus, model):
    """``ideal`` is evaluated from ``lossTable``: the table is not listed, ``J`` still is."""
    for variant in sorted({variant for variant, _ in VARIANTS}):
        listed = _parameters(fmus[(variant, model)])
        assert "J" in listed, (variant, model, listed)
        assert not {n for n in listed if n.startswith("lossTable")}, (variant, model, listed)


def test_the_table_chooses_the_branch_in_four_variants(fmus):
    """Chooser: no losses, J w' = 1; LossyChooser: J w' = 0.8 - 0.3 (from rest)."""
    ideal = {"w": TIMES / J}
    assert_agrees_in_four_variants(lambda v: fmus[(v, "Chooser")], ideal, TIMES, "Chooser")
    lossy = {"w": (0.8 - 0.3) * TIMES / J}
    assert_agrees_in_four_variants(lambda v: fmus[(v, "LossyChooser")], lossy, TIMES, "Lossy")


def test_parameters_that_size_an_array_are_not_parameters(fmus):
    """Sized: n = integer(L/dx + 0.5) = 3 states, each rising at 1/s; L and dx are evaluated."""
    for variant in sorted({variant for variant, _ in VARIANTS}):
        listed = _parameters(fmus[(variant, "Sized")])
        assert not {"L", "dx", "n"} & listed, (variant, listed)
    reference = {"total": 3 * TIMES}
    assert_agrees_in_four_variants(lambda v: fmus[(v, "Sized")], reference, TIMES, "Sized")


def test_the_construct_rows_name_tests_of_this_module():
    """Every row of the README's construct table from this module names a test here."""
    assert {test for _, _, test in EVALUATED_BINDINGS} <= {
        n for n in globals() if n.startswith("test_")
    }
