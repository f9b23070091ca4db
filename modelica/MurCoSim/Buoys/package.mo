within MurCoSim;
package Buoys "Joint-actuated buoy (Cortesi (2012)): floating cylinders with exact hydrostatics, joint servo"

  record CylinderData "Mass, geometry and drag of a floating cylinder body"
    extends MurCoSim.Data.VehicleData(volume = 0);
    parameter MurCoSim.Length radius = 0.0395 "Radius of the cylinder";
    parameter MurCoSim.Length length = 0.215 "Length of the cylinder along its axis";
    parameter Real C_Df_xy(unit = "N.s/m3") = 1
      "Lateral translational drag scaling: force = f_sub C_Df_xy L R v (Cortesi 2012, eq. 2.120)";
    parameter Real C_Df_z(unit = "N.s/m3") = 1
      "Axial translational drag scaling: force = f_sub C_Df_z R^2 v (Cortesi 2012, eqs. 2.84, 2.120)";
    parameter Real C_Dm_xy(unit = "N.s2") = 3
      "Roll and pitch drag scaling: moment = f_sub L R C_Dm_xy |w| w (Cortesi 2012, eq. 2.122)";
    parameter Real C_Dm_z(unit = "N.s2") = 0.1
      "Drag scaling about the axis: moment = f_sub L R C_Dm_z |r| r (Cortesi 2012, eq. 2.122)";
    parameter Real n_fins = 0 "Number of radial yaw fins (Cortesi 2012, eq. 2.123)";
    parameter MurCoSim.Length fin_length = 0 "Radial length of a fin beyond the cylinder wall";
    parameter MurCoSim.Length fin_width = 0 "Axial width of a fin";
    parameter Real fin_C_D = 1.2
      "Drag coefficient of a fin as a flat plate across the flow (assumption, see the package documentation)";
    parameter MurCoSim.Position pivot[3] = {0, 0, 0}
      "Joint pivot of a two-body buoy, body frame (read by the orchestrator to build the joint)";
    annotation (Documentation(info = "<html>
<p>Body frame of every cylinder: origin at the centre of the bottom face, z along the axis
pointing <i>down</i> (the project's convention, z down), so the cylinder occupies
0 &gt;= z &gt;= -length and an upright body has the identity attitude. Cortesi (2012) puts z up
along the axis; its vectors become ours by the half turn about x, (x, y, z) -&gt; (x, -y, -z),
and its inertia tensors change the sign of their xy and xz products.</p>
<p>The rigid-body part is the Vehicle model with <code>volume = 0</code> and no Fossen damping
or added mass (Cortesi (2012) models none, Sec. 6.5); buoyancy and drag come from the
cylinder's equations in <a href=\"modelica://MurCoSim.Buoys.CylinderBody\">CylinderBody</a>.
The drag scalings carry the fluid density (Cortesi (2012): they \"include the effects of density and
the coefficient of drag\"); their units follow from the force and moment laws above.</p>
<p>fin_C_D: Cortesi (2012) names a flat-plate drag coefficient in eq. 2.123 without a value. A
fin of the prototype is 0.203 m by 0.0391 m (aspect ratio 5.2); Hoerner's flat-plate data
give C_D of about 1.2 at that aspect ratio.</p>
</html>"));
  end CylinderData;

  record PrototypeHousingData "Housing of the prototype buoy (Cortesi 2012, Table 5.1), four yaw fins"
    extends CylinderData(
      m = 1.553,
      I_g = {{0.0109, 0, 0.0001}, {0, 0.0109, 0}, {0.0001, 0, 0.027}},
      r_g = {-0.0006, 0, -0.1002},
      radius = 0.0395,
      length = 0.215,
      C_Df_xy = 1,
      C_Df_z = 92.6,
      C_Dm_xy = 3,
      C_Dm_z = 0.1,
      n_fins = 4,
      fin_length = 0.203,
      fin_width = 0.0391,
      pivot = {0, 0, -0.309});
    annotation (Documentation(info = "<html>
<p>Cortesi 2012, Table 5.1 (from the CAD model): m = 1.553 kg, OD 0.079 m (radius 0.0395 m, as in
Sec. 5.11; Table E.1's 0.0397 m is not used), length 0.215 m, R_cm = [-0.0006, 0, 0.1002] m,
R_j = [0, 0, 0.309] m, J_cm with J_xz = -0.0001 kg.m2 (all turned into our z-down frame),
C_Df = 1, C_DmXY = 3, C_DmZ = 0.1, four fins 0.203 m long and 0.0391 m wide.</p>
<p>C_Df_z: Table 5.1 gives one C_Df = 1. Used for the axial term too it damps the heave of
the buoy with 0.0027 N.s/m, a settling time of hours; Cortesi's (2012) own heave model of the
prototype (Table E.1) has d1 = 0.25 kg/s, the 'just under 80 s' settling time of App. E.
C_Df_z = 92.6 N.s/m3 gives that damping with both bodies at their equilibrium submergence
(housing f_sub = 1, payload 0.73): 0.25/((1 + 0.73) 0.0395^2). The lateral term keeps
C_Df = 1.</p>
</html>"));
  end PrototypeHousingData;

  record PrototypePayloadData "Payload of the prototype buoy (Cortesi 2012, Table 5.1)"
    extends CylinderData(
      m = 0.993,
      I_g = {{0.0318, 0, 0}, {0, 0.0317, 0}, {0, 0, 0.010}},
      r_g = {0, 0.0004, -0.2032},
      radius = 0.0395,
      length = 0.418,
      C_Df_xy = 1,
      C_Df_z = 92.6,
      C_Dm_xy = 3,
      C_Dm_z = 0.1,
      n_fins = 0,
      pivot = {0, 0, 0.094});
    annotation (Documentation(info = "<html>
<p>Cortesi 2012, Table 5.1: m = 0.993 kg, OD 0.079 m, length 0.418 m,
R_cm = [0, -0.0004, 0.2032] m, R_j = [0, 0, -0.094] m (0.094 m below the bottom face),
J_cm = diag(0.0318, 0.0317, 0.010) kg.m2, C_Df = 1, C_DmXY = 3, C_DmZ = 0.1, no fins; turned
into our z-down frame. C_Df_z as for the housing (Table E.1's heave damping).</p>
</html>"));
  end PrototypePayloadData;

  record LargeTestCylinderData "Instrumented test cylinder of the USNA trials (Cortesi 2012, Sec. 3.2)"
    extends CylinderData(
      m = 18.0,
      I_g = {{1.284, 0, 0}, {0, 1.284, 0}, {0, 0, 0.059}},
      r_g = {0, 0, -0.30},
      radius = 0.081,
      length = 0.9144,
      C_Df_xy = 1,
      C_Df_z = 255,
      C_Dm_xy = 3,
      C_Dm_z = 0.1);
    annotation (Documentation(info = "<html>
<p>Cortesi 2012, Sec. 3.2.1 and Table 3.2: 6.375 in (radius 0.081 m) by 36 in (0.9144 m),
18.0 kg; heave settling time measured 90 s, damped period 1.86 s measured, 1.88 s
predicted.</p>
<p>C_Df_z: from the measured settling time with Cortesi's (2012) eq. 2.111 (d = 8 m/T_s =
1.6 N.s/m) at the equilibrium submergence f_sub = 0.955: 1.6/(0.955 0.081^2) = 255 N.s/m3.
Assumptions (Cortesi (2012) gives neither): centre of gravity on the axis 0.30 m above the
bottom, below the centre of buoyancy (0.437 m), as the upright floating of the trials
requires; inertia of a uniform solid cylinder. Lateral and rotational drag as the
prototype. The heave trials do not depend on these.</p>
</html>"));
  end LargeTestCylinderData;

  record SmallTestCylinderData "Uninstrumented PVC test cylinder (Cortesi 2012, Sec. 3.1)"
    extends CylinderData(
      m = 3.3,
      I_g = {{0.14444, 0, -0.00083}, {0, 0.14477, 0}, {-0.00083, 0, 0.00366}},
      r_g = {-0.0023, 0, -0.2042},
      radius = 0.044,
      length = 0.6096,
      C_Df_xy = 1,
      C_Df_z = 374,
      C_Dm_xy = 3,
      C_Dm_z = 0.1);
    annotation (Documentation(info = "<html>
<p>Cortesi 2012, Sec. 3.1.1 (CAD): 24 in long (0.6096 m), CM [-0.0023, 0, 0.2042] m,
J = [[0.14444, 0, 0.00083], [0, 0.14477, 0], [0.00083, 0, 0.00366]] kg.m2 (turned into our
z-down frame); Table 3.2: radius 0.044 m, 3.3 kg, heave settling time 41 s. C_Df_z from that
settling time as for the large cylinder: d = 8 m/T_s = 0.644 N.s/m at f_sub = 0.89 gives
374 N.s/m3. Other drag as the prototype (assumption).</p>
</html>"));
  end SmallTestCylinderData;

  record SonobuoyHousingJ10Data "Housing of the sonobuoy-sized J10 buoy (Cortesi 2012, App. B)"
    extends CylinderData(m = 4.5359, I_g = {{0.02873, 0, 0}, {0, 0.02873, 0}, {0, 0, 0.00869}},
      r_g = {0, 0, -0.1270}, radius = 0.061912, length = 0.2540, pivot = {0, 0, -0.29845});
    annotation (Documentation(info = "<html><p>See
<a href=\"modelica://MurCoSim.Buoys.SonobuoyPayloadJ10Data\">SonobuoyPayloadJ10Data</a>.</p>
</html>"));
  end SonobuoyHousingJ10Data;

  record SonobuoyPayloadJ10Data "Payload of the sonobuoy-sized J10 buoy (Cortesi 2012, App. B)"
    extends CylinderData(m = 3.8964, I_g = {{0.12829, 0, 0}, {0, 0.12829, 0}, {0, 0, 0.00747}},
      r_g = {0, 0, -0.2446}, radius = 0.061912, length = 0.5715, pivot = {0, 0, 0.04445});
    annotation (Documentation(info = "<html>
<p>The J series (Cortesi 2012, App. B, Tables B.1-B.3): a NATO size-A sonobuoy, 36 in long,
4.875 in in diameter (radius 0.061912 m), with a 3.5 in joint gap (no mass, no volume, pivot
at mid-gap) and 32.5 in of body: a heavy region of 12.00 lb over the bottom 12 in and a
light region of 6.59 lb over the other 20.5 in. J10, J15, J20 and J25 put the joint 10, 15,
20 and 25 in above the bottom; K_ff (Table 4.2) is 0.441, 1.255, 0.958 and 0.87.</p>
<p>Assumption (Cortesi (2012) gives no inertia): each region is a uniform solid cylinder. Masses,
centres of gravity and inertias follow from that; the system centres of gravity it gives,
13.38, 12.82, 12.52 and 12.21 in above the bottom and -0.12, -5.68, -10.98 and -16.29 in
from the payload's bottom face, reproduce Tables B.2 and B.3 (13.4, 12.8, 12.5, 12.2 and
-0.14, -5.7, -10.9, -16.3 in). Drag as the prototype's, no fins (assumptions).</p>
</html>"));
  end SonobuoyPayloadJ10Data;

  record SonobuoyHousingJ15Data "Housing of the sonobuoy-sized J15 buoy (Cortesi 2012, App. B)"
    extends CylinderData(m = 5.8805, I_g = {{0.06268, 0, 0}, {0, 0.06268, 0}, {0, 0, 0.01127}},
      r_g = {0, 0, -0.1666}, radius = 0.061912, length = 0.3810, pivot = {0, 0, -0.42545});
    annotation (Documentation(info = "<html><p>See
<a href=\"modelica://MurCoSim.Buoys.SonobuoyPayloadJ10Data\">SonobuoyPayloadJ10Data</a>.</p>
</html>"));
  end SonobuoyHousingJ15Data;

  record SonobuoyPayloadJ15Data "Payload of the sonobuoy-sized J15 buoy (Cortesi 2012, App. B)"
    extends CylinderData(m = 2.5517, I_g = {{0.04446, 0, 0}, {0, 0.04446, 0}, {0, 0, 0.00489}},
      r_g = {0, 0, -0.2222}, radius = 0.061912, length = 0.4445, pivot = {0, 0, 0.04445});
    annotation (Documentation(info = "<html><p>See
<a href=\"modelica://MurCoSim.Buoys.SonobuoyPayloadJ10Data\">SonobuoyPayloadJ10Data</a>.</p>
</html>"));
  end SonobuoyPayloadJ15Data;

  record SonobuoyHousingJ20Data "Housing of the sonobuoy-sized J20 buoy (Cortesi 2012, App. B)"
    extends CylinderData(m = 6.6096, I_g = {{0.11446, 0, 0}, {0, 0.11446, 0}, {0, 0, 0.01267}},
      r_g = {0, 0, -0.1972}, radius = 0.061912, length = 0.5080, pivot = {0, 0, -0.55245});
    annotation (Documentation(info = "<html><p>See
<a href=\"modelica://MurCoSim.Buoys.SonobuoyPayloadJ10Data\">SonobuoyPayloadJ10Data</a>.</p>
</html>"));
  end SonobuoyHousingJ20Data;

  record SonobuoyPayloadJ20Data "Payload of the sonobuoy-sized J20 buoy (Cortesi 2012, App. B)"
    extends CylinderData(m = 1.8227, I_g = {{0.01706, 0, 0}, {0, 0.01706, 0}, {0, 0, 0.00349}},
      r_g = {0, 0, -0.1587}, radius = 0.061912, length = 0.3175, pivot = {0, 0, 0.04445});
    annotation (Documentation(info = "<html><p>See
<a href=\"modelica://MurCoSim.Buoys.SonobuoyPayloadJ10Data\">SonobuoyPayloadJ10Data</a>.</p>
</html>"));
  end SonobuoyPayloadJ20Data;

  record SonobuoyHousingJ25Data "Housing of the sonobuoy-sized J25 buoy (Cortesi 2012, App. B)"
    extends CylinderData(m = 7.3387, I_g = {{0.20812, 0, 0}, {0, 0.20812, 0}, {0, 0, 0.01407}},
      r_g = {0, 0, -0.2344}, radius = 0.061912, length = 0.6350, pivot = {0, 0, -0.67945});
    annotation (Documentation(info = "<html><p>See
<a href=\"modelica://MurCoSim.Buoys.SonobuoyPayloadJ10Data\">SonobuoyPayloadJ10Data</a>.</p>
</html>"));
  end SonobuoyHousingJ25Data;

  record SonobuoyPayloadJ25Data "Payload of the sonobuoy-sized J25 buoy (Cortesi 2012, App. B)"
    extends CylinderData(m = 1.0936, I_g = {{0.00436, 0, 0}, {0, 0.00436, 0}, {0, 0, 0.00210}},
      r_g = {0, 0, -0.0952}, radius = 0.061912, length = 0.1905, pivot = {0, 0, 0.04445});
    annotation (Documentation(info = "<html><p>See
<a href=\"modelica://MurCoSim.Buoys.SonobuoyPayloadJ10Data\">SonobuoyPayloadJ10Data</a>.</p>
</html>"));
  end SonobuoyPayloadJ25Data;

  partial model CylinderBody
    "Floating rigid cylinder: exact hydrostatics under the local sea surface, drag relative to the water"
    extends MurCoSim.Vehicles.Vehicle(
      redeclare replaceable record Data = MurCoSim.Buoys.CylinderData
        constrainedby MurCoSim.Buoys.CylinderData,
      g = 9.8,
      f_env = f_hydro,
      r_sample = data.r_g,
      wave_kinematics = 0);
    parameter Real c_near_horizontal = 2e-5
      "Below this |cos(tilt)| the volume integrals use their near-horizontal series (error < 1e-7 of the full volume)";

    MurCoSim.Interfaces.RealOutput V_sub(unit = "m3") "Submerged volume";
    MurCoSim.Interfaces.RealOutput f_sub "Submerged fraction of the volume";
    MurCoSim.Interfaces.RealOutput r_cb[3](each unit = "m") "Centre of buoyancy, body frame (zero when dry)";

  protected
    Real f_hydro[6](unit = {"N", "N", "N", "N.m", "N.m", "N.m"})
      "Buoyancy and drag at CO, body frame";
    Real c_tilt "Cosine of the tilt: axis (bottom to top) against the vertical";
    Real s_tilt "Sine of the tilt";
    Real n_down[3] "Unit vector across the axis pointing down the slope, body frame";
    MurCoSim.Length h_cut[3]
      "Heights above the local surface of the bottom centre, top centre and middle of the axis";
    MurCoSim.Length x_cut[3]
      "Where each cut's face meets the surface, across the axis along n_down (clamped to +-radius)";
    MurCoSim.Length chord[3] "Half chord sqrt(radius^2 - x_cut^2)";
    MurCoSim.Area I0[3] "Area of the face beyond x_cut (circular segment)";
    Real I1[3](each unit = "m3") "First moment of that area about the face's diameter";
    MurCoSim.SecondMomentOfArea I2[3] "Second moment of that area about the face's diameter";
    Real Phi[3](each unit = "m3") "Integral of the depth below the surface over the wet part of a face";
    Real Psi[3](each unit = "m4") "The same, weighted by the distance across the axis";
    Real Phi2[3](each unit = "m4") "Integral of the squared depth over the wet part of a face";
    Real m_across(unit = "m4") "First moment of the submerged volume across the axis (along n_down)";
    Real m_along(unit = "m4") "First moment of the submerged volume along the axis (bottom to top)";
    MurCoSim.Velocity v_rel[3] "Velocity of the centre of gravity relative to the water, body frame";
    MurCoSim.Force F_b[3] "Buoyancy, body frame";
    MurCoSim.Force F_d[3] "Translational drag, body frame";
    MurCoSim.Torque M_d[3] "Rotational drag and fin moment, body frame";

  equation
    // Tilt of the axis e = -z_body against the vertical: cos = R33, across-axis part of "down".
    c_tilt = R[3, 3];
    s_tilt = sqrt(R[3, 1]^2 + R[3, 2]^2);
    n_down[1] = R[3, 1]/max(s_tilt, 1e-12);
    n_down[2] = R[3, 2]/max(s_tilt, 1e-12);
    n_down[3] = 0;

    // The surface is the horizontal plane at the elevation zeta. A point at distance s along
    // the axis and X across it (along n_down) is h(s, X) = h_bottom + s c - X s_tilt above it.
    // Exact volume integrals (see the documentation): closed forms over circular segments.
    h_cut[1] = -p[3] - zeta;
    h_cut[2] = h_cut[1] + data.length*c_tilt;
    h_cut[3] = h_cut[1] + 0.5*data.length*c_tilt;
    for k in 1:3 loop
      x_cut[k] = max(-data.radius, min(data.radius, h_cut[k]/max(s_tilt, 1e-12)));
      chord[k] = sqrt(max(0, data.radius^2 - x_cut[k]^2));
      I0[k] = data.radius^2*acos(x_cut[k]/data.radius) - x_cut[k]*chord[k];
      I1[k] = 2/3*chord[k]^3;
      I2[k] = data.radius^4/4*acos(x_cut[k]/data.radius) - x_cut[k]/4*(2*x_cut[k]^2 - data.radius^2)*chord[k];
      Phi[k] = s_tilt*I1[k] - h_cut[k]*I0[k];
      Psi[k] = s_tilt*I2[k] - h_cut[k]*I1[k];
      Phi2[k] = s_tilt^2*I2[k] - 2*h_cut[k]*s_tilt*I1[k] + h_cut[k]^2*I0[k];
    end for;
    // Both branches agree near the switch (series of the same integrals): no events.
    V_sub = if noEvent(abs(c_tilt) > c_near_horizontal) then (Phi[1] - Phi[2])/c_tilt
      else data.length*I0[3];
    m_across = if noEvent(abs(c_tilt) > c_near_horizontal) then (Psi[1] - Psi[2])/c_tilt
      else data.length*I1[3];
    m_along = if noEvent(abs(c_tilt) > c_near_horizontal)
      then ((Phi2[1] - Phi2[2])/(2*c_tilt) - data.length*Phi[2])/c_tilt
      else 0.5*data.length*V_sub - data.length^3*c_tilt/6*chord[3]/max(s_tilt, 1e-12);
    f_sub = V_sub/(3.141592653589793*data.radius^2*data.length);
    for i in 1:2 loop
      r_cb[i] = m_across*n_down[i]/max(V_sub, 1e-15);
    end for;
    r_cb[3] = -m_along/max(V_sub, 1e-15);

    // Sea sampled at the centre of gravity (Cortesi 2012, eq. 2.121): r_sample = r_g.
    v_rel[1] = nu[1] + nu[5]*data.r_g[3] - nu[6]*data.r_g[2] - (R[1, 1]*(v_c[1] + v_w[1]) + R[2, 1]*(v_c[2] + v_w[2]) + R[3, 1]*(v_c[3] + v_w[3]));
    v_rel[2] = nu[2] + nu[6]*data.r_g[1] - nu[4]*data.r_g[3] - (R[1, 2]*(v_c[1] + v_w[1]) + R[2, 2]*(v_c[2] + v_w[2]) + R[3, 2]*(v_c[3] + v_w[3]));
    v_rel[3] = nu[3] + nu[4]*data.r_g[2] - nu[5]*data.r_g[1] - (R[1, 3]*(v_c[1] + v_w[1]) + R[2, 3]*(v_c[2] + v_w[2]) + R[3, 3]*(v_c[3] + v_w[3]));

    // Buoyancy along the upward vertical -z_b (Cortesi 2012, eq. 2.72), translational drag linear in
    // the relative velocity (eq. 2.84: f_sub on every axis), both acting at the centre of
    // buoyancy (eq. 2.79); quadratic rotational drag (eq. 2.122) and fin drag (eq. 2.123).
    for i in 1:3 loop
      F_b[i] = -rho*g*V_sub*R[3, i];
    end for;
    F_d[1] = -f_sub*data.C_Df_xy*data.length*data.radius*v_rel[1];
    F_d[2] = -f_sub*data.C_Df_xy*data.length*data.radius*v_rel[2];
    F_d[3] = -f_sub*data.C_Df_z*data.radius^2*v_rel[3];
    M_d[1] = -f_sub*data.length*data.radius*data.C_Dm_xy*abs(nu[4])*nu[4];
    M_d[2] = -f_sub*data.length*data.radius*data.C_Dm_xy*abs(nu[5])*nu[5];
    M_d[3] = -f_sub*(data.length*data.radius*data.C_Dm_z + data.n_fins/8*data.fin_C_D*rho*data.fin_width*((data.radius + data.fin_length)^4 - data.radius^4))*abs(nu[6])*nu[6];
    for i in 1:3 loop
      f_hydro[i] = F_b[i] + F_d[i];
    end for;
    f_hydro[4] = r_cb[2]*f_hydro[3] - r_cb[3]*f_hydro[2] + M_d[1];
    f_hydro[5] = r_cb[3]*f_hydro[1] - r_cb[1]*f_hydro[3] + M_d[2];
    f_hydro[6] = r_cb[1]*f_hydro[2] - r_cb[2]*f_hydro[1] + M_d[3];

    annotation (Documentation(info = "<html>
<p>A rigid cylinder of radius R and length L floating in the sea (Cortesi 2012, Ch. 2): the
Vehicle's rigid-body equations and weight (<code>volume = 0</code>, no added mass, no Fossen
damping) plus <code>f_env</code> = buoyancy of the submerged part and drag relative to the
water. g = 9.8 m/s2 and rho = 1000 kg/m3: the values Cortesi's (2012) constants imply (175.46 =
sqrt(pi rho g) in eq. 2.104, k1 = 48.52 kg/s2 in Table E.1).</p>
<h4>Hydrostatics</h4>
<p>The sea surface is the horizontal plane at the elevation <code>zeta</code> sampled at the
centre of gravity (Cortesi 2012, Sec. 2.3: locally flat surface, evaluated at the CM). With the
tilt c = cos, s = sin of the axis against the vertical and X the coordinate across the axis
along n_down, a point at distance s' along the axis is at the height
h(s', X) = h_b + c s' - s X above the surface. For each strip X the wet length along the axis
is the measure of {s' in [0, L] : h &lt; 0}; integrating it over the circle gives, exactly,</p>
<pre>
  V     = (Phi(h_b) - Phi(h_t))/c
  M_X   = (Psi(h_b) - Psi(h_t))/c
  M_ax  = ((Phi2(h_b) - Phi2(h_t))/(2c) - L Phi(h_t))/c
  Phi(h)  = s I1 - h I0,  Psi(h) = s I2 - h I1,  Phi2(h) = s^2 I2 - 2 h s I1 + h^2 I0
</pre>
<p>where h_b, h_t are the heights of the bottom and top centres and I0, I1, I2 the area and
its first and second moments of the part of the face circle beyond x = h/s (clamped to
+-R): I0 = R^2 acos(x/R) - x w, I1 = 2 w^3/3, I2 = R^4 acos(x/R)/4 - x (2 x^2 - R^2) w/4 with
w = sqrt(R^2 - x^2). These cover every case of Cortesi 2012, Sec. 2.3 (dry, fully submerged, the
waterline through the wall only, through one or both end faces, upside down) without
distinguishing them. For |c| below <code>c_near_horizontal</code> the differences are
replaced by their limits, V = L I0(h_m), M_X = L I1(h_m),
M_ax = L V/2 - L^3 c w(h_m)/(6 s) at the middle height h_m (series in c, truncation error
below 1e-7 of the full volume). The test suite compares V and the centre of buoyancy with
an independent numerical integration at many tilts and drafts.</p>
<h4>Drag</h4>
<p>Translational drag is linear in the velocity of the centre of gravity relative to the
water (current plus wave particle velocity, sampled at the centre of gravity, eq. 2.121),
scaled by the submerged fraction on all three axes (eq. 2.84) and applied at the centre of
buoyancy (eq. 2.79, the moment arm taken from the body, not the system CM); rotational drag
is quadratic in the body rates (eq. 2.122), fin drag adds to the moment about the axis
(eq. 2.123, scaled by f_sub like the other terms; the fins sit on the housing, which stays
under water).</p>
</html>"));
  end CylinderBody;

  model PrototypeHousing "Housing of the prototype buoy (Cortesi 2012, Table 5.1), four yaw fins"
    extends CylinderBody(redeclare record Data = MurCoSim.Buoys.PrototypeHousingData);
  end PrototypeHousing;

  model PrototypePayload "Payload of the prototype buoy (Cortesi 2012, Table 5.1)"
    extends CylinderBody(redeclare record Data = MurCoSim.Buoys.PrototypePayloadData);
  end PrototypePayload;

  model LargeTestCylinder "Instrumented 36 in test cylinder of the USNA heave trials (Cortesi 2012, Sec. 3.2)"
    extends CylinderBody(redeclare record Data = MurCoSim.Buoys.LargeTestCylinderData);
  end LargeTestCylinder;

  model JointServo
    "Two-axis joint servo: position control with stops, rate and acceleration limits (Cortesi 2012, Sec. 2.8)"
    parameter MurCoSim.Angle stop = 0.7853981633974483
      "Mechanical stop of each axis, +-stop (Cortesi 2012, Sec. 2.7: +-45 deg for the prototype)";
    parameter MurCoSim.AngularVelocity rate_max = 1.5707963267948966
      "Rate limit of each axis (assumption: 90 deg/s; Cortesi (2012) gives none)";
    parameter MurCoSim.AngularAcceleration acceleration_max = 8.726646259971648
      "Acceleration limit of each axis (500 deg/s2, above Cortesi's (2012) 300 deg/s2 threshold, Sec. 5.7)";
    parameter MurCoSim.Time T_position = 0.04
      "Time constant of the position loop: two 20 ms steps of Cortesi's (2012) axis controller (App. C)";
    parameter MurCoSim.Time T_rate = 0.02
      "Time constant of the rate loop: one 20 ms step of Cortesi's (2012) base rate (Sec. 5.3)";
    MurCoSim.Interfaces.RealInput theta_cmd[2](each start = 0, each unit = "rad") "Commanded joint angles";
    MurCoSim.Interfaces.RealOutput theta[2](each start = 0, each fixed = true, each unit = "rad") "Joint angles";
    MurCoSim.Interfaces.RealOutput omega[2](each start = 0, each fixed = true, each unit = "rad/s") "Joint rates";
    MurCoSim.Interfaces.RealOutput alpha[2](each unit = "rad/s2") "Joint accelerations";
  protected
    MurCoSim.Angle error[2] "Distance to the command clamped to the stops";
    MurCoSim.AngularVelocity rate_demand[2]
      "Rate that stops at the target: braking curve, rate limit, linear near the target";
  equation
    for i in 1:2 loop
      error[i] = max(-stop, min(stop, theta_cmd[i])) - theta[i];
      rate_demand[i] = (if noEvent(error[i] >= 0) then 1 else -1)*min(rate_max, min(sqrt(2*acceleration_max*max(0, abs(error[i]) - abs(omega[i])*T_rate)), abs(error[i])/T_position));
      alpha[i] = max(-acceleration_max, min(acceleration_max, (rate_demand[i] - omega[i])/T_rate));
      der(theta[i]) = omega[i];
      der(omega[i]) = alpha[i];
    end for;
    annotation (Documentation(info = "<html>
<p>A continuous-time model of Cortesi's (2012) low-level axis controllers in position-velocity mode
with zero commanded end velocity (Sec. 2.8, App. C), which all its trials use: each axis
drives to its command, clamped to the stops, along the fastest profile the limits allow.
The rate demand is the smallest of the rate limit, the braking rate that still stops at the
target with the acceleration limit, and |e|/T_position near the target; a rate loop with time
constant T_rate follows it within the acceleration limit. The braking rate is taken at the
distance left after the rate loop's lag, sqrt(2 a_max (|e| - |omega| T_rate)): without that
margin an axis arriving at 90 deg/s would pass its target by 1.4 deg before the loop's
deceleration builds up; with it the axis stops at the target. Commands beyond the stops drive
the axis to the stop, where it comes to rest.</p>
<p>The joint is kinematic as in Cortesi (2012) (Sec. 0: the joint angles are inputs to the body
dynamics): the orchestrator's driven universal joint makes the relative rotation of the two
bodies follow theta, omega and alpha, and reports the joint torque as the constraint
moment.</p>
</html>"));
  end JointServo;

  annotation (Documentation(info = "<html>
<p>The joint-actuated buoy of R. Cortesi, <i>Modeling and Control of
Joint-Actuated Buoys</i>, PhD dissertation, The George Washington University, 2012: a housing and a payload, floating cylinders joined by a driven
two-axis universal joint. The bodies follow the rigid-body contract, so the orchestrator
joins them with a driven universal joint (Udwadia-Kalaba) whose angles come from a
<a href=\"modelica://MurCoSim.Buoys.JointServo\">JointServo</a>; the sea comes from
<a href=\"modelica://MurCoSim.Ocean\">Ocean</a> components connected to each body's
<code>wave_point</code>, <code>zeta</code> and <code>v_w</code>.</p>
<p>Parameter sets: the prototype of Table 5.1, the two test cylinders of Ch. 3 and the
sonobuoy-sized J series of App. B; each record documents its sources and assumptions.</p>
</html>"));
end Buoys;
