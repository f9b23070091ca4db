within;
package PulseLib "Pulse sources written the way MSL's Blocks.Sources and Analog.Sources write them"
  block Pulse "Pulse of a width in percent of its period, counted in periods"
    parameter Real amplitude = 1 "Amplitude of the pulse";
    parameter Real width(final min = 0, final max = 100) = 50 "Width in % of the period";
    parameter Real period(final min = 1e-15, start = 1) "Period (s)";
    parameter Integer nperiod = -1 "Number of periods (< 0: infinitely many)";
    parameter Real offset = 0 "Offset of the output";
    parameter Real startTime = 0 "Start of the first period (s)";
    output Real y "The pulse";
  protected
    parameter Real T_width = period*width/100 "Width of the pulse (s)";
    Real T_start "Start of the current period (s)";
    Integer count "Period count";
  initial algorithm
    count := integer((time - startTime)/period);
    T_start := startTime + count*period;
  equation
    when integer((time - startTime)/period) > pre(count) then
      count = pre(count) + 1;
      T_start = time;
    end when;
    y = offset + (if time < startTime or nperiod == 0 or (nperiod > 0 and count >= nperiod)
      then 0 else if time < T_start + T_width then amplitude else 0);
  end Pulse;

  model PulseVoltage "A voltage source whose signal source gets its parameters as final modifications"
    parameter Real V(start = 1) "Amplitude (V)";
    parameter Real width(start = 50) "Width in % of the period";
    parameter Real period(start = 1) "Period (s)";
    parameter Integer nperiod(start = -1) "Number of periods (< 0: infinitely many)";
    parameter Real offset = 0 "Offset (V)";
    parameter Real startTime = 0 "Start (s)";
    output Real v "Voltage (V)";
    Pulse signalSource(final amplitude = V, final width = width, final period = period,
      final nperiod = nperiod, final offset = offset, final startTime = startTime);
  equation
    v = signalSource.y;
  end PulseVoltage;

  model ThreePulses "Three pulses of 2 V, 0.4 s apart from 0.3 s, 0.1 s wide"
    PulseVoltage V1(V = 2, width = 25, period = 0.4, nperiod = 3, startTime = 0.3);
    output Real v "Voltage (V)";
    output Real count "Periods begun";
  equation
    v = V1.v;
    count = V1.signalSource.count;
  end ThreePulses;
end PulseLib;
