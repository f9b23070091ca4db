"""The Modelica constructs the rumoca front end builds and those it refuses, as the tests show.

Each supported construct names the test of ``test_build_rumoca.py`` that builds it in all four
FMU variants and checks it against an analytic or SciPy reference; each refused construct
carries a model that uses it and the words of its one-line error, checked by the same file.
The README's table between the ``modelica-support`` markers is written from here:
``python tests/modelica_support.py`` rewrites it, and a test fails when it is stale.
"""

from __future__ import annotations

import re
from pathlib import Path

SUPPORTED = [
    (
        "Block diagrams of short connector classes (`connector RealInput = input Real`), "
        "conditional connectors (`RealInput d if use_d`)",
        "test_block_diagram_with_short_connector_classes",
    ),
    (
        "Expandable connectors (signal buses): declared signals neither connected nor used "
        "are absent (MSL 4's `BusUsage`)",
        "test_expandable_connector_keeps_only_its_present_signals",
    ),
    (
        "Blocks exported as FMUs with inputs and outputs",
        "test_block_exports_with_its_connectors",
    ),
    (
        "Enumeration types and literals (MSL's `Modelica.Blocks.Types.Init`, a user's own), "
        "choosing initial equations and in relations",
        "test_enumerations_choose_the_initialization",
    ),
    (
        'Functions declared `external "builtin"` (MSL 4\'s `Modelica.Math.sin`, `atan2`, ...)',
        "test_external_builtin_functions_are_the_builtins",
    ),
    (
        'External functions in C (`external "C" f = law(v, k)`): Real and Integer scalars; '
        "their sources from `Include`, `IncludeDirectory` (`modelica://` URIs on the library "
        "path, default `Resources/Include`), `Library`; compiled into the FMU and shipped in "
        "its `sources/`",
        "test_external_c_functions_are_called_from_the_fmu",
    ),
    (
        "External functions in C with Real and Integer arrays and size arguments (`external "
        '"C" scale(a, k, y, size(a, 1))`), matrices in row-major order, Real output arrays',
        "test_external_c_arrays_with_size_arguments",
    ),
    (
        "`derivative` annotations of external C functions naming a `pure` function external "
        "in C (`zeroDerivative` inputs checked at run time): the FMU's directional "
        "derivatives from it; without one, from central differences",
        "test_external_c_derivative_annotation_gives_the_directional_derivative",
    ),
    (
        "External objects (`extends ExternalObject`): the constructor called once per instance "
        "when its parameter arguments are known (String, matrix, Integer array and enumeration "
        "arguments; again only when they change), the object passed to external functions, "
        "the destructor at `fmiFreeInstance` and `fmiReset`, FMU states sharing the object; "
        "rumoca 0.10 flattens those whose constructor is the MSL's 1-D or time table entry "
        "point, as a user library may implement it",
        "test_external_object_tables_interpolate_in_four_variants",
    ),
    (
        "ModelicaUtilities in external C code (`ModelicaFormatMessage` to the FMI logger, "
        "`ModelicaError` an error status with its message, no exit)",
        "test_modelica_error_in_c_is_an_error_status_with_its_message",
    ),
    (
        "The equations of one `when` branch hold together: a value that reads a variable the "
        "branch assigns reads its new value, `pre(v)` the value before (the MSL's time "
        "tables' `nextTimeEvent`)",
        "test_when_equation_reads_the_new_values_it_assigns",
    ),
    (
        "Connectors with `flow` variables (translational, electrical pins)",
        "test_flow_connectors_spring_and_mass",
    ),
    (
        "Index reduction: relative states beside absolute ones (Pantelides, dummy derivatives)",
        "test_relative_states_need_index_reduction",
    ),
    (
        "Index reduction: an EMF driving an inertia through an ideal gear",
        "test_emf_drives_an_inertia_through_a_gear",
    ),
    (
        "Unit strings of `Modelica.Units` in the FMU unit table (Ohm, F, V, A, ...)",
        "test_pins_with_flow_currents",
    ),
    (
        "Records extending records with modifiers, redeclared; component redeclares",
        "test_redeclared_record_that_extends_the_declared_one",
    ),
    (
        "MurCoSim's replaceable records (`Vehicle.Data`, `CylinderBody.Data`, a thruster's "
        "`data`) redeclared by user records, MurCoSim found on the library path",
        "test_user_record_reaches_the_fmu",
    ),
    (
        "Record constructors and package constants",
        "test_record_constructor_and_package_constant",
    ),
    (
        "`inner` / `outer`",
        "test_inner_outer_is_one_environment",
    ),
    (
        "Component arrays with `each` and `sum(thr.y)`, `connect` in `for`, comprehensions, "
        "block matrices, matrix products, functions returning matrices, default arguments, "
        "protected temporaries and loops in functions",
        "test_component_arrays_functions_and_array_expressions",
    ),
    (
        "Whole-array equations, array equations in `for` loops, beside scalar ones",
        "test_array_equation_beside_scalar_equations_and_a_loop",
    ),
    (
        "`import` in `package.mo` seen by classes in the package's other files",
        "test_imports_of_package_mo_seen_in_other_files",
    ),
    (
        "`min` and `max` of parameters, states and types (`type Rate = Real(min = 0)`), per "
        "array element, in both FMI versions' model descriptions (numbers only: a bound that "
        "depends on a parameter, `min = k`, is left out); a scenario's parameter outside them "
        "is refused naming its key",
        "test_bounds_of_parameters_states_and_types_reach_the_model_description",
    ),
    (
        "Start values bound to parameters",
        "test_start_bound_to_a_parameter_follows_it",
    ),
    (
        "Algorithm sections in models (statements run in order; relations give events; `for` "
        "and `if` statements)",
        "test_algorithm_section_in_a_model",
    ),
    (
        "Nonlinear algebraic loops in the continuous equations (Newton's method in the FMU, "
        "from the iteration variables' start values, then from the previous solution; an "
        "error naming the equations when it does not converge)",
        "test_nonlinear_algebraic_loop_solved_by_newton",
    ),
    (
        "A nonlinear loop over protected parameters bound to parameters (MSL's `Thyristor`: "
        "`Ron`, `Roff`), their expressions computed once per parameter change",
        "test_nonlinear_loop_over_parameters_bound_to_parameters",
    ),
    (
        "A nonlinear loop whose unknowns have no start values, where the whole loop's "
        "Jacobian is singular (MSL's heated `Resistor`): torn, Newton on the tearing variables, "
        "then on the whole loop where that fails",
        "test_nonlinear_loop_torn_where_its_unknowns_start_at_zero",
    ),
    (
        "A nonlinear loop that does not converge: its error comes before the model's asserts "
        "on its unknowns (NaN)",
        "test_a_loop_that_does_not_converge_is_named_before_asserts_on_its_unknowns",
    ),
    (
        "`homotopy(actual, simplified)`: initialization from the simplified problem, continued "
        "to the actual one (lambda 0 to 1), then the actual expression; an op-amp Schmitt "
        "trigger whose loop has several roots (MSL's `LimiterHomotopy`), with events and as "
        "a Newton loop",
        "test_homotopy_initializes_from_the_simplified_problem",
    ),
    (
        "A nonlinear loop whose root ends (an op-amp Schmitt trigger, its limits in `noEvent` "
        "as in MSL's `IdealizedOpAmpLimited`): Newton from the iteration variables' start "
        "values where it fails from the last solution, and the relations inside the loop as "
        "event indicators, the switching instants to 1e-8 s (a multivibrator too)",
        "test_inverting_trigger_switches_where_its_root_ends",
    ),
    (
        "A homotopy that cannot reach the actual problem: an error naming lambda and the "
        "loop's equations (file:line:column)",
        "test_homotopy_that_cannot_reach_the_actual_problem",
    ),
    (
        "`initial algorithm` of discrete variables (MSL 4's `Pulse`: statements in order, "
        "`integer()` of time)",
        "test_initial_algorithm_sets_discrete_variables",
    ),
    (
        "`initial algorithm` of a `fixed = false` parameter used by an initial equation; "
        "initial equations of discrete variables (`pre(n) = 3`)",
        "test_initial_algorithm_of_a_parameter_and_initial_equation_of_a_discrete_variable",
    ),
    (
        "`fixed = false` parameters given by initial equations, in `for` loops too, each in "
        "those solved before it (MSL 4's `Blocks.Math.Mean`: `t0 = time`)",
        "test_fixed_false_parameters_from_initial_equations",
    ),
    (
        "Equations and statements of functions with several outputs (`(k, alpha) = f(n, w)`, "
        "`(a, g) := g(n)`), outputs sized by inputs (`Real g[n]`), as MSL 4's `Filter` uses",
        "test_tuple_equations_and_calls_of_functions_with_several_outputs",
    ),
    (
        "`initial equation` (steady state)",
        "test_initial_equation_steady_state",
    ),
    (
        "Newton's guess from a start value bound to parameters (MSL's `LimPID` in steady state)",
        "test_newton_guess_bound_to_a_dependent_parameter",
    ),
    (
        "Nonlinear initial equations (Newton in the FMU)",
        "test_nonlinear_initial_equation",
    ),
    (
        "`fixed = true` on variables index reduction demotes",
        "test_fixed_start_values_of_a_demoted_state",
    ),
    (
        "`when` with `reinit` and `pre`, discrete Integer variables, state events",
        "test_state_events_with_reinit_and_pre",
    ),
    (
        "`sample` (time events), `initial()`, `elsewhen`, Boolean relations on time",
        "test_time_events_initial_and_elsewhen",
    ),
    (
        "`change(v)` in when-conditions (true in the event iteration's pass after one that "
        "changed `v`)",
        "test_change_fires_a_when_equation",
    ),
    (
        "`when terminal()` (fires in one event update when the FMU is terminated)",
        "test_terminal_fires_when_the_fmu_is_terminated",
    ),
    (
        "Relations in `if`-expressions and `when` conditions (event indicators)",
        "test_relations_switch_a_heater",
    ),
    (
        "`assert` (an error with its message)",
        "test_assert_ends_the_run_with_its_message",
    ),
    (
        "A Real parameter with `annotation(Evaluate = true)` (and one a `final` modification "
        "binds to it): its value substituted before the equations are sorted, and so are the "
        "variables it makes numbers, so a zero capacitance leaves no state; none of them "
        "declared in the FMU (left out like constants)",
        "test_evaluate_true_parameter_of_zero_removes_a_capacitors_state",
    ),
    (
        "A derivative or event indicator the model computes as NaN or infinite, or an output "
        "read as one (a division by zero, `sqrt` or `log` outside its domain): an error "
        "naming the variable and the time, never a value handed on",
        "test_non_finite_derivative_output_or_indicator_ends_the_run_with_its_name",
    ),
    (
        "MultiBody frames with an overdetermined orientation record: `Connections.root`, "
        "`potentialRoot`, `branch`, `isRoot` and `rooted` decided when the model is "
        "translated (rumoca's connection graph); whole-record equations, functions taking and "
        "returning records, a joint turned round; large linear blocks torn",
        "test_multibody_pendulum_of_a_revolute_a_rod_and_a_body",
    ),
    (
        "MultiBody prismatic joint: position and cut force of a body on an incline",
        "test_multibody_slider_on_an_incline",
    ),
    (
        "MultiBody free body: its frame a root with Cardan-angle states (`stateSelect = "
        "always`), against Euler's equations",
        "test_multibody_free_body_with_cardan_angle_states",
    ),
    (
        "Newton's first guess in a continuous loop from a start bound to parameters that "
        "depend on others (MultiBody's quaternions, `Q(start = Q_start)`)",
        "test_newton_guess_from_a_start_bound_to_dependent_parameters",
    ),
    (
        "`delay(expr, delayTime)` with a parameter delay time (a delayed sine; the value at "
        "the start before it)",
        "test_delay_of_a_sine_by_a_parameter_time",
    ),
    (
        "`delay` in a delay differential equation, `der(x) = -delay(x, 1.0)`",
        "test_delay_differential_equation_by_the_method_of_steps",
    ),
    (
        "`delay(expr, delayTime, delayMax)` with a delay time that varies",
        "test_variable_delay_bounded_by_delay_max",
    ),
    (
        "`delay` of an expression that jumps at an event (its history keeps both sides)",
        "test_delayed_step_keeps_both_sides_of_its_event",
    ),
    (
        "A delay time that leaves `[0, delayMax]` while the model runs: an error naming the "
        "delay and the time",
        "test_delay_time_past_delay_max_ends_the_run",
    ),
    (
        "`return` in functions: in a branch that depends on the inputs, in one decided when "
        "the model is translated, as the last statement (MSL's `OpAmpDetailed` limiters)",
        "test_return_ends_the_function_in_four_variants",
    ),
    (
        "Outer modifications of a parameter computed at initialization "
        "(`parameter Real c(fixed = false) = 20`): attributes and value on the component's own "
        "declaration (`spring(c(fixed = true) = 40)`), a value alone in `extends` or nested "
        "(`holder(spring(c = 40))`), an attribute alone, `each` in a component array",
        "test_outer_modification_of_a_parameter_computed_at_initialization",
    ),
    (
        "An encapsulated class declared inside the class that extends it (MSL's "
        "`MassWithStopAndFriction.PartialFrictionWithStop`; rumoca 0.10 takes the nested "
        "class's variables for the enclosing class's): given to rumoca after the enclosing "
        "class's end under a name of its own, on the library path and in the user's library",
        "test_nested_classes_and_functions_of_one_name_in_four_variants",
    ),
    (
        "Functions of one short name declared in two classes that are no packages (MSL's "
        "`Move.position` beside `Move_w.position`; rumoca 0.10 keeps one function per short "
        "name): each given to rumoca under a name of its own, with its calls",
        "test_functions_of_one_name_in_two_classes_each_keep_their_own",
    ),
]

# Forms as library authors combine them (``tests/data/authoring``), each checked in four
# variants by the test of ``test_build_authoring.py`` it names
AUTHORING = [
    (
        "Imports in a model: qualified, `.*`, renaming (`import C = Lib.Components`); a `final` "
        "modifier",
        "test_imports_and_a_final_modifier",
    ),
    (
        "`extends` with modifiers of components; a replaceable model (`constrainedby`) "
        "redeclared to a short class declared with its modification",
        "test_extends_with_modifiers_and_a_redeclared_model",
    ),
    (
        "`redeclare each` of a model in a component array, `each` and per-element modifiers",
        "test_redeclare_each_and_per_element_modifiers",
    ),
    (
        "`connect` in a `for` loop over a component array",
        "test_connect_in_a_for_loop_over_a_component_array",
    ),
    (
        "Flow connectors of component arrays connected in `for` loops (a spring chain)",
        "test_flow_connectors_connected_in_for_loops",
    ),
    ("Arrays of records from record constructors", "test_array_of_records_from_constructors"),
    (
        "`inner`/`outer` two levels apart; a parameter record bound two levels down",
        "test_inner_outer_and_a_record_bound_two_levels_down",
    ),
    (
        "Fields of a parameter record passed down (`carrier(data = body)`) follow the record's "
        "parameters set in the FMU and are not parameters of their own (rumoca 0.10 gives "
        "the fields an Integer literal set, `body(m = 3)`, as that literal)",
        "test_record_fields_passed_down_follow_their_parameter",
    ),
    (
        "A redeclared record whose type extends records with modifiers",
        "test_redeclared_record_whose_type_extends_one_with_modifiers",
    ),
    (
        "A replaceable record class redeclared in `extends`, a parameter bound to its field",
        "test_redeclared_record_class_in_extends",
    ),
    (
        "Conditional components; Boolean parameters choosing equations (`if use_x then`)",
        "test_conditional_component_and_boolean_parameters_choose_equations",
    ),
    (
        "Enumeration parameters in if-expressions, compared (`mode > Mode.Linear`), as array "
        "dimensions named in full (`gain[Lib.Data.Mode]`; rumoca 0.10 cannot evaluate "
        "`gain[Data.Mode]`, named relative to an enclosing package) and `Integer(e)`",
        "test_enumeration_parameters_in_if_expressions_and_as_integers",
    ),
    (
        "`integer`, `floor`, `div` and `mod` change only at events (indicators where their "
        "argument crosses an integer, Modelica 3.6 Sec. 3.7.1.1); `change()` of such a variable",
        "test_integer_functions_change_at_events",
    ),
    (
        "Replaceable functions (`constrainedby`) redeclared, also with a modification of a "
        "default input (`redeclare function law = linearLaw(k = 3)`)",
        "test_replaceable_functions_redeclared",
    ),
    (
        "Fixed start values beside initial equations (one of a derivative)",
        "test_fixed_start_values_beside_initial_equations",
    ),
    ("`min`, `max`, `abs` and `sign` of time and states", "test_min_max_abs_and_sign"),
    ("`noEvent` and `smooth` (no event indicators)", "test_no_event_and_smooth"),
    (
        "`when` with a vector condition (fires when any element becomes true) and `elsewhen`; "
        "`pre` of Integer and Boolean variables",
        "test_when_with_a_vector_condition_elsewhen_and_pre",
    ),
    ("`reinit` in a when with a vector condition", "test_reinit_at_two_walls"),
    ("`sample` with a discrete state", "test_sample_halves_a_discrete_state"),
    (
        "`assert` at `AssertionLevel.warning` (the run goes on)",
        "test_assert_at_warning_level_does_not_stop_the_run",
    ),
    ("Functions: default and named arguments", "test_default_and_named_arguments"),
    ("Functions: records as inputs and outputs", "test_records_into_and_out_of_functions"),
    (
        "`der()` of a function with a `derivative` annotation",
        "test_der_of_a_function_with_a_derivative_annotation",
    ),
    (
        "An unknown inside a function call, solved by Newton from its start value (the "
        "`inverse` annotation is not used)",
        "test_unknown_inside_a_function_with_an_inverse",
    ),
    (
        "`stateSelect = always` on a variable whose derivative does not appear: it becomes "
        "the state (the equation giving it differentiated), the other variable is demoted",
        "test_state_select_of_a_variable_whose_derivative_does_not_appear",
    ),
    (
        "SI types declared in the library (`final unit`, `quantity`)",
        "test_units_of_si_types_declared_in_the_library",
    ),
]

# Initialization of MultiBody models as the MSL's examples write it
# (``tests/data/multibody_initialization``), each checked in four variants, or refused in
# one line, by the test of ``test_build_multibody_init.py`` it names
MULTIBODY_INITIALIZATION = [
    (
        "`fixed = false` parameters without a value solved with the states from a fixed start "
        "acceleration or `der(w) = 0` (MSL 4's `InitSpringConstant`)",
        "test_fixed_false_spring_constant_from_steady_start",
    ),
    (
        "Initial conditions that repeat others (a joint's angle fixed again by the model "
        "holding it, MSL 4's `RollingWheelSetDriving`): dropped with a warning naming them",
        "test_repeated_initial_conditions_are_dropped_with_a_warning",
    ),
    (
        "A body whose frame a joint holds at the world's origin (its position a constant, "
        "its velocity `der(r_0) = 0`)",
        "test_body_held_at_the_origin_has_constant_position_and_velocity",
    ),
]

# States chosen by stateSelect and checked at the start point (``test_build_state_choice.py``)
STATE_CHOICE = [
    (
        "States chosen by `stateSelect` whose matrix is singular at the start (a position's "
        "component solved from a line force's length where it is 0, as in MSL 4's MultiBody "
        "`HeatLosses`): chosen again with the Jacobians at the start point",
        "test_state_singular_at_the_start_is_chosen_again_there",
    ),
]
# Initial values the conditions leave free (``test_build_free_start.py``)
FREE_START = [
    (
        "A position that no initial condition fixes beside conditions that repeat a constraint "
        "(MSL 4's MultiBody `Constraints.PrismaticConstraint`: `FreeMotionScalarInit` fixing "
        "a position the constraint locks): the repeats dropped, though their Jacobian rows are "
        "round-off, and the free state started at its start value with a warning naming it",
        "test_a_position_no_condition_fixes_starts_at_a_state_start_with_a_warning",
    ),
]
# Quaternion states held by their unit norm (``test_build_quaternion_states.py``)
QUATERNION_STATES = [
    (
        "Quaternion states with a unit norm (`{0} = orientationConstraint(Q)` beside `w = "
        "angularVelocity2(Q, der(Q))`, MSL 4's MultiBody `Body` and `FreeMotion`): all four "
        "stay states, the norm held differentiated and as an initial condition, so that a body "
        "turning by pi runs through (a static choice of three is singular there)",
        "test_quaternion_components_stay_states_through_a_turn_by_pi",
    ),
    (
        "A point fixed on such a body whose position and velocity are candidate states (a point "
        "mass on a body, MSL 4's `PointGravityWithPointMasses2`): its position solved from the "
        "quaternions, which stay states",
        "test_point_on_the_body_leaves_the_quaternions_states",
    ),
]
MULTIBODY_REFUSED = [
    (
        "Initial conditions that contradict the others, a `fixed = false` parameter that no "
        "condition determines",
        "`too many initial conditions, contradicting the others: ...`, `no initial condition "
        "determines parameter ...`",
        "test_bad_initial_conditions_fail_in_one_line",
    ),
]

# State selection steered by stateSelect (``tests/data/state_selection``), each checked in
# four variants by the test of ``test_build_state_selection.py`` it names
ANALOG_LOOPS = [
    (
        "Nonlinear loops with relations in `noEvent` (an op-amp limited to its supply pins, as "
        "MSL's `IdealizedOpAmpLimited`) where Newton's method cycles between the pieces: "
        "Katzenelson's method, Newton on each piece and the step cut into the next",
        "test_floating_difference_amplifier_in_four_variants",
    ),
]

STATE_SELECTION = [
    (
        "`stateSelect = always` on an angle and on a rate with no `der` in the model (a "
        "pendulum in Cartesian coordinates released where its positions cannot give the angle)",
        "test_angle_and_a_rate_without_der_are_the_states_where_positions_are_singular",
    ),
    (
        "`stateSelect = prefer` / `avoid` / `never` choosing among the candidates of index "
        "reduction (the same pendulum with its horizontal position and velocity the states)",
        "test_preferred_positions_are_the_states",
    ),
    (
        "`stateSelect` on aliases (`x = joint.x`, MSL's `Parts.RollingWheel`): an alias class "
        "takes its highest stateSelect; a rolling disc with two non-holonomic constraints",
        "test_rolling_disc_keeps_the_always_aliases_of_its_joint_as_states",
    ),
    (
        "`stateSelect = always` on a variable an input gives (its derivative cannot be "
        "found): the variable stays algebraic, with a warning naming it",
        "test_always_on_a_variable_an_input_gives_keeps_the_values",
    ),
]

# States a model prefers that no equation differentiates (``tests/data/relative_states``)
RELATIVE_STATES = [
    (
        "`stateSelect = prefer` on a variable whose derivative does not appear (MSL's "
        "Translational `PartialCompliantWithRelativeStates`: `v_rel = der(s_rel)`, no "
        "`der(v_rel)`): a candidate state as an `always` one is, so that a `reinit` of another "
        "state keeps it (a mass held at its stop drags the one behind a spring-damper with it)",
        "test_reinit_keeps_the_preferred_relative_velocity_in_four_variants",
    ),
]

# A when-equation's body read as its condition is (``tests/data/hard_stops``)
HARD_STOPS = [
    (
        "A when-equation's body reading a relation that has just switched (MSL's "
        "`MassWithStopAndFriction`: `when stopped <> 0 then reinit(s, if stopped < 0 then "
        "smin + L/2 else smax - L/2)`): the body sees the pass that fires it",
        "test_masses_stop_at_the_stop_they_reach_in_four_variants",
    ),
]

# Sources as the MSL's Blocks.Sources and Analog.Sources write them
# (``tests/data/pulse_sources``), each checked in four variants by the test of
# ``test_build_pulse_sources.py`` it names
DISPLAY_UNITS = [
    (
        "`displayUnit` (degC, rev/min, bar, km/h, deg) in the model description: the unit's "
        "`<DisplayUnit>` with its factor and offset; one with no affine conversion from the "
        "unit left out with a warning naming the variable",
        "test_descriptions_declare_display_units_with_their_conversions",
    ),
]

ALGORITHM_WHEN = [
    (
        "`when`-statements in algorithm sections: statements run in order at the event from "
        "the values the section holds there, `pre`, a statement before it outside (a sampled "
        "PI controller on a plant); `sample(0, T)` fires at the start time too",
        "test_sampled_pi_controller_on_a_first_order_plant",
    ),
    (
        "Two `when`-statements in one algorithm section, `elsewhen` (the first branch alone "
        "fires when both conditions become true at one instant)",
        "test_two_when_statements_and_elsewhen",
    ),
    (
        "A `when`-statement with a vector condition (fires on each element's rising edge), "
        "an `if`-statement inside it, state events",
        "test_vector_condition_fires_on_each_elements_edge",
    ),
    (
        "A `when`-statement in a block in a file of a sub-package (`within`), used as a component",
        "test_when_statement_in_a_block_of_another_file",
    ),
    (
        "Call statements of functions without outputs that only assert (MSL's "
        "`BooleanTable.isValidTable(table)` in an initial algorithm): their asserts checked, "
        "an error status with the message",
        "test_call_statement_of_a_function_that_only_asserts",
    ),
    (
        "`sample(start, interval)` as a Boolean value outside a when-condition (MSL's "
        "`SampleTrigger`): true in the event iterations at its instants, false between them",
        "test_sample_as_a_boolean_is_true_at_its_instants_only",
    ),
]

# Asserts at events and pre() in initialization mode (``test_build_event_statements.py``)
EVENT_STATEMENTS = [
    (
        "`assert` in a `when`-statement: checked at the event its branch fires, from the values "
        "the statements hold there (an error status with its message at that event, not "
        "before); one at `AssertionLevel.warning` logs its message there and the run goes on",
        "test_assert_in_a_when_statement_fails_at_its_sample",
    ),
    (
        "`assert` on `pre(n)` in a `when`-statement",
        "test_assert_on_pre_in_a_when_statement",
    ),
    (
        "`assert` in a `when`-equation, reading the value its branch assigns at the event",
        "test_assert_in_a_when_equation_reads_what_its_branch_assigns",
    ),
    (
        "`pre(v)` in initialization mode (before the first event update): `v`'s start value",
        "test_pre_in_initialization_mode_is_the_start_value",
    ),
]

# Algorithm sections that assign several variables (``test_build_algorithm_sections.py``)
ALGORITHM_SECTIONS = [
    (
        "Algorithm sections in models and blocks that assign several variables and read a "
        "variable after assigning it (statements in order, each assigned variable entering "
        "with its start value, relations giving events; a block exported with its inputs and "
        "outputs, a `for` loop over array elements, an Integer, classes in files of a package)",
        "test_algorithm_sections_assigning_several_variables_in_four_variants",
    ),
]

# Functions with while loops and returns inside loops that rumoca 0.10 refuses as written
# (``test_build_function_loops.py``)
FUNCTION_LOOPS = [
    (
        "A while loop of a function whose passes its text bounds: a counter moved by one each "
        "pass that subscripts an array in an operand of the condition's `and` (`while i > 1 and "
        "xi < x[i] loop i := i - 1; end while;`, MSL's `Vectors.interpolate` searching down and "
        "up in `BearingFriction`, `Clutch`, `Brake`, `OneWayClutch`), in the user's library and "
        "on the library path, one-row tables included; rumoca 0.10 is given a for loop over the "
        "array's size guarding the body with the condition",
        "test_table_search_down_and_up_interpolates_as_scipy_in_four_variants",
    ),
    (
        "Friction read from such a table by a search from the last interval, in an ODE",
        "test_friction_from_a_table_slows_a_wheel_as_scipy_solves_it_in_four_variants",
    ),
    (
        "`return` inside a loop of a function, statements after the loop (MSL's "
        "`BooleanVectors.firstTrueIndex` in the `Blocks` networks); rumoca 0.10 is given a "
        "Boolean the return sets, guarding what follows",
        "test_return_inside_a_loop_ends_the_function_in_four_variants",
    ),
    (
        "A call of a function with several outputs in an expression: its first output (MSL's "
        "`Clutch`, `mu0 = Vectors.interpolate(mu_pos[:, 1], mu_pos[:, 2], 0, 1)`)",
        "test_table_search_down_and_up_interpolates_as_scipy_in_four_variants",
    ),
]

# Functions of several outputs called in parameter bindings (``tests/data/several_outputs``),
# checked by the tests of ``test_build_several_outputs.py`` named
SEVERAL_OUTPUTS = [
    (
        "A parameter binding compared over another bound to a call of a function with several "
        "outputs, its first output (MSL's `LossyGear`, `eta_mf1_0 = Vectors.interpolate(...)` "
        "and `tau_bf_a_0 = if isEqual(eta_mf1_0, 1.0, eps) ...`), on the library path and in "
        "the user's library, the function extending an icon; rumoca 0.10 is given a wrapper "
        "of the first output beside the function",
        "test_lossy_gear_from_a_table_spins_up_its_load_as_scipy_solves_it_in_four_variants",
    ),
    (
        "The same with a function of the user's library, its defaults",
        "test_users_function_of_two_outputs_in_a_compared_binding_in_four_variants",
    ),
    (
        "A call of a function with several outputs in an equation beside the same call in a "
        "tuple equation: bit for bit its first output",
        "test_call_in_an_expression_is_the_tuple_equations_first_output_in_four_variants",
    ),
]

SOURCES = [
    (
        "A pulse source counting its periods with `integer((time - startTime)/period)` in an "
        "initial algorithm and a when-equation, inside a voltage source that passes `nperiod` "
        "down as a `final` modification (MSL's `PulseVoltage`, `TrapezoidVoltage`)",
        "test_pulse_count_and_voltage",
    ),
]

# Relations on time alone as time events (``tests/data/time_events``), checked by the tests
# of ``test_build_time_events.py`` named
TIME_EVENTS = [
    (
        "A relation on `time` and parameters or discrete variables alone (`time < startTime + "
        "duration` in MSL's `Ramp`, `time > stepTime`, `time >= next` with `next` set by its "
        "own `when`): a time event, reported as the FMU's next event time, switching at its "
        "instant to 1e-12 s (1e-10 s late before)",
        "test_relations_on_time_switch_at_their_instants",
    ),
]

# Time tables keeping their event interval in C as the MSL's CombiTimeTable does
# (``tests/data/time_tables``), checked by the tests of ``test_build_time_tables.py`` named
TIME_TABLES = [
    (
        "A time table kept in C that moves to its next segment at each call of its "
        "`nextTimeEvent` (MSL's `CombiTimeTable`: `when {time >= pre(nextTimeEvent), "
        "initial()}`), ConstantSegments and LinearSegments with a jump, beside other events: "
        "a when-equation's external calls made only when its branch fires",
        "test_time_table_drives_a_mass_in_four_variants",
    ),
]

# Idioms of model libraries (``tests/data/idioms``), each checked in four variants by the test
# of ``test_build_idioms.py`` it names
IDIOMS = [
    (
        "Stream connectors (`stream`, `inStream`, `actualStream`) with flow reversal; a medium "
        "package with constants and functions (`replaceable package Medium`, `Medium.cp`) "
        "redeclared in components and in `extends`",
        "test_stream_connectors_with_flow_reversal",
    ),
    (
        "`inStream` of a connection of three ports (rumoca 0.10's regularization: each port "
        "taking fluid in weighs 1e-7 kg/s, the specification's `positiveMax`)",
        "test_in_stream_of_three_ports_mixes_the_inflows",
    ),
    (
        "Media as packages of constants and functions (`Medium.cp`, `Medium.specificEnthalpy`): "
        "extended with modifications, a short package class with a modification, redeclared "
        "into a component",
        "test_media_redeclared_into_a_component",
    ),
    (
        "`der` of a vector and of a matrix, `J*der(w) = -cross(w, J*w)`, `skew`, `transpose`, "
        "`identity`; a function of the library's own with a default and named arguments",
        "test_euler_equations_with_cross_skew_and_transpose",
    ),
    (
        "A matrix equation whose right-hand side switches at a time event (`diagonal`, an "
        "if-expression of vectors)",
        "test_matrix_equation_with_a_torque_switched_on",
    ),
    (
        "`initial equation der(x) = zeros(2)` of a matrix system `M*der(x) = A*x + B*u`",
        "test_steady_start_of_a_matrix_system",
    ),
    (
        "Boolean and Integer outputs of blocks, `String` parameters, enumerations compared, "
        "`semiLinear`, a hysteresis with `when`/`elsewhen`",
        "test_boolean_and_integer_outputs_and_semi_linear",
    ),
    (
        "Integer, Boolean and enumeration inputs declared discrete (importers hold them "
        "between points), an enumeration starting at its first literal",
        "test_enumeration_input_is_discrete_and_starts_at_its_first_literal",
    ),
]

_MODEL = "  model M\n    Real x(start = 1, fixed = true);\n"
_EXTERNAL = (
    '  function f\n    input Real u;\n    output Real y;\n  external "C" y = cbrt(u)\n'
    "    annotation ANNOTATION;\n  end f;\n"
)
_MISSING_INCLUDE = (
    '(Include = "#include \\"missing.c\\"",\n'
    '      IncludeDirectory = "modelica://Bad/Resources/C-Sources")'
)

UNSUPPORTED = [
    # (construct, package body using it, words of the error, whether it names file:line:col)
    (
        "A modification of attributes and value, `c(fixed = true) = 40`, in `extends`, nested "
        "in another component's modification or by a dotted name (rumoca 0.10 drops it "
        "whole; give the value alone, or modify the component where it is declared)",
        "  partial model P\n    parameter Real c(fixed = false) = 20;\n"
        "    Real s(start = 1, fixed = true);\n    Real v(start = 0, fixed = true);\n"
        "  equation\n    der(s) = v;\n    der(v) = -c*s;\n  end P;\n"
        "  model M\n    extends P(c(fixed = true) = 40);\n  end M;\n",
        "modification of attributes and value of 'c' in an extends clause",
        True,
    ),
    (
        "A redeclared short class with a modification, `redeclare model Law = Q(k = 0.5)` "
        "(rumoca 0.10 drops the modification; redeclare to `model HalfQ = Q(k = 0.5)`)",
        "  record R\n    parameter Real m = 1;\n  end R;\n  partial model G\n"
        "    replaceable record Body = R;\n    parameter Body body;\n"
        "    Real x(start = 1, fixed = true);\n  equation\n    der(x) = -body.m*x;\n  end G;\n"
        "  model M\n    extends G(redeclare record Body = R(m = 3));\n  end M;\n",
        "modification of a redeclared short class ('= R(...)')",
        True,
    ),
    (
        "Fields of an array of records indexed by a `for` variable, `b[i].m` (rumoca 0.10 "
        "stops on an internal error; `b.m` as an array expression builds)",
        "  record R\n    parameter Real m = 1;\n  end R;\n"
        "  model M\n    parameter R b[2] = {R(m = 1), R(m = 2)};\n"
        "    Real v[2](each start = 1, each fixed = true);\n  equation\n"
        "    for i in 1:2 loop\n      b[i].m*der(v[i]) = -v[i];\n    end for;\n  end M;\n",
        "rumoca 0.10 failed with an internal error",
        False,
    ),
    (
        "An unqualified import (`import Lib.Interfaces.*`) in a package whose model uses none "
        "of the imported classes (rumoca 0.10 then reports it unresolved; qualified imports "
        "build)",
        "  import Bad.Lib.*;\n  package Lib\n    constant Real k = 2;\n  end Lib;\n"
        + _MODEL
        + "  equation\n    der(x) = -x;\n  end M;\n",
        "unqualified import 'Bad.Lib.*' where the model uses none of its classes",
        True,
    ),
    (
        "Recursive functions (functions are inlined when the model is translated, and an "
        "if-expression's branches are both translated)",
        "  function fact\n    input Integer n;\n    output Integer f;\n  algorithm\n"
        "    f := if n <= 1 then 1 else n*fact(n - 1);\n  end fact;\n"
        + _MODEL
        + "    parameter Integer f5 = fact(5);\n  equation\n    der(x) = -f5*x;\n  end M;\n",
        "recursive function 'Bad.fact'",
        True,
    ),
    (
        "`terminate()` in a when-equation",
        _MODEL + "  equation\n    der(x) = 1;\n    when x >= 1.5 then\n"
        '      terminate("done");\n    end when;\n  end M;\n',
        "Terminate in a when-equation",
        True,
    ),
    (
        "A `for` loop over an enumeration type, `for e in E` (rumoca 0.10)",
        "  type E = enumeration(a, b);\n"
        + _MODEL
        + "    Real total;\n  equation\n    der(x) = -x;\n"
        "    total = sum(Integer(e) for e in E);\n  end M;\n",
        "'E' is a class, not a variable",
        False,
    ),
    (
        "`der()` of an expression, `der(x*x)` (rumoca 0.10)",
        _MODEL + "  equation\n    der(x*x) = -2*x^2;\n  end M;\n",
        "'der(...)' of an expression",
        False,
    ),
    (
        "`reinit` of one state in two when-equations (rumoca 0.10; one `when {c1, c2}` builds)",
        _MODEL + "    Real v(start = 1, fixed = true);\n  equation\n    der(x) = v;\n"
        "    der(v) = 0;\n    when x > 2 then\n      reinit(v, -pre(v));\n    end when;\n"
        "    when x < 0 then\n      reinit(v, -pre(v));\n    end when;\n  end M;\n",
        "reinit of one state in two when-equations",
        False,
    ),
    (
        "`delay` whose delay time no parameter expression bounds (no `delayMax`)",
        _MODEL + "    Real y;\n  equation\n    der(x) = -x;\n    y = delay(x, x);\n  end M;\n",
        "delay() time argument must be a parameter expression when delayMax is omitted",
        False,
    ),
    (
        "`terminal()` outside a when-condition",
        _MODEL + "    Boolean b;\n  equation\n    der(x) = -x;\n    b = terminal();\n  end M;\n",
        "'terminal(...)' outside a when-condition",
        True,
    ),
    (
        "`reinit` and `terminate` in a model's algorithm section (rumoca 0.10; in initial "
        "algorithms they build, `reinit` in when-equations)",
        _MODEL + "    Real v(start = 0, fixed = true);\n  equation\n    der(x) = v;\n"
        "    der(v) = -9.81;\n  algorithm\n    when x < 0 then\n"
        "      reinit(v, -0.8*pre(v));\n    end when;\n  end M;\n",
        "call statement in a model's algorithm section",
        True,
    ),
    (
        "`sample(start, interval)` in an initial equation (rumoca 0.10 refuses it when it "
        "lowers the model; at initialization no sample fires in these FMUs, write `initial()` "
        "where the start is meant)",
        _MODEL + "    discrete Real y(fixed = false);\n  initial equation\n"
        "    y = if sample(0, 0.5) then 1 else 2;\n  equation\n    der(x) = -x;\n  end M;\n",
        "sample(...) in an initial equation",
        True,
    ),
    (
        "`sample(start, interval)` in an initial algorithm (refused by rumoca 0.10 as in an "
        "initial equation, which named no place before)",
        _MODEL + "    parameter Real p(fixed = false);\n  initial algorithm\n"
        "    p := if sample(0, 0.5) then 1 else 2;\n  equation\n    der(x) = -p*x;\n  end M;\n",
        "sample(...) in an initial equation or algorithm",
        True,
    ),
    (
        "A `when`-statement inside an `if`-, `for`- or `while`-statement (Modelica 3.6, Sec. "
        "11.2.7.1)",
        _MODEL + "    Integer n(start = 0, fixed = true);\n  equation\n    der(x) = 1;\n"
        "  algorithm\n    if x > 1.5 then\n      when x > 2 then\n        n := pre(n) + 1;\n"
        "      end when;\n    end if;\n  end M;\n",
        "when-statement inside an if-, for- or while-statement",
        True,
    ),
    (
        "An algorithm section in the elements of a component array (rumoca 0.10; the same "
        "as a when-equation builds)",
        "  model M\n    Tick c[2](period = {0.25, 0.5});\n  end M;\n"
        "  block Tick\n    parameter Real period;\n"
        "    output Integer n(start = 0, fixed = true);\n  algorithm\n"
        "    when sample(period, period) then\n      n := pre(n) + 1;\n    end when;\n"
        "  end Tick;\n",
        "algorithm section in an element of a component array, assigning 'n'",
        True,
    ),
    (
        "A variable assigned both inside a `when`-statement and outside one in one algorithm "
        "section",
        _MODEL + "    Real y(start = 0, fixed = true);\n  equation\n    der(x) = -x;\n"
        "  algorithm\n    y := x;\n    when x < 0.5 then\n      y := 1;\n    end when;\n"
        "  end M;\n",
        "'y' assigned both in a when-statement and outside one",
        True,
    ),
    (
        "A `when`-statement reading a variable that an earlier `when`-statement of the same "
        "section assigns (rumoca 0.10 refuses the read; assign both in one "
        "`when`-statement)",
        _MODEL
        + "    Integer a(start = 0, fixed = true);\n    Integer b(start = 0, fixed = true);\n"
        "  equation\n    der(x) = -x;\n  algorithm\n    when sample(0, 0.5) then\n"
        "      a := pre(a) + 1;\n    end when;\n    when sample(0, 0.5) then\n      b := 2*a;\n"
        "    end when;\n  end M;\n",
        "algorithm section that reads 'a' after assigning it",
        True,
    ),
    (
        "Call equations of functions without outputs, `check(x);` (rumoca 0.10 drops them); in "
        "a branch of an if- or when-equation, which may never be active (MSL's `LimPID`), the "
        "model builds with a warning naming the call's place",
        "  function check\n    input Real v;\n  algorithm\n"
        '    assert(v > 0, "v must be positive");\n  end check;\n'
        + _MODEL
        + "  equation\n    der(x) = -x;\n    check(x);\n  end M;\n",
        "call equation of function 'check' without outputs",
        True,
    ),
    (
        "Call statements of external functions without outputs in a model's algorithm section",
        '  function show\n    input Real v;\n  external "C" show_value(v);\n  end show;\n'
        + _MODEL
        + "  equation\n    der(x) = -x;\n  algorithm\n    show(x);\n  end M;\n",
        "call statement of external function 'show' without outputs in a model's algorithm",
        True,
    ),
    (
        "Call statements of external functions without outputs (`print`-like; an FMU makes "
        "no call for its effect alone)",
        '  function show\n    input Real v;\n  external "C" show_value(v);\n  end show;\n'
        + _MODEL
        + "  initial algorithm\n    show(x);\n  equation\n    der(x) = -x;\n  end M;\n",
        "call statement of external function 'show'",
        True,
    ),
    (
        "Algorithm sections in models with an `assert` (or a condition deciding a discrete "
        "variable) that reads a variable the section assigned before it (rumoca 0.10)",
        _MODEL
        + "    Real y;\n    Real z;\n  equation\n    der(x) = -x;\n  algorithm\n"
        + '    y := 2*x;\n    assert(y < 10, "big");\n    z := y;\n  end M;\n',
        "algorithm section that reads 'y' after assigning it where rumoca 0.10",
        True,
    ),
    (
        "Algorithm sections in models that assign several variables and use `pre`, `edge`, "
        "`change`, `sample`, `initial`, `terminal` or a when-statement beside other "
        "statements (rumoca 0.10)",
        _MODEL
        + "    Integer n(start = 0, fixed = true);\n    Real y;\n    Real z;\n  equation\n"
        + "    der(x) = -x;\n    when x < 0.5 then\n      n = pre(n) + 1;\n    end when;\n"
        + "  algorithm\n    y := pre(n);\n    z := y + 1;\n  end M;\n",
        "algorithm section that assigns several variables and uses pre",
        False,
    ),
    (
        "`for`-loops in such algorithm sections that do more than assign array elements "
        "indexed by the loop over their whole range (an if-statement inside; rumoca 0.10)",
        _MODEL
        + "    Real w[3];\n    Real last;\n  equation\n    der(x) = -x;\n  algorithm\n"
        + "    for i in 1:3 loop\n      if i > 1 then\n        w[i] := i*x;\n      else\n"
        + "        w[i] := 0;\n      end if;\n    end for;\n    last := w[3];\n  end M;\n",
        "for-loop in an algorithm section that does more than assign each element",
        True,
    ),
    (
        "Algorithm sections in models that read a discrete variable before assigning it or "
        "leave it unassigned on a path (its value there would be its `pre` value)",
        _MODEL
        + "    Real y;\n    Boolean b;\n  equation\n    der(x) = -x;\n  algorithm\n"
        + "    y := 2*time;\n    if y > 1 then\n      b := true;\n    end if;\n  end M;\n",
        "algorithm section that reads discrete variable 'b' before assigning it",
        True,
    ),
    (
        "`while` loops in functions whose passes their text does not bound (a Real halved "
        "until it is small; rumoca 0.10, MSL's `Filter`), placed at the `while`",
        "  function f\n    input Real u;\n    output Real y;\n  algorithm\n    y := u;\n"
        "    while y > 1 loop\n      y := y/2;\n    end while;\n  end f;\n"
        + _MODEL
        + "    Real y;\n  equation\n    der(x) = -x;\n    y = f(x);\n  end M;\n",
        "in function 'f': a while loop whose passes its text does not bound",
        True,
    ),
    (
        "External functions in Fortran (those in C and `builtin` are built)",
        '  function f\n    input Real u;\n    output Real y;\n  external "FORTRAN 77" '
        "y = sin(u);\n  end f;\n"
        + _MODEL
        + "    Real y;\n  equation\n    der(x) = -x;\n    y = f(x);\n  end M;\n",
        "external function 'f' (external \"FORTRAN 77\")",
        True,
    ),
    (
        "An external function's `Include` naming a file not in its `IncludeDirectory`",
        _EXTERNAL.replace("ANNOTATION", _MISSING_INCLUDE)
        + _MODEL
        + "    Real y;\n  equation\n    der(x) = -x;\n    y = f(x);\n  end M;\n",
        "Include '#include \"missing.c\"' not found in modelica://Bad/Resources/C-Sources",
        True,
    ),
    (
        "External functions in a nonlinear loop or in initial equations solved by Newton "
        "(CasADi 3.8 generates no code for its Newton solver calling them)",
        _EXTERNAL.replace("ANNOTATION", '(Include = "#include <math.h>")')
        + _MODEL
        + "    Real y;\n  equation\n    der(x) = -x;\n    y + f(y) = x;\n  end M;\n",
        "external function 'f' in a nonlinear loop solved by Newton's method",
        True,
    ),
    (
        "External functions in equations index reduction differentiates (its choice of dummy "
        "derivatives differentiates twice; a `derivative` annotation gives one derivative)",
        _EXTERNAL.replace("ANNOTATION", '(Include = "#include <math.h>")')
        + _MODEL
        + "    Real z;\n  equation\n    der(x) + der(z) = -x;\n    z = f(x);\n  end M;\n",
        "external function 'f' in an equation index reduction differentiates",
        False,
    ),
    (
        'External functions without their call (`external "C";`, rumoca 0.10 keeps no entry '
        "point name)",
        '  function f\n    input Real u;\n    output Real y;\n  external "C";\n  end f;\n'
        + _MODEL
        + "    Real y;\n  equation\n    der(x) = -x;\n    y = f(x);\n  end M;\n",
        "external function 'f' without its call",
        True,
    ),
    (
        "External objects whose constructor rumoca 0.10 does not flatten: any other than the "
        "MSL's `ModelicaStandardTables_CombiTable1D_init2` and `CombiTimeTable_init2` with "
        "inputs `table` and `columns` (so also MSL's `CombiTable2D`)",
        "  class Counter\n    extends ExternalObject;\n    function constructor\n"
        "      input Real start;\n      output Counter counter;\n"
        '    external "C" counter = counter_new(start);\n    end constructor;\n'
        "    function destructor\n      input Counter counter;\n"
        '    external "C" counter_free(counter);\n    end destructor;\n  end Counter;\n'
        "  function value\n    input Counter counter;\n    output Real y;\n"
        '  external "C" y = counter_value(counter);\n  end value;\n'
        + _MODEL
        + "    parameter Counter c = Counter(2);\n    Real y;\n  equation\n    der(x) = -x;\n"
        "    y = value(c);\n  end M;\n",
        "function output 'Counter.counter' of a class type, as an external object's "
        "constructor returns",
        False,
    ),
    (
        "Two packages' functions of one short name (`A.position` beside `B.position`, each "
        "called as `position`): rumoca 0.10 keeps one definition for both calls; the call it "
        "resolved to the other package's function is refused, never computed by it (a "
        "package's function is called by its qualified name from other libraries too: the "
        "build renames only functions declared in classes that are no packages)",
        "  package A\n    function position\n      input Real q[2];\n      output Real p;\n"
        "    algorithm\n      p := q[1];\n    end position;\n    partial model UseA\n"
        "      Real ya = position({time, 1});\n    end UseA;\n  end A;\n"
        "  package B\n    function position\n      input Real q[2];\n      output Real p;\n"
        "    algorithm\n      p := q[1] + q[2];\n    end position;\n    partial model UseB\n"
        "      Real yb = position({time, 1});\n    end UseB;\n  end B;\n"
        "  model M\n    extends A.UseA;\n    extends B.UseB;\n  end M;\n",
        "call of 'position', one of two functions of that name in different classes",
        True,
    ),
    (
        "The same with inputs of different shapes (rumoca 0.10 refuses the call's shape)",
        "  package A\n    function position\n      input Real q[2];\n      output Real p;\n"
        "    algorithm\n      p := q[1];\n    end position;\n    partial model UseA\n"
        "      Real ya = position({time, 1});\n    end UseA;\n  end A;\n"
        "  package B\n    function position\n      input Real q[3];\n      output Real p;\n"
        "    algorithm\n      p := q[3];\n    end position;\n    partial model UseB\n"
        "      Real yb = position({time, 1, 2});\n    end UseB;\n  end B;\n"
        "  model M\n    extends A.UseA;\n    extends B.UseB;\n  end M;\n",
        "call whose argument does not have the shape of function input 'q'",
        True,
    ),
    (
        "A parameter binding over another bound to a call of a function with several outputs "
        "that inherits an input or output (`extends` of a class declaring one): rumoca 0.10 "
        "evaluates the call to an array, and no one-output wrapper is given to it for a "
        "function whose inputs and outputs its own text does not list",
        "  partial function Base\n    input Real u;\n  end Base;\n"
        "  function scaled\n    extends Base;\n    output Real y;\n    output Integer n = 1;\n"
        "  algorithm\n    y := 2*u;\n    n := 2;\n  end scaled;\n"
        + _MODEL
        + "    parameter Real a = scaled(1);\n    parameter Real b = if a > 1 then 1 else 2;\n"
        "  equation\n    der(x) = -b*x;\n  end M;\n",
        "binding of parameter 'b' that rumoca 0.10 cannot evaluate",
        True,
    ),
    (
        "An array sized by a parameter from a function of nested while loops (rumoca 0.10; "
        "MSL's `RealFFT`, `realFFTsamplePoints`)",
        "  function evenPoints\n    input Real f;\n    output Integer n;\n  protected\n"
        "    Integer m;\n  algorithm\n    n := 2*integer(ceil(f));\n    while true loop\n"
        "      m := n;\n      while mod(m, 2) == 0 loop\n        m := div(m, 2);\n"
        "      end while;\n      if m == 1 then\n        break;\n      end if;\n"
        "      n := n + 2;\n    end while;\n  end evenPoints;\n"
        "  model M\n    parameter Real f = 5;\n    final parameter Integer n = evenPoints(f);\n"
        "    Real x[n](each start = 1, each fixed = true);\n  equation\n    der(x) = -x;\n"
        "  end M;\n",
        "array 'x' whose size rumoca 0.10 cannot evaluate",
        True,
    ),
    (
        "A class that is not encapsulated declared inside the class that extends it (rumoca "
        "0.10 takes the nested class's variables for the enclosing class's; moved out, the "
        "nested class would see other classes' names)",
        "  partial model Rigid\n    Real s(start = 0, fixed = true);\n"
        "    Real v(start = 1, fixed = true);\n  end Rigid;\n  model M\n"
        "    extends PartialStop;\n    partial model PartialStop\n"
        "      import Bad.Rigid;\n      extends Rigid;\n      parameter Real smax = 2;\n"
        "      Boolean hit;\n    equation\n      hit = s > smax;\n    end PartialStop;\n"
        "  equation\n    der(s) = v;\n    der(v) = 0;\n  end M;\n",
        "class declared inside the class that extends it",
        False,
    ),
    (
        "Operator records (`operator record Complex` with `operator '+'`, `'*'`, "
        "`'constructor'`; rumoca 0.10)",
        "  operator record C\n    Real re;\n    Real im;\n"
        "    encapsulated operator function '+'\n      import Bad.C;\n      input C a;\n"
        "      input C b;\n      output C c;\n    algorithm\n"
        "      c := C(a.re + b.re, a.im + b.im);\n    end '+';\n  end C;\n"
        "  model M\n    parameter C a = C(1, 2);\n    C s = a + C(time, 0);\n"
        "    output Real y = s.re;\n  end M;\n",
        "rumoca 0.10: ",
        False,
    ),
    (
        "A package constant modified again where a package that modifies it is extended or "
        "redeclared (`package Brine extends Water(cp = 3900)`, `redeclare package Medium = "
        "Water(cp = 3900)` where `Water extends PartialMedium(cp = 4184)`; rumoca 0.10 keeps "
        "4184, in the package's functions at least)",
        "  package P\n    constant Real c = 1;\n  end P;\n  package Q\n    extends P(c = 2);\n"
        "  end Q;\n  package R\n    extends Q(c = 3);\n  end R;\n"
        "  model M\n    output Real y = R.c*time;\n  end M;\n",
        "modification of package constant 'c' that 'Q' already modifies",
        True,
    ),
    (
        "A package redeclared in an `extends` clause of a class that calls the package's "
        "functions (`extends Heater(redeclare package Medium = ColdWater)`; rumoca 0.10 calls "
        "them with the constants of the package the class declares; redeclare it in a "
        "component's modification)",
        "  package P\n    constant Real c = 1;\n    function f\n      input Real x;\n"
        "      output Real y;\n    algorithm\n      y := c*x;\n    end f;\n  end P;\n"
        "  package Q\n    extends P(c = 2);\n  end Q;\n  partial model Base\n"
        "    replaceable package Med = P;\n    output Real y = Med.f(time);\n  end Base;\n"
        "  model M\n    extends Base(redeclare package Med = Q);\n  end M;\n",
        "redeclaration of package 'Med' in an extends clause",
        True,
    ),
]

# Parameters as an importer sets them (``tests/data/parameter_settings``), checked in four
# variants by the tests of ``test_fmu_parameter_settings.py`` named
# when-equations reading one another at one event and pre() of discrete variables no
# when-equation assigns (``tests/data/when_ordering``), each checked by the test of
# ``test_build_when_ordering.py`` it names: (construct, status, test)
_FOUR = "builds, checked in four variants"
WHEN_ORDERING = [
    (
        "`when`-equations reading what another `when`-equation assigns at the same event "
        "(`b = a` beside `a = pre(a) + 1`, in either order): the new value, as all active "
        "branches hold together (MLS 3.6 Sec. 8.6)",
        _FOUR,
        "test_b_reads_the_new_a_in_either_order",
    ),
    (
        "Chains of such reads of Integer and Boolean variables (`c = b`, `b = a`) beside `pre`",
        _FOUR,
        "test_chain_of_integers_and_a_boolean_read_the_new_count",
    ),
    (
        "A `when`-equation reading what a `when`-statement of an algorithm section assigns",
        _FOUR,
        "test_when_equation_reads_what_a_when_statement_assigns",
    ),
    (
        "`pre(u)` of a block's input in a loop of Boolean blocks closed through `Pre` (a "
        "set-reset latch, as MSL's `LogicalNetwork1`): a memory of `u` taken at each pass of "
        "the event iteration",
        _FOUR,
        "test_pre_of_a_block_input_in_a_loop_of_blocks_is_its_value_before_the_event",
    ),
    (
        "`pre(u)` of a block's input bound to a variable a `when`-equation assigns (rising "
        "edges, as MSL's `Interaction1`)",
        _FOUR,
        "test_pre_of_an_input_bound_to_a_when_equations_variable",
    ),
    (
        "`pre(y)` of a Boolean given by relations (MSL's `Hysteresis`: `y = u > uHigh or "
        "pre(y) and u >= uLow`), as the same switching by `when` / `elsewhen`",
        _FOUR,
        "test_pre_of_a_boolean_given_by_relations_is_the_hysteresis",
    ),
    (
        "`initial equation pre(y) = p` for such a `y` (the hysteresis starting on): the "
        "memory's value when the FMU leaves initialization mode",
        _FOUR,
        "test_pre_given_by_an_initial_equation_starts_the_hysteresis",
    ),
    (
        "`when`-equations whose variables read one another's new values in a loop (`b = a + 1` "
        "beside `a = b`: an algebraic loop at the event)",
        "refused in one line (file:line:column, `algebraic loop at the event: a, b`)",
        "test_loop_of_new_values_is_refused_in_one_line_at_its_place",
    ),
    (
        "A `when`-equation on `sample(...)` reading, without `pre`, what another "
        "`when`-equation assigns (rumoca 0.10 makes each sampled `when` a clock of its own; "
        "assign both in one `when`-equation)",
        "refused in one line (file:line:column, `when-equation on sample(...) reading`)",
        "test_sampled_when_equation_reading_another_ones_variable_is_refused_in_our_words",
    ),
]

# Ideal diodes commutating at events (``tests/data/commutation``), each a row in the table
COMMUTATION = [
    (
        "Ideal diodes (MSL's `IdealDiode`: `off = s < 0`) of a bridge that start conducting in "
        "pairs, fed only by a line inductor and leakage: in the event iteration's passes after "
        "the first a relation keeps its value unless it passes its switching point by more "
        "than the indicator's hysteresis (1e-10) the other way (OpenModelica's relation "
        "memory); decided by sign alone the pair flipped at every pass",
        _FOUR,
        "test_bridge_rectifier_commutates_in_four_variants",
    ),
    (
        "A switch with no consistent state (`on = u > 0` with `u` moved by 1 when `on` "
        "changes): the event iteration still ends at its limit of passes",
        "stopped in one line (`event iteration at t = 0.5 s did not settle in 100 passes`)",
        "test_truly_cycling_switch_stops_in_one_line",
    ),
]

# Piecewise-linear analog networks (``tests/data/analog_more``), each checked by the test of
# ``test_build_analog_more.py`` it names: (construct, status, test)
ANALOG_MORE = [
    (
        "A linear system whose coefficients switch with relations (MSL's `IdealDiode` in a "
        "six-pulse bridge, each phase node floating on its diodes' leakage): one step of "
        "iterative refinement after the solve, so that the diodes' `s` is right to round-off "
        "(solved alone, a residual of 1.7e-11 A put a blocking diode's `s` 5e-8 V off and the "
        "event iteration did not settle)",
        _FOUR,
        "test_three_phase_bridge_commutates_in_four_variants",
    ),
]

ANALOG_SATURATION = [
    (
        "A `fixed = false` parameter whose start value reads other parameters (MSL's "
        "`SaturatingInductor`, `Ipar(start = Inom/10)`), solved by a nonlinear initial "
        "equation: the start is Newton's guess, computed from the parameters at initialization "
        "(refused before as a start value that depends on other variables)",
        _FOUR,
        "test_start_over_parameters_guesses_the_knee_in_four_variants",
    ),
]

# Networks of Boolean and Integer signal blocks (``tests/data/blocks_networks``), each checked
# by the test of ``test_build_blocks_networks.py`` it names: (construct, status, test)
BLOCKS_NETWORKS = [
    (
        "`edge(u)`, `edge(not u)` and `change(u)` in ordinary equations (MSL's `RisingEdge`, "
        "`FallingEdge`, `ChangingEdge`): `u and not pre(u)`, `u <> pre(u)` (MLS 3.6 Sec. "
        "3.7.5); rumoca 0.10 is given `edge(not u)` as `(not u and pre(u))`",
        _FOUR,
        "test_edges_and_changes_are_counted_in_four_variants",
    ),
    (
        "An Integer variable as a subscript in an equation (MSL's `MultiSwitch`: "
        "`expr[firstActiveIndex]`), Integer and Real: the element it names, by if-expressions "
        "over the array (NaN where it names none)",
        _FOUR,
        "test_switches_take_the_first_true_choice_in_four_variants",
    ),
    (
        "An output into elements of two input vectors, its second connection written as an "
        "equation (`and2.u[2] = second.y`)",
        _FOUR,
        "test_an_output_into_two_input_vectors_written_as_an_equation_in_four_variants",
    ),
    (
        "The same by `connect`, where rumoca 0.10 chains the connection set through the two "
        "vectors' elements, each fed at another element too (MSL's `BooleanNetwork1`, "
        "`IntegerNetwork1`), Boolean and Integer, the set's source an output or the block's "
        "own input: given to rumoca as the equations `member = source`, the connectors' "
        "causality and type from a first reading without the set as a partial model",
        _FOUR,
        "test_connection_sets_rumoca_chains_are_given_as_equations_in_four_variants",
    ),
    (
        "Such a set whose connections stand in a `for`-equation (`connect(p.y, a.u[i])`, one "
        "text naming several members)",
        "refused in one line (file:line:column of that connect statement, `connection of "
        "Boolean or Integer signals that links an element of one connector array to an element "
        "of another`)",
        "test_a_chained_connection_set_in_a_for_equation_is_refused_at_the_connection",
    ),
    (
        "A while loop of a function that rumoca 0.10 translates as written but whose "
        "condition is known only when the model runs, its passes bounded by its text (MSL's "
        "`TimeTable` searching its rows: `while next < nrow and tp >= table[next, 1]`): the "
        "for loop over the array's size guarding the body with the condition",
        _FOUR,
        "test_a_search_up_by_a_while_loop_rumoca_translates_in_four_variants",
    ),
    (
        "An Integer variable as a subscript guarded by a relation (`if i > 0 then x[i] else "
        "pre(y)`, MSL's `MathInteger.MultiSwitch`) where the index falls to 0: a relation of "
        "discrete-time values alone, decided in the pass that computes them (no memory, no "
        "event indicator)",
        _FOUR,
        "test_a_subscript_guarded_by_a_relation_takes_its_element_in_four_variants",
    ),
]

PARAMETER_SETTINGS = [
    (
        "Every parameter and exact start value an FMU lists as settable, set alone, moves its "
        "outputs to the analytic solution at the new value: bindings over other parameters, a "
        "`final` modification copying an outer parameter set by a literal (`ramp(final k = "
        "k)`), record fields passed down and modified, `fixed = false` with and without a "
        "binding, start values and initial equations over parameters, sample times and "
        "relations; parameters bound to others, computed at initialization, protected or "
        "structural (Boolean, Integer, enumeration, String, `Evaluate = true`) are not listed "
        "as settable",
        "test_every_settable_variable_takes_effect",
    ),
    (
        "A set of a variable that is not settable (a parameter computed at initialization, "
        "bound to another, copied by a `final` modification) returns an error status and logs "
        "which value reference cannot be set",
        "test_a_set_of_what_is_not_settable_is_an_error",
    ),
    (
        "A tunable parameter set between Co-Simulation steps takes effect from then on (the "
        "relations it enters decided again at the set); one that only the initialization "
        "reads (a start value, an initial equation, the first sample time) is `fixed`, its "
        "set after initialization an error",
        "test_tunable_parameters_take_effect_after_initialization",
    ),
]

TYPED_PARAMETERS = [
    (
        "Integer, Boolean and enumeration parameters that only enter equations (`y = if mode == "
        "2 then a else b`, `if useGain then 2 else 1`, an enumeration choosing a law, an Integer "
        "used as a number) are FMU parameters of their type, `tunable`, or `fixed` where only "
        "the initialization reads them",
        "test_parameters_that_only_enter_equations_are_listed_with_their_type",
    ),
    (
        "Such parameters set before initialization (FMPy's `start_values`) change the outputs "
        "as the analytic solution says",
        "test_start_values_reach_the_equations",
    ),
    (
        "fmi2SetInteger/SetBoolean and fmi3SetInt32/SetInt64/SetBoolean reach the equations; "
        "a set of a `fixed` one after initialization returns an error",
        "test_typed_setters_reach_the_equations_and_refuse_a_late_fixed_set",
    ),
    (
        "Structural Integer, Boolean and enumeration parameters (array sizes, also passed down "
        "as a modification, `for` ranges, conditional components, if-equations whose branches "
        "determine different variables, `Evaluate = true`, `final`) are evaluated and not listed",
        "test_structural_parameters_are_not_listed",
    ),
]
VARIABLE_TYPES = [
    (
        "Integer, Boolean and enumeration variables typed in the FMU (FMI 2.0 `Integer`, "
        "`Boolean`, `Enumeration` with its `SimpleType`; FMI 3.0 `Int32`, `Boolean`, "
        "`Enumeration` with its `EnumerationType`), discrete also where an equation outside a "
        "`when` decides them by relations (`high = level > 0.5`), starts in their syntax; "
        "`discrete Real` and Real variables of when-equations discrete",
        "test_model_description_declares_the_types",
    ),
    (
        "Boolean, Integer and enumeration outputs of relations and an Integer counter of a "
        "when-equation read as typed results, exact between events; their exact start values "
        "and Boolean, Integer and enumeration inputs set through their types' setters",
        "test_tank_outputs_are_typed_and_exact",
    ),
    (
        "Each type read and set through its own FMI functions only (FMI 3.0 enumerations as "
        "Int64); a call of another type's function returns an error status and logs the value "
        "reference and the type",
        "test_fmi2_getters_and_setters_of_each_type",
    ),
    (
        "Enumerations whose literals the model does not name (an enumeration input passed on "
        "to an output): their type definitions with the literals' names and values",
        "test_enumerations_whose_literals_the_model_does_not_name",
    ),
]

# Events inside a Co-Simulation step, located by the FMU's embedded integrator, against their
# analytic instants (test_fmu_cs_events.py): (construct, status, test)
CS_EVENTS = [
    (
        "Events inside a Co-Simulation step, located by the FMU's integrator at every stage of "
        "its steps: an upward and a downward crossing in one communication step, the instants "
        "to 1e-8 s",
        "builds, checked in four variants",
        "test_crossing_up_and_down_within_one_communication_step",
    ),
    (
        "A relation on time true only between the integrator's step ends "
        "(`sin(2*pi*50*time) > 0.5`, 6.7 ms long, false at every multiple of 10 ms)",
        "builds, checked in four variants",
        "test_relation_on_time_true_only_between_step_ends",
    ),
    (
        "`reinit` at each event inside a Co-Simulation step (a bouncing ball), the instants to "
        "1e-8 s",
        "builds, checked in four variants",
        "test_reinit_at_each_bounce",
    ),
    (
        "State events at, 5e-13 s after and 5e-13 s before time events (`sample`), inside a "
        "communication step and at its end",
        "builds, checked in four variants",
        "test_state_events_within_1e_12_s_of_time_events",
    ),
    (
        "`doStep` of size 0 (values unchanged bit for bit) and of 2 s over 20 crossings",
        "builds, checked in Co-Simulation (FMI 3.0 and 2.0)",
        "test_do_step_of_size_zero_and_much_larger_than_the_event_spacing",
    ),
    (
        "An op-amp multivibrator (a nonlinear loop whose root ends at each threshold) in "
        "Co-Simulation: its switching instants to 1e-8 s",
        "builds, checked in four variants",
        "test_multivibrator_switches_in_co_simulation",
    ),
    (
        "Chattering (a sliding mode switching sides at every event, a Zeno point)",
        "Co-Simulation: `doStep` returns an error with one line after 100 events in a row "
        "less than 1e-8 s apart",
        "test_chattering_ends_the_step_with_one_line",
    ),
]

# Warning-level asserts, initial() with samples, close events in one Co-Simulation step
# (``tests/data/statements_more``), each checked by the test of ``test_build_statements_more.py``
# it names; that file also places the refusals of an unbounded while loop (at the ``while``)
# and of ``sample`` in an initial equation (at the ``sample``), rows of UNSUPPORTED
STATEMENTS_MORE = [
    (
        "`assert(..., AssertionLevel.warning)` in equations and functions: the FMU logs its "
        "message with a warning status (category `logStatusWarning`) once where the condition "
        "starts to fail, at a completed integrator step or an event, and the run goes on",
        _FOUR,
        "test_warning_level_asserts_are_logged_where_they_start_to_fail",
    ),
    (
        "`assert(..., AssertionLevel.warning)` in a `when`-statement: logged at the event where "
        "it fails, not again while it keeps failing at the events after",
        _FOUR,
        "test_warning_in_a_when_statement_is_logged_at_the_sample_it_fails",
    ),
    (
        "`initial()` with `sample` in one when-condition (`when {initial(), sample(0.5, 0.5)}`, "
        "`when initial() or sample(0.25, 0.25)`): fires at the start and at each instant",
        _FOUR,
        "test_initial_and_samples_in_one_when_condition",
    ),
    (
        "Call statements of functions without outputs in a model's algorithm section "
        "(`checkAbove(x, limit = 0.25);`): the function's asserts checked where the statement "
        "stands, an error status with the message",
        _FOUR,
        "test_call_statement_in_an_algorithm_checks_the_functions_asserts",
    ),
    (
        "Two state events 1e-4 s apart inside one Co-Simulation step of 10 ms, found in order, "
        "the instants to 1e-8 s",
        _FOUR,
        "test_two_crossings_1e_4_s_apart_within_one_communication_step",
    ),
    (
        "Bounces ever closer (restitution 0.5), two inside one Co-Simulation step of 10 ms, "
        "the instants to 1e-8 s",
        _FOUR,
        "test_several_bounces_within_one_communication_step",
    ),
]

# While loops whose counter is set to the bound to end them early (MSL's ``Matrices.isEqual``;
# ``tests/data/loop_bounds``), each checked by the test of ``test_build_loop_bounds.py`` it names
LOOP_BOUNDS = [
    (
        "A while loop of a function ended early by setting its counter to the bound (`while i "
        "<= n loop ... if ... then i := n; end if; i := i + 1; end while;`), nested in another, "
        "inside an if-statement (MSL's `Matrices.isEqual` for `LossyGear`'s `ideal`), on the "
        "library path, for a Boolean choosing an ideal or a lossy gear; tables of one and two "
        "rows; rumoca 0.10 is given a for loop over the counter's start to the bound, each "
        "statement guarded by the condition taken at the start of the pass",
        _FOUR,
        "test_a_table_of_two_rows_keeps_the_losses_in_four_variants",
    ),
    (
        "The same in a function of the user's library: the index where it left the loop",
        _FOUR,
        "test_the_search_stops_at_the_first_differing_element_in_four_variants",
    ),
    (
        "Such a loop whose counter is set below the bound (`i := 1`), after the step, or that "
        "moves the bound: its passes are not bounded by its text",
        "refused in one line (file:line:column, `in function 'f': a while loop`)",
        "test_a_counter_set_back_below_its_bound_is_refused_in_one_line",
    ),
]

# Initial conditions of friction elements whose modes relations decide inside logic on
# pre(mode) (``tests/data/relation_init``), each checked by the test of
# ``test_build_relation_init.py`` it names
RELATION_INIT = [
    (
        "`fixed = true` on a discrete-time variable that an equation gives (a friction's "
        "`Integer mode(start = Unknown, fixed = true)`, `Boolean startForward(start = false, "
        "fixed = true)`): `pre(v) = start`, no condition on `v`; a block stuck and sliding "
        "both ways under a sine push",
        "builds, checked in four variants",
        "test_block_sticks_and_slides_as_by_hand_in_four_variants",
    ),
    (
        "Initial conditions reading relations whose sides the equations compute from other "
        "relations (a clutch's `free = fn <= 0`, `fn` a step in time, read by `der(w1) = 0` "
        "that gives a `fixed = false` drive torque): the relations decided at the start point",
        "builds, checked in four variants",
        "test_clutch_slides_then_sticks_as_by_hand_in_four_variants",
    ),
    (
        "Initial conditions reading a relation whose sides depend on its own value at the "
        "start (`y = if x + y > 0 then 1 else -1` read by `der(x) = 0`: a mixed system of the "
        "initial conditions)",
        "refused in one line (file:line:column, `depends on itself at the start`)",
        "test_relation_reading_itself_at_the_start_is_refused_in_one_line",
    ),
    (
        "`initial()` in an if-equation that gives continuous values only, every state from "
        "its start value (MSL's `ElastoBacklash` easing its characteristic while "
        "initializing): true in the initial system, false after the start, the values at t "
        "= 0 those after the initialization",
        "builds, checked in four variants",
        "test_initial_in_continuous_equations_of_fixed_states_builds_in_four_variants",
    ),
    (
        "`initial()` in an equation that decides a discrete value (MSL's `PartialFriction`: "
        "`startForward = ... or initial() and w_relfric > 0`): true in the initial system "
        "and in the update on leaving initialization mode until its relations agree; a block "
        "that starts sliding backward, sticks and slides forward, switching instants to 1e-8 s",
        "builds, checked in four variants",
        "test_block_sliding_at_the_start_sticks_and_slides_again_in_four_variants",
    ),
    (
        "A mixed system at events (a friction element's relations on `sa`, which the "
        "relations decide): each pass of the event iteration decides the relations with the "
        "unknowns `pre` reads at their new `pre` values; a clutch sliding from the start "
        "that sticks where the speeds meet (it went on sliding the other way, or cycled "
        "until the limit of passes)",
        "builds, checked in four variants",
        "test_clutch_sliding_at_the_start_sticks_in_four_variants",
    ),
]

# Nonlinear loops with roots outside an unknown's declared min or max
# (``tests/data/bounded_roots``), each checked by the test of ``test_build_bounded_roots.py``
BOUNDED_ROOTS = [
    (
        "Nonlinear loops with a root outside an unknown's declared `min` or `max` (a bus fed by "
        "a constant-power source, `v*i = -P` with `v(min = 0)`: Newton from the voltage before "
        "a source step lands on the root below zero): such a solution counts as not solved, "
        "the loop's next solver finds the root within",
        "builds, checked in four variants",
        "test_a_root_below_min_counts_as_unsolved_in_four_variants",
    ),
    (
        "A nonlinear loop with no root within its unknowns' `min` and `max`",
        "stops in one line at run time (`nonlinear algebraic loop did not converge`, naming "
        "the bounds)",
        "test_no_root_within_min_and_max_stops_in_one_line",
    ),
]

# Real parameters read by structural parameters' bindings (``tests/data/evaluated_bindings``),
# each checked by the test of ``test_build_evaluated_bindings.py`` it names
EVALUATED_BINDINGS = [
    (
        "Real parameters that the binding of a structural parameter reads (MSL's `LossyGear`: "
        "`final parameter Boolean ideal = isEqual(lossTable, ...)` choosing an if-equation's "
        "branch): evaluated with it and not listed, as a set of them at run time could no "
        "longer change the branch",
        _FOUR,
        "test_a_table_that_decides_a_branch_is_not_a_parameter",
    ),
    (
        "Real parameters an array size is computed from (`Integer n = integer(L/dx + 0.5)`, "
        "`Real x[n]`): evaluated, not listed",
        _FOUR,
        "test_parameters_that_size_an_array_are_not_parameters",
    ),
]

# Noise sources in the MSL's style (``test_build_noise_generators.py``)
NOISE_GENERATORS = [
    (
        "Sampled random numbers as MSL's `Blocks.Noise` draws them: an `inner GlobalSeed` whose "
        "`fixed = false` seed an `initial algorithm` sets, a parameter bound to it through "
        "`outer` (computed at initialization with it, not before from its start), an Integer "
        "state vector seeded by `pre(state) = f(seed)` and stepped in `when sample(...)` by an "
        "external C function of an Integer array output; the draws bit for bit",
        "test_sampled_xorshift_sources_in_four_variants",
    ),
    (
        "An impure external C function seeding a hidden state in an `initial algorithm` "
        "(called once, when the initial branch fires) and one drawing from it in a "
        "when-equation: a new number at each sample",
        "test_impure_generator_seeded_once_in_four_variants",
    ),
    (
        "External C calls in a when-statement of an algorithm section made only where it "
        "fires, as in a when-equation (an impure draw, a state event between its samples), "
        "and a C function of constant arguments alone, in an equation too (such a call "
        "stopped the build with a Python error)",
        "test_impure_generator_in_a_when_statement_in_four_variants",
    ),
    (
        "A call of a function with several outputs in a when-equation, `(r_raw, state) = "
        "random(pre(state))` (MSL's `PartialNoise`), which rumoca 0.10 refuses: given to it as "
        "a when-statement of an algorithm section of its own where the when-equation holds only "
        "`v = e` and such equations and reads nothing it assigns other than through `pre`; "
        "external C functions of several outputs in when-statements",
        "test_call_of_two_outputs_in_a_when_equation_in_four_variants",
    ),
    (
        "A parameter bound to an impure function of constant arguments, `GlobalSeed "
        "globalSeed(fixedSeed = automaticSeed())` (as MSL's `automaticGlobalSeed`), and those "
        "bound to it: computed as the FMU initializes, another value at each run (it was "
        "called once while the model was translated and frozen into the FMU)",
        "test_seed_bound_to_an_impure_function_drawn_at_each_run_in_four_variants",
    ),
    (
        "A call statement of an impure external function without outputs in a function not "
        "declared impure (MSL 4.0.0's `initializeImpureRandom` storing its state by "
        "`setInternalState`, in every `Blocks.Noise` example's `GlobalSeed`; rumoca 0.10 "
        "refuses it): the function taken as impure, with a warning, as Modelica tools do; "
        "slices in its for loop (`state[i:i+1] := aux`, `random(state[i-2:i-1])`) and "
        "`size(a, 1)` of its local array given element by element; the impure call of an "
        "if-expression's branch not taken not made (MSL's `automaticGlobalSeed`)",
        "test_impure_generator_stored_by_a_function_not_declared_impure_in_four_variants",
    ),
    (
        "An external function of a `Library` the build compiles from its C source, of a "
        "String literal alone (MSL's `hashString` in `ModelicaExternalC`, of an instance's "
        "name): called while the model is translated, the library's symbol was unresolved and "
        "ended the process",
        "test_seed_hashed_by_a_library_compiled_from_its_source_in_four_variants",
    ),
]
# External C written for POSIX (``test_build_posix_sources.py``)
POSIX_SOURCES = [
    (
        "An external function of a `Library` the build compiles from its C source that calls "
        "a POSIX function returning a pointer (`gmtime_r`; MSL's `ModelicaInternal_getTime` "
        "calls `localtime_r`), of constant arguments while the model is translated and in a "
        "when-equation in the FMU: undeclared under strict C99, its pointer was cut to 32 "
        "bits and the build's process ended in a segmentation fault",
        "test_posix_function_of_a_library_compiled_from_its_source_in_four_variants",
    ),
]
POSIX_REFUSED = [
    (
        "An external C function that calls `ModelicaError` while the model is translated (a "
        "call of constant arguments): the process ended (`undefined symbol: ModelicaError`, "
        "no wrapper of the translation defined it)",
        "refused in one line (file:line:column of the call, `failed while the model was "
        "translated` and the function's message)",
        "test_modelica_error_while_translating_is_one_line",
    ),
]
NOISE_REFUSED = [
    (
        "A call statement of an impure function in a function not declared impure that has no "
        "scalar Integer or Real output, or a `return` (rumoca 0.10)",
        "refused in one line (file:line:column of the call, `call statement of function`)",
        "test_impure_call_in_a_function_of_no_scalar_output_is_refused_at_the_call",
    ),
    (
        "A call of an impure function with outputs in a function not declared impure (rumoca 0.10)",
        "refused in one line (file:line:column of the call, `call of impure function`)",
        "test_impure_call_of_an_output_in_a_function_not_declared_impure_is_refused",
    ),
    (
        "A slice in a function whose bounds differ by a variable, `total(u[i:i+n])` in a for "
        "loop (rumoca 0.10 cannot size it; those that differ by a number are given element by "
        "element, MSL's `initialStateWithXorshift64star`)",
        "refused in one line (file:line:column of the slice, `slice of an array in a function "
        "whose bounds rumoca 0.10 cannot size`)",
        "test_slice_of_a_variable_extent_in_a_function_is_refused_at_the_slice",
    ),
    (
        "An impure function with an algorithm (rumoca 0.10 translates impure functions only as "
        "external functions)",
        "refused in one line (file:line:column of its declaration, `impure function ... with "
        "an algorithm`)",
        "test_impure_function_with_an_algorithm_is_refused_at_its_declaration",
    ),
    (
        "A call of a function with several outputs in a when-equation whose other equations "
        "read what it assigns (not given as a when-statement; rumoca 0.10)",
        "refused in one line (file:line:column of the equation, `call of a function with "
        "several outputs in a when-equation`)",
        "test_call_of_several_outputs_in_a_when_equation_is_refused_at_the_equation",
    ),
    (
        "A call of an impure function with several outputs in a when-equation (rumoca 0.10, "
        "also as a when-statement: its outputs may be evaluated apart)",
        "refused in one line (file:line:column of the equation, `call of impure function ... "
        "with several outputs`)",
        "test_impure_call_of_two_outputs_in_a_when_equation_is_refused_at_the_equation",
    ),
    (
        "A call of an impure function in the binding of a variable that is no parameter, "
        "`Real y = automaticSeed()` (Modelica Language Specification 3.6, Sec. 12.3; rumoca "
        "0.10 refuses it in other equations; of constant arguments, it was called once while "
        "the model was translated)",
        "refused in one line (file:line:column of the declaration, `call of an impure "
        "function in an equation or the binding of a variable that is no parameter`)",
        "test_impure_call_in_a_binding_equation_is_refused_at_the_variable",
    ),
    (
        "A function named `initialState` (rumoca 0.10 takes its calls for the state-machine "
        "operator; state machines are not translated)",
        "refused in one line (file:line:column of the first call, `call of 'initialState', "
        "which rumoca 0.10 takes for the state-machine operator`; before, without a place)",
        "test_function_named_initial_state_is_refused_at_its_call",
    ),
    (
        "An outer component's `fixed = false` parameter read in an initial equation, "
        "`pre(s) = {seeds.seed, 1}` (rumoca 0.10: an unresolved reference; bind a parameter to "
        "it and read that, as `NoiseLib.UniformNoise` does)",
        "refused in one line (file:line:column of the reference, `reference to "
        "'counter.seeds.seed' that rumoca 0.10 does not resolve`; before, without a place)",
        "test_outer_parameter_of_the_initial_sections_in_an_initial_equation_is_placed",
    ),
]

README = Path(__file__).parents[1] / "README.md"
BEGIN, END = "<!-- modelica-support: begin -->", "<!-- modelica-support: end -->"


# (test module, its rows of (construct, test)) of what builds, in the README table's order
BUILT_BY_MODULE = [
    ("test_build_authoring.py", AUTHORING),
    ("test_build_multibody_init.py", MULTIBODY_INITIALIZATION),
    ("test_build_state_choice.py", STATE_CHOICE),
    ("test_build_free_start.py", FREE_START),
    ("test_build_quaternion_states.py", QUATERNION_STATES),
    ("test_build_analog_loops.py", ANALOG_LOOPS),
    ("test_build_state_selection.py", STATE_SELECTION),
    ("test_build_relative_states.py", RELATIVE_STATES),
    ("test_build_hard_stops.py", HARD_STOPS),
    ("test_build_pulse_sources.py", SOURCES),
    ("test_build_time_events.py", TIME_EVENTS),
    ("test_build_display_units.py", DISPLAY_UNITS),
    ("test_build_algorithm_when.py", ALGORITHM_WHEN),
    ("test_build_event_statements.py", EVENT_STATEMENTS),
    ("test_build_algorithm_sections.py", ALGORITHM_SECTIONS),
    ("test_build_function_loops.py", FUNCTION_LOOPS),
    ("test_build_several_outputs.py", SEVERAL_OUTPUTS),
    ("test_build_time_tables.py", TIME_TABLES),
    ("test_build_idioms.py", IDIOMS),
    ("test_fmu_parameter_settings.py", PARAMETER_SETTINGS),
    ("test_fmu_variable_types.py", VARIABLE_TYPES),
    ("test_build_typed_parameters.py", TYPED_PARAMETERS),
    ("test_build_noise_generators.py", NOISE_GENERATORS),
    ("test_build_posix_sources.py", POSIX_SOURCES),
]
# (test module, its rows of (construct, status, test)), after those
STATUS_BY_MODULE = [
    ("test_fmu_cs_events.py", CS_EVENTS),
    ("test_build_when_ordering.py", WHEN_ORDERING),
    ("test_build_commutation.py", COMMUTATION),
    ("test_build_statements_more.py", STATEMENTS_MORE),
    ("test_build_blocks_networks.py", BLOCKS_NETWORKS),
    ("test_build_analog_more.py", ANALOG_MORE),
    ("test_build_analog_saturation.py", ANALOG_SATURATION),
    ("test_build_relation_init.py", RELATION_INIT),
    ("test_build_loop_bounds.py", LOOP_BOUNDS),
    ("test_build_bounded_roots.py", BOUNDED_ROOTS),
    ("test_build_evaluated_bindings.py", EVALUATED_BINDINGS),
    ("test_build_noise_generators.py", NOISE_REFUSED),
    ("test_build_posix_sources.py", POSIX_REFUSED),
]


def table() -> str:
    """The README's table of constructs, from the lists above."""
    lines = [
        BEGIN,
        "| construct | status | shown by |",
        "| --- | --- | --- |",
    ]
    lines += [f"| {c} | builds, checked in four variants | `{test}` |" for c, test in SUPPORTED]
    for module, rows in BUILT_BY_MODULE:
        lines += [f"| {c} | {_FOUR} | `{module}::{test}` |" for c, test in rows]
    for module, rows in STATUS_BY_MODULE:
        lines += [f"| {c} | {status} | `{module}::{test}` |" for c, status, test in rows]
    lines += [
        f"| {c} | refused in one line ({words}) | `test_build_multibody_init.py::{test}` |"
        for c, words, test in MULTIBODY_REFUSED
    ]
    lines += [
        f"| {c} | refused in one line ({'file:line:column, ' if placed else ''}`{words}`) "
        "| `test_unsupported_construct_is_one_line` |"
        for c, _, words, placed in UNSUPPORTED
    ]
    return "\n".join([*lines, END])


def current_readme_table() -> str:
    """The table as the README has it now."""
    text = README.read_text(encoding="utf-8")
    found = re.search(re.escape(BEGIN) + ".*?" + re.escape(END), text, re.S)
    return found.group(0) if found else ""


if __name__ == "__main__":
    current = current_readme_table()
    if not current:
        raise SystemExit(f"{README}: no {BEGIN} ... {END} markers")
    text = README.read_text(encoding="utf-8")
    README.write_text(text.replace(current, table()), encoding="utf-8")
