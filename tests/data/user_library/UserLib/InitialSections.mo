within UserLib;
package InitialSections "Initial algorithms and initial equations of discrete variables"
  block Pulse "Pulse source as MSL 4 writes it: the period count and the current period's start from an initial algorithm"
    parameter Real amplitude = 2 "Amplitude of the pulse";
    parameter Real width(min = 0, max = 100) = 50 "Width of the pulse in % of period";
    parameter SI.Time period(min = 1e-10) = 0.3 "Time for one period";
    parameter SI.Time startTime = -0.52 "Output = offset for time < startTime";
    parameter Real offset = 0.5 "Offset of the output";
    Modelica.Blocks.Interfaces.RealOutput y "Pulse";
  protected
    SI.Time T_width = period*width/100;
    SI.Time T_start "Start time of current period";
    Integer count "Period count";
  initial algorithm
    count := integer((time - startTime)/period);
    T_start := startTime + count*period;
  equation
    when integer((time - startTime)/period) > pre(count) then
      count = pre(count) + 1;
      T_start = time;
    end when;
    y = offset + (if time < startTime then 0 else if time < T_start + T_width then amplitude else 0);
  end Pulse;

  model Decay "x' = -x from x(0) = x0, a parameter that an initial algorithm computes in two statements; the crossings of x = 1 counted from an initial equation of a discrete variable"
    parameter Real a = 1.5 "Half the first value";
    parameter Real x0(fixed = false) "Initial value, computed at initialization";
    Real x "Decaying state";
    discrete Integer n "Crossings counted from 3";
  initial algorithm
    x0 := 2*a;
    x0 := x0 + 1;
  initial equation
    x = x0;
    pre(n) = 3;
  equation
    der(x) = -x;
    when x < 1 then
      n = pre(n) + 1;
    end when;
  end Decay;

  block PeriodMean "Mean of u over each period since the start time, as MSL 4's Blocks.Math.Mean writes it: the start time a fixed = false parameter an initial equation gives; weights from an initial for-equation, chained on it"
    parameter SI.Time T = 0.45 "Period of the mean";
    parameter SI.Time t0(fixed = false, start = 5) "Start time of the simulation";
    parameter Real w[3](each fixed = false) "Weights i + t0";
    Modelica.Blocks.Interfaces.RealOutput y(start = 0, fixed = true) "Weighted mean of the last period";
  protected
    Real u = 1 + 2*time "Signal averaged";
    Real x(start = 0, fixed = true) "Integral of u over the current period";
  initial equation
    t0 = time;
    for i in 1:3 loop
      w[i] = i + t0;
    end for;
  equation
    der(x) = u;
    when sample(t0 + T, T) then
      y = w[3]*pre(x)/T;
      reinit(x, 0);
    end when;
  end PeriodMean;
end InitialSections;
