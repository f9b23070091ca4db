package JunctionLoops "Circuits whose nonlinear loops hold a junction's exponential law, where Newton's full steps overshoot"
  import SI = Modelica.Units.SI;

  model StepVoltage "Voltage source stepping from offset to offset + V at startTime"
    extends Modelica.Electrical.Analog.Interfaces.OnePort;
    parameter SI.Voltage offset = 0 "Voltage before startTime";
    parameter SI.Voltage V = 1 "Height of the step";
    parameter SI.Time startTime = 0 "Time of the step";
  equation
    v = if time < startTime then offset else offset + V;
  end StepVoltage;

  model HeatedDiode "Junction diode, i = Is(Tj)*(exp(v/(N*Vt(Tj))) - 1), heated by its loss: the junction
    is Rth above its case, whose heat capacity Cth loses heat to the ambient through Ramb"
    extends Modelica.Electrical.Analog.Interfaces.OnePort;
    parameter SI.Current Is = 1e-14 "Saturation current at Tnom";
    parameter Real N = 1 "Emission coefficient";
    parameter SI.Temperature Tnom = 300.15 "Temperature of Is";
    parameter Real XTI = 3 "Temperature exponent of the saturation current";
    parameter SI.Voltage EG = 1.11 "Band gap";
    parameter Real Rth(unit = "K/W") = 200 "Thermal resistance, junction to case";
    parameter Real Ramb(unit = "K/W") = 100 "Thermal resistance, case to ambient";
    parameter Real Cth(unit = "J/K") = 0.05 "Heat capacity of the case";
    parameter SI.Temperature Tamb = 300.15 "Ambient temperature";
    constant Real k(unit = "J/K") = 1.380649e-23 "Boltzmann constant";
    constant Real q(unit = "C") = 1.602176634e-19 "Elementary charge";
    SI.Temperature Tj "Junction temperature";
    SI.Temperature Tcase(start = 300.15, fixed = true) "Case temperature";
    SI.Voltage Vt "Thermal voltage at the junction";
    SI.Current Is_T "Saturation current at the junction temperature";
    SI.Power loss "Power dissipated in the junction";
  equation
    Vt = k*Tj/q;
    Is_T = Is*(Tj/Tnom)^XTI*exp((Tj/Tnom - 1)*EG/(N*Vt));
    i = Is_T*(exp(v/(N*Vt)) - 1);
    loss = v*i;
    Tj = Tcase + Rth*loss;
    Cth*der(Tcase) = loss - (Tcase - Tamb)/Ramb;
  end HeatedDiode;

  model SteppedDiode "A heated diode behind a resistor, its source stepping from 0.3 V (the junction barely
    conducts) to 5 V: Newton's full step from the last solution lands volts past the root"
    StepVoltage source(offset = 0.3, V = 4.7, startTime = 0.525);
    Modelica.Electrical.Analog.Basic.Resistor r(R = 100);
    HeatedDiode diode(v(start = 0.3));
    Modelica.Electrical.Analog.Basic.Ground ground;
    output SI.Voltage v = diode.v "Diode voltage";
    output SI.Temperature Tj = diode.Tj "Junction temperature";
    output SI.Temperature Tcase = diode.Tcase "Case temperature";
  equation
    connect(source.p, r.p);
    connect(r.n, diode.p);
    connect(diode.n, source.n);
    connect(source.n, ground.p);
    annotation(experiment(StopTime = 2));
  end SteppedDiode;
end JunctionLoops;
