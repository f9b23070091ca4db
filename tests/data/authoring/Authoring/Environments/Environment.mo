within Authoring.Environments;
model Environment "Gravity and a current, one per model (inner)"
  parameter SI.Acceleration g = 9.81 "Gravity";
  parameter SI.Velocity current = 0 "Current velocity";
end Environment;
