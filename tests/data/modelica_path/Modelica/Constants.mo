within Modelica;
package Constants "Mathematical and physical constants"
  import Modelica.Units.SI;
  final constant Real pi = 2*Modelica.Math.asin(1.0) "pi";
  final constant SI.Acceleration g_n = 9.80665 "Standard acceleration of gravity on earth";
  final constant Real eps = 1e-15 "Smallest number such that 1 + eps > 1";
end Constants;
