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

  model JunctionCapacitor "Capacitor whose effective capacitance grows with its voltage, as a transistor's junction's"
    extends Modelica.Electrical.Analog.Interfaces.OnePort;
    parameter SI.Capacitance C = 1e-3 "Capacitance at zero voltage";
    SI.Capacitance effective "Effective capacitance";
  equation
    effective = C*(1 + v^2);
    i = effective*der(v);
  end JunctionCapacitor;

  model ParasiticCapacitance "RC beside a resistor and a junction capacitance set by a parameter with Evaluate = true, as in MSL's heating NOR gates: zero, it leaves no state"
    parameter SI.Capacitance CapVal = 0 "Parasitic capacitance" annotation(Evaluate = true);
    Modelica.Electrical.Analog.Sources.ConstantVoltage source(V = 5);
    Modelica.Electrical.Analog.Basic.Resistor resistor(R = 100);
    Modelica.Electrical.Analog.Basic.Resistor feed(R = 50);
    JunctionCapacitor parasitic(final C = CapVal);
    Modelica.Electrical.Analog.Basic.Capacitor capacitor(C = 0.002, v(start = 0, fixed = true));
    Modelica.Electrical.Analog.Basic.Ground ground;
    output SI.Voltage v = capacitor.v "Capacitor voltage";
  equation
    connect(source.p, resistor.p);
    connect(source.p, feed.p);
    connect(feed.n, parasitic.p);
    connect(parasitic.n, ground.p);
    connect(resistor.n, capacitor.p);
    connect(capacitor.n, source.n);
    connect(source.n, ground.p);
  end ParasiticCapacitance;

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

  connector HeatPort "Thermal port: temperature and the heat flow rate into the component"
    SI.Temperature T "Port temperature";
    flow SI.HeatFlowRate Q_flow "Heat flow rate into the component";
  end HeatPort;

  model HeatingResistor "Resistor whose resistance follows the temperature of its heat port (the law of MSL's Basic.Resistor)"
    extends Modelica.Electrical.Analog.Interfaces.OnePort;
    parameter SI.Resistance R = 100 "Resistance at T_ref";
    parameter SI.Temperature T_ref = 293.15 "Reference temperature";
    parameter SI.LinearTemperatureCoefficient alpha = 1e-3 "Temperature coefficient of resistance";
    SI.Resistance R_actual "Actual resistance = R*(1 + alpha*(T_heatPort - T_ref))";
    SI.Power LossPower "Loss power leaving the component through its heat port";
    SI.Temperature T_heatPort "Temperature of the heat port";
    HeatPort heatPort "Heat port";
  equation
    assert(1 + alpha*(T_heatPort - T_ref) >= Modelica.Constants.eps, "Temperature outside scope of model!");
    R_actual = R*(1 + alpha*(T_heatPort - T_ref));
    v = R_actual*i;
    LossPower = v*i;
    heatPort.T = T_heatPort;
    heatPort.Q_flow = -LossPower;
  end HeatingResistor;

  model ThermalConductor "Lumped thermal element without heat capacity"
    parameter SI.ThermalConductance G = 1 "Thermal conductance";
    SI.HeatFlowRate Q_flow "Heat flow rate from port_a to port_b";
    SI.TemperatureDifference dT "port_a.T - port_b.T";
    HeatPort port_a "Port a";
    HeatPort port_b "Port b";
  equation
    dT = port_a.T - port_b.T;
    port_a.Q_flow = Q_flow;
    port_b.Q_flow = -Q_flow;
    Q_flow = G*dT;
  end ThermalConductor;

  model FixedTemperature "Fixed temperature at its port"
    parameter SI.Temperature T = 293.15 "Fixed temperature";
    HeatPort port "Port";
  equation
    port.T = T;
  end FixedTemperature;

  model SineVoltage "Sine voltage source: v = V sin(2 pi f t)"
    extends Modelica.Electrical.Analog.Interfaces.OnePort;
    parameter SI.Voltage V = 1 "Amplitude";
    parameter SI.Frequency f = 1 "Frequency";
  equation
    v = V*sin(2*Modelica.Constants.pi*f*time);
  end SineVoltage;

  model SelfHeating "A resistor heated by its own loss through a thermal conductance to a fixed temperature (MSL's Examples.Resistor): a nonlinear loop whose current and resistance start at 0"
    SineVoltage source(V = 220, f = 1);
    HeatingResistor resistor(R = 100, T_ref = 293.15, alpha = 1e-3);
    ThermalConductor conductor(G = 5);
    FixedTemperature ambient(T = 303.15);
    Modelica.Electrical.Analog.Basic.Ground ground;
    output SI.Temperature T = resistor.T_heatPort "Resistor temperature";
    output SI.Current i = resistor.i "Resistor current";
  equation
    connect(source.p, resistor.p);
    connect(resistor.n, source.n);
    connect(source.n, ground.p);
    connect(resistor.heatPort, conductor.port_a);
    connect(conductor.port_b, ambient.port);
  end SelfHeating;
end Electrical;
