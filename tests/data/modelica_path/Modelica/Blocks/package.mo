within Modelica;
package Blocks "Input/output blocks"
  package Interfaces "Connectors and partial blocks"
    connector RealInput = input Real "'input Real' as connector";
    connector RealOutput = output Real "'output Real' as connector";
    partial block SO "Single Output continuous control block"
      RealOutput y "Connector of Real output signal";
    end SO;
    partial block SISO "Single Input Single Output continuous control block"
      extends SO;
      RealInput u "Connector of Real input signal";
    end SISO;
    partial block SI2SO "2 Single Input / 1 Single Output continuous control block"
      extends SO;
      RealInput u1 "Connector of Real input signal 1";
      RealInput u2 "Connector of Real input signal 2";
    end SI2SO;
  end Interfaces;
  package Math "Mathematical blocks"
    block Feedback "Output difference between commanded and feedback input"
      Interfaces.RealInput u1 "Commanded input";
      Interfaces.RealInput u2 "Feedback input";
      Interfaces.RealOutput y "Difference";
    equation
      y = u1 - u2;
    end Feedback;
    block Gain "Output the product of a gain value with the input signal"
      parameter Real k(start = 1) "Gain value";
      Interfaces.RealInput u "Input signal";
      Interfaces.RealOutput y "Output signal";
    equation
      y = k*u;
    end Gain;
  end Math;
  package Continuous "Continuous control blocks with internal states"
    block Integrator "Output the integral of the input signal"
      extends Interfaces.SISO(y(start = 0, fixed = true));
      parameter Real k(unit = "1") = 1 "Integrator gain";
    equation
      der(y) = k*u;
    end Integrator;
    block FirstOrder "First order transfer function block"
      import Modelica.Blocks.Types.Init;
      extends Interfaces.SISO(y(start = y_start));
      parameter Real k(unit = "1") = 1 "Gain";
      parameter Modelica.Units.SI.Time T(start = 1) "Time Constant";
      parameter Init initType = Init.NoInit "Type of initialization";
      parameter Real y_start = 0 "Initial or guess value of output";
    initial equation
      if initType == Init.SteadyState then
        der(y) = 0;
      elseif initType == Init.InitialState or initType == Init.InitialOutput then
        y = y_start;
      end if;
    equation
      der(y) = (k*u - y)/T;
    end FirstOrder;
    block PI "Proportional-Integral controller"
      extends Interfaces.SISO;
      parameter Real k(unit = "1") = 1 "Gain";
      parameter Modelica.Units.SI.Time T(start = 1, min = Modelica.Constants.eps) "Time Constant";
      Real x(start = 0, fixed = true) "State of block";
    equation
      der(x) = u/T;
      y = k*(x + u);
    end PI;
  end Continuous;
  package Types "Types of the blocks' parameters"
    type Init = enumeration(
        NoInit "No initialization (start values are guess values with fixed=false)",
        SteadyState "Steady state initialization (derivatives of states are zero)",
        InitialState "Initialization with initial states",
        InitialOutput "Initialization with initial outputs (and steady state of the states if possible)")
      "Enumeration defining initialization of a block";
  end Types;
  package Sources "Signal sources"
    block Constant "Generate constant signal"
      parameter Real k(start = 1) "Constant output value";
      extends Interfaces.SO;
    equation
      y = k;
    end Constant;
    block Sine "Generate sine signal"
      import Modelica.Constants.pi;
      parameter Real amplitude = 1 "Amplitude of sine wave";
      parameter Modelica.Units.SI.Frequency f(start = 1) "Frequency of sine wave";
      extends Interfaces.SO;
    equation
      y = amplitude*Modelica.Math.sin(2*pi*f*time);
    end Sine;
  end Sources;
  package Examples "Examples of the blocks"
    model Lag "A first-order lag started at its initial output, driven by a constant"
      Modelica.Blocks.Sources.Constant source(k = 2);
      Modelica.Blocks.Continuous.FirstOrder lag(
        k = 3, T = 0.5, initType = Modelica.Blocks.Types.Init.InitialOutput, y_start = 1);
    equation
      connect(source.y, lag.u);
      annotation (experiment(StopTime = 2));
    end Lag;
  end Examples;
end Blocks;
