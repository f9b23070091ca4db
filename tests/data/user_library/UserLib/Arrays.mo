within UserLib;
package Arrays "Component arrays, connect in for, array expressions and functions"
  function rotation "Planar rotation matrix"
    input SI.Angle psi "Angle";
    output Real R[2, 2] "Rotation matrix";
  protected
    Real c = cos(psi);
    Real s = sin(psi);
  algorithm
    R := [c, -s; s, c];
  end rotation;
  function weightedSum "Sum of k*i*x_i over the first n elements, with a default weight"
    input Real x[:] "Values";
    input Integer n = size(x, 1) "How many";
    input Real k = 1 "Weight";
    output Real y "Weighted sum";
  protected
    Integer i;
  algorithm
    y := 0;
    for j in 1:size(x, 1) loop
      y := y + k*j*x[j];
    end for;
  end weightedSum;
  block Lag "First order lag"
    extends Modelica.Blocks.Interfaces.SISO(y(start = 0, fixed = true));
    parameter SI.Time T = 0.5 "Time constant";
    parameter Real k = 1 "Gain";
  equation
    der(y) = (k*u - y)/T;
  end Lag;
  model ThrusterBank "Four lags fed from one command in a loop of connects"
    parameter Integer n = 4 "Number of thrusters";
    Modelica.Blocks.Interfaces.RealInput command(start = 1) "Common command";
    Lag thr[n](each T = 0.5, k = {1, 2, 3, 4});
    output Real total = sum(thr.y) "Sum of the lag outputs";
    output Real squares[n] = {i^2 for i in 1:n} "Comprehension";
    output Real R[2, 2] = rotation(0.3*time) "Rotation at 0.3 rad/s";
    output Real B[4, 4] = [R, 2*R; -R, R*R] "Block matrix";
    output Real dot = squares*squares "Vector product";
    output Real weighted = weightedSum({thr[i].y for i in 1:n}, k = 2) "Weighted lag outputs";
  equation
    for i in 1:n loop
      connect(command, thr[i].u);
    end for;
  end ThrusterBank;
  model ArrayEquation "A whole-array equation beside scalar ones and a loop"
    Real a[2] "Set by one array equation";
    Real b[3] "Set element by element";
    Real x(start = 0, fixed = true) "Integral of a[2]";
    Real rows[3, 2] "Set row by row in a loop";
  equation
    for i in 1:3 loop
      rows[i, :] = {i*time, -i*x};
    end for;
    a = {time, 2*time};
    b[1] = 1;
    for i in 2:3 loop
      b[i] = a[i - 1] + x;
    end for;
    der(x) = a[2];
  end ArrayEquation;
end Arrays;
