within;
package TimeEventLib "Sources that switch on time alone, written the way MSL's Blocks.Sources write them"
  block Ramp "Ramp from offset to offset + height between startTime and startTime + duration"
    parameter Real height = 1 "Height of the ramp";
    parameter Real duration(min = 0) = 2 "Duration of the ramp (s)";
    parameter Real offset = 0 "Offset of the output";
    parameter Real startTime = 0 "Start of the ramp (s)";
    output Real y "The ramp";
  equation
    y = offset + (if time < startTime then 0 else if time < (startTime + duration)
      then (time - startTime)*height/duration else height);
  end Ramp;

  block Timer "Counts the instants first, first + period, ..., each set at the one before"
    parameter Real first = 0 "First instant (s)";
    parameter Real period = 1 "Time between instants (s)";
    discrete Real next "The next instant (s)";
    discrete Real last(start = -1, fixed = true) "The instant of the last count (s)";
    Integer count(start = 0, fixed = true) "Instants counted";
  initial algorithm
    next := first;
  equation
    when time >= next then
      next = pre(next) + period;
      last = time;
      count = pre(count) + 1;
    end when;
  end Timer;

  model RampedRC "A ramp into an RC lowpass; the instants where the ramp ends and a step rises"
    parameter Real R = 0.5 "Resistance (Ohm)";
    parameter Real C = 1 "Capacitance (F)";
    parameter Real stepTime = 0.45 "Instant of the step (s)";
    Ramp ramp(height = 2, duration = 0.2, startTime = 0.1) "Source voltage (V)";
    Timer timer(first = 0.15, period = 0.25);
    Real v(start = 0, fixed = true) "Capacitor voltage (V)";
    discrete Real rampEnd(start = -1, fixed = true) "Where the ramp ended (s)";
    discrete Real stepped(start = -1, fixed = true) "Where time > stepTime became true (s)";
    discrete Real started(start = -1, fixed = true) "Where time > 0 became true (s)";
    Real step = if time > stepTime then 1 else 0 "Step (1)";
  equation
    R*C*der(v) = ramp.y - v;
    when not time < ramp.startTime + ramp.duration then
      rampEnd = time;
    end when;
    when time > stepTime then
      stepped = time;
    end when;
    when time > 0 then
      started = time;
    end when;
  end RampedRC;
end TimeEventLib;
