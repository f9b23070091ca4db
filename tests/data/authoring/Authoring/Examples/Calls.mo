within Authoring.Examples;
package Calls "Functions: defaults, named arguments, records in and out, derivative, inverse"
  model Arguments "Default and named arguments"
    import Authoring.Functions.decayRate;
    parameter Real k1 = decayRate(T = 0.5) "2/s";
    parameter Real k2 = decayRate(scale = 3, T = 1.5) "2/s";
    Real x(start = 1, fixed = true) "x = exp(-(k1 + k2) t / 2)";
  equation
    der(x) = -(k1 + k2)/2*x;
  end Arguments;

  model RecordCalls "Record inputs and outputs of functions"
    parameter Data.StiffBody body "m = 4, d = 1, c = 16";
    parameter Data.BodyData made = Functions.makeBody(2) "m = 2, d = 0.5";
    Real s(start = 1, fixed = true) "Position of an undamped body";
    Real v(start = 0, fixed = true) "Velocity";
    Real E = Functions.energy(body, s, v) "Energy, constant";
    Real w(start = 1, fixed = true) "w' = -made.d/made.m w";
  equation
    der(s) = v;
    body.m*der(v) = -body.c*s;
    made.m*der(w) = -made.d*w;
  end RecordCalls;

  model Derivatives "der() of a function with a derivative annotation"
    Real x(start = 1, fixed = true) "x = exp(-t)";
    Real z "x^3";
    Real w "der(z) = -3 exp(-3 t)";
  equation
    der(x) = -x;
    z = Functions.cube(x);
    w = der(z);
  end Derivatives;

  model Inverse "An unknown inside a function with an inverse annotation"
    Real y(start = 8, fixed = true) "y = 8 exp(-3 t)";
    Real x(start = 1) "cube root of y: 2 exp(-t)";
  equation
    der(y) = -3*y;
    y = Functions.cube(x);
  end Inverse;

  model StateChoice "stateSelect chooses the state of two related variables"
    Real x(stateSelect = StateSelect.always) "x = exp(-t)";
    Real y(start = 2, fixed = true, stateSelect = StateSelect.avoid) "y = 2 x";
  equation
    y = 2*x;
    der(y) = -y;
  end StateChoice;

  model DisplayUnits "SI types with display units"
    SI.Angle phi(start = 0, fixed = true) "Angle";
    SI.AngularVelocity w = 1 "Angular velocity";
    SI.Temperature T = 293.15 + phi "Temperature";
  equation
    der(phi) = w;
  end DisplayUnits;

  model Decay "A replaceable function"
    replaceable function law = Functions.linearLaw constrainedby Functions.partialLaw "Decay law";
    Real x(start = 1, fixed = true) "x' = -law(x)";
  equation
    der(x) = -law(x);
  end Decay;

  model CubicDecay "The function redeclared: x = 1/sqrt(1 + 2 t)"
    extends Decay(redeclare function law = Functions.cubicLaw);
  end CubicDecay;

  model ScaledDecay "The function redeclared with a modification of its default input: x = exp(-3 t)"
    extends Decay(redeclare function law = Functions.linearLaw(k = 3));
  end ScaledDecay;
end Calls;
