within UserLib;
package Rotational "An EMF driving an inertia through a gear"
  model GearedMotor "Voltage source, resistor, EMF, ideal gear, load inertia"
    parameter SI.Voltage V = 12 "Supply voltage";
    Modelica.Electrical.Analog.Sources.ConstantVoltage source(V = V);
    Modelica.Electrical.Analog.Basic.Resistor resistor(R = 2);
    Modelica.Electrical.Analog.Basic.EMF emf(k = 0.5);
    Modelica.Electrical.Analog.Basic.Ground ground;
    Modelica.Mechanics.Rotational.Components.IdealGear gear(ratio = 4);
    Modelica.Mechanics.Rotational.Components.Inertia load(J = 0.3, phi(start = 0, fixed = true), w(start = 0, fixed = true));
    output SI.AngularVelocity w = load.w "Load speed";
    output SI.Current i = resistor.i "Motor current";
  equation
    connect(source.p, resistor.p);
    connect(resistor.n, emf.p);
    connect(emf.n, source.n);
    connect(source.n, ground.p);
    connect(emf.flange, gear.flange_a);
    connect(gear.flange_b, load.flange_a);
  end GearedMotor;
end Rotational;
