within Authoring.Components;
model Fixed "A flange fixed in place"
  parameter SI.Position s0 = 0 "Position";
  Flange flange "Flange";
equation
  flange.s = s0;
end Fixed;
