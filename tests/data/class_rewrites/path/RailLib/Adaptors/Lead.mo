within RailLib.Adaptors;
model Lead "Position of a signal of position and velocity, a time ahead"
  parameter Real T(unit = "s") = 0.5 "Time ahead";
  input Real u[2] "Position and velocity";
  output Real s(unit = "m") "Position at time + T";
protected
  function position "Position a time ahead from position and velocity"
    input Real q[2] "Position and velocity";
    input Real dt(unit = "s") "Time ahead";
    output Real y "Position";
  algorithm
    y := q[1] + q[2]*dt;
  end position;
equation
  s = position(u, T);
end Lead;
