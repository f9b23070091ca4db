package OrderLib "When-equations that read what another when-equation assigns at the same instant"
  constant Real pi = 3.14159265358979323846 "Ratio of a circle's circumference to its diameter";
  model TwoWhens "b reads the a the second when-equation gives at the same event"
    Real x(start = 0, fixed = true) "Clock (s)";
    discrete Real a(start = 0, fixed = true) "Count of the crossings";
    discrete Real b(start = 0, fixed = true) "a as the first when-equation takes it";
    discrete Real tb(start = 0, fixed = true) "When b took a (s)";
  equation
    der(x) = 1;
    when x > 0.3 then
      b = a;
      tb = time;
    end when;
    when x > 0.3 then
      a = pre(a) + 1;
    end when;
  end TwoWhens;

  model TwoWhensReversed "TwoWhens with its when-equations in the other order"
    Real x(start = 0, fixed = true) "Clock (s)";
    discrete Real a(start = 0, fixed = true) "Count of the crossings";
    discrete Real b(start = 0, fixed = true) "a as the second when-equation takes it";
    discrete Real tb(start = 0, fixed = true) "When b took a (s)";
  equation
    der(x) = 1;
    when x > 0.3 then
      a = pre(a) + 1;
    end when;
    when x > 0.3 then
      b = a;
      tb = time;
    end when;
  end TwoWhensReversed;

  model Chain "c = b and b = a at each crossing, written before the counter they read"
    Real x(start = 0, fixed = true) "Clock (s)";
    Integer a(start = 0, fixed = true) "Crossings so far";
    Integer b(start = 0, fixed = true) "a, one when-equation on";
    Integer c(start = 0, fixed = true) "b, one when-equation on";
    discrete Real tc(start = 0, fixed = true) "When c last took b (s)";
    Integer before(start = 0, fixed = true) "pre(a) at the crossing";
    Boolean odd(start = false, fixed = true) "Whether a is odd";
  equation
    der(x) = 1;
    when cos(2*pi*x) < 0 then
      c = b;
      tc = time;
    end when;
    when cos(2*pi*x) < 0 then
      odd = mod(a, 2) == 1;
      before = pre(a);
    end when;
    when cos(2*pi*x) < 0 then
      b = a;
    end when;
    when cos(2*pi*x) < 0 then
      a = pre(a) + 1;
    end when;
  end Chain;

  model FromAlgorithm "A when-equation reading what a when-statement assigns at its event"
    Real x(start = 0, fixed = true) "Clock (s)";
    discrete Real a(start = 0, fixed = true) "Set by the when-statement";
    discrete Real b(start = 0, fixed = true) "a as the when-equation takes it";
  equation
    der(x) = 1;
    when x > 0.3 then
      b = 2*a;
    end when;
  algorithm
    when x > 0.3 then
      a := pre(a) + 5;
    end when;
  end FromAlgorithm;
  connector BooleanInput = input Boolean "A Boolean signal into a block";
  connector BooleanOutput = output Boolean "A Boolean signal out of a block";

  block Pre "y is u before the event (a breaker of Boolean loops)"
    parameter Boolean pre_u_start = false "pre(u) at the start";
    BooleanInput u "Signal";
    BooleanOutput y "u before the event";
  initial equation
    pre(u) = pre_u_start;
  equation
    y = pre(u);
  end Pre;

  block Or "y = u1 or u2"
    BooleanInput u1 "First signal";
    BooleanInput u2 "Second signal";
    BooleanOutput y "Either";
  equation
    y = u1 or u2;
  end Or;

  block AndNot "y = u1 and not u2"
    BooleanInput u1 "Kept";
    BooleanInput u2 "Clears";
    BooleanOutput y "u1 unless u2";
  equation
    y = u1 and not u2;
  end AndNot;

  model Latch "A set-reset latch of blocks: Pre closes the loop Or -> Pre -> AndNot -> Or"
    Or set "Set, or held";
    Pre memory "The latch's state before the event";
    AndNot hold "Held unless reset";
    Boolean on "The latch's output";
  equation
    set.u1 = time > 0.3 and time < 0.5;
    hold.u2 = time > 1.2;
    connect(set.y, memory.u);
    connect(memory.y, hold.u1);
    connect(hold.y, set.u2);
    on = set.y;
  end Latch;

  block Counter "Counts the rising edges of its input"
    BooleanInput trigger "Counted";
    discrete Real n(start = 0, fixed = true) "Rising edges so far";
  equation
    when trigger and not pre(trigger) then
      n = pre(n) + 1;
    end when;
  end Counter;

  model EdgeOfBound "pre of a block's input bound to a variable a when-equation assigns"
    discrete Boolean pulse(start = false, fixed = true) "true from 0.4 s to 0.9 s, from 1.3 s";
    Counter counter(trigger = pulse) "Counts pulse's rising edges";
  equation
    when {time > 0.4, time > 1.3} then
      pulse = true;
    elsewhen time > 0.9 then
      pulse = false;
    end when;
  end EdgeOfBound;

  model Hysteresis "pre(y) of a Boolean given by relations, beside the same with when-equations"
    Real u = sin(pi*time) "Signal";
    Boolean y "true above 0.5 until below -0.5";
    Boolean switched(start = false, fixed = true) "y by when-equations";
  initial equation
    pre(y) = false;
  equation
    y = u > 0.5 or pre(y) and u >= -0.5;
    when u > 0.5 then
      switched = true;
    elsewhen u < -0.5 then
      switched = false;
    end when;
  end Hysteresis;
  model HysteresisOn "Hysteresis starting on: pre(y) given by a parameter at the start"
    parameter Boolean pre_y_start = true "pre(y) at the start";
    Real u = sin(pi*time) "Signal";
    Boolean y "true above 0.5 until below -0.5";
  initial equation
    pre(y) = pre_y_start;
  equation
    y = u > 0.5 or pre(y) and u >= -0.5;
  end HysteresisOn;
end OrderLib;
