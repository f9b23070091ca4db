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
end OrderLib;
