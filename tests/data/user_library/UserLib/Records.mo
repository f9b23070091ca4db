within UserLib;
package Records "Parameter records: extends with modifiers, redeclare, constructors"
  record PropellerData "Thrust and torque coefficients"
    parameter Real K_L(unit = "N.s2") = 0.01 "Thrust coefficient";
    parameter Real K_Q(unit = "N.m.s2") = 1e-4 "Torque coefficient";
  end PropellerData;
  record T200 "A commercial thruster"
    extends PropellerData(K_L = 0.03, K_Q = 3e-4);
  end T200;
  record T200Worn "The same thruster, worn"
    extends T200(K_L = 0.025, K_Q = 2e-4);
  end T200Worn;
  record HullData "Hull mass and volume"
    parameter SI.Mass m = 1 "Mass";
    parameter SI.Volume V = 0.001 "Displaced volume";
  end HullData;

  partial model PartialThruster "Thrust and torque of a propeller at a commanded speed"
    replaceable parameter T200 data "Propeller coefficients";
    Modelica.Blocks.Interfaces.RealInput n(unit = "1/s") "Propeller speed";
    output SI.Force thrust "Thrust";
    output SI.Torque torque "Shaft torque";
  equation
    thrust = data.K_L*n*abs(n);
    torque = data.K_Q*n*abs(n);
  end PartialThruster;

  model NewThruster "A thruster with the record as declared"
    extends PartialThruster;
  end NewThruster;

  model WornThruster "A thruster with a redeclared record that extends the declared one"
    extends PartialThruster(redeclare T200Worn data);
  end WornThruster;

  model Hull "A record bound by its constructor"
    parameter HullData hull = HullData(m = 3, V = 0.002) "Hull";
    parameter SI.Density rho = 1000 "Water density";
    output SI.Force net = (rho*hull.V - hull.m)*g "Net buoyancy";
  end Hull;

  model TwoThrusters "Component redeclares of one replaceable record"
    NewThruster fresh;
    NewThruster worn(redeclare T200Worn data);
    Modelica.Blocks.Interfaces.RealInput n(unit = "1/s") "Propeller speed of both";
    output SI.Force difference = fresh.thrust - worn.thrust "Thrust lost to wear";
  equation
    connect(n, fresh.n);
    connect(n, worn.n);
  end TwoThrusters;
end Records;
