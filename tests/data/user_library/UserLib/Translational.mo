within UserLib;
package Translational "Acausal translational components from flow connectors"
  model Oscillator "Mass on a spring to a wall"
    Modelica.Mechanics.Translational.Components.Fixed fixed;
    Modelica.Mechanics.Translational.Components.Spring spring(c = 8);
    Modelica.Mechanics.Translational.Components.Mass mass(m = 2, s(start = 0.5, fixed = true), v(fixed = true));
    output SI.Position s = mass.s "Position of the mass";
  equation
    connect(fixed.flange, spring.flange_a);
    connect(spring.flange_b, mass.flange_a);
  end Oscillator;

  model DampedOscillator "Mass on a spring-damper with relative states: needs index reduction"
    Modelica.Mechanics.Translational.Components.Fixed fixed;
    Modelica.Mechanics.Translational.Components.SpringDamper springDamper(
      c = 10, d = 1, s_rel(start = 0.5, fixed = true), v_rel(start = 0, fixed = true));
    Modelica.Mechanics.Translational.Components.Mass mass(m = 2);
    Modelica.Mechanics.Translational.Sources.Force force;
    Modelica.Blocks.Interfaces.RealInput f(unit = "N") "Force on the mass";
    output SI.Position s = mass.s "Position of the mass";
    output SI.Velocity v = mass.v "Velocity of the mass";
  equation
    connect(fixed.flange, springDamper.flange_a);
    connect(springDamper.flange_b, mass.flange_a);
    connect(force.flange, mass.flange_b);
    connect(f, force.f);
  end DampedOscillator;
end Translational;
