within Modelica;
package Mechanics "Mechanical components"
  package Translational "1-dimensional translational mechanics"
    package Interfaces "Connectors and partial models"
      connector Flange_a "Left flange of a translational component"
        Modelica.Units.SI.Position s "Absolute position of flange";
        flow Modelica.Units.SI.Force f "Cut force directed into flange";
      end Flange_a;
      connector Flange_b "Right flange of a translational component"
        Modelica.Units.SI.Position s "Absolute position of flange";
        flow Modelica.Units.SI.Force f "Cut force directed into flange";
      end Flange_b;
      partial model PartialTwoFlanges "Component with two translational flanges"
        Flange_a flange_a "Left flange";
        Flange_b flange_b "Right flange";
      end PartialTwoFlanges;
      partial model PartialCompliant "Compliant connection of two flanges"
        extends PartialTwoFlanges;
        Modelica.Units.SI.Distance s_rel(start = 0) "Relative distance";
        Modelica.Units.SI.Force f "Force between flanges";
      equation
        s_rel = flange_b.s - flange_a.s;
        flange_b.f = f;
        flange_a.f = -f;
      end PartialCompliant;
      partial model PartialCompliantWithRelativeStates "Compliant connection with relative states"
        extends PartialTwoFlanges;
        parameter StateSelect stateSelect = StateSelect.prefer "Priority to use s_rel and v_rel as states";
        Modelica.Units.SI.Distance s_rel(start = 0, stateSelect = stateSelect) "Relative distance";
        Modelica.Units.SI.Velocity v_rel(start = 0, stateSelect = stateSelect) "Relative velocity";
        Modelica.Units.SI.Force f "Force between flanges";
      equation
        s_rel = flange_b.s - flange_a.s;
        v_rel = der(s_rel);
        flange_b.f = f;
        flange_a.f = -f;
      end PartialCompliantWithRelativeStates;
    end Interfaces;
    package Components "Translational components"
      model Fixed "Fixed flange"
        parameter Modelica.Units.SI.Position s0 = 0 "Fixed offset position of housing";
        Interfaces.Flange_b flange "Flange fixed in housing";
      equation
        flange.s = s0;
      end Fixed;
      model Mass "Sliding mass with inertia"
        parameter Modelica.Units.SI.Mass m(min = 0, start = 1) "Mass of the sliding mass";
        parameter StateSelect stateSelect = StateSelect.default "Priority to use s and v as states";
        extends Interfaces.PartialTwoFlanges;
        Modelica.Units.SI.Position s(stateSelect = stateSelect) "Absolute position of center of mass";
        Modelica.Units.SI.Velocity v(start = 0, stateSelect = stateSelect) "Absolute velocity of component";
        Modelica.Units.SI.Acceleration a(start = 0) "Absolute acceleration of component";
      equation
        flange_a.s = s;
        flange_b.s = s;
        v = der(s);
        a = der(v);
        m*a = flange_a.f + flange_b.f;
      end Mass;
      model Spring "Linear 1D translational spring"
        extends Interfaces.PartialCompliant;
        parameter Modelica.Units.SI.TranslationalSpringConstant c(final min = 0, start = 1) "Spring constant";
        parameter Modelica.Units.SI.Distance s_rel0 = 0 "Unstretched spring length";
      equation
        f = c*(s_rel - s_rel0);
      end Spring;
      model SpringDamper "Linear 1D translational spring and damper in parallel"
        extends Interfaces.PartialCompliantWithRelativeStates;
        parameter Modelica.Units.SI.TranslationalSpringConstant c(final min = 0, start = 1) "Spring constant";
        parameter Modelica.Units.SI.TranslationalDampingConstant d(final min = 0, start = 1) "Damping constant";
        parameter Modelica.Units.SI.Position s_rel0 = 0 "Unstretched spring length";
      equation
        f = c*(s_rel - s_rel0) + d*v_rel;
      end SpringDamper;
    end Components;
    package Sources "Sources to drive 1D translational mechanical components"
      model Force "External force acting on a drive train element as input signal"
        Modelica.Blocks.Interfaces.RealInput f(unit = "N") "Driving force as input signal";
        Interfaces.Flange_b flange "Flange on which the force acts";
      equation
        flange.f = -f;
      end Force;
    end Sources;
  end Translational;
  package Rotational "1-dimensional rotational mechanics"
    package Interfaces "Connectors and partial models"
      connector Flange_a "One-dimensional rotational flange (left)"
        Modelica.Units.SI.Angle phi "Absolute rotation angle of flange";
        flow Modelica.Units.SI.Torque tau "Cut torque in the flange";
      end Flange_a;
      connector Flange_b "One-dimensional rotational flange (right)"
        Modelica.Units.SI.Angle phi "Absolute rotation angle of flange";
        flow Modelica.Units.SI.Torque tau "Cut torque in the flange";
      end Flange_b;
    end Interfaces;
    package Components "Rotational components"
      model Inertia "1D-rotational component with inertia"
        Interfaces.Flange_a flange_a "Left flange of shaft";
        Interfaces.Flange_b flange_b "Right flange of shaft";
        parameter Modelica.Units.SI.Inertia J(min = 0, start = 1) "Moment of inertia";
        parameter StateSelect stateSelect = StateSelect.default "Priority to use phi and w as states";
        Modelica.Units.SI.Angle phi(stateSelect = stateSelect) "Absolute rotation angle of component";
        Modelica.Units.SI.AngularVelocity w(stateSelect = stateSelect) "Absolute angular velocity of component";
        Modelica.Units.SI.AngularAcceleration a "Absolute angular acceleration of component";
      equation
        phi = flange_a.phi;
        phi = flange_b.phi;
        w = der(phi);
        a = der(w);
        J*a = flange_a.tau + flange_b.tau;
      end Inertia;
      model IdealGear "Ideal gear without inertia"
        parameter Real ratio(start = 1) "Transmission ratio (flange_a.phi/flange_b.phi)";
        Interfaces.Flange_a flange_a "Flange of left shaft";
        Interfaces.Flange_b flange_b "Flange of right shaft";
      equation
        flange_a.phi = ratio*flange_b.phi;
        0 = ratio*flange_a.tau + flange_b.tau;
      end IdealGear;
      model Fixed "Flange fixed in housing at a given angle"
        parameter Modelica.Units.SI.Angle phi0 = 0 "Fixed offset angle of housing";
        Interfaces.Flange_b flange "Flange fixed in housing";
      equation
        flange.phi = phi0;
      end Fixed;
    end Components;
  end Rotational;
end Mechanics;
