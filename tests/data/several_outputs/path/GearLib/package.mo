package GearLib "Gears whose losses a table gives over the input speed"
  package Icons "Icons"
    partial function Function "Icon of a function"
      annotation (Icon(graphics={Ellipse(extent={{-100, -100}, {100, 100}})}));
    end Function;
  end Icons;

  package Functions "Tables"
    function interpolate "Linear interpolation in a table, and the interval it lies in"
      extends GearLib.Icons.Function;
      input Real x[:] "Abscissas, strictly increasing";
      input Real y[size(x, 1)] "Ordinates at the abscissas";
      input Real xi "Abscissa to interpolate at, inside the table";
      input Integer iLast = 1 "Interval of an earlier call (not used: the search is whole)";
      output Real yi "Ordinate at xi";
      output Integer iNew = 1 "Interval of xi: x[iNew] <= xi < x[iNew + 1]";
    algorithm
      for i in 2:size(x, 1) - 1 loop
        if xi >= x[i] then
          iNew := i;
        end if;
      end for;
      yi := y[iNew] + (y[iNew + 1] - y[iNew])*(xi - x[iNew])/(x[iNew + 1] - x[iNew]);
    end interpolate;
  end Functions;

  package Interfaces "Connectors"
    connector Flange "Rotational flange"
      Real phi(unit = "rad") "Absolute rotation angle";
      flow Real tau(unit = "N.m") "Torque into the component";
    end Flange;
  end Interfaces;

  package Components "Rotational components"
    model Inertia "Rotating mass"
      parameter Real J(unit = "kg.m2") = 1 "Moment of inertia";
      Interfaces.Flange flange_a "Driving side";
      Interfaces.Flange flange_b "Driven side";
      Real phi(unit = "rad", start = 0, fixed = true) "Rotation angle";
      Real w(unit = "rad/s", start = 0, fixed = true) "Speed";
    equation
      phi = flange_a.phi;
      phi = flange_b.phi;
      w = der(phi);
      J*der(w) = flange_a.tau + flange_b.tau;
    end Inertia;

    model ConstantTorque "Constant torque driving a flange"
      parameter Real tau_constant(unit = "N.m") = 1 "Torque";
      Interfaces.Flange flange "Driven flange";
    equation
      flange.tau = -tau_constant;
    end ConstantTorque;

    model LossyGear "Gear whose efficiency and bearing friction a table gives over the speed"
      parameter Real ratio = 2 "Transmission ratio (flange_a.phi/flange_b.phi)";
      parameter Real lossTable[:, 3] = [0, 0.9, 0.2; 20, 0.7, 0.2]
        "Input speed (rad/s), efficiency and bearing friction torque (N.m), speeds increasing";
      Interfaces.Flange flange_a "Input side";
      Interfaces.Flange flange_b "Output side";
      Real w_a(unit = "rad/s") "Input speed";
      Real eta "Efficiency at the input speed";
      Real tauLoss(unit = "N.m") "Torque lost, at the input side";
    protected
      parameter Real eta0 = Functions.interpolate(lossTable[:, 1], lossTable[:, 2], 0, 1)
        "Efficiency at rest";
      parameter Real tau_bf0(unit = "N.m") =
        abs(Functions.interpolate(lossTable[:, 1], lossTable[:, 3], 0))
        "Bearing friction at rest";
      parameter Real tau_bf_a(unit = "N.m") =
        if eta0 > 1 - 1e-12 then tau_bf0/2 else tau_bf0/(2*eta0)
        "Bearing friction torque at the input side";
    equation
      flange_a.phi = ratio*flange_b.phi;
      w_a = der(flange_a.phi);
      eta = Functions.interpolate(lossTable[:, 1], lossTable[:, 2], noEvent(abs(w_a)));
      tauLoss = (1 - eta)*flange_a.tau + tau_bf_a;
      0 = flange_b.tau + ratio*(flange_a.tau - tauLoss);
    end LossyGear;
  end Components;
end GearLib;
