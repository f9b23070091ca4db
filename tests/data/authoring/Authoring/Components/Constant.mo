within Authoring.Components;
block Constant "A constant signal"
  parameter Real k = 1 "Value";
  RealOutput y "Output";
equation
  y = k;
end Constant;
