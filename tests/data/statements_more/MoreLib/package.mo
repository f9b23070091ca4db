package MoreLib "Statements library authors write beside equations: warnings, samples at the start, close events"
  constant Real pi = 3.14159265358979323846;

  function checkedRoot "Square root of a value expected above a quarter"
    input Real u "Value";
    output Real y "Its square root";
  algorithm
    assert(u >= 0.25, "u below 0.25", AssertionLevel.warning);
    y := sqrt(u);
  end checkedRoot;

  function checkAbove "Checks that a value is above a limit, returns nothing"
    input Real v "Value";
    input Real limit = 0 "Its lower limit";
  algorithm
    assert(v > limit, "v fell below its limit");
  end checkAbove;

  model CheckedState "A call statement in an algorithm section checks the state at every instant"
    parameter Real k = 1 "Decay rate (1/s)";
    Real x(start = 1, fixed = true) "Decays as exp(-k time), below 1/4 from ln(4)/k";
    Real y "Twice x";
  equation
    der(x) = -k*x;
  algorithm
    y := 2*x;
    checkAbove(x, limit = 0.25);
  end CheckedState;

  model Warnings "Warning-level asserts in an equation and in a function: the run goes on"
    parameter Real f = 1 "Frequency of s (Hz)";
    Real x(start = 1, fixed = true) "Decays as exp(-time)";
    Real s "sin(2 pi f time): above 0.5 from 1/12 to 5/12 of each period";
    Real r "Square root of x, below 0.5 from ln(4) s";
  equation
    der(x) = -x;
    s = sin(2*pi*f*time);
    r = checkedRoot(x);
    assert(s < 0.5, "s (=" + String(s) + ") above " + String(0.5), AssertionLevel.warning);
  end Warnings;

  model SampledWarning "A warning-level assert in a when-statement, checked at its samples"
    Real x(start = 1, fixed = true) "Decays as exp(-time), below 0.6 from ln(1/0.6) s";
    discrete Integer n(start = 0, fixed = true) "Samples so far";
  equation
    der(x) = -x;
  algorithm
    when sample(0.25, 0.25) then
      assert(x > 0.6, "x below 0.6 at a sample", AssertionLevel.warning);
      n := pre(n) + 1;
    end when;
  end SampledWarning;

  model InitialOrSample "When-equations on initial() with samples: at the start and at each instant"
    discrete Real n(start = 0, fixed = true) "Instants of {initial(), sample(0.5, 0.5)} so far";
    discrete Real m(start = 0, fixed = true) "Instants of initial() or sample(0.25, 0.25) so far";
    discrete Real last(start = -1, fixed = true) "Time of the last instant that counted n (s)";
  equation
    when {initial(), sample(0.5, 0.5)} then
      n = pre(n) + 1;
      last = time;
    end when;
    when initial() or sample(0.25, 0.25) then
      m = pre(m) + 1;
    end when;
  end InitialOrSample;

  model CloseThresholds "x = exp(time) passes two levels 1e-4 s apart, inside one communication step"
    parameter Real tA = 0.5031 "Instant x passes the first level (s)";
    parameter Real tB = 0.5032 "Instant x passes the second level (s)";
    Real x(start = 1, fixed = true) "Grows as exp(time)";
    discrete Real atA(start = -1, fixed = true) "Instant of the first crossing (s)";
    discrete Real atB(start = -1, fixed = true) "Instant of the second crossing (s)";
    discrete Real seenA(start = -1, fixed = true) "atA as the second crossing's event finds it (s)";
  equation
    der(x) = x;
    when x > exp(tA) then
      atA = time;
    end when;
    when x > exp(tB) then
      atB = time;
      seenA = pre(atA);
    end when;
  end CloseThresholds;

  model SmallBounces "A ball dropped from 1 cm, restitution 0.5: bounces ever closer, several in one step"
    parameter Real e = 0.5 "Coefficient of restitution";
    parameter Real g = 9.81 "Gravity (m/s2)";
    Real h(start = 0.01, fixed = true) "Height (m)";
    Real v(start = 0, fixed = true) "Velocity (m/s)";
    discrete Real n(start = 0, fixed = true) "Bounces so far";
    discrete Real last(start = -1, fixed = true) "Instant of the last bounce (s)";
    discrete Real before(start = -1, fixed = true) "Instant of the bounce before it (s)";
  equation
    der(h) = v;
    der(v) = -g;
    when h < 0 then
      reinit(v, -e*pre(v));
      n = pre(n) + 1;
      last = time;
      before = pre(last);
    end when;
  end SmallBounces;
end MoreLib;
