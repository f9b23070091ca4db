within UserLib;
package SchmittTriggers "Op-amp Schmitt triggers whose limits are in noEvent: the nonlinear loop's root ends at each threshold"
  model SineVoltage "Sine voltage source"
    extends Modelica.Electrical.Analog.Interfaces.OnePort;
    parameter SI.Voltage V = 15 "Amplitude";
    parameter SI.Frequency f = 0.25 "Frequency";
  equation
    v = V*sin(2*pi*f*time);
  end SineVoltage;

  model Inverting "Inverting Schmitt trigger without states: a sine of 15 V on the inverting input, feedback
    divider 0.8 on the other; the output leaves +15 V where the sine exceeds 12 V - 1 mV and -15 V where it
    falls below -(12 V - 1 mV)"
    Homotopy.LimitedOpAmp opAmp(strict = true, homotopyType = Homotopy.LimiterHomotopy.UpperLimit);
    Modelica.Electrical.Analog.Basic.Resistor r2(R = 1000) "Feedback from the output";
    Modelica.Electrical.Analog.Basic.Resistor r1(R = 4000) "To ground";
    SineVoltage vIn "Input voltage";
    Modelica.Electrical.Analog.Basic.Ground ground;
    output SI.Voltage v_out = opAmp.out.v "Trigger output";
  equation
    connect(opAmp.out, r2.p);
    connect(r2.n, opAmp.in_p);
    connect(opAmp.in_p, r1.p);
    connect(r1.n, ground.p);
    connect(vIn.p, opAmp.in_n);
    connect(vIn.n, ground.p);
    annotation (experiment(StopTime = 10));
  end Inverting;

  model Multivibrator "Astable multivibrator: Homotopy's Relaxation with the limits in noEvent, run past its
    thresholds (the capacitor at +-(12 V - 1 mV))"
    extends Homotopy.Relaxation(strict = true);
    annotation (experiment(StopTime = 10));
  end Multivibrator;
end SchmittTriggers;
