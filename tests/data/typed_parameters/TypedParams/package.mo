package TypedParams "Integer, Boolean and enumeration parameters: structural ones and those that only enter equations"
  type Law = enumeration(
      Linear "Rate k",
      Quadratic "Rate k^2") "How the rate constant enters the decay";

  connector RateInput = input Real "Decay rate (1/s)";

  model Modes "Integer, Boolean and enumeration parameters that only enter equations"
    parameter Integer mode = 1 "Which level y takes: a for mode 2, b otherwise";
    parameter Boolean useGain = true "Whether z is the gained value";
    parameter TypedParams.Law law = TypedParams.Law.Linear "How k enters the rate";
    parameter Integer nPoles = 2 "Number of equal poles, a factor of the rate";
    parameter Integer n0 = 2 "Count at the start";
    parameter Real k = 0.5 "Rate constant (1/s)";
    parameter Real a = 3 "Level of mode 2";
    parameter Real b = 5 "Level of the other modes";
    Real x(start = 1, fixed = true) "Decaying value";
    Real c(start = n0, fixed = true) "Count growing by one a second";
    output Real y "Level chosen by mode";
    output Real z "x, doubled where useGain";
    output Real count "Count";
  equation
    der(x) = -nPoles*(if law == TypedParams.Law.Linear then k else k*k)*x;
    der(c) = 1;
    y = if mode == 2 then a else b;
    z = (if useGain then 2 else 1)*x;
    count = c;
  end Modes;

  model Decays "n values decaying at rates i*r"
    parameter Integer n = 3 "Number of values";
    parameter Real r = 1 "Rate of the first (1/s)";
    Real x[n](each start = 1, each fixed = true) "Decaying values";
    output Real total "Sum of the values";
  equation
    for i in 1:n loop
      der(x[i]) = -i*r*x[i];
    end for;
    total = sum(x);
  end Decays;

  model Structural "Integer and Boolean parameters that decide the structure, also used as numbers"
    parameter Integer n = 3 "Number of values, also a factor of y";
    parameter Integer order = 2 "Factor of y" annotation(Evaluate = true);
    final parameter Integer count = 4 "Factor of y";
    parameter Boolean use_rate = false "Whether the input rate drives w";
    parameter Integer m = 2 "Number of values of the inner decay, also a factor of y";
    parameter Boolean frozen = false "Whether v is held at 2 instead of decaying";
    parameter Boolean on0 = true "Start of the switch, a discrete variable";
    RateInput rate if use_rate "Decay rate of w (1/s)";
    Decays decays(n = m) "Values sized by m";
    Real x[n](each start = 1, each fixed = true) "Decaying values";
    Real w(start = 1, fixed = true) "Value decaying at the rate";
    Real v(start = 1) "Value held or decaying";
    output Real y "Weighted sum";
    output Real level "use_rate as a number";
    output Boolean on(start = on0, fixed = true) "Switched off at 0.55 s";
  protected
    RateInput rate_internal "The rate in use (1/s)";
  equation
    connect(rate, rate_internal);
    if not use_rate then
      rate_internal = 1;
    end if;
    der(w) = -rate_internal*w;
    for i in 1:n loop
      der(x[i]) = -x[i];
    end for;
    if frozen then
      v = 2;
    else
      der(v) = -v;
    end if;
    y = n*order*count*m*(sum(x) + decays.total);
    level = if use_rate then 1 else 0;
    when time > 0.55 then
      on = not pre(on);
    end when;
  end Structural;
end TypedParams;
