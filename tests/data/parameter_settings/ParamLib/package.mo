within;
package ParamLib "Every way a parameter reaches a model, each model with an analytic solution"
  model Bindings "Parameters bound to others, protected parameters, a start bound to a parameter"
    parameter Real k = 1 "Decay rate (1/s)";
    parameter Real x0 = 2 "Initial value";
    parameter Real rate = 2*k "Twice the decay rate, bound to it (1/s)";
    output Real x(start = x0, fixed = true) "Decaying value";
    output Real y "Scaled and offset value";
  protected
    parameter Real gain = 3 "A protected literal";
    parameter Real offset = gain*x0 "A protected binding over a public parameter";
  equation
    der(x) = -rate*x;
    y = gain*x + offset;
  end Bindings;

  block Ramp "A ramp from a start time"
    parameter Real k = 1 "Slope (1/s)";
    parameter Real t0 = 0 "Start (s)";
    parameter Integer n = 1 "Number of ramps added";
    output Real y "Ramp";
  protected
    parameter Real t_end = t0 + 10 "End of the ramp (s)";
  equation
    y = n*(if time > t0 and time < t_end then k*(time - t0) else 0);
  end Ramp;

  model Source "A source whose ramp gets its parameters as final modifications"
    parameter Real k(start = 1) "Slope (1/s)";
    parameter Real t0 = 0 "Start (s)";
    parameter Integer n = 1 "Number of ramps added";
    output Real y "Ramp";
    Ramp ramp(final k = k, final t0 = t0, final n = n);
  equation
    y = ramp.y;
  end Source;

  model FinalCopy "The source's parameters set by literals, copied down by final modifications"
    Source src(k = 3, t0 = 0.5, n = 2);
    output Real y "Ramp";
  equation
    y = src.y;
  end FinalCopy;

  record SpringData "Mass and stiffness of an oscillator"
    parameter Real m = 1 "Mass (kg)";
    parameter Real c = 4 "Stiffness (N/m)";
  end SpringData;

  model Oscillator "A mass on a spring from a record"
    parameter SpringData data "Mass and stiffness";
    parameter Real s0 = 1 "Initial extension (m)";
    Real s(start = s0, fixed = true) "Extension (m)";
    Real v(start = 0, fixed = true) "Velocity (m/s)";
  equation
    der(s) = v;
    data.m*der(v) = -data.c*s;
  end Oscillator;

  model RecordFields "A record parameter passed down to a component and modified in it"
    parameter SpringData body(c = 8) "The oscillator's data";
    Oscillator osc(data = body, s0 = 0.5);
    Oscillator other(data(m = 2.0));
    output Real s "Extension of osc (m)";
    output Real r "Extension of other (m)";
  equation
    s = osc.s;
    r = other.s;
  end RecordFields;

  model InitialEquations "A parameter computed at initialization, a state from initial equations"
    parameter Real a = 2 "Rate (1/s)";
    parameter Real x_ss = 3 "Value held at the start";
    parameter Real b(fixed = false) "Input that holds x at x_ss at the start";
    output Real x "Value";
    output Real held "The computed parameter";
  initial equation
    x = x_ss;
    der(x) = 0;
  equation
    der(x) = -a*x + b + time;
    held = b;
  end InitialEquations;

  model FixedFalseBinding "A parameter with fixed = false and a binding (its initial equation)"
    parameter Real c(fixed = false) = 20 "Stiffness (N/m)";
    parameter Real m = 1 "Mass (kg)";
    Real s(start = 1, fixed = true) "Extension (m)";
    Real v(start = 0, fixed = true) "Velocity (m/s)";
    output Real y "Extension (m)";
  equation
    der(s) = v;
    m*der(v) = -c*s;
    y = s;
  end FixedFalseBinding;

  type Law = enumeration(Linear "k x", Quadratic "k^2 x") "How the rate enters";

  model Structural "Boolean, Integer, enumeration, String and Evaluate = true parameters"
    parameter Boolean use_damping = true "Whether the damping acts" annotation(Evaluate = true);
    parameter Integer n = 3 "Number of decaying values";
    parameter ParamLib.Law law = ParamLib.Law.Linear "How the rate enters"
      annotation(Evaluate = true);
    parameter Real d = 0.5 "Damping per index (1/s)" annotation(Evaluate = true);
    parameter String label = "probe" "A label";
    parameter Real k = 2 "Rate (1/s)";
    Real x[n](each start = 1, each fixed = true) "Decaying values";
    output Real y "Sum of the values";
  equation
    for i in 1:n loop
      der(x[i]) = -(if use_damping then d*i else 0)*x[i]
        - (if law == ParamLib.Law.Linear then k else k*k)*x[i];
    end for;
    y = sum(x);
  end Structural;

  model Events "Time events and a relation on parameters, a counter with a settable start"
    parameter Real t0 = 0.1 "First sample (s)";
    parameter Real period = 0.3 "Sample interval (s)";
    parameter Real level = 0.55 "Time the step comes (s)";
    discrete Real n(start = 0, fixed = true) "Samples taken";
    output Real count "Samples taken";
    output Real step "0 before the level time, 1 after";
  equation
    when sample(t0, period) then
      n = pre(n) + 1;
    end when;
    count = n;
    step = if time > level then 1 else 0;
  end Events;
  model DiscreteInInit "A discrete variable's start value read by an initial equation"
    parameter Real rate = 1 "Decay rate (1/s)";
    discrete Real n(start = 2, fixed = true) "Samples taken, from 2";
    output Real x "Value, starting at n";
    output Real count "Samples taken, from 2";
  initial equation
    x = n;
  equation
    der(x) = -rate*x;
    when sample(1, 1) then
      n = pre(n) + 1;
    end when;
    count = n;
  end DiscreteInInit;
end ParamLib;
