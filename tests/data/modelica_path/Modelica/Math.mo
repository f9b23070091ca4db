within Modelica;
package Math "Mathematical functions"
  function asin "Inverse sine"
    input Real u "argument";
    output Real y "angle";
  algorithm
    y := Modelica.Math.atan2(u, sqrt(1 - u*u));
  end asin;
  function atan2 "Four quadrant inverse tangent"
    input Real u1 "numerator";
    input Real u2 "denominator";
    output Real y "angle";
  algorithm
    y := atan2(u1, u2);
  end atan2;
end Math;
