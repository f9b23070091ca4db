within;
package RelativeStatesLib "A compliant element whose relative position and velocity are preferred states, as MSL's Translational PartialCompliantWithRelativeStates"
  connector Flange "One-dimensional translational flange"
    Real s(unit = "m") "Absolute position of the flange";
    flow Real f(unit = "N") "Cut force directed into the flange";
  end Flange;

  model Mass "Sliding mass, its position and velocity states of default priority"
    parameter Real m(unit = "kg") = 1 "Mass";
    Flange flange_a;
    Flange flange_b;
    Real s(unit = "m", start = 0, fixed = true) "Position";
    Real v(unit = "m/s", start = 0, fixed = true) "Velocity";
  equation
    flange_a.s = s;
    flange_b.s = s;
    v = der(s);
    m*der(v) = flange_a.f + flange_b.f;
  end Mass;

  model MassWithStop "Sliding mass held at a hard stop once it reaches it: reinit(v, 0), as MSL's MassWithStopAndFriction"
    parameter Real m(unit = "kg") = 1 "Mass";
    parameter Real smax(unit = "m") = 0.1 "Position of the stop";
    Flange flange_a;
    Real s(unit = "m", stateSelect = StateSelect.always) "Position";
    Real v(unit = "m/s", stateSelect = StateSelect.always) "Velocity";
    Boolean stopped(start = false, fixed = true) "Held at the stop";
  equation
    flange_a.s = s;
    v = der(s);
    m*der(v) = if stopped then 0 else flange_a.f;
    when s >= smax then
      stopped = true;
      reinit(v, 0);
    end when;
  end MassWithStop;

  model SpringDamper "Linear spring and damper in parallel, its relative position and velocity preferred states"
    parameter Real c(unit = "N/m") = 100 "Spring constant";
    parameter Real d(unit = "N.s/m") = 10 "Damping constant";
    Flange flange_a;
    Flange flange_b;
    Real s_rel(unit = "m", start = 0, fixed = true, stateSelect = StateSelect.prefer) "Relative position";
    Real v_rel(unit = "m/s", start = 0, fixed = true, stateSelect = StateSelect.prefer) "Relative velocity (= der(s_rel))";
    Real f(unit = "N") "Force between the flanges";
  equation
    s_rel = flange_b.s - flange_a.s;
    v_rel = der(s_rel);
    f = c*s_rel + d*v_rel;
    flange_b.f = f;
    flange_a.f = -f;
  end SpringDamper;

  model ConstantForce "A constant force pushing its flange"
    parameter Real F(unit = "N") = 10 "Force";
    Flange flange;
  equation
    flange.f = -F;
  end ConstantForce;

  model PushedToStop "A mass pushed by a constant force drags a second one through a spring-damper until that one hits its stop"
    Mass pushed(m = 1, s(fixed = false), v(fixed = false));
    SpringDamper link(c = 100, d = 10);
    MassWithStop stopped(m = 1, smax = 0.1, s(start = 0, fixed = true), v(start = 0, fixed = true));
    ConstantForce force(F = 10);
    Real v_pushed(unit = "m/s") = pushed.v "Velocity of the pushed mass";
  equation
    connect(force.flange, pushed.flange_a);
    connect(pushed.flange_b, link.flange_a);
    connect(link.flange_b, stopped.flange_a);
  end PushedToStop;
end RelativeStatesLib;
