"""Outer modifications of a parameter computed at initialization, ``c(fixed = false) = 20``.

``tests/data/outer_modifications/SpringLib``: a unit mass on a spring whose constant the class
declares ``parameter Real c(fixed = false) = 20`` (its binding an initial equation, Modelica 3.6,
Sec. 8.6), modified from outside. Where the modification reaches the FMU (the component's own
declaration ``spring(c(fixed = true) = 40)``, a value alone in an ``extends`` clause or nested,
an attribute alone, ``each`` in a component array), the model is checked in all four variants
(FMI 3.0 and 2.0, Model Exchange and Co-Simulation) against the analytic oscillation
``s = cos(w t)``, ``v = -w sin(w t)``, ``w = sqrt(c/m)``, to 1e-6 (CVode at 1e-10 in FMPy for
Model Exchange, the FMUs' Dormand-Prince at 1e-9 for Co-Simulation). The value 40 against 20
changes ``s(2)`` from 0.997 to -0.887, so a dropped modification cannot pass.

rumoca 0.10 drops a modification of attributes and value, ``c(fixed = true) = 40``, whole in an
``extends`` clause, nested in another component's modification or by a dotted name: the flat
model keeps ``c(fixed = false) = 20`` (and ``extends Preloaded(m(start = 2) = 4)`` keeps
``m = 1``). Those builds are refused in one line at the modification.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from build_variants import VARIANTS, built_fmus
from fmpy import read_model_description, simulate_fmu

from orchestrator.compiler import build_library
from orchestrator.errors import BuildError

LIBRARY = Path(__file__).parents[1] / "data" / "outer_modifications" / "SpringLib"
# model: (the springs' path prefixes, the spring constant the FMU must have, N/m)
BUILT = {
    "OwnDeclaration": (["spring."], 40.0),
    "ValueInExtends": ([""], 40.0),
    "AttributeInExtends": ([""], 20.0),
    "NestedValue": (["holder.spring."], 40.0),
    "EachInArray": (["springs[1].", "springs[2]."], 40.0),
}
# model: the modification it is refused at
REFUSED = {
    "BothInExtends": "c(fixed = true) = 40",
    "BothNested": "c(fixed = true) = 40",
    "BothDotted": "spring.c(fixed = true) = 40",
    "StartInExtends": "m(start = 2) = 4",
    "CommentedInExtends": "c(fixed = true) = 40",
}


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return built_fmus(LIBRARY, tmp_path_factory.mktemp("springs"), models=list(BUILT))


@pytest.mark.parametrize("model", list(BUILT))
@pytest.mark.parametrize(("variant", "interface"), VARIANTS)
def test_outer_modification_of_a_parameter_computed_at_initialization(
    fmus, model, variant, interface
):
    prefixes, c = BUILT[model]
    path = str(fmus[(variant, model)])
    starts = {v.name: v.start for v in read_model_description(path).modelVariables}
    outputs = [f"{p}{n}" for p in prefixes for n in ("s", "v")]
    result = simulate_fmu(
        path,
        fmi_type=interface,
        stop_time=2.0,
        output_interval=0.05,
        relative_tolerance=1e-10,
        output=outputs + [f"{p}c" for p in prefixes],
    )
    w = math.sqrt(c / 1.0)  # the mass is 1 kg
    t = result["time"]
    for prefix in prefixes:
        assert float(starts[f"{prefix}c"]) == c
        np.testing.assert_allclose(result[f"{prefix}c"], c, rtol=0, atol=0)
        np.testing.assert_allclose(result[f"{prefix}s"], np.cos(w * t), rtol=0, atol=1e-6)
        np.testing.assert_allclose(result[f"{prefix}v"], -w * np.sin(w * t), rtol=0, atol=1e-6)


def _place(model: str, modification: str) -> str:
    """``SpringLib/package.mo:line:column`` of ``modification`` in the definition of ``model``."""
    text = (LIBRARY / "package.mo").read_text()
    offset = text.index(modification, text.index(f"model {model} "))
    line = text.count("\n", 0, offset) + 1
    return f"SpringLib/package.mo:{line}:{offset - text.rfind(chr(10), 0, offset)}"


@pytest.mark.parametrize("model", list(REFUSED))
def test_modification_of_attributes_and_value_rumoca_drops_is_refused_at_it(tmp_path, model):
    with pytest.raises(BuildError) as caught:
        build_library(LIBRARY, tmp_path, variants=("me",), report=lambda _: None, models=[model])
    modified = REFUSED[model].split("(")[0].split(".")[-1]
    assert str(caught.value) == (
        f"{_place(model, REFUSED[model])}: SpringLib.{model}: unsupported Modelica construct "
        f"modification of attributes and value of '{_element(model)}' in an extends clause "
        f"or nested modification ('{modified}(...) = ...'), which rumoca 0.10 drops: give the "
        f"value alone ('{modified} = ...') or modify the component where it is declared"
    )
    assert not list(tmp_path.rglob("*.fmu"))


def _element(model: str) -> str:
    """The refused modification's element as the flat model names it."""
    return {"BothNested": "holder.spring.c", "BothDotted": "holder.spring.c"}.get(
        model, REFUSED[model].split("(")[0]
    )


def test_cli_refusal_is_one_line(tmp_path, capsys):
    from orchestrator.cli import main

    args = ["build", "--library", str(LIBRARY), "--out", str(tmp_path), "--variant", "me"]
    status = main([*args, "--model", "BothNested"])
    err = capsys.readouterr().err.strip()
    assert status == 2, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert f"{_place('BothNested', 'c(fixed = true) = 40')}: SpringLib.BothNested" in err
