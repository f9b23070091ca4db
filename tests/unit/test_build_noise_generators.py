"""Noise sources as the Modelica Standard Library's ``Blocks.Noise`` writes them,
``tests/data/noise_generators/NoiseLib``: an ``inner GlobalSeed`` whose seed and impure
generator are set in an ``initial algorithm`` (``fixed = false`` parameters), blocks reaching it
through ``outer``, Integer state vectors seeded by ``pre(state) = ...`` in initial equations
and stepped in ``when sample(...)`` by an external C function whose output is an Integer
array (xorshift64*: S. Vigna, "An experimental exploration of Marsaglia's xorshift generators,
scrambled", ACM Transactions on Mathematical Software 42(4), 2016), and an impure C function
with a hidden state drawn in a when-equation.

- ``TwoSeeds``: two uniform sources of different local seeds and periods (0.1 s in [-1, 3],
  0.25 s in [0, 1]) and a first-order filter of the first, ``x' = y1 - x``.
- ``ImpureSamples``: the impure generator drawn every 0.1 s, its hidden state seeded once.
- ``ImpureStatements``: the same impure draws in a when-statement of an algorithm section,
  with a state event between the samples, and a C function of constant arguments beside
  them and in an equation (a call of constant arguments alone stopped the build with a
  Python error; unguarded, a draw would run at each evaluation of the event update, as a
  when-equation's did before its calls were guarded).
- ``TupleDraws``: the first source of ``TwoSeeds`` as MSL's ``PartialNoise`` writes it, the
  number and the next state from one C call of two outputs in a when-equation, ``(r_raw,
  state) = random(pre(state))``, which rumoca 0.10 refuses and the build gives it as a
  when-statement (:mod:`orchestrator.compiler.when_tuples`); the same draws.
- ``BoundSeed``: the global seed bound to an impure C function of constant arguments,
  ``fixedSeed = automaticSeed()`` (MSL's ``automaticGlobalSeed`` reads the clock and the
  process id; this one the environment's ``NOISELIB_SEED``, which the test sets before each
  run), and a parameter bound to it: drawn as the FMU initializes, so each run draws from its
  own seed (the call was made once while the model was translated and its value frozen into
  the FMU).

Both against the same generator computed here with Python's integers (the draws bit for bit,
the filter in closed form over each constant piece, to 1e-6) in all four variants (FMI 3.0 and
2.0, Model Exchange and Co-Simulation). Before the initial branch's external calls were
guarded, ``ImpureSamples`` built and gave its first draw at every sample: the seeding call ran
again at each event.

What MSL 4.0.0's noise blocks write beyond these, rumoca 0.10 refuses, each in one line with
its place: an impure function called in a function not declared impure (MSL's
``initializeImpureRandom`` calling ``setInternalState``) and an impure function with an
algorithm; so are a call of several outputs in a when-equation that reads what it assigns
(not given as a when-statement) and an impure such call (rumoca 0.10: its outputs may be
evaluated apart, each a call). The build refuses in one line a call of an impure function in
the binding of a variable that is no parameter (rumoca 0.10 refuses it in other equations), and
places rumoca's refusals of a function named ``initialState`` (the state-machine operator's name)
and of an outer component's ``fixed = false`` parameter read in an initial equation.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from build_variants import VARIANTS, built_fmus, one_line_refusal
from fmpy import simulate_fmu

LIBRARY = Path(__file__).parents[1] / "data" / "noise_generators" / "NoiseLib"
MASK = (1 << 64) - 1
STOP = 1.0  # s
STEP = 0.01  # s: output interval


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return built_fmus(LIBRARY, tmp_path_factory.mktemp("noise"))


def _next(x: int) -> int:
    """One xorshift64 step of a 64-bit state."""
    x ^= x >> 12
    x ^= (x << 25) & MASK
    return x ^ (x >> 27)


def _unit(x: int) -> float:
    """The number in (0, 1] of a state: its scrambled 53 high bits, plus one, times 2^-53."""
    return ((((x * 2685821657736338717) & MASK) >> 11) + 1) / 2.0**53


def _uniform(local_seed: int, global_seed: int, draws: int) -> list[float]:
    """The numbers in (0, 1] of NoiseLib.UniformNoise, one per sample from t = 0: the state
    {localSeed, globalSeed} (high word first) stepped three times, then once per sample."""
    x = ((local_seed & 0xFFFFFFFF) << 32) | (global_seed & 0xFFFFFFFF)
    for _ in range(3):
        x = _next(x)
    numbers = []
    for _ in range(draws):
        numbers.append(_unit(x))
        x = _next(x)
    return numbers


def _impure(seed: int, draws: int) -> list[float]:
    """The impure generator's numbers after NoiseLib_seedImpure(seed), one per sample."""
    x = ((seed & 0xFFFFFFFF) << 32) | 0x9E3779B9
    numbers = []
    for _ in range(draws):
        x = _next(x)
        numbers.append(_unit(x))
    return numbers


def _held(times: np.ndarray, period: float, values: list[float]) -> np.ndarray:
    """The value of a sampled signal at ``times``: the draw of the last sample at or before."""
    return np.asarray(values)[np.floor(times / period + 1e-9).astype(int)]


def _check(fmu_of, expected, names: dict[str, float], label: str, events: list[float]) -> None:
    """Each variant's outputs (``names``: each with its tolerance) against
    ``expected(times)``, away from the sample instants (where the output holds the values
    before and after)."""
    for variant, interface in VARIANTS:
        result = simulate_fmu(
            str(fmu_of(variant)),
            fmi_type=interface,
            stop_time=STOP,
            output_interval=STEP,
            relative_tolerance=1e-10,
            output=list(names),
        )
        times = result["time"]
        away = np.all([np.abs(times / p - np.round(times / p)) > 1e-6 for p in events], axis=0)
        reference = expected(times)
        for name, tolerance in names.items():
            error = np.max(np.abs(result[name][away] - reference[name][away]))
            assert error < tolerance, f"{label} {variant} {interface} {name}: error {error:.2e}"


def test_sampled_xorshift_sources_in_four_variants(fmus):
    draws = int(STOP / 0.1) + 2
    first = [-1 + 4 * r for r in _uniform(1, 4711, draws)]
    second = _uniform(2, 4711, draws)

    def expected(times: np.ndarray) -> dict[str, np.ndarray]:
        x, filtered = 0.0, []
        for t in times:  # x' = y1 - x over each piece where y1 is constant
            k = int(np.floor(t / 0.1 + 1e-9))
            x_k = 0.0
            for j in range(k):  # x at the start of piece k
                x_k = first[j] + (x_k - first[j]) * np.exp(-0.1)
            x = first[k] + (x_k - first[k]) * np.exp(-(t - 0.1 * k))
            filtered.append(x)
        return {
            "y1": _held(times, 0.1, first),
            "y2": _held(times, 0.25, second),
            "x": np.asarray(filtered),
        }

    names = {"y1": 1e-12, "y2": 1e-12, "x": 1e-6}  # draws bit for bit, x to the solver's
    _check(lambda v: fmus[v, "TwoSeeds"], expected, names, "TwoSeeds", [0.1, 0.25])


def test_seed_bound_to_an_impure_function_drawn_at_each_run_in_four_variants(fmus, monkeypatch):
    for seed in (4711, 99):  # the C function reads NOISELIB_SEED as the FMU initializes
        monkeypatch.setenv("NOISELIB_SEED", str(seed))
        first = [-1 + 4 * r for r in _uniform(1, seed, int(STOP / 0.1) + 2)]

        def expected(times: np.ndarray, seed: int = seed, first: list = first) -> dict:
            return {
                "y": _held(times, 0.1, first),
                "seed": np.full(len(times), seed),
                "seed2": np.full(len(times), 2 * seed),
            }

        names = {"y": 1e-12, "seed": 1e-12, "seed2": 1e-12}
        _check(lambda v: fmus[v, "BoundSeed"], expected, names, f"BoundSeed {seed}", [0.1])


def test_call_of_two_outputs_in_a_when_equation_in_four_variants(fmus):
    first = [-1 + 4 * r for r in _uniform(1, 4711, int(STOP / 0.1) + 2)]

    def expected(times: np.ndarray) -> dict[str, np.ndarray]:
        return {"y": _held(times, 0.1, first)}

    _check(lambda v: fmus[v, "TupleDraws"], expected, {"y": 1e-12}, "TupleDraws", [0.1])


def test_impure_generator_seeded_once_in_four_variants(fmus):
    numbers = _impure(42, int(STOP / 0.1) + 2)
    assert len(set(numbers)) == len(numbers)  # the draws differ: a repeated one would show

    def expected(times: np.ndarray) -> dict[str, np.ndarray]:
        return {"y": _held(times, 0.1, numbers)}

    _check(lambda v: fmus[v, "ImpureSamples"], expected, {"y": 1e-12}, "ImpureSamples", [0.1])


def _pair_step(pair: list[int]) -> list[int]:
    """NoiseLib.step: a state pair (the high word first) after one step."""
    x = _next(((pair[0] & 0xFFFFFFFF) << 32) | (pair[1] & 0xFFFFFFFF))
    return [x >> 32, x & 0xFFFFFFFF]


def _filled(local_seed: int, global_seed: int, size: int) -> list[int]:
    """NoiseLib.fillState: the pair of seededState, then each next pair the step of the one
    before, an odd last element the first word of the step of the two before it."""
    state = [0] * size
    state[0:2] = _pair_step(_pair_step(_pair_step([local_seed, global_seed])))
    even = 2 * (size // 2)
    for i in range(3, even + 1, 2):  # Modelica's state[i:i+1] := step(state[i-2:i-1])
        state[i - 1 : i + 1] = _pair_step(state[i - 3 : i - 1])
    if size >= 3 and size != even:
        state[size - 1] = _pair_step(state[size - 3 : size - 1])[0]
    return state


def test_impure_generator_stored_by_a_function_not_declared_impure_in_four_variants(fmus):
    # initializeHidden(4711): fillState(715827883, 4711, 5), then setHidden stores it (the
    # generator goes on from its last two elements); the seed's other branch would add 100
    # to the tally that the samples read
    state = _filled(715827883, 4711, 5)
    x = ((state[3] & 0xFFFFFFFF) << 32) | (state[4] & 0xFFFFFFFF)
    numbers = []
    for _ in range(int(STOP / 0.1) + 2):
        x = _next(x)
        numbers.append(_unit(x))
    assert numbers[:2] != _impure(42, 2)  # another state than a seeding call's

    def expected(times: np.ndarray) -> dict[str, np.ndarray]:
        return {"y": _held(times, 0.1, numbers), "calls": np.zeros(len(times))}

    names = {"y": 1e-12, "calls": 1e-12}
    _check(lambda v: fmus[v, "HiddenSeed"], expected, names, "HiddenSeed", [0.1])


def test_seed_hashed_by_a_library_compiled_from_its_source_in_four_variants(fmus):
    # hashName of a String literal alone: called while the model is translated, from a
    # library the build compiles from its C source (NoiseHash.c), whose symbol was left
    # unresolved there and ended the process (MSL's hashString in ModelicaExternalC)
    h = 5381
    for c in b"NoiseLib.HashedSeed.noise":
        h = (33 * h + c) & 0xFFFFFFFF
    h -= (h >> 31) << 32  # as a C int

    def expected(times: np.ndarray) -> dict[str, np.ndarray]:
        return {"y": np.full(len(times), float(h))}

    _check(lambda v: fmus[v, "HashedSeed"], expected, {"y": 0.5}, "HashedSeed", [1.0])


# a hidden state set by a function without outputs, as MSL's setInternalState
SETTER = """
  impure function setState
    input Integer s;
  external "C" set_state(s);
  end setState;"""


def test_impure_generator_in_a_when_statement_in_four_variants(fmus):
    numbers = _impure(42, int(STOP / 0.1) + 2)
    constant = _unit((3 << 32) | 4)

    def expected(times: np.ndarray) -> dict[str, np.ndarray]:
        value = np.full(len(times), constant)
        return {"y": _held(times, 0.1, numbers), "yc": value, "yk": value}

    names = {"y": 1e-12, "yc": 1e-12, "yk": 1e-12}
    _check(lambda v: fmus[v, "ImpureStatements"], expected, names, "ImpureStatements", [0.1])


def test_impure_call_in_a_function_of_no_scalar_output_is_refused_at_the_call(tmp_path):
    # given to rumoca only where a scalar Integer or Real output can add the call's effect
    message = one_line_refusal(
        tmp_path,
        f"""package Bad{SETTER}
  function seeded "not declared impure, of an array output"
    input Integer seed;
    output Integer ids[2];
  algorithm
    ids := {{1, 2}};
    setState(seed);
  end seeded;
  model M
    final parameter Integer id[2](each fixed = false);
  initial equation
    id = seeded(3);
  end M;
end Bad;
""",
    )
    assert message.startswith(
        "Bad/package.mo:11:5: Bad.M: unsupported Modelica construct call statement of "
        "function 'setState' in a function"
    ), message


def test_impure_call_of_an_output_in_a_function_not_declared_impure_is_refused(tmp_path):
    message = one_line_refusal(
        tmp_path,
        """package Bad
  impure function next
    input Integer s;
    output Integer n;
  external "C" n = next_value(s);
  end next;
  function seeded "not declared impure"
    input Integer seed;
    output Integer id;
  algorithm
    id := next(seed);
  end seeded;
  model M
    final parameter Integer id(fixed = false);
  initial equation
    id = seeded(3);
  end M;
end Bad;
""",
    )
    assert message.startswith(
        "Bad/package.mo:11:11: Bad.M: unsupported Modelica construct call of "
        "impure function 'next' in a function not declared impure"
    ), message


def test_slice_of_a_variable_extent_in_a_function_is_refused_at_the_slice(tmp_path):
    # bounds that differ by a number are given element by element; these differ by n
    message = one_line_refusal(
        tmp_path,
        """package Bad
  function total
    input Real u[:];
    output Real s;
  algorithm
    s := sum(u);
  end total;
  function partialSums
    input Integer n;
    input Real u[4];
    output Real y;
  algorithm
    y := 0;
    for i in 1:2 loop
      y := y + total(u[i:i+n]);
    end for;
  end partialSums;
  model M
    Real y = partialSums(1, {1, 2, 3, 4});
  end M;
end Bad;
""",
    )
    assert message.startswith(
        "Bad/package.mo:15:22: Bad.M: unsupported Modelica construct slice of an array in a "
        "function whose bounds rumoca 0.10 cannot size"
    ), message


def test_impure_function_with_an_algorithm_is_refused_at_its_declaration(tmp_path):
    message = one_line_refusal(
        tmp_path,
        f"""package Bad{SETTER}
  impure function seeded
    input Integer seed;
    output Integer id;
  algorithm
    id := 1;
    setState(seed);
  end seeded;
  model M
    final parameter Integer id(fixed = false);
  initial equation
    id = seeded(3);
  end M;
end Bad;
""",
    )
    assert message.startswith(
        "Bad/package.mo:6:10: Bad.M: unsupported Modelica construct impure "
        "function 'Bad.seeded' with an algorithm"
    ), message


def test_call_of_several_outputs_in_a_when_equation_is_refused_at_the_equation(tmp_path):
    message = one_line_refusal(
        tmp_path,
        """package Bad
  function halves
    input Integer s[2];
    output Real r;
    output Integer next[2];
  algorithm
    r := s[1] / 2;
    next := {s[2], s[1] + s[2]};
  end halves;
  model M
    discrete Integer state[2](each start = 1, each fixed = true);
    discrete Real r;
    discrete Real y;
  equation
    when sample(0, 0.1) then
      (r, state) = halves(pre(state));
      y = r + 1;
    end when;
  end M;
end Bad;
""",
    )
    assert message.startswith(
        "Bad/package.mo:16:7: Bad.M: unsupported Modelica construct call "
        "of a function with several outputs in a when-equation"
    ), message


def test_impure_call_of_two_outputs_in_a_when_equation_is_refused_at_the_equation(tmp_path):
    message = one_line_refusal(
        tmp_path,
        """package Bad
  impure function draw
    input Integer id;
    output Real r;
    output Integer count;
  external "C" draw_next(id, r, count);
  end draw;
  model M
    discrete Real r;
    discrete Integer count;
  equation
    when sample(0, 0.1) then
      (r, count) = draw(1);
    end when;
  end M;
end Bad;
""",
    )
    assert message.startswith(
        "Bad/package.mo:13:7: Bad.M: unsupported Modelica construct call of impure function "
        "'draw' with several outputs in a when-equation or when-statement"
    ), message


def test_impure_call_in_a_binding_equation_is_refused_at_the_variable(tmp_path):
    message = one_line_refusal(
        tmp_path,
        """package Bad
  impure function automaticSeed
    output Integer seed;
  external "C" seed = bad_seed(0.0);
  end automaticSeed;
  model M
    Real y = automaticSeed() "a binding equation (rumoca 0.10 refuses the call in others)";
  end M;
end Bad;
""",
    )
    assert message.startswith(
        "Bad/package.mo:7:5: Bad.M: unsupported Modelica construct call of an impure "
        "function in an equation or the binding of a variable that is no parameter"
    ), message


def test_function_named_initial_state_is_refused_at_its_call(tmp_path):
    message = one_line_refusal(
        tmp_path,
        """package Bad
  function initialState "a user's function of the state-machine operator's name"
    input Real k;
    output Real x0;
  algorithm
    x0 := 2*k;
  end initialState;
  model M
    parameter Real k = 1.5;
    Real x(start = initialState(k), fixed = true);
  equation
    der(x) = -x;
  end M;
end Bad;
""",
    )
    assert message.startswith(
        "Bad/package.mo:10:20: Bad.M: unsupported Modelica construct call of 'initialState', "
        "which rumoca 0.10 takes for the state-machine operator"
    ), message


def test_outer_parameter_of_the_initial_sections_in_an_initial_equation_is_placed(tmp_path):
    message = one_line_refusal(
        tmp_path,
        """package Bad
  model Seeds
    final parameter Integer seed(fixed = false);
  initial algorithm
    seed := 17;
  end Seeds;
  block Counter
    outer Seeds seeds;
    discrete Integer s[2];
  initial equation
    pre(s) = {seeds.seed, 1};
  equation
    when sample(0, 0.1) then
      s = pre(s) + {1, 1};
    end when;
  end Counter;
  model M
    inner Seeds seeds;
    Counter counter;
  end M;
end Bad;
""",
    )
    assert message.startswith(
        "Bad/package.mo:11:15: Bad.M: unsupported Modelica construct reference to "
        "'counter.seeds.seed' that rumoca 0.10 does not resolve"
    ), message
