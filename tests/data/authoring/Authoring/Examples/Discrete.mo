within Authoring.Examples;
package Discrete "when, elsewhen, pre, sample, reinit, assert"
  model Counter "A when with a vector condition and an elsewhen; pre of Integer and Boolean"
    Integer n(start = 0, fixed = true) "Count";
    Boolean toggled(start = false, fixed = true) "Toggled at 0.8 s";
    Real nReal = n "The count as a Real";
    Real toggledReal = if toggled then 1 else 0 "The flag as a Real";
  equation
    when {time >= 0.5, time >= 1.25} then
      n = pre(n) + 1;
    elsewhen time >= 1.75 then
      n = pre(n) + 10;
    end when;
    when time >= 0.8 then
      toggled = not pre(toggled);
    end when;
  end Counter;

  model Sampled "A discrete state halved at each sample, driving a continuous state"
    discrete Real k(start = 1, fixed = true) "Rate, halved at 0.125 + 0.25 i";
    Real x(start = 1, fixed = true) "x' = -k x";
  equation
    when sample(0.125, 0.25) then
      k = 0.5*pre(k);
    end when;
    der(x) = -k*x;
  end Sampled;

  model Walls "A body between two walls, one when with a vector condition reinitializing it"
    Real s(start = 0.5, fixed = true) "Position";
    Real v(start = 0.8, fixed = true) "Velocity";
  equation
    der(s) = v;
    der(v) = 0;
    when {s >= 1, s <= 0} then
      reinit(v, -pre(v));
    end when;
  end Walls;

  model Warning "An assert at warning level does not stop the run"
    Real x(start = 1, fixed = true) "x = exp(-t)";
  equation
    der(x) = -x;
    assert(x > 0.5, "x fell below 0.5", AssertionLevel.warning);
    assert(x > 0.01, "x fell below 0.01");
  end Warning;

  model IntegerFunctions "integer, floor, mod and div change at events; change() sees them"
    Real x(start = 0, fixed = true) "x = t";
    Integer k = integer(x) "Whole part of x";
    Real steps = floor(2*time) "Half-second steps";
    Real saw(start = 0, fixed = true) "Integral of mod(t, 0.5)";
    Real quotient = div(3*time, 1.5) "Whole part of 2 t";
    Integer changes(start = 0, fixed = true) "Number of changes of k";
  equation
    der(x) = 1;
    der(saw) = mod(time, 0.5);
    when change(k) then
      changes = pre(changes) + 1;
    end when;
  end IntegerFunctions;
end Discrete;
