within MurCoSim;
package Vehicles "Rigid bodies in water: vehicles, modules and passive brackets"

  model GenericVehicle "Generic 20 kg vehicle of Nielsen's (2018) verification cases (Table 3.3)"
    extends MurCoSim.Vehicles.Vehicle(redeclare record Data = MurCoSim.Data.GenericVehicle,
      hull_height = 0.337);
  end GenericVehicle;

  model BlueROV "BlueROV with Nielsen's (2018) towing-tank hydrodynamics (Table 5.2)"
    extends MurCoSim.Vehicles.Vehicle(redeclare record Data = MurCoSim.Data.BlueROV,
      hull_height = 0.254);
  end BlueROV;

  model BlueROV2Heavy "BlueROV2 Heavy with eight thruster mounts (Leon-Gonzalez et al. 2024, Sec. 6.1)"
    extends MurCoSim.Vehicles.Vehicle(redeclare record Data = MurCoSim.Data.BlueROV2Heavy,
      hull_height = 0.254);
  end BlueROV2Heavy;

  model RexROV "RexROV work-class ROV with a full 6x6 added-mass matrix (Manhaes et al. 2016, Berg 2012)"
    extends MurCoSim.Vehicles.Vehicle(redeclare record Data = MurCoSim.Data.RexROV,
      hull_height = 1.6);
  end RexROV;

  model SphereModule "Spherical module with one thruster mount (Nielsen 2018, Table 4.1)"
    extends MurCoSim.Vehicles.Vehicle(redeclare record Data = MurCoSim.Data.SphereModule,
      hull_height = 0.301);
  end SphereModule;

  model SphereModuleHull "Spherical module without thruster (Nielsen 2018, Table 4.2)"
    extends MurCoSim.Vehicles.Vehicle(redeclare record Data = MurCoSim.Data.SphereModuleHull,
      hull_height = 0.301);
  end SphereModuleHull;

  annotation (Documentation(info = "<html>
<p>Each model is the generic <a href=\"modelica://MurCoSim.Vehicles.Vehicle\">Vehicle</a>
with one parameter set of <a href=\"modelica://MurCoSim.Data\">Data</a>; every parameter stays
settable in the exported FMU.</p>
<p>Each model sets <code>hull_height</code>, the vertical size of its hull, so that a vehicle
at or above the free surface loses buoyancy (and its thrusters their thrust) by default:</p>
<ul>
<li>BlueROV2 Heavy: 0.254 m, the height Blue Robotics publishes for the BlueROV2 and the
BlueROV2 Heavy (BlueROV2 technical details, 457 x 338 x 254 mm; Heavy configuration 457 x 575 x
254 mm).</li>
<li>BlueROV: 0.254 m, the BlueROV2's height (assumption, as for its mass in
<a href=\"modelica://MurCoSim.Data.BlueROV\">Data.BlueROV</a>).</li>
<li>RexROV: 1.6 m, the span of the UUV Simulator's collision geometry of the RexROV
(Manhaes et al. 2016, <code>rexrov_base.xacro</code>: bottom plate down to -0.8 m, top plate up
to +0.8 m).</li>
<li>SphereModule, SphereModuleHull: 0.301 m, the diameter of a sphere of the record's volume
(6 V/pi)^(1/3) with V = 0.0143 m3 (Nielsen (2018) gives the module's volume through its
neutral buoyancy, not its diameter; for a sphere the free-surface law is exact).</li>
<li>GenericVehicle: 0.337 m, the diameter of a sphere of its volume 0.02 m3 (assumption:
Nielsen (2018) gives no geometry for it).</li>
</ul>
<p>A scenario sets <code>hull_height = 0</code> to keep a body fully submerged wherever it is.</p>
</html>"));
end Vehicles;
