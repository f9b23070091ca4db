within RailLib.Components;
model DampedSlider "Sliding mass pushed by a constant force against viscous friction"
  extends PartialSlider;
  parameter Real m(unit = "kg") = 2 "Mass";
  parameter Real d(unit = "N.s/m") = 4 "Viscous friction coefficient";
  parameter Real F(unit = "N") = 8 "Driving force";

  encapsulated partial model PartialSlider
    "Position and velocity of a slider and its friction force, defined by the class extending it"
    Real s(unit = "m", start = 0, fixed = true) "Position";
    Real v(unit = "m/s", start = 0, fixed = true) "Velocity";
    Real f(unit = "N") "Friction force";
  equation
    v = der(s);
  end PartialSlider;
equation
  f = d*v;
  m*der(v) = F - f;
end DampedSlider;
