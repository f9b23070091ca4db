within Modelica;
package Math "Mathematical functions"
  function sin "Sine"
    input Modelica.Units.SI.Angle u "Independent variable";
    output Real y "Dependent variable y=sin(u)";
  external "builtin" y = sin(u);
  end sin;
  function asin "Inverse sine"
    input Real u "argument";
    output Real y "angle";
  algorithm
    y := Modelica.Math.atan2(u, sqrt(1 - u*u));
  end asin;
  function atan2 "Four quadrant inverse tangent"
    input Real u1 "u1 = r*sin(y)";
    input Real u2 "u2 = r*cos(y)";
    output Modelica.Units.SI.Angle y "= atan2(u1, u2)";
  external "builtin" y = atan2(u1, u2);
  end atan2;
end Math;
