package WhenLib "When-statements in algorithm sections, as discrete controllers are written"
  connector RealInput = input Real "A signal into a block";
  connector RealOutput = output Real "A signal out of a block";

  model SampledPI "A sampled PI controller on a first-order plant, in one algorithm section"
    parameter Real Ts = 0.1 "Sample period (s)";
    parameter Real k = 2 "Proportional gain";
    parameter Real Ti = 0.5 "Integral time (s)";
    parameter Real T = 0.4 "Time constant of the plant (s)";
    parameter Real r = 1 "Set point";
    Real y(start = 0, fixed = true) "Plant output";
    Real error "Control error, at every instant";
    discrete Real e(start = 0, fixed = true) "Control error at the last sample";
    discrete Real I(start = 0, fixed = true) "Integral part";
    discrete Real u(start = 0, fixed = true) "Command, held between samples";
    Integer n(start = 0, fixed = true) "Samples taken";
  equation
    T*der(y) = -y + u;
  algorithm
    error := r - y;
    when sample(0, Ts) then
      e := error;
      I := pre(I) + Ts*e/Ti;
      u := k*e + I;
      n := pre(n) + 1;
    end when;
  end SampledPI;

  model Counters "Two when-statements in one section, the first with elsewhen"
    Integer a(start = 0, fixed = true) "Instants of the 0.75 s clock";
    Integer b(start = 0, fixed = true) "Instants of the 0.5 s clock when the first takes none";
    Integer c(start = 0, fixed = true) "Instants of the 0.25 s clock, from 0 s";
    Real last(start = -1, fixed = true) "Time of the last instant of the 0.25 s clock (s)";
  algorithm
    when sample(0.75, 0.75) then
      a := pre(a) + 1;
    elsewhen sample(0.5, 0.5) then
      b := pre(b) + 1;
    end when;
    when sample(0, 0.25) then
      c := pre(c) + 1;
      last := time;
    end when;
  end Counters;

  model Thresholds "A vector condition: each element's rising edge fires, at state events"
    Real x(start = 1, fixed = true) "Grows as exp(time)";
    Integer hits(start = 0, fixed = true) "Thresholds passed";
    Real tFirst(start = 0, fixed = true) "Time of the first crossing (s)";
    Real tLast(start = 0, fixed = true) "Time of the last crossing (s)";
  equation
    der(x) = x;
  algorithm
    when {x > 2, x > 3} then
      hits := pre(hits) + 1;
      if hits == 1 then
        tFirst := time;
      end if;
      tLast := time;
    end when;
  end Thresholds;

  model HoldLoop "An integrator fed back through a sample-and-hold block of another file"
    Real x(start = 0, fixed = true) "Integrated signal";
    Controllers.SampleHold hold(period = 0.25) "Samples x";
  equation
    der(x) = 1 - hold.y;
    hold.u = x;
  end HoldLoop;

  model Ticks "sample() as a Boolean value, true at its instants only (as MSL's SampleTrigger)"
    Boolean tick = sample(0.25, 0.25) "True in the event iterations at the instants";
    Integer n(start = 0, fixed = true) "Instants seen through tick";
    Real seen(start = 0, fixed = true) "Time of the last instant (s)";
    Real level "1 while tick is true";
  equation
    level = if tick then 1 else 0;
  algorithm
    when tick then
      n := pre(n) + 1;
      seen := time;
    end when;
  end Ticks;

  function checkPositive "Checks its input, returns nothing"
    input Real v "Value that must be positive";
  algorithm
    assert(v > 0, "v must be positive");
  end checkPositive;

  model CheckedDecay "A rate checked by a call statement in an initial algorithm"
    parameter Real k = 2 "Decay rate (1/s)";
    Real x(start = 1, fixed = true) "Decays as exp(-k time)";
  initial algorithm
    checkPositive(k);
  equation
    der(x) = -k*x;
  end CheckedDecay;
end WhenLib;
