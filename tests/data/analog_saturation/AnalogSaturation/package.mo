package AnalogSaturation "An inductor whose saturation is shaped by a parameter the initial equations determine"
  import SI = Modelica.Units.SI;
  import Modelica.Constants.pi;

  model SaturableCoil "Inductor whose flux saturates as the arctangent of its current: inductance Lzero at
    zero current, Lsat at large currents and Lrated at the rated current, where the knee current Iknee
    makes the flux law pass through that point (found when the model initializes, from Irated/10 on)"
    extends Modelica.Electrical.Analog.Interfaces.OnePort(i(start = 0));
    parameter SI.Current Irated = 1 "Rated current";
    parameter SI.Inductance Lrated = 1 "Inductance (flux over current) at the rated current";
    parameter SI.Inductance Lzero = 2 "Inductance at zero current";
    parameter SI.Inductance Lsat = 0.5 "Inductance at large currents";
    parameter SI.Current Iknee(start = Irated/10, fixed = false) "Knee current of the flux law";
    Real flux(unit = "Wb") "Flux linkage";
  initial equation
    (Lrated - Lsat)/(Lzero - Lsat) = Iknee/Irated*(pi/2 - atan(Iknee/Irated));
  equation
    flux = Lsat*i + (Lzero - Lsat)*Iknee*atan(i/Iknee);
    v = der(flux);
  end SaturableCoil;

  model CosineVoltage "Cosine voltage source"
    extends Modelica.Electrical.Analog.Interfaces.OnePort;
    parameter SI.Voltage V = 1 "Amplitude";
    parameter SI.AngularVelocity w = 1 "Angular frequency";
  equation
    v = V*cos(w*time);
  end CosineVoltage;

  model SineDriven "A saturable coil on a sine voltage source, starting without current at the voltage's peak"
    parameter SI.Voltage V = 1.25 "Amplitude of the source";
    parameter SI.AngularVelocity w = 1 "Angular frequency of the source";
    CosineVoltage source(V = V, w = w);
    SaturableCoil coil(i(fixed = true));
    Modelica.Electrical.Analog.Basic.Ground ground;
    SI.Current i = coil.i "Coil current";
    Real flux(unit = "Wb") = coil.flux "Coil flux";
    SI.Current knee = coil.Iknee "Knee current found at initialization";
  equation
    connect(source.p, coil.p);
    connect(coil.n, ground.p);
    connect(source.n, ground.p);
  end SineDriven;
end AnalogSaturation;
