within MurCoSim;
package Vehicles "Rigid bodies in water: vehicles, modules and passive brackets"

  model GenericVehicle "Generic 20 kg vehicle of Nielsen's (2018) verification cases (Table 3.3)"
    extends MurCoSim.Vehicles.Vehicle(redeclare record Data = MurCoSim.Data.GenericVehicle);
  end GenericVehicle;

  model BlueROV "BlueROV with Nielsen's (2018) towing-tank hydrodynamics (Table 5.2)"
    extends MurCoSim.Vehicles.Vehicle(redeclare record Data = MurCoSim.Data.BlueROV);
  end BlueROV;

  model BlueROV2Heavy "BlueROV2 Heavy with eight thruster mounts (Leon-Gonzalez et al. 2024, Sec. 6.1)"
    extends MurCoSim.Vehicles.Vehicle(redeclare record Data = MurCoSim.Data.BlueROV2Heavy);
  end BlueROV2Heavy;

  model RexROV "RexROV work-class ROV with a full 6x6 added-mass matrix (Manhaes et al. 2016, Berg 2012)"
    extends MurCoSim.Vehicles.Vehicle(redeclare record Data = MurCoSim.Data.RexROV);
  end RexROV;

  model SphereModule "Spherical module with one thruster mount (Nielsen 2018, Table 4.1)"
    extends MurCoSim.Vehicles.Vehicle(redeclare record Data = MurCoSim.Data.SphereModule);
  end SphereModule;

  model SphereModuleHull "Spherical module without thruster (Nielsen 2018, Table 4.2)"
    extends MurCoSim.Vehicles.Vehicle(redeclare record Data = MurCoSim.Data.SphereModuleHull);
  end SphereModuleHull;

  annotation (Documentation(info = "<html>
<p>Each model is the generic <a href=\"modelica://MurCoSim.Vehicles.Vehicle\">Vehicle</a>
with one parameter set of <a href=\"modelica://MurCoSim.Data\">Data</a>; every parameter stays
settable in the exported FMU.</p>
</html>"));
end Vehicles;
