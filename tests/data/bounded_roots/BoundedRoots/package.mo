package BoundedRoots "Circuits whose nonlinear loops have roots outside an unknown's declared min or max"
  import SI = Modelica.Units.SI;

  model StepVoltage "Voltage source stepping from offset to offset + V at startTime"
    extends Modelica.Electrical.Analog.Interfaces.OnePort;
    parameter SI.Voltage offset = 0 "Voltage before startTime";
    parameter SI.Voltage V = 1 "Height of the step";
    parameter SI.Time startTime = 0 "Time of the step";
  equation
    v = if time < startTime then offset else offset + V;
  end StepVoltage;

  model Conductor "Ideal linear electrical conductor"
    extends Modelica.Electrical.Analog.Interfaces.OnePort;
    parameter Real G(unit = "S") = 1 "Conductance";
  equation
    i = G*v;
  end Conductor;

  model ConstantPowerSource "Source delivering the power P into the circuit at any voltage above zero
    (a converter feeding a bus): v*i = -P, with v > 0 declared by its min"
    extends Modelica.Electrical.Analog.Interfaces.OnePort(v(min = 0, start = 12));
    parameter SI.Power P = 5 "Power delivered into the circuit";
  equation
    v*i = -P;
  end ConstantPowerSource;

  model PoweredBus "A bus fed by a stepping source through G1 and by a constant-power source, loading a
    capacitor through G2: the bus voltage solves a quadratic whose other root is below zero, and
    Newton from the bus voltage before the step (5 V) lands on it after the step (12 V)"
    StepVoltage source(offset = 4, V = 8, startTime = 0.525);
    Conductor g1(G = 1);
    ConstantPowerSource feed(P = 5);
    Conductor g2(G = 0.01);
    Modelica.Electrical.Analog.Basic.Capacitor c(C = 0.01, v(start = 0, fixed = true));
    Modelica.Electrical.Analog.Basic.Ground ground;
    output SI.Voltage v = feed.v "Bus voltage";
    output SI.Voltage vc = c.v "Capacitor voltage";
  equation
    connect(source.p, g1.p);
    connect(g1.n, feed.p);
    connect(feed.n, ground.p);
    connect(source.n, ground.p);
    connect(g1.n, g2.p);
    connect(g2.n, c.p);
    connect(c.n, ground.p);
    annotation(experiment(StopTime = 2));
  end PoweredBus;

  model CappedBus "The powered bus with its feed rated up to 10 V: after the step both roots, 12.3 V and
    -0.4 V, lie outside the feed's voltage range"
    extends PoweredBus(feed(v(max = 10)));
    annotation(experiment(StopTime = 1));
  end CappedBus;
end BoundedRoots;
