within UserLib;
package Bounds "min and max of parameters, states and types in the model description"
  type Rate = Real(final unit = "1/s", min = 0, max = 2*50) "Rate of decay";
  model BoundedDecay "Two exponential decays, bounds given on a parameter, a state, a type and an array"
    parameter Real k(min = 0.5, max = 4) = 2 "Decay rate of x, 1/s";
    parameter Rate r = 1 "Decay rate of v";
    parameter Real c(min = k) = 3 "Gain of y; its bound depends on k, so no FMU declares it";
    Real x(start = 1, fixed = true, min = 0, max = 1) "Decaying state";
    Real v[2](min = {-2, -3}, each max = 5, start = {1, 2}, each fixed = true) "Decaying states";
    output Real y = c*x "Scaled state";
  equation
    der(x) = -k*x;
    der(v) = -r*v;
  end BoundedDecay;
end Bounds;
