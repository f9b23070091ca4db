package AnalogMore "Analog circuits whose piecewise-linear networks need their linear systems solved to round-off"
  import SI = Modelica.Units.SI;
  import Modelica.Constants.pi;

  model IdealDiode "Ideal diode: a straight line of slope Ron (conducting) or Goff (blocking) through the knee;
    conducting where its voltage exceeds Vknee, blocking where its current falls below Goff*Vknee"
    extends Modelica.Electrical.Analog.Interfaces.OnePort;
    parameter SI.Resistance Ron = 1e-5 "Forward state-on differential resistance (closed resistance)";
    parameter Real Goff(final unit = "S") = 1e-5 "Backward state-off conductance (opened conductance)";
    parameter SI.Voltage Vknee = 0 "Forward threshold voltage";
    Boolean off(start = true) "Switching state";
    Real s(start = 0, final unit = "1") "Auxiliary variable of the characteristic: a current where the diode
      conducts, a voltage where it blocks (unit 1 A or 1 V)";
  protected
    constant SI.Voltage unitVoltage = 1;
    constant SI.Current unitCurrent = 1;
  equation
    off = s < 0;
    v = (s*unitCurrent)*(if off then 1 else Ron) + Vknee;
    i = (s*unitVoltage)*(if off then Goff else 1) + Goff*Vknee;
  end IdealDiode;

  model SineVoltage "Sine voltage source of a phase angle"
    extends Modelica.Electrical.Analog.Interfaces.OnePort;
    parameter SI.Voltage V = 1 "Amplitude";
    parameter SI.Frequency f = 1 "Frequency";
    parameter SI.Angle phase = 0 "Phase";
  equation
    v = V*sin(2*pi*f*time + phase);
  end SineVoltage;

  model ThreePhaseBridge "Six-pulse diode bridge fed from a star of three sine sources through line inductors,
    its two DC capacitors charged to the line voltage's peak: all six diodes block at the start, each phase
    node floats on the leakage of its two diodes, and the first pair conducts once the load has drained
    the capacitors below the line voltage"
    parameter SI.Voltage VAC = 400 "RMS line-to-line";
    parameter SI.Frequency f = 50 "Line frequency";
    parameter SI.Inductance LAC = 60e-6 "Line inductor";
    parameter SI.Resistance Ron = 1e-3 "Diode forward resistance";
    parameter Real Goff(final unit = "S") = 1e-3 "Diode backward conductance";
    parameter SI.Voltage Vknee = 2 "Diode threshold voltage";
    parameter SI.Capacitance CDC = 15e-3 "DC capacitance";
    parameter SI.Resistance R = 1.13 "Load";
    SineVoltage sine1(V = VAC*sqrt(2/3), f = f);
    SineVoltage sine2(V = VAC*sqrt(2/3), f = f, phase = -2/3*pi);
    SineVoltage sine3(V = VAC*sqrt(2/3), f = f, phase = -4/3*pi);
    Modelica.Electrical.Analog.Basic.Inductor inductor1(L = LAC);
    Modelica.Electrical.Analog.Basic.Inductor inductor2(L = LAC, i(start = 0, fixed = true));
    Modelica.Electrical.Analog.Basic.Inductor inductor3(L = LAC, i(start = 0, fixed = true));
    IdealDiode upper1(Ron = Ron, Goff = Goff, Vknee = Vknee) "From phase 1 to the positive rail";
    IdealDiode upper2(Ron = Ron, Goff = Goff, Vknee = Vknee) "From phase 2 to the positive rail";
    IdealDiode upper3(Ron = Ron, Goff = Goff, Vknee = Vknee) "From phase 3 to the positive rail";
    IdealDiode lower1(Ron = Ron, Goff = Goff, Vknee = Vknee) "From the negative rail to phase 1";
    IdealDiode lower2(Ron = Ron, Goff = Goff, Vknee = Vknee) "From the negative rail to phase 2";
    IdealDiode lower3(Ron = Ron, Goff = Goff, Vknee = Vknee) "From the negative rail to phase 3";
    Modelica.Electrical.Analog.Basic.Capacitor capacitor1(C = 2*CDC) "From the positive rail to the midpoint";
    Modelica.Electrical.Analog.Basic.Capacitor capacitor2(C = 2*CDC) "From the midpoint to the negative rail";
    Modelica.Electrical.Analog.Basic.Resistor load(R = R);
    Modelica.Electrical.Analog.Basic.Ground ground;
    output SI.Current i2 = inductor2.i "Line current of phase 2";
    output SI.Current i3 = inductor3.i "Line current of phase 3";
    output SI.Voltage v1 = capacitor1.v "Upper DC voltage";
    output SI.Voltage v2 = capacitor2.v "Lower DC voltage";
  initial equation
    capacitor1.v = VAC*sqrt(2)/2;
    capacitor2.v = VAC*sqrt(2)/2;
  equation
    connect(sine1.n, sine2.n);
    connect(sine2.n, sine3.n);
    connect(sine1.p, inductor1.p);
    connect(sine2.p, inductor2.p);
    connect(sine3.p, inductor3.p);
    connect(inductor1.n, upper1.p);
    connect(inductor2.n, upper2.p);
    connect(inductor3.n, upper3.p);
    connect(inductor1.n, lower1.n);
    connect(inductor2.n, lower2.n);
    connect(inductor3.n, lower3.n);
    connect(upper1.n, capacitor1.p);
    connect(upper2.n, capacitor1.p);
    connect(upper3.n, capacitor1.p);
    connect(lower1.p, capacitor2.n);
    connect(lower2.p, capacitor2.n);
    connect(lower3.p, capacitor2.n);
    connect(capacitor1.n, ground.p);
    connect(capacitor2.p, ground.p);
    connect(load.p, capacitor1.p);
    connect(load.n, capacitor2.n);
    annotation (experiment(StopTime = 0.02));
  end ThreePhaseBridge;
end AnalogMore;
