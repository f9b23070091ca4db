package Commutation "Diode rectifiers whose ideal diodes commutate at events, and a switch with no consistent state"
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
    v = (s*unitCurrent)*(if off then 1 else Ron) + Vknee;
    i = (s*unitVoltage)*(if off then Goff else 1) + Goff*Vknee;
    off = s < 0;
  end IdealDiode;

  model SineVoltage "Sine voltage source"
    extends Modelica.Electrical.Analog.Interfaces.OnePort;
    parameter SI.Voltage V = 1 "Amplitude";
    parameter SI.Frequency f = 1 "Frequency";
  equation
    v = V*sin(2*pi*f*time);
  end SineVoltage;

  model BridgeRectifier "Single-phase diode bridge (four ideal diodes) fed through a line inductor, charging a
    capacitor with a resistive load: the line current flows in pulses around the sine's peaks, and a
    diode pair that starts conducting sees only the line inductor and the other pair's leakage"
    parameter SI.Voltage V = 325 "Amplitude of the line voltage";
    parameter SI.Frequency f = 50 "Line frequency";
    parameter SI.Inductance L = 1e-3 "Line inductor";
    parameter SI.Resistance Ron = 1e-3 "Diode forward resistance";
    parameter Real Goff(final unit = "S") = 1e-3 "Diode backward conductance";
    parameter SI.Voltage Vknee = 2 "Diode threshold voltage";
    parameter SI.Capacitance C = 2e-3 "DC capacitor";
    parameter SI.Resistance R = 10 "Load";
    SineVoltage line(V = V, f = f);
    Modelica.Electrical.Analog.Basic.Inductor inductor(L = L, i(start = 0, fixed = true));
    IdealDiode upperA(Ron = Ron, Goff = Goff, Vknee = Vknee) "From the line to the positive rail";
    IdealDiode upperB(Ron = Ron, Goff = Goff, Vknee = Vknee) "From the return to the positive rail";
    IdealDiode lowerA(Ron = Ron, Goff = Goff, Vknee = Vknee) "From the negative rail to the line";
    IdealDiode lowerB(Ron = Ron, Goff = Goff, Vknee = Vknee) "From the negative rail to the return";
    Modelica.Electrical.Analog.Basic.Capacitor capacitor(C = C, v(start = 250, fixed = true));
    Modelica.Electrical.Analog.Basic.Resistor load(R = R);
    Modelica.Electrical.Analog.Basic.Ground ground;
    output SI.Current i_line = inductor.i "Line current";
    output SI.Voltage v_dc = capacitor.v "DC voltage";
  equation
    connect(line.n, ground.p);
    connect(line.p, inductor.p);
    connect(inductor.n, upperA.p);
    connect(inductor.n, lowerA.n);
    connect(ground.p, upperB.p);
    connect(ground.p, lowerB.n);
    connect(upperA.n, capacitor.p);
    connect(upperB.n, capacitor.p);
    connect(lowerA.p, capacitor.n);
    connect(lowerB.p, capacitor.n);
    connect(load.p, capacitor.p);
    connect(load.n, capacitor.n);
    annotation (experiment(StopTime = 0.04));
  end BridgeRectifier;

  model Flipping "A switch that flips its own threshold: from 0.5 s to 1.5 s neither state is consistent
    (on, u is 0.5 below the threshold; off, 0.5 above): the event iteration cycles"
    Boolean on(start = false) "Switching state";
    Real u "Input to the switch";
    output Real y = if on then 1 else 0 "Switch output";
  equation
    u = time - 1 + (if on then -0.5 else 0.5);
    on = u > 0;
    annotation (experiment(StopTime = 2));
  end Flipping;
end Commutation;
