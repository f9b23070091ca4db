within RailLib.Sources;
model Move "Position of a signal of position, velocity and acceleration, a time ahead"
  parameter Real T(unit = "s") = 0 "Time ahead";
  input Real u[3] "Position, velocity and acceleration";
  output Real s(unit = "m") "Position at time + T";
protected
  function position "Position a time ahead from position, velocity and acceleration"
    input Real q[3] "Position, velocity and acceleration";
    input Real dt(unit = "s") "Time ahead";
    output Real y "Position";
  algorithm
    y := q[1] + q[2]*dt + q[3]*dt^2/2;
  end position;
equation
  s = position(u, T);
end Move;
