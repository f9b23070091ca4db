package GearUser "Drives whose losses come from tables read by functions of two outputs"
  package Tables "The user's own tables"
    function efficiency "Efficiency of a belt over its load, and the slope there"
      input Real load "Load, 0 to 1";
      input Real table[:, 2] = [0, 0.5; 1, 0.9] "Load and efficiency, loads increasing";
      output Real eta "Efficiency at the load";
      output Real slope "Efficiency per load in the table's first interval";
    algorithm
      slope := (table[2, 2] - table[1, 2])/(table[2, 1] - table[1, 1]);
      eta := table[1, 2] + slope*(load - table[1, 1]);
    end efficiency;
  end Tables;

  model Drive "A constant torque spins up a load through a lossy gear"
    GearLib.Components.ConstantTorque motor(tau_constant = 3);
    GearLib.Components.Inertia input_(J = 0.1);
    GearLib.Components.LossyGear gear(ratio = 2);
    GearLib.Components.Inertia load(J = 2);
  equation
    connect(motor.flange, input_.flange_a);
    connect(input_.flange_b, gear.flange_a);
    connect(gear.flange_b, load.flange_a);
    annotation (experiment(StopTime = 2));
  end Drive;

  model Belt "A belt whose efficiency at half load, compared, sets a flywheel's drag"
    parameter Real etaHalf = Tables.efficiency(0.5) "Efficiency at half load";
    parameter Real drag(unit = "1/s") = if etaHalf < 0.75 then 2*(1 - etaHalf) else 1 - etaHalf
      "Drag rate";
    Real w(start = 4, fixed = true, unit = "rad/s") "Flywheel speed";
  equation
    der(w) = -drag*w;
    annotation (experiment(StopTime = 2));
  end Belt;

  model FirstOutput "A call in an expression and the same call's outputs by a tuple equation"
    parameter Real eta0 = GearLib.Functions.interpolate({0, 1, 3}, {1, 0.8, 0.5}, 0)
      "Efficiency at rest";
    parameter Real k = if eta0 < 0.5 then 0 else 1 "Speed of the sweep";
    Real xi = 3*k*time "Point swept through the table";
    Real inExpression "First output of a call in an expression";
    Real inTuple "First output of the same call, by a tuple equation";
    Integer interval "Second output of the call";
  equation
    inExpression = GearLib.Functions.interpolate({0, 1, 3}, {1, 0.8, 0.5}, xi);
    (inTuple, interval) = GearLib.Functions.interpolate({0, 1, 3}, {1, 0.8, 0.5}, xi);
    annotation (experiment(StopTime = 1));
  end FirstOutput;
end GearUser;
