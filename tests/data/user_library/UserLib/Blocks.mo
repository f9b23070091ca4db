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
end Blocks;
