within MurCoSim;
package Connectors "Docking connectors: passive bodies with mating frames and capture envelopes"

  model ConnectorBracket "Aluminium bracket joining two BlueROVs (Nielsen 2018, Table 6.1), two docking ports"
    extends MurCoSim.Vehicles.Vehicle(redeclare record Data = MurCoSim.Data.ConnectorBracket,
      hull_height = 0.1);
    annotation (Documentation(info = "<html>
<p>A passive rigid body (no thrusters) with the hydrodynamics of Nielsen's (2018) Table 6.1 and a
docking interface at each end. The docking interface is given by parameters only, since
latching is a topology change made by the orchestrator between steps, not a force law:</p>
<ul>
<li>mating frames: <code>data.port_position[k,:]</code> (point, body frame) and
<code>data.port_normal[k,:]</code> (outward normal, the frame's x axis);</li>
<li>capture envelope: <code>capture_distance</code> (m), <code>capture_speed</code> (largest
closing speed, m/s) and <code>capture_angle</code> (largest misalignment of the normals,
rad), inherited from Vehicle so that vehicles with ports dock the same way.</li>
</ul>
<p>On capture the two bodies are welded at their relative pose of that instant after a
momentum-conserving plastic impact.</p>
<p><code>hull_height</code> = 0.1 m: the height of the plate taken for its mass and volume in
<a href=\"modelica://MurCoSim.Data.ConnectorBracket\">Data.ConnectorBracket</a>, so that the
bracket loses buoyancy above the free surface.</p>
</html>"));
  end ConnectorBracket;

end Connectors;
