within;
package DisplayLib "SI types with display units, as a model library declares them"
  package Units "Types in the style of Modelica.Units.SI"
    type Angle = Real(final quantity = "Angle", final unit = "rad", displayUnit = "deg");
    type AngularVelocity = Real(final quantity = "AngularVelocity", final unit = "rad/s",
      displayUnit = "rev/min");
    type Pressure = Real(final quantity = "Pressure", final unit = "Pa", displayUnit = "bar");
    type Velocity = Real(final quantity = "Velocity", final unit = "m/s", displayUnit = "km/h");
    type Temperature = Real(final quantity = "ThermodynamicTemperature", final unit = "K",
      min = 0, displayUnit = "degC");
  end Units;

  model Shaft "A shaft spinning down in a cooling, pressurized housing"
    import DisplayLib.Units.*;
    parameter Real tau(unit = "s") = 0.5 "Time constant of the spin-down";
    parameter Temperature T_amb = 283.15 "Water temperature";
    parameter Pressure p0 = 2e5 "Housing pressure";
    parameter Velocity v = 1.5 "Speed through the water";
    Temperature T(start = 303.15, fixed = true) "Housing temperature";
    AngularVelocity w(start = 100, fixed = true) "Shaft speed";
    Angle phi(start = 0, fixed = true) "Shaft angle";
    Pressure p "Housing pressure";
    Real f(unit = "s", displayUnit = "Hz") "Spin-down time (its display unit is a reciprocal)";
    Real L(unit = "m", displayUnit = "furlong") "Distance run (a display unit not known)";
    Real n(displayUnit = "rev/min") "A display unit without a unit";
  equation
    der(T) = -(T - T_amb)/tau;
    der(w) = -w/tau;
    der(phi) = w;
    p = p0;
    f = tau;
    L = v*time;
    n = w;
  end Shaft;
end DisplayLib;
