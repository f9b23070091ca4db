within Authoring.Components;
model Mass "A sliding mass with one flange"
  parameter SI.Mass m(start = 1) "Mass";
  Flange flange "Flange";
  SI.Position s(start = 0, fixed = true, stateSelect = StateSelect.prefer) "Position";
  SI.Velocity v(start = 0, fixed = true) "Velocity";
equation
  s = flange.s;
  v = der(s);
  m*der(v) = flange.f;
end Mass;
