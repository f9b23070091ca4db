within Modelica;
package Electrical "Electrical components"
  package Analog "Analog electrical components"
    package Interfaces "Connectors and partial models"
      connector Pin "Pin of an electrical component"
        Modelica.Units.SI.ElectricPotential v "Potential at the pin";
        flow Modelica.Units.SI.Current i "Current flowing into the pin";
      end Pin;
      connector PositivePin "Positive pin of an electrical component"
        extends Pin;
      end PositivePin;
      connector NegativePin "Negative pin of an electrical component"
        extends Pin;
      end NegativePin;
      partial model OnePort "Component with two electrical pins p and n and current i from p to n"
        Modelica.Units.SI.Voltage v "Voltage drop of the two pins (= p.v - n.v)";
        Modelica.Units.SI.Current i "Current flowing from pin p to pin n";
        PositivePin p "Positive electrical pin";
        NegativePin n "Negative electrical pin";
      equation
        v = p.v - n.v;
        0 = p.i + n.i;
        i = p.i;
      end OnePort;
    end Interfaces;
    package Basic "Basic electrical components"
      model Ground "Ground node"
        Interfaces.Pin p "Ground pin";
      equation
        p.v = 0;
      end Ground;
      model Resistor "Ideal linear electrical resistor"
        parameter Modelica.Units.SI.Resistance R(start = 1) "Resistance";
        extends Interfaces.OnePort;
      equation
        v = R*i;
      end Resistor;
      model Capacitor "Ideal linear electrical capacitor"
        extends Interfaces.OnePort(v(start = 0));
        parameter Modelica.Units.SI.Capacitance C(start = 1) "Capacitance";
      equation
        i = C*der(v);
      end Capacitor;
      model Inductor "Ideal linear electrical inductor"
        extends Interfaces.OnePort(i(start = 0));
        parameter Modelica.Units.SI.Inductance L(start = 1) "Inductance";
      equation
        L*der(i) = v;
      end Inductor;
      model EMF "Electromotoric force (electric/mechanic transformer)"
        parameter Modelica.Units.SI.ElectricalTorqueConstant k(start = 1) "Transformation coefficient";
        Modelica.Units.SI.Voltage v "Voltage drop between the two pins";
        Modelica.Units.SI.Current i "Current flowing from positive to negative pin";
        Modelica.Units.SI.Angle phi "Angle of shaft flange with respect to support";
        Modelica.Units.SI.AngularVelocity w "Angular velocity of flange relative to support";
        Interfaces.PositivePin p "Positive pin";
        Interfaces.NegativePin n "Negative pin";
        Modelica.Mechanics.Rotational.Interfaces.Flange_b flange "Shaft";
      equation
        v = p.v - n.v;
        0 = p.i + n.i;
        i = p.i;
        phi = flange.phi;
        w = der(phi);
        k*w = v;
        flange.tau = -k*i;
      end EMF;
    end Basic;
    package Sources "Voltage and current sources"
      model ConstantVoltage "Source for constant voltage"
        parameter Modelica.Units.SI.Voltage V(start = 1) "Value of constant voltage";
        extends Interfaces.OnePort;
      equation
        v = V;
      end ConstantVoltage;
    end Sources;
  end Analog;
end Electrical;
