package CSEvents "Events inside the steps of a Co-Simulation FMU's own integrator, each with a known instant"
  import SI = Modelica.Units.SI; // loads Modelica.Units, which UserLib imports: rumoca 0.10 does not follow that import from the library path
  constant Real pi = 3.14159265358979323846;

  model FastSine "x = sin(2 pi f t) as an oscillator's states: x > 0.5 on for a third of each period
    (67 ms at 5 Hz), so a communication step of 0.1 s holds an upward and a downward crossing"
    parameter Real f = 5 "Frequency (Hz)";
    Real x(start = 0, fixed = true);
    Real y(start = 1, fixed = true);
    discrete Real n(start = 0, fixed = true) "Upward crossings of 0.5 so far";
    discrete Real last(start = -1, fixed = true) "Instant of the last upward crossing (s)";
    discrete Real sum(start = 0, fixed = true) "Sum of the instants of the upward crossings (s)";
    discrete Real downs(start = 0, fixed = true) "Downward crossings of 0.5 so far";
  equation
    der(x) = 2*pi*f*y;
    der(y) = -2*pi*f*x;
    when x > 0.5 then
      n = pre(n) + 1;
      last = time;
      sum = pre(sum) + time;
    end when;
    when x < 0.5 then
      downs = pre(downs) + 1;
    end when;
  end FastSine;

  model Sine "FastSine's oscillator alone, without events"
    parameter Real f = 5 "Frequency (Hz)";
    Real x(start = 0, fixed = true);
    Real y(start = 1, fixed = true);
  equation
    der(x) = 2*pi*f*y;
    der(y) = -2*pi*f*x;
  end Sine;

  model FastClock "sin(2 pi f t) > 0.5 on time alone at 50 Hz: on for 6.7 ms, off at every multiple of
    10 ms, where an integrator with steps of 10 ms ends its steps"
    parameter Real f = 50 "Frequency (Hz)";
    discrete Real n(start = 0, fixed = true) "Upward crossings of 0.5 so far";
    discrete Real sum(start = 0, fixed = true) "Sum of their instants (s)";
  equation
    when sin(2*pi*f*time) > 0.5 then
      n = pre(n) + 1;
      sum = pre(sum) + time;
    end when;
  end FastClock;

  model BouncingBall "A ball dropped from 1 m, restitution 0.8: reinit at each bounce"
    parameter Real e = 0.8 "Coefficient of restitution";
    parameter Real g = 9.81 "Gravity (m/s2)";
    Real h(start = 1, fixed = true) "Height (m)";
    Real v(start = 0, fixed = true) "Velocity (m/s)";
    discrete Real n(start = 0, fixed = true) "Bounces so far";
    discrete Real last(start = -1, fixed = true) "Instant of the last bounce (s)";
  equation
    der(h) = v;
    der(v) = -g;
    when h < 0 then
      reinit(v, -e*pre(v));
      n = pre(n) + 1;
      last = time;
    end when;
  end BouncingBall;

  model SampleAndState "Time events every 0.1 s from 0.05 s; x = t crosses three levels within 1e-12 s
    of three of them: at the same instant (0.25 s), 5e-13 s after (0.35 s) and 5e-13 s before (0.45 s)"
    parameter Real eps = 1e-10 "How far past a relation's switching point its event lies";
    Real x(start = 0, fixed = true);
    discrete Real samples(start = 0, fixed = true) "Time events so far";
    discrete Real sampleSum(start = 0, fixed = true) "Sum of their instants (s)";
    discrete Real at1(start = -1, fixed = true) "Instant of the crossing at 0.25 s";
    discrete Real at2(start = -1, fixed = true) "Instant of the crossing 5e-13 s after 0.35 s";
    discrete Real at3(start = -1, fixed = true) "Instant of the crossing 5e-13 s before 0.45 s";
  equation
    der(x) = 1;
    when sample(0.05, 0.1) then
      samples = pre(samples) + 1;
      sampleSum = pre(sampleSum) + time;
    end when;
    when x > 0.25 - eps then
      at1 = time;
    end when;
    when x > 0.35 - eps + 5e-13 then
      at2 = time;
    end when;
    when x > 0.45 - eps - 5e-13 then
      at3 = time;
    end when;
  end SampleAndState;

  model Chattering "der(x) = -1 above 0 and +1 below: x reaches 0 at 1 s and stays there, switching
    sides at every event (a sliding mode, a Zeno point of the event-driven model)"
    Real x(start = 1, fixed = true);
  equation
    der(x) = if x > 0 then -1 else 1;
  end Chattering;

  model MultivibratorSwitches "The op-amp multivibrator of UserLib (its limits in noEvent: a nonlinear loop
    whose root ends at each threshold) with the instants of its switches recorded"
    extends UserLib.SchmittTriggers.Multivibrator;
    discrete Real down(start = -1, fixed = true) "Instant of the last switch to -15 V (s)";
    discrete Real up(start = -1, fixed = true) "Instant of the last switch to +15 V (s)";
  equation
    when v_out < 0 then
      down = time;
    end when;
    when v_out > 0 then
      up = time;
    end when;
  end MultivibratorSwitches;
end CSEvents;
