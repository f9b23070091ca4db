package ReturnLib "Functions that end with return statements, in the style of the MSL"
  function clippedSquare "The square of u, held at limit^2 where |u| exceeds limit"
    input Real u "Argument";
    input Real limit(min = 0) "Magnitude of u above which the value is held";
    output Real y "u^2, or limit^2";
  algorithm
    if abs(u) > limit then
      y := limit^2;
      return;
    end if;
    y := u^2;
  end clippedSquare;

  function weightedSum "Sum of the weights times u; 0 for no weights"
    input Real w[:] "Weights";
    input Real u "Argument";
    output Real y "Sum of w times u";
  algorithm
    if size(w, 1) == 0 then
      y := 0;
      return;
    end if;
    y := sum(w)*u;
  end weightedSum;

  function limitedCurrent "Current through Rout, limited to the sink and source currents"
    input Real v_source(unit = "V") "Source voltage";
    input Real v_out(unit = "V") "Output voltage";
    input Real Rout(unit = "Ohm") "Output resistance";
    input Real Imax(unit = "A") "Largest current";
    output Real i(unit = "A") "Output current";
  algorithm
    if v_out > v_source + Rout*Imax then
      i := Imax;
    elseif v_out < v_source - Rout*Imax then
      i := -Imax;
    else
      i := (v_out - v_source)/Rout;
    end if;
    return;
  end limitedCurrent;

  model ClippedIntegrator "Integrates the clipped square of time - 1 and a limited current"
    parameter Real limit = 0.5 "Clip level of |time - 1|";
    parameter Real w[2] = {1, 2} "Weights";
    parameter Real noWeights[0] "No weights";
    Real x(start = 0, fixed = true) "Integral of the clipped square";
    Real i(unit = "A") "Limited current at v_out = 3 (time - 1)";
    Real s "Weighted sum of the time";
    Real none "Sum over no weights";
  equation
    der(x) = clippedSquare(time - 1, limit);
    i = limitedCurrent(0, 3*(time - 1), 2, 1);
    s = weightedSum(w, time);
    none = weightedSum(noWeights, time);
    annotation(experiment(StopTime = 2));
  end ClippedIntegrator;
end ReturnLib;
