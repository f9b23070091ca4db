within UserLib;
package Electrical "Analog circuits from pins with flow currents"
  model RC "Capacitor charged through a resistor"
    Modelica.Electrical.Analog.Sources.ConstantVoltage source(V = 5);
    Modelica.Electrical.Analog.Basic.Resistor resistor(R = 100);
    Modelica.Electrical.Analog.Basic.Capacitor capacitor(C = 0.002, v(start = 0, fixed = true));
    Modelica.Electrical.Analog.Basic.Ground ground;
    output SI.Voltage v = capacitor.v "Capacitor voltage";
  equation
    connect(source.p, resistor.p);
    connect(resistor.n, capacitor.p);
    connect(capacitor.n, source.n);
    connect(source.n, ground.p);
  end RC;

  model ExpDiode "Diode with the exponential characteristic (no linearized branch)"
    extends Modelica.Electrical.Analog.Interfaces.OnePort(v(start = 0.5));
    parameter SI.Current Ids = 1e-6 "Saturation current";
    parameter SI.Voltage Vt = 0.05 "Thermal voltage";
  equation
    i = Ids*(exp(v/Vt) - 1);
  end ExpDiode;

  model DiodeDischarge "Capacitor discharged through a resistor and a diode: a nonlinear loop"
    Modelica.Electrical.Analog.Basic.Capacitor capacitor(C = 0.01, v(start = 5, fixed = true));
    Modelica.Electrical.Analog.Basic.Resistor resistor(R = 100);
    ExpDiode diode;
    Modelica.Electrical.Analog.Basic.Ground ground;
    output SI.Voltage v = capacitor.v "Capacitor voltage";
    output SI.Voltage v_diode = diode.v "Diode voltage";
  equation
    connect(capacitor.p, resistor.p);
    connect(resistor.n, diode.p);
    connect(diode.n, capacitor.n);
    connect(capacitor.n, ground.p);
  end DiodeDischarge;

  model Switch "Thyristor-like element: its conducting and blocking resistances bound to parameters"
    extends Modelica.Electrical.Analog.Interfaces.OnePort(v(start = 0));
    parameter SI.Voltage VDRM(min = 0) = 100 "Forward breakthrough voltage";
    parameter SI.Voltage VTM = 1.7 "Conducting voltage";
    parameter SI.Current IH = 6e-3 "Holding current";
    parameter SI.Current ITM = 25 "Conducting current";
    parameter SI.Current Is = 1e-3 "Saturation current of the parallel junction";
    parameter SI.Voltage Vt = 1 "Voltage equivalent of temperature";
    SI.Resistance R_mean = sqrt(Ron*Roff) "Geometric mean of the two resistances";
  protected
    parameter SI.Resistance Ron = (VTM - 0.7)/ITM "Conducting resistance";
    parameter SI.Resistance Roff = VDRM^2/VTM/IH "Blocking resistance";
  equation
    i = Is*(exp(v/Vt) - 1) + (if v > VTM then VTM/Roff + (v - VTM)/Ron else v/Roff);
  end Switch;

  model SwitchDischarge "Capacitor discharged through a resistor and a switch: a nonlinear loop over parameters bound to parameters"
    Modelica.Electrical.Analog.Basic.Capacitor capacitor(C = 1e-3, v(start = 5, fixed = true));
    Modelica.Electrical.Analog.Basic.Resistor resistor(R = 1);
    Switch switch;
    Modelica.Electrical.Analog.Basic.Ground ground;
    output SI.Voltage v = capacitor.v "Capacitor voltage";
    output SI.Voltage v_switch = switch.v "Switch voltage";
  equation
    connect(capacitor.p, resistor.p);
    connect(resistor.n, switch.p);
    connect(switch.n, capacitor.n);
    connect(capacitor.n, ground.p);
  end SwitchDischarge;
end Electrical;
