within UserLib;
package Initialization "Initial equations, fixed start values of any variable, starts bound to parameters"
  model SteadyLag "A lag that starts in steady state"
    parameter SI.Time T = 0.5 "Time constant";
    Modelica.Blocks.Interfaces.RealInput u(start = 2) "Input";
    Modelica.Blocks.Interfaces.RealOutput y "Output";
  initial equation
    der(y) = 0;
  equation
    der(y) = (u - y)/T;
  end SteadyLag;

  model Cubic "A nonlinear initial equation: x^3 + x = c at the start"
    parameter Real c = 10 "Right-hand side";
    Real x "Decays from the root";
  initial equation
    x^3 + x = c;
  equation
    der(x) = -x;
  end Cubic;

  model SteadyTank "A tank in steady state (Newton), started from a guess set by parameters"
    parameter Real q = 1 "Inflow";
    parameter Real a = 0.5 "Outflow coefficient";
    parameter Real h_guess = 0.8*(q/a)^2 "Guess of the level, from the other parameters";
    Real h(start = h_guess) "Level";
  initial equation
    der(h) = 0;
  equation
    der(h) = q - a*sqrt(h);
  end SteadyTank;

  model StartFromVelocity "Mass on a spring-damper started by fixed values of the mass"
    Modelica.Mechanics.Translational.Components.Fixed fixed;
    Modelica.Mechanics.Translational.Components.SpringDamper springDamper(c = 10, d = 1);
    Modelica.Mechanics.Translational.Components.Mass mass(
      m = 2, s(start = 0.5, fixed = true), v(start = -0.4, fixed = true));
    output SI.Position s = mass.s "Position of the mass";
  equation
    connect(fixed.flange, springDamper.flange_a);
    connect(springDamper.flange_b, mass.flange_a);
  end StartFromVelocity;
end Initialization;
