within Authoring.Components;
block Lag "First-order lag"
  extends SISO;
  parameter Real k = 1 "Gain";
  parameter SI.Time T = 1 "Time constant";
  parameter Real y_start = 0 "Initial output";
initial equation
  y = y_start;
equation
  der(y) = (k*u - y)/T;
end Lag;
