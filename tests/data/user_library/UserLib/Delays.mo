within UserLib;
package Delays "Transport delays: delay(expr, delayTime) and delay(expr, delayTime, delayMax)"
  model DelayedSine "A sine delayed by a parameter time"
    parameter SI.Time T = 0.3705 "Delay time (between the points of a history 1 ms apart)";
    parameter SI.AngularVelocity w = 2 "Angular frequency of the sine";
    output Real u "The signal";
    output Real y "The signal T earlier (its start value before T)";
  equation
    u = sin(w*time);
    y = delay(u, T);
  end DelayedSine;

  model DelayDifferential "x' = -x(t - 1) with x = 1 for t <= 0"
    output Real x(start = 1, fixed = true) "Solution";
  equation
    der(x) = -delay(x, 1.0);
  end DelayDifferential;

  model VariableDelay "A sine delayed by a time that varies, bounded by delayMax"
    parameter SI.Time T_max = 1 "Bound on the delay time";
    output SI.Time tau "Delay time";
    output Real y "sin(2 (t - tau(t))), its start value before the start";
  equation
    tau = 0.5 + 0.25*sin(3*time);
    y = delay(sin(2*time), tau, T_max);
  end VariableDelay;

  model DelayedStep "A step at 0.25 s (an event) delayed by 0.3004 s"
    output Real s "0, then 1 after 0.25 s";
    output Real y "s 0.3004 s earlier";
  equation
    s = if time > 0.25 then 1 else 0;
    y = delay(s, 0.3004);
  end DelayedStep;

  model DelayPastItsBound "A delay time, time itself, that passes delayMax = 0.5 s"
    Real x(start = 0, fixed = true) "Integral of the delayed time";
  equation
    der(x) = delay(time, time, 0.5);
  end DelayPastItsBound;
end Delays;
