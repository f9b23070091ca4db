within ;
package EventLib "Asserts that hold at events, and pre() in initialization mode"
  model SampledCheck "A when-statement that asserts on the state at each sample"
    discrete Integer n(start = 0, fixed = true) "Samples so far";
    Real x(start = 1, fixed = true) "Decaying state";
  equation
    der(x) = -x;
  algorithm
    when sample(0.25, 0.25) then
      assert(x > 0.5, "x fell below one half");
      assert(x > 0.9, "x below 0.9", AssertionLevel.warning);
      n := pre(n) + 1;
    end when;
  end SampledCheck;

  model CountLimit "A when-statement that asserts on the count before it adds one"
    parameter Integer limit = 3 "Samples allowed";
    discrete Integer n(start = 0, fixed = true) "Samples so far";
  algorithm
    when sample(0.25, 0.25) then
      assert(pre(n) < limit, "counter passed its limit");
      n := pre(n) + 1;
    end when;
  end CountLimit;

  model LevelCheck "A when-equation that asserts on the value it assigns"
    Real x(start = 0, fixed = true) "Level (m)";
    discrete Real tReached(start = 0, fixed = true) "When the level was reached (s)";
  equation
    der(x) = 1.5;
    when x > 0.9 then
      tReached = time;
      assert(tReached < 0.5, "level reached late");
    end when;
  end LevelCheck;

  model HeldOutput "pre() of a Boolean given by relations, read in initialization mode"
    Real x(start = 0, fixed = true) "Ramp";
    Boolean high(start = true) "Hysteresis on the ramp: on above 2, off below 1";
    Real level "1 where high was on before the last event";
  equation
    der(x) = 1;
    high = x > 2 or pre(high) and x > 1;
    level = if pre(high) then 1 else 0;
  end HeldOutput;
end EventLib;
