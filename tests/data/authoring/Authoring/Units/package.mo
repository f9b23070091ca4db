within Authoring;
package Units "Types in the style of Modelica.Units, declared here"
  package SI "SI types with units and display units"
    type Time = Real(final quantity = "Time", final unit = "s");
    type Length = Real(final quantity = "Length", final unit = "m");
    type Position = Length;
    type Velocity = Real(final quantity = "Velocity", final unit = "m/s");
    type Acceleration = Real(final quantity = "Acceleration", final unit = "m/s2");
    type Mass = Real(final quantity = "Mass", final unit = "kg", min = 0);
    type Force = Real(final quantity = "Force", final unit = "N");
    type TranslationalSpringConstant = Real(final quantity = "TranslationalSpringConstant", final unit = "N/m");
    type TranslationalDampingConstant = Real(final quantity = "TranslationalDampingConstant", final unit = "N.s/m");
    type Angle = Real(final quantity = "Angle", final unit = "rad", displayUnit = "deg");
    type AngularVelocity = Real(final quantity = "AngularVelocity", final unit = "rad/s", displayUnit = "rev/min");
    type Temperature = Real(final quantity = "ThermodynamicTemperature", final unit = "K", min = 0, displayUnit = "degC");
  end SI;
end Units;
