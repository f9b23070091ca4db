within ;
package EvalLib "Real parameters read by the bindings of structural parameters"
  model Chooser "A gear that is ideal where its loss table says so, decided when built"
    parameter Real lossTable[1, 3] = [0, 1, 0] "Speed, efficiency, friction torque";
    final parameter Boolean ideal = lossTable[1, 2] == 1 and lossTable[1, 3] == 0
      "No losses";
    parameter Real J(unit = "kg.m2") = 2 "Inertia";
    Real w(unit = "rad/s", start = 0, fixed = true) "Speed";
  equation
    if ideal then
      J*der(w) = 1;
    else
      J*der(w) = lossTable[1, 2] - lossTable[1, 3];
    end if;
    annotation(experiment(StopTime = 1));
  end Chooser;

  model LossyChooser "The gear with losses in its table"
    extends Chooser(lossTable = [0, 0.8, 0.3]);
    annotation(experiment(StopTime = 1));
  end LossyChooser;

  model Sized "A chain of integrators whose count comes from a length"
    parameter Real L(unit = "m") = 0.3 "Length";
    parameter Real dx(unit = "m") = 0.1 "Segment length";
    parameter Integer n = integer(L/dx + 0.5) "Segments";
    Real x[n](each start = 0, each fixed = true) "Segment states";
    Real total "Sum of the states";
  equation
    der(x) = ones(n);
    total = sum(x);
    annotation(experiment(StopTime = 1));
  end Sized;
end EvalLib;
