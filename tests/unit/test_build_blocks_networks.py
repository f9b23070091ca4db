"""Build: networks of Boolean and Integer signal blocks as block libraries write them (MSL's
``MathBoolean``, ``MathInteger`` and ``Math.MultiSwitch`` in ``Blocks.Examples``'
``BooleanNetwork1``, ``IntegerNetwork1`` and ``RealNetwork1``), and connection sets that
rumoca 0.10 chains through vectors of inputs given to it as equations.

``tests/data/blocks_networks/NetLib`` holds edge blocks (``edge(u)``, ``edge(not u)``,
``change(u)`` in ordinary equations, with ``pre(u)`` given at the start), counters of their
edges, switches that take ``expr[i]`` for the first true input ``u[i]`` (an Integer variable
as subscript, found by a function with a ``return`` inside its loop) and two blocks with
vectors of inputs fed by one output. Each model is checked in all four variants (FMI 3.0 and
2.0, Model Exchange and Co-Simulation) against the values of its signals worked out here from
the windows' switching times, to 1e-6 (the signals are piecewise constant or given in closed
form between events, so the only error is the solver's on ``sin``, far below; CVode at 1e-10
in FMPy for Model Exchange, the FMUs' integrator at 1e-9 for Co-Simulation), at times away
from the switching instants.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from build_variants import assert_agrees_in_four_variants, built_fmus
from modelica_support import BLOCKS_NETWORKS

from orchestrator.compiler import build_library
from orchestrator.compiler.connection_chains import ConnectionEquations, tied_connection
from orchestrator.compiler.negated_edges import negated_edges
from orchestrator.compiler.source_rewrites import Rewrite
from orchestrator.errors import BuildError

LIBRARY = Path(__file__).parents[1] / "data" / "blocks_networks" / "NetLib"
# steps of 0.065 s: none at a switching instant (0.2, 0.3, ..., 0.9 s)
TIMES = np.linspace(0.0, 1.04, 17)
MODELS = [
    "NetLib.Edges",
    "NetLib.Switches",
    "NetLib.GuardedSwitches",
    "NetLib.ChainByEquation",
    "NetLib.Rows",
    "NetLib.Chain",
    "NetLib.NestedChain",
    "NetLib.IntegerChain",
]


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return built_fmus(LIBRARY, tmp_path_factory.mktemp("networks"), models=MODELS)


def _window(t: np.ndarray, on: float, off: float, again: float) -> np.ndarray:
    """NetLib.Window: true from ``on`` to ``off`` and after ``again``."""
    return (t > on) & (t < off) | (t > again)


def _check(fmus, model: str, reference: dict[str, np.ndarray]) -> None:
    reference = {name: np.asarray(value, dtype=float) for name, value in reference.items()}
    assert_agrees_in_four_variants(lambda v: fmus[(v, model)], reference, TIMES, model)


def test_edges_and_changes_are_counted_in_four_variants(fmus):
    """Edges: the window is true from 0.3 s to 0.6 s and after 0.8 s; counters on edge(u),
    edge(not u) and change(u) count the rising edges (0.3, 0.8 s), the falling one (0.6 s) and
    all three by their instants. pre(u) = false at the start, where u is false: no edge
    there."""
    rises = (TIMES > 0.3).astype(int) + (TIMES > 0.8)
    falls = (TIMES > 0.6).astype(int)
    _check(
        fmus,
        "Edges",
        {"rises.count": rises, "falls.count": falls, "changes.count": rises + falls},
    )


def _chosen() -> np.ndarray:
    """The index of the first open window of Switches and GuardedSwitches, 0 where none is:
    the first is open on (0.2, 0.5) s and after 0.9 s, the second on (0.4, 0.7) s."""
    first, second = _window(TIMES, 0.2, 0.5, 0.9), _window(TIMES, 0.4, 0.7, 2)
    return np.where(first, 1, np.where(second, 2, 0))


def _integer_switch(start: int) -> list[int]:
    """The Integer switch of {3, 7}: the value of the first open window, else the value it
    held (``start`` before the first choice, 7 from 0.7 to 0.9 s)."""
    held, values = start, []
    for index in _chosen():
        held = {1: 3, 2: 7}.get(index, held)
        values.append(held)
    return values


def test_switches_take_the_first_true_choice_in_four_variants(fmus):
    """Switches: the Integer switch gives 3 while the first window is open, else 7 while the
    second is, and keeps its value where neither is (-1 before the first choice); the Real
    switch gives sin(2t) or 1 + t, and 0.5 where neither is open."""
    chosen = _chosen()
    real = np.where(chosen == 1, np.sin(2 * TIMES), np.where(chosen == 2, 1 + TIMES, 0.5))
    _check(fmus, "Switches", {"integerSwitch.y": _integer_switch(-1), "realSwitch.y": real})


def test_a_subscript_guarded_by_a_relation_takes_its_element_in_four_variants(fmus):
    """GuardedSwitches: `if firstActive > 0 then expr[firstActive] else pre(y)`, a relation
    of Integer values, decided in the pass that computes the index. At 0.7 s the index falls
    from 2 to 0 and y keeps 7; with the relation held in a memory, that pass read expr[0]
    (NaN), which pre(y) kept, and the event iteration stopped the FMU. 0 before the first
    choice (pre(y) = 0 at the start)."""
    _check(fmus, "GuardedSwitches", {"guardedSwitch.y": _integer_switch(0)})


def test_an_output_into_two_input_vectors_written_as_an_equation_in_four_variants(fmus):
    """ChainByEquation: the second window (0.4 to 0.7 s, after 0.85 s) into both and-blocks,
    its second connection written as an equation; and2 = (first and second) and second."""
    first, second = _window(TIMES, 0.2, 0.9, 2), _window(TIMES, 0.4, 0.7, 0.85)
    _check(fmus, "ChainByEquation", {"and1.y": first & second, "and2.y": first & second})


def test_a_search_up_by_a_while_loop_rumoca_translates_in_four_variants(fmus):
    """Rows: at samples every 0.1 s, the index of the first of {0.25, 0.55, 0.75, 1.0} s after
    the sample, 4 at most, by a while loop counting up (MSL's TimeTable searching its rows);
    rumoca 0.10 translates it as written, the build gives it the for loop of
    function_loops. NumPy's searchsorted of the last sample's time."""
    last_sample = np.floor(TIMES / 0.1 + 1e-9) * 0.1
    rows = np.searchsorted([0.25, 0.55, 0.75], last_sample, side="right") + 1
    _check(fmus, "Rows", {"row": rows})


def test_connection_sets_rumoca_chains_are_given_as_equations_in_four_variants(fmus):
    """Chain: the network of ChainByEquation by connect statements, which rumoca 0.10 chains
    as second.y = and1.u[2] = and2.u[2] and cannot orient, given to it as and1.u[2] =
    second.y and and2.u[2] = second.y. NestedChain: the same inside a block, whose own input
    u is the set's source (u = second window, v = first). IntegerChain: Level a (1, 3 after
    0.3 s) and b (10, 20 after 0.6 s) into three sums, b's set chained through all three
    vectors: sum1 = a + b, sum2 = sum1 + b, sum3 = a + sum2 + b; sum2 into twice's scalar
    input first, which rumoca chains to sum3.u[2]: twice = 2 sum2."""
    first, second = _window(TIMES, 0.2, 0.9, 2), _window(TIMES, 0.4, 0.7, 0.85)
    _check(fmus, "Chain", {"and1.y": first & second, "and2.y": first & second})
    _check(fmus, "NestedChain", {"both.y": first & second, "both.and1.y": first & second})
    a = np.where(TIMES > 0.3, 3, 1)
    b = np.where(TIMES > 0.6, 20, 10)
    _check(
        fmus,
        "IntegerChain",
        {"sum1.y": a + b, "sum2.y": a + 2 * b, "sum3.y": 2 * a + 3 * b, "twice.y": 2 * a + 4 * b},
    )


def test_a_chained_connection_set_in_a_for_equation_is_refused_at_the_connection(tmp_path):
    """ChainInLoop: the second window's connections into both vectors in a for-equation, where
    one text (and1.u[i]) names as many members as the loop has passes: left to rumoca 0.10,
    which cannot orient its chain, and refused in one line at the connect statement that
    links and2.u[i] to and1.u[i] (not at Chain's, which the build rewrites)."""
    with pytest.raises(BuildError) as caught:
        build_library(
            LIBRARY,
            tmp_path,
            variants=("me",),
            report=lambda _: None,
            models=["NetLib.ChainInLoop"],
        )
    message = str(caught.value)
    text = (LIBRARY / "package.mo").read_text()
    line = text[: text.index("connect(second.y, and2.u[i])")].count("\n") + 1
    assert "\n" not in message
    assert message.startswith(f"NetLib/package.mo:{line}:7: NetLib.ChainInLoop: unsupported"), (
        message
    )
    assert "links an element of one connector array to an element of another" in message


@pytest.mark.parametrize(
    "source, rewritten",
    [
        ("y = edge(not u);", "y = (not u and pre(u));"),
        ("y = edge(not a.u[2]);", "y = (not a.u[2] and pre(a.u[2]));"),
        ("when edge(not b) then", "when (not b and pre(b)) then"),
        # an expression, not a component reference: left as written
        ("y = edge(not (u or v));", "y = edge(not (u or v));"),
        ("y = edge(u);", "y = edge(u);"),
    ],
)
def test_edge_of_a_negated_reference_is_given_as_its_definition(source, rewritten):
    assert Rewrite(source, negated_edges(source)).text == rewritten


@pytest.mark.parametrize(
    "connects, tied",
    [
        # p.y = a.u[2] = b.u[2]: the link a.u[2] = b.u[2], made by the second statement
        (["p.y, a.u[2]", "p.y, b.u[2]"], 1),
        # a.u[2] = p.y = b.u[2]: rumoca orients the link from the output, which the text does
        # not tell from an input: found (the build rewrites it only where rumoca refuses)
        (["a.u[2], p.y", "b.u[2], p.y"], 1),
        # p.y = s.u = a.u[2]: an element linked to a scalar input (rumoca refuses it)
        (["p.y, s.u", "p.y, a.u[2]"], 1),
        # p.y = a.u[2] = s.u: the element linked to the output, the scalar after it
        (["p.y, a.u[2]", "p.y, s.u"], None),
        # scalar inputs are no arrays' elements
        (["p.y, a.u", "p.y, b.u"], None),
        (["q.y, c.u", "p.y, a.u[1]", "a.u[1], b.u[1]"], 2),
    ],
)
def test_the_connection_rumoca_chains_between_two_arrays_is_found(connects, tied):
    text = "".join(f"  connect({c});\n" for c in connects)
    starts = [k for k in range(len(text)) if text.startswith("connect", k)]
    assert tied_connection(text) == (None if tied is None else starts[tied])


def _signal(causality: str, discrete: bool = True) -> dict:
    """A flat variable as rumoca 0.10's flat dictionary gives a connector's."""
    return {"causality": {causality: {}}, "is_discrete_type": discrete, "is_primitive": True}


CLASS = """model M
  equation
    connect(p.y, a.u[2]);
    connect(p.y, b.u[2]) annotation(Line(points = {{0, 0}, {1, 1}}));
    connect(b.u[2], y);
end M;
"""


@pytest.mark.parametrize(
    "variables, rewritten",
    [
        # p.y the source: each other member equal to it, at the statement first naming it
        (
            {"p.y": _signal("Output"), "a.u": _signal("Input"), "b.u": _signal("Input")}
            | {"y": _signal("Output")},
            "a.u[2] = p.y;\n    b.u[2] = p.y;\n    y = p.y;",
        ),
        # Real signals: rumoca orients their chains; left as written
        (
            {"p.y": _signal("Output", False), "a.u": _signal("Input", False)}
            | {"b.u": _signal("Input", False), "y": _signal("Output", False)},
            None,
        ),
        # two sources (the class's own y an input): no star, left as written
        (
            {"p.y": _signal("Output"), "a.u": _signal("Input"), "b.u": _signal("Input")}
            | {"y": _signal("Input")},
            None,
        ),
        # an instance of M inside the model (m.p.y, ...): the same star
        (
            {"m.p.y": _signal("Output"), "m.a.u": _signal("Input"), "m.b.u": _signal("Input")}
            | {"m.y": _signal("Output")},
            "a.u[2] = p.y;\n    b.u[2] = p.y;\n    y = p.y;",
        ),
    ],
)
def test_a_tied_set_becomes_the_equations_from_its_source(variables, rewritten):
    edits = ConnectionEquations(variables)(CLASS)
    text = Rewrite(CLASS, edits).text
    if rewritten is None:
        assert text == CLASS
    else:
        assert text == CLASS.split("connect")[0] + rewritten + "\nend M;\n"


def test_every_construct_row_names_a_test_of_this_file():
    assert {test for _, _, test in BLOCKS_NETWORKS} <= {
        n for n in globals() if n.startswith("test_")
    }
