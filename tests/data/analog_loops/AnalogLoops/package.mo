package AnalogLoops "Electrical circuits whose nonlinear algebraic loops need more than Newton's method"
  import SI = Modelica.Units.SI;
  import Modelica.Constants.pi;

  model SineSource "Sine voltage source"
    extends Modelica.Electrical.Analog.Interfaces.OnePort;
    parameter SI.Voltage V = 1 "Amplitude";
    parameter SI.Frequency f = 1 "Frequency";
    parameter SI.Angle phase = 0 "Phase";
  equation
    v = V*sin(2*pi*f*time + phase);
  end SineSource;

  model SuppliedOpAmp "Op-amp of gain V0 limited to the potentials of its supply pins, without events; the
    supplies deliver the power the output and inputs take"
    parameter Real V0 = 1e4 "No-load amplification";
    Modelica.Electrical.Analog.Interfaces.PositivePin in_p "Non-inverting input";
    Modelica.Electrical.Analog.Interfaces.NegativePin in_n "Inverting input";
    Modelica.Electrical.Analog.Interfaces.PositivePin out "Output";
    Modelica.Electrical.Analog.Interfaces.PositivePin s_p "Positive supply";
    Modelica.Electrical.Analog.Interfaces.NegativePin s_n "Negative supply";
    SI.Voltage v_in = in_p.v - in_n.v "Input voltage difference";
    SI.Power p_load = out.v*out.i + in_p.v*in_p.i + in_n.v*in_n.i "Power taken at output and inputs";
    SI.Current i_supply = -p_load/(s_p.v - s_n.v) "Current drawn from the positive supply";
  equation
    in_p.i = 0;
    in_n.i = 0;
    s_p.i = i_supply;
    s_n.i = -i_supply;
    out.v = smooth(0, noEvent(if V0*v_in > s_p.v then s_p.v else if V0*v_in < s_n.v then s_n.v else V0*v_in));
  end SuppliedOpAmp;

  model FloatingDifference "Difference amplifier of gain -R3/R1 on two sine phases, its supplies' common tied
    to the sources' ground through rCommon only: the op-amp's supply potentials are unknowns of the loop,
    and at the start values the loop's tearing puts the limiter far outside its linear piece (3 mV wide)"
    parameter SI.Voltage V = 300 "Amplitude of each phase";
    parameter SI.Frequency f = 50 "Frequency";
    parameter SI.Voltage supply = 15 "Supply voltage";
    SineSource phase1(V = V, f = f, phase = pi/3);
    SineSource phase2(V = V, f = f, phase = -pi/3);
    Modelica.Electrical.Analog.Basic.Resistor r1(R = 1e5, i(start = 0)) "Input to the inverting input";
    Modelica.Electrical.Analog.Basic.Resistor r2(R = 1e5, i(start = 0)) "Input to the non-inverting input";
    Modelica.Electrical.Analog.Basic.Resistor r3(R = 1e3) "Feedback";
    Modelica.Electrical.Analog.Basic.Resistor r4(R = 1e3) "Non-inverting input to the common";
    Modelica.Electrical.Analog.Basic.Resistor rLoad(R = 1e5) "Load, output to the common";
    Modelica.Electrical.Analog.Basic.Resistor rCommon(R = 1e5) "Common to the sources' ground";
    Modelica.Electrical.Analog.Sources.ConstantVoltage positive(V = supply);
    Modelica.Electrical.Analog.Sources.ConstantVoltage negative(V = -supply);
    SuppliedOpAmp opAmp;
    Modelica.Electrical.Analog.Basic.Ground ground;
    output SI.Voltage v_out = opAmp.out.v - rCommon.n.v "Output to the common";
    output SI.Voltage v_common = rCommon.n.v "Common to the sources' ground";
  equation
    connect(phase1.n, ground.p);
    connect(phase2.n, ground.p);
    connect(rCommon.p, ground.p);
    connect(phase1.p, r1.p);
    connect(phase2.p, r2.p);
    connect(r1.n, opAmp.in_n);
    connect(r3.p, opAmp.in_n);
    connect(r3.n, opAmp.out);
    connect(r2.n, opAmp.in_p);
    connect(r4.p, opAmp.in_p);
    connect(r4.n, rCommon.n);
    connect(rLoad.p, opAmp.out);
    connect(rLoad.n, rCommon.n);
    connect(positive.n, rCommon.n);
    connect(negative.n, rCommon.n);
    connect(positive.p, opAmp.s_p);
    connect(negative.p, opAmp.s_n);
    annotation (experiment(StopTime = 0.04));
  end FloatingDifference;
end AnalogLoops;
