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
end Electrical;
