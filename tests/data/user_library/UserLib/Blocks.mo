within UserLib;
package Blocks "Block diagrams from short connector classes"
  block Plant "First order plant with an optional disturbance input"
    extends Modelica.Blocks.Interfaces.SISO;
    parameter SI.Time T = 0.8 "Time constant";
    parameter Boolean use_d = false "Use the disturbance input";
    Modelica.Blocks.Interfaces.RealInput d if use_d "Disturbance";
  protected
    Modelica.Blocks.Interfaces.RealInput d_internal "Disturbance or zero";
  equation
    connect(d, d_internal);
    if not use_d then
      d_internal = 0;
    end if;
    der(y) = (u + d_internal - y)/T;
  end Plant;

  model SpeedLoop "PI loop around a first order plant: set-point, feedback, controller"
    Modelica.Blocks.Sources.Constant setpoint(k = 2) "Set-point";
    Modelica.Blocks.Math.Feedback feedback;
    Modelica.Blocks.Continuous.PI controller(k = 1.5, T = 0.4);
    Plant plant(y(start = 0, fixed = true));
    Modelica.Blocks.Interfaces.RealOutput y "Plant output";
  equation
    connect(setpoint.y, feedback.u1);
    connect(plant.y, feedback.u2);
    connect(feedback.y, controller.u);
    connect(controller.y, plant.u);
    connect(plant.y, y);
    annotation (experiment(StopTime = 4));
  end SpeedLoop;

  model Lags "Two first-order lags of the library, initialized by its enumeration"
    import Modelica.Blocks.Types.Init;
    type Mode = enumeration(Off "Input zero", On "Input on") "Whether the input is applied";
    parameter Mode mode = Mode.On "Input applied";
    Modelica.Blocks.Continuous.FirstOrder steady(k = 3, T = 0.5, initType = Init.SteadyState);
    Modelica.Blocks.Continuous.FirstOrder fromOutput(
      k = 3, T = 0.5, initType = Modelica.Blocks.Types.Init.InitialOutput, y_start = 1);
    Modelica.Blocks.Interfaces.RealOutput y1 "Steady lag's output";
    Modelica.Blocks.Interfaces.RealOutput y2 "Output of the lag started at y_start";
  equation
    steady.u = if mode == Mode.On then 2 else 0;
    fromOutput.u = if mode > Mode.Off then 2 else 0;
    connect(steady.y, y1);
    connect(fromOutput.y, y2);
  end Lags;

  model Swing "A sine source and an angle from the library's external \"builtin\" functions"
    Modelica.Blocks.Sources.Sine sine(amplitude = 2, f = 0.5);
    Modelica.Blocks.Interfaces.RealOutput y "Source output";
    Modelica.Blocks.Interfaces.RealOutput angle "asin(y/2)";
  equation
    connect(sine.y, y);
    angle = Modelica.Math.asin(0.5*y);
  end Swing;

  block Scaler "A block exported on its own: y = k u"
    extends Modelica.Blocks.Interfaces.SISO;
    parameter Real k = 3 "Gain";
  equation
    y = k*u;
  end Scaler;

  package FilterCoefficients "Coefficient functions written as MSL 4's Blocks.Continuous.Internal.Filter writes them"
    function normalization "Normalization of n equal first-order sections for a -3 dB cut-off, and their gains"
      input Integer n "Number of sections";
      output Real alpha "Normalization: the sections' cut-off is w/alpha";
      output Real gain[n] "Gain of each section";
    algorithm
      alpha := sqrt(2^(1/n) - 1);
      for i in 1:n loop
        gain[i] := 1;
      end for;
    end normalization;

    function rates "Rates of n equal first-order sections with the overall cut-off w"
      input Integer n "Number of sections";
      input Real w "Cut-off angular frequency (rad/s)";
      output Real k[n] "Rate of each section (1/s)";
      output Real alpha "Normalization";
    protected
      Real g[n];
    algorithm
      (alpha, g) := normalization(n);
      for i in 1:n loop
        k[i] := g[i]*w/alpha;
      end for;
    end rates;
  end FilterCoefficients;

  block CriticalDamping "n equal first-order sections (MSL 4's Filter, critical damping): its rates fixed = false parameters from a function of several outputs at initialization; output and first section initialized as MSL's InitialOutput does"
    extends Modelica.Blocks.Interfaces.SISO;
    parameter Integer n = 2 "Number of sections";
    parameter SI.Frequency f_cut = 0.5 "Cut-off frequency";
    parameter Real y_start = 0.2 "Initial output";
  protected
    parameter SI.AngularVelocity w = 2*pi*f_cut "Cut-off angular frequency";
    parameter Real k[n](each fixed = false) "Rate of each section (1/s)";
    parameter Real alpha(fixed = false) "Normalization";
    Real x[n] "Section outputs";
  initial equation
    (k, alpha) = FilterCoefficients.rates(n, w);
    y = y_start;
    der(x[1]) = 0;
  equation
    der(x[1]) = k[1]*(u - x[1]);
    for i in 2:n loop
      der(x[i]) = k[i]*(x[i - 1] - x[i]);
    end for;
    y = x[n];
  end CriticalDamping;

  expandable connector ControlBus "A signal bus declaring two signals, as MSL 4's BusUsage_Utilities.Interfaces.ControlBus"
    SI.Velocity speed "Set-point speed";
    SI.Force thrust "Declared but never connected: only potentially present";
  end ControlBus;

  model BusLag "A sine source on a bus drives a first-order lag; the bus's other declared signal is absent"
    Modelica.Blocks.Sources.Sine sine(amplitude = 2, f = 0.5) "Set-point";
    Modelica.Blocks.Continuous.FirstOrder lag(T = 0.5, initType = Modelica.Blocks.Types.Init.InitialOutput, y_start = 1) "Lag";
    ControlBus bus "Signals";
  equation
    connect(sine.y, bus.speed);
    connect(bus.speed, lag.u);
  end BusLag;
end Blocks;
