within Authoring.Examples;
package Switches "Parameters that choose equations, enumerations, events from min/max/abs/sign"
  model Coasting "A mass with a conditional damper and a Boolean switching a drag equation"
    import Authoring.Components.*;
    parameter Boolean use_damper = true "Connect the damper";
    parameter Boolean use_drag = false "Add quadratic drag";
    Mass mass(m = 2, v(start = 1)) "Mass";
    Damper damper if use_damper "Damper";
    Fixed fixed "Wall";
    Force drag "Drag force";
    SI.Force f_drag "Drag";
  equation
    connect(fixed.flange, damper.flange_a);
    connect(damper.flange_b, mass.flange);
    connect(drag.flange, mass.flange);
    drag.f = f_drag;
    if use_drag then
      f_drag = -0.5*mass.v*abs(mass.v);
    else
      f_drag = 0;
    end if;
  end Coasting;

  model Dragged "Coasting with drag instead of the damper"
    extends Coasting(use_damper = false, use_drag = true);
  end Dragged;

  model Modes "An enumeration parameter in if-expressions and as an Integer"
    parameter Data.Mode mode = Data.Mode.Quadratic "Damping mode";
    parameter Real gain[Authoring.Data.Mode] = {0, 1, 2} "Gain of each mode";
    output Integer modeNumber = Integer(mode) "Number of the mode";
    SI.Velocity v(start = 1, fixed = true) "Velocity";
    SI.Velocity w(start = 1, fixed = true) "w' = -gain[mode] w";
    Boolean strong = mode > Data.Mode.Linear "Stronger than linear";
  equation
    der(v) = if mode == Data.Mode.Free then 0 elseif mode == Data.Mode.Linear then -v else -v*abs(v);
    der(w) = -gain[mode]*w;
  end Modes;

  model LinearMode "Modes with the linear law"
    extends Modes(mode = Data.Mode.Linear);
  end LinearMode;

  model InitialForms "A fixed start value beside initial equations"
    Real x(start = 2, fixed = true) "x = 2 exp(-t)";
    Real y(start = 5) "y(0) = 2 x(0), then y = 4 exp(-2 t)";
    Real z "z'(0) = 3 gives z(0) = 0: z = 3 - 3 exp(-t)";
  initial equation
    y = 2*x;
    der(z) = 3;
  equation
    der(x) = -x;
    der(y) = -2*y;
    der(z) = 3 - z;
  end InitialForms;

  model Kinks "min, max, abs and sign with events"
    Real x(start = 0, fixed = true) "x = t until 1, then 2 - t";
    Real u(start = 0, fixed = true) "u = t - t^2/2 until 1, then 1/2";
    Real y "max(t - 0.5, 0) + min(t - 1.5, 0)";
    Real z "|t - 1.2|";
  equation
    der(x) = sign(1 - time);
    der(u) = max(1 - time, 0);
    y = max(time - 0.5, 0) + min(time - 1.5, 0);
    z = abs(time - 1.2);
  end Kinks;

  model Smooth "noEvent and smooth: kinks without events"
    Real x(start = 0, fixed = true) "x = t - t^2/2 until 1, then 1/2";
    Real y "(t - 0.75)^2 after 0.75, 0 before";
  equation
    der(x) = noEvent(max(1 - time, 0));
    y = smooth(1, if time > 0.75 then (time - 0.75)^2 else 0);
  end Smooth;
end Switches;
