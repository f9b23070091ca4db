within Authoring.Examples;
package Structure "Imports, extends, redeclare, arrays, records, inner/outer"
  model Oscillator "A mass on a spring: s = 0.5 cos(2 t)"
    import Authoring.Components.Mass;
    import C = Authoring.Components;
    import Authoring.Components.*;
    Mass mass(m = 2, s(start = 0.5)) "Mass";
    C.Spring spring(final c = 8) "Spring";
    Fixed fixed "Wall";
  equation
    connect(fixed.flange, spring.flange_a);
    connect(spring.flange_b, mass.flange);
  end Oscillator;

  model HalfQuadraticLaw = Components.QuadraticLaw(k = 0.5) "A quadratic law, k = 0.5";

  model QuadraticDamped "The oscillator, lighter and softer, with a quadratic damper"
    extends Oscillator(mass(m = 1), spring(c = 4));
    Components.Damper damper(redeclare model Law = HalfQuadraticLaw) "Damper";
  equation
    connect(fixed.flange, damper.flange_a);
    connect(damper.flange_b, mass.flange);
  end QuadraticDamped;

  model DamperArray "Three masses coasting against dampers: s_i = v0 m_i/d (1 - exp(-d t/m_i))"
    import Authoring.Components.*;
    parameter Integer n = 3 "Number of masses";
    Mass mass[n](m = {1, 2, 4}, each v(start = 1)) "Masses";
    Damper damper[n](redeclare each model Law = LinearLaw, each law(d = 2)) "Dampers";
    Fixed fixed "Wall";
  equation
    for i in 1:n loop
      connect(fixed.flange, damper[i].flange_a);
      connect(damper[i].flange_b, mass[i].flange);
    end for;
  end DamperArray;

  model LagChain "Three lags in a row, connected in a for loop"
    import Authoring.Components.{Constant, Lag};
    parameter Integer n = 3;
    Constant source(k = 1) "Source";
    Lag lag[n](each T = 0.5, k = {1, 2, 3}) "Lags";
    Real y = lag[n].y "Last output";
  equation
    connect(source.y, lag[1].u);
    for i in 1:n - 1 loop
      connect(lag[i].y, lag[i + 1].u);
    end for;
  end LagChain;

  model RecordArray "Velocities decaying at rates from an array of records"
    parameter Data.BodyData bodies[2] = {Data.BodyData(m = 1, d = 1), Data.BodyData(m = 2, d = 1)} "Bodies";
    SI.Velocity v[2](each start = 1, each fixed = true) "Velocities";
  equation
    bodies.m .* der(v) = -bodies.d .* v;
  end RecordArray;

  model Sinking "An outer environment two levels down, a record bound three levels down"
    inner Environments.Environment environment(g = 1.62, current = 0.5) "Environment";
    parameter Data.BodyData body(m = 3, d = 1.5) "Body";
    Environments.Carrier carrier(data = body) "Carrier";
  end Sinking;

  model HeavySinker "A redeclared record whose type extends one with modifiers"
    inner Environments.Environment environment "Environment";
    Environments.Sinker sinker(redeclare Data.StiffBody data) "Sinker";
  end HeavySinker;

  model StiffMount "Mass and stiffness from one record class redeclared in extends"
    replaceable record Body = Data.BodyData constrainedby Data.BodyData "Body record";
    parameter Body body "Body";
    SI.Position s(start = 1, fixed = true) "Position";
    SI.Velocity v(start = 0, fixed = true) "Velocity";
    parameter SI.TranslationalSpringConstant c = 1 "Stiffness";
  equation
    der(s) = v;
    body.m*der(v) = -c*s - body.d*v;
  end StiffMount;

  model StiffMountUsed "StiffMount with its record class redeclared: m = 4, d = 1, c = 16"
    extends StiffMount(redeclare record Body = Data.StiffBody, c = body.c);
  end StiffMountUsed;

  model SpringChain "Masses joined by springs from a wall, connected in a for loop (flow sums)"
    import Authoring.Components.*;
    parameter Integer n = 3 "Number of masses";
    Mass mass[n](m = {1, 2, 1}, s(start = {0.1, 0, -0.2})) "Masses";
    Spring spring[n](c = {4, 2, 3}) "Springs, the first from the wall";
    Fixed fixed "Wall";
  equation
    connect(fixed.flange, spring[1].flange_a);
    for i in 1:n loop
      connect(spring[i].flange_b, mass[i].flange);
    end for;
    for i in 1:n - 1 loop
      connect(mass[i].flange, spring[i + 1].flange_a);
    end for;
  end SpringChain;
end Structure;
