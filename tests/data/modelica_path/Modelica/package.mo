within ;
package Modelica "Small stand-in for the Modelica Standard Library, written for murcosim's tests in the MSL's style (not MSL source)"
  extends Modelica.Icons.Package;
  annotation (version = "4.0.0-test");
end Modelica;
