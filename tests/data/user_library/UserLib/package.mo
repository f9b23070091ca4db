within ;
package UserLib "A user's component library written the way MSL authors write it (murcosim's front-end tests)"
  import Modelica.Units.SI;
  import Modelica.Constants.pi;
  constant SI.Acceleration g = Modelica.Constants.g_n "Gravity used by the library's models";
end UserLib;
