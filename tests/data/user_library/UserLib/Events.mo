within UserLib;
package Events "Relations, when-equations, pre, reinit, sample, initial() and assert"
  model BouncingBall "A ball dropped from 1 m, restitution 0.8"
    parameter Real e = 0.8 "Coefficient of restitution";
    parameter SI.Acceleration g_ball = 9.81 "Gravity";
    SI.Height h(start = 1, fixed = true) "Height";
    SI.Velocity v(start = 0, fixed = true) "Velocity";
    output Integer bounces(start = 0, fixed = true) "Bounces so far";
  equation
    der(h) = v;
    der(v) = -g_ball;
    when h < 0 then
      reinit(v, -e*pre(v));
      bounces = pre(bounces) + 1;
    end when;
  end BouncingBall;

  model SampledCounter "A counter on a clock, a switch on time, a guard"
    discrete Real count(start = 0, fixed = true) "Samples so far";
    Boolean late "After 0.3 s";
    output Real signal "+count once late, -count before";
    output Real marks(start = 0, fixed = true) "Set at the start by initial()";
  equation
    when sample(0.1, 0.25) then
      count = pre(count) + 1;
    end when;
    when initial() then
      marks = 7;
    elsewhen count > 2 then
      marks = pre(marks) + 1;
    end when;
    late = time > 0.3;
    signal = if late then count else -count;
    assert(count < 1000, "count runs away");
  end SampledCounter;

  model Thermostat "Heater switched on below 19 and off above 21 degrees"
    parameter Real k = 0.5 "Cooling rate";
    Real T(start = 20, fixed = true) "Temperature";
    Boolean heating(start = true, fixed = true) "Heater on";
  equation
    der(T) = (if heating then 4 else 0) - k*(T - 15);
    when T > 21 then
      heating = false;
    elsewhen T < 19 then
      heating = true;
    end when;
  end Thermostat;

  model Guarded "An assert that fails at t = 0.5 s"
    Real x(start = 0, fixed = true);
  equation
    der(x) = 1;
    assert(x < 0.5, "x passed its limit");
  end Guarded;
  model OutOfDomain "A derivative outside sqrt's domain from the start: NaN"
    parameter Real p = 0.5;
    Real x(start = 0, fixed = true);
  equation
    der(x) = sqrt(p - 1);
  end OutOfDomain;
  model OutputOutOfDomain "An output that leaves log's domain at t = 1 s"
    Real x(start = 0, fixed = true);
    output Real y;
  equation
    der(x) = 1;
    y = log(1 - x);
  end OutputOutOfDomain;
  model IndicatorOutOfDomain "An event indicator that leaves sqrt's domain at t = 1 s"
    Real x(start = 0, fixed = true);
    Boolean far;
  equation
    der(x) = 1;
    far = sqrt(1 - x) > 2;
  end IndicatorOutOfDomain;
  model LimitedDecay "Algorithm sections: a limited decay rate, and its two multiples"
    parameter Real limit = 1 "Largest decay rate";
    Real x(start = 2, fixed = true) "Decaying state";
    output Real rate "Decay rate, limited";
    output Real scaled[2] "rate times 1 and 2";
  algorithm
    rate := if x > limit then limit else x;
  algorithm
    for i in 1:2 loop
      scaled[i] := i*rate;
    end for;
  equation
    der(x) = -rate;
  end LimitedDecay;

  model ChangeCounter "A level raised at sample times; change(level) adds 10 to a second counter"
    discrete Integer level(start = 0, fixed = true) "Samples so far";
    discrete Integer changes(start = 0, fixed = true) "10 per change of level";
    discrete Real lastChange(start = -1, fixed = true) "Time of the last change of level";
    discrete Integer late(start = 0, fixed = true) "1 after 1.3 s (a relation beside change)";
  equation
    when time > 1.3 then
      late = 1;
    end when;
    when sample(0.1, 0.5) then
      level = pre(level) + 1;
    end when;
    when change(level) then
      changes = pre(changes) + 10;
      lastChange = time;
    end when;
  end ChangeCounter;

  model FinalValue "x' = -x; when terminal(): the value of x at the end"
    Real x(start = 1, fixed = true) "Decaying state";
    discrete Real atEnd(start = 0, fixed = true) "x when the simulation ends, 0 before";
  equation
    der(x) = -x;
    when terminal() then
      atEnd = x;
    end when;
  end FinalValue;
end Events;
