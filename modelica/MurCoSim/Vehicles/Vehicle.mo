within MurCoSim.Vehicles;
partial model Vehicle "6-DOF underwater vehicle (Fossen) with unit-quaternion attitude"
  replaceable record Data = MurCoSim.Data.VehicleData constrainedby MurCoSim.Data.VehicleData
    "Record of the body's parameters: VehicleData or a record extending it";
  parameter Data data "Body and hydrodynamic parameters";
  parameter MurCoSim.Density rho = 1000 "Density of the water";
  parameter MurCoSim.Acceleration g = 9.81 "Gravitational acceleration";
  parameter Real gamma_q(unit = "1/s") = 10
    "Gain of the quaternion norm correction (Nielsen 2018, eq. 2.19)";
  parameter MurCoSim.Length capture_distance = 0.05
    "Docking capture envelope: largest distance between mating points";
  parameter MurCoSim.Velocity capture_speed = 0.3
    "Docking capture envelope: largest closing speed that still latches";
  parameter MurCoSim.Angle capture_angle = 0.1745
    "Docking capture envelope: largest angle between a port normal and the partner's reversed normal";
  parameter MurCoSim.Length hull_height(min = 0) = 0
    "Free surface: vertical size of the hull, taken as a sphere of this diameter around the centre of buoyancy (0: always fully submerged; each shipped vehicle sets its own)";
  parameter MurCoSim.Length thruster_height = 0.1
    "Free surface: a thruster's thrust scales with the immersed fraction of a sphere of this diameter around its mount";
  parameter MurCoSim.Length seabed_depth = 1e6
    "Seabed: NED z of a flat seabed (the default 1e6 m: none)";
  parameter MurCoSim.TranslationalSpringConstant seabed_stiffness(min = 0) = 1e5
    "Seabed: contact stiffness of the Hunt-Crossley contact";
  parameter Real seabed_damping(unit = "s/m", min = 0) = 1
    "Seabed: Hunt-Crossley damping factor (contact force k d (1 + c d_dot))";
  parameter MurCoSim.Position r_sample[3] = data.r_b
    "Point where the body samples the sea and the current (wave_point), body frame";
  parameter Real wave_kinematics = 1
    "1: the wave velocity and acceleration act on the hull through the Fossen terms; 0: a model extending this one takes the waves in f_env (the buoys)";

  MurCoSim.Interfaces.RealInput tau_ext[6](each start = 0, unit = {"N", "N", "N", "N.m", "N.m", "N.m"})
    "External generalized force at CO, body frame [X Y Z K M N]";
  MurCoSim.Interfaces.RealInput v_c[3](each start = 0, each unit = "m/s") "Ocean current velocity at wave_point, NED";
  MurCoSim.Interfaces.RealInput a_c[3](each start = 0, each unit = "m/s2")
    "Ocean current acceleration at wave_point (time derivative of the field), NED";
  MurCoSim.Interfaces.RealInput zeta(start = 0, unit = "m")
    "Sea surface elevation above the mean level at wave_point, positive up";
  MurCoSim.Interfaces.RealInput v_w[3](each start = 0, each unit = "m/s") "Wave particle velocity at wave_point, NED";
  MurCoSim.Interfaces.RealInput a_w[3](each start = 0, each unit = "m/s2") "Wave particle acceleration at wave_point, NED";

  MurCoSim.Interfaces.RealOutput p[3](each start = 0, each fixed = true, each unit = "m")
    "Position of the body origin CO, NED";
  MurCoSim.Interfaces.RealOutput q[4](start = {1, 0, 0, 0}, each fixed = true)
    "Unit quaternion body to NED, scalar first [eta eps1 eps2 eps3]";
  MurCoSim.Interfaces.RealOutput nu[6](each start = 0, each fixed = true,
    unit = {"m/s", "m/s", "m/s", "rad/s", "rad/s", "rad/s"})
    "Body-frame velocity [u v w p q r]";
  MurCoSim.Interfaces.RealOutput nu_r[6](unit = {"m/s", "m/s", "m/s", "rad/s", "rad/s", "rad/s"})
    "Body-frame velocity relative to the water";
  MurCoSim.Interfaces.RealOutput M[6, 6] "Generalized mass M_RB + M_A (kg, kg.m, kg.m2 by block)";
  MurCoSim.Interfaces.RealOutput wave_point[3](each unit = "m")
    "Point where the body samples the sea and the current, NED: r_sample of the body";
  MurCoSim.Interfaces.RealOutput submerged_fraction "Submerged fraction of the hull volume (1 without free surface)";
  MurCoSim.Interfaces.RealOutput f_seabed(unit = "N") "Seabed contact force, upward";
  MurCoSim.Interfaces.RealOutput thruster_immersion[data.n_thrusters]
    "Immersed fraction of each thruster mount, for its thruster's input immersion (1 without free surface)";
  Real f_env[6](unit = {"N", "N", "N", "N.m", "N.m", "N.m"}) = {0, 0, 0, 0, 0, 0}
    "Generalized force an extending model adds at CO, body frame (e.g. exact buoyancy and drag of a floating body); zero for a vehicle";

protected
  Real R[3, 3] "Rotation matrix body to NED";
  Real qq "Squared quaternion norm";
  MurCoSim.Velocity u_f[3] "Velocity of the water at wave_point (current and waves), NED";
  MurCoSim.Acceleration a_f[3] "Acceleration of the water at wave_point, NED";
  MurCoSim.Velocity v_cb[3] "Velocity of the water, body frame";
  MurCoSim.Acceleration a_fb[3] "Acceleration of the water, body frame";
  MurCoSim.Acceleration e_f[3]
    "Rate of the water's velocity in the body frame, negated: w x v_cb - a_fb";
  Real s_sub "Immersion of the hull sphere: 0 at its top on the surface, 1 at its bottom";
  Real s_thruster[data.n_thrusters] "Immersion of each thruster's sphere, as s_sub";
  MurCoSim.Position z_cb "Depth of the centre of buoyancy, NED";
  MurCoSim.Velocity w_cb "Vertical velocity of the centre of buoyancy, NED";
  MurCoSim.Length d_seabed "Penetration of the hull into the seabed";
  Real f_fk[6] "Froude-Krylov force and moment of the water's acceleration, body frame";
  Real f_sb[6] "Seabed contact force and moment, body frame";
  MurCoSim.Length S_g[3, 3] "Skew matrix S(r_g)";
  Real r_g2(unit = "m2") "Squared distance of the centre of gravity from CO";
  MurCoSim.MomentOfInertia I_o[3, 3] "Inertia tensor about CO";
  Real M_RB[6, 6] "Rigid-body generalized mass about CO";
  Real h_RB[6] "Rigid-body generalized momentum M_RB nu";
  Real h_A[6] "Added-mass generalized momentum M_A nu_r";
  Real c_RB[6] "Rigid-body Coriolis and centripetal force C_RB(nu) nu";
  Real c_A[6] "Added-mass Coriolis and centripetal force C_A(nu_r) nu_r";
  Real d[6] "Damping force D(nu_r) nu_r";
  Real f_hs[6] "Restoring force and moment of weight and buoyancy, body frame";
  Real f_af[6] "Added-mass force of the water's acceleration and rotation into the body frame";
  Real z_b[3] "NED down axis in body coordinates (third row of R)";
  MurCoSim.Force W "Weight";
  MurCoSim.Force B "Buoyancy";
  parameter Real I3[3, 3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  parameter Real I6[6, 6] = {{1, 0, 0, 0, 0, 0}, {0, 1, 0, 0, 0, 0}, {0, 0, 1, 0, 0, 0},
    {0, 0, 0, 1, 0, 0}, {0, 0, 0, 0, 1, 0}, {0, 0, 0, 0, 0, 1}};

equation
  // Attitude (Nielsen 2018, eq. 2.12).
  R[1, 1] = 1 - 2*(q[3]^2 + q[4]^2);
  R[1, 2] = 2*(q[2]*q[3] - q[4]*q[1]);
  R[1, 3] = 2*(q[2]*q[4] + q[3]*q[1]);
  R[2, 1] = 2*(q[2]*q[3] + q[4]*q[1]);
  R[2, 2] = 1 - 2*(q[2]^2 + q[4]^2);
  R[2, 3] = 2*(q[3]*q[4] - q[2]*q[1]);
  R[3, 1] = 2*(q[2]*q[4] - q[3]*q[1]);
  R[3, 2] = 2*(q[3]*q[4] + q[2]*q[1]);
  R[3, 3] = 1 - 2*(q[2]^2 + q[3]^2);
  qq = q[1]^2 + q[2]^2 + q[3]^2 + q[4]^2;

  // Kinematics: p_dot = R v; q_dot = T_q(q) omega + gamma/2 (1 - q'q) q (Nielsen 2018, 2.13, 2.19).
  for i in 1:3 loop
    der(p[i]) = R[i, 1]*nu[1] + R[i, 2]*nu[2] + R[i, 3]*nu[3];
  end for;
  der(q[1]) = 0.5*(-q[2]*nu[4] - q[3]*nu[5] - q[4]*nu[6]) + 0.5*gamma_q*(1 - qq)*q[1];
  der(q[2]) = 0.5*(q[1]*nu[4] - q[4]*nu[5] + q[3]*nu[6]) + 0.5*gamma_q*(1 - qq)*q[2];
  der(q[3]) = 0.5*(q[4]*nu[4] + q[1]*nu[5] - q[2]*nu[6]) + 0.5*gamma_q*(1 - qq)*q[3];
  der(q[4]) = 0.5*(-q[3]*nu[4] + q[2]*nu[5] + q[1]*nu[6]) + 0.5*gamma_q*(1 - qq)*q[4];

  // Velocity relative to the water: the current and the waves' orbital velocity at wave_point,
  // uniform over the hull (a body small against the current's gradients and the wave length).
  for i in 1:3 loop
    wave_point[i] = p[i] + R[i, 1]*r_sample[1] + R[i, 2]*r_sample[2] + R[i, 3]*r_sample[3];
    u_f[i] = v_c[i] + wave_kinematics*v_w[i];
    a_f[i] = a_c[i] + wave_kinematics*a_w[i];
  end for;
  for i in 1:3 loop
    v_cb[i] = R[1, i]*u_f[1] + R[2, i]*u_f[2] + R[3, i]*u_f[3];
    a_fb[i] = R[1, i]*a_f[1] + R[2, i]*a_f[2] + R[3, i]*a_f[3];
    nu_r[i] = nu[i] - v_cb[i];
    nu_r[i + 3] = nu[i + 3];
  end for;

  // Generalized mass (Fossen 2011, eq. 3.44), with I_o = I_g - m S(r_g)^2.
  r_g2 = data.r_g[1]^2 + data.r_g[2]^2 + data.r_g[3]^2;
  S_g[1, 1] = 0;
  S_g[1, 2] = -data.r_g[3];
  S_g[1, 3] = data.r_g[2];
  S_g[2, 1] = data.r_g[3];
  S_g[2, 2] = 0;
  S_g[2, 3] = -data.r_g[1];
  S_g[3, 1] = -data.r_g[2];
  S_g[3, 2] = data.r_g[1];
  S_g[3, 3] = 0;
  for i in 1:3 loop
    I_o[i, 1] = data.I_g[i, 1] + data.m*(r_g2*I3[i, 1] - data.r_g[i]*data.r_g[1]);
    I_o[i, 2] = data.I_g[i, 2] + data.m*(r_g2*I3[i, 2] - data.r_g[i]*data.r_g[2]);
    I_o[i, 3] = data.I_g[i, 3] + data.m*(r_g2*I3[i, 3] - data.r_g[i]*data.r_g[3]);
  end for;
  for i in 1:3 loop
    M_RB[i, 1] = data.m*I3[i, 1];
    M_RB[i, 2] = data.m*I3[i, 2];
    M_RB[i, 3] = data.m*I3[i, 3];
    M_RB[i, 4] = -data.m*S_g[i, 1];
    M_RB[i, 5] = -data.m*S_g[i, 2];
    M_RB[i, 6] = -data.m*S_g[i, 3];
    M_RB[i + 3, 1] = data.m*S_g[i, 1];
    M_RB[i + 3, 2] = data.m*S_g[i, 2];
    M_RB[i + 3, 3] = data.m*S_g[i, 3];
    M_RB[i + 3, 4] = I_o[i, 1];
    M_RB[i + 3, 5] = I_o[i, 2];
    M_RB[i + 3, 6] = I_o[i, 3];
  end for;
  for i in 1:6 loop
    M[i, 1] = M_RB[i, 1] + data.added_mass[i]*I6[i, 1] + data.added_mass_coupling[i, 1];
    M[i, 2] = M_RB[i, 2] + data.added_mass[i]*I6[i, 2] + data.added_mass_coupling[i, 2];
    M[i, 3] = M_RB[i, 3] + data.added_mass[i]*I6[i, 3] + data.added_mass_coupling[i, 3];
    M[i, 4] = M_RB[i, 4] + data.added_mass[i]*I6[i, 4] + data.added_mass_coupling[i, 4];
    M[i, 5] = M_RB[i, 5] + data.added_mass[i]*I6[i, 5] + data.added_mass_coupling[i, 5];
    M[i, 6] = M_RB[i, 6] + data.added_mass[i]*I6[i, 6] + data.added_mass_coupling[i, 6];
  end for;

  // Momenta; Coriolis forces from the Kirchhoff form of C (Nielsen 2018, eq. 2.24):
  // C(nu) nu = [w x h_lin; v x h_lin + w x h_ang].
  for i in 1:6 loop
    h_RB[i] = M_RB[i, 1]*nu[1] + M_RB[i, 2]*nu[2] + M_RB[i, 3]*nu[3] + M_RB[i, 4]*nu[4] + M_RB[i, 5]*nu[5] + M_RB[i, 6]*nu[6];
    h_A[i] = data.added_mass[i]*nu_r[i] + data.added_mass_coupling[i, 1]*nu_r[1] + data.added_mass_coupling[i, 2]*nu_r[2] + data.added_mass_coupling[i, 3]*nu_r[3] + data.added_mass_coupling[i, 4]*nu_r[4] + data.added_mass_coupling[i, 5]*nu_r[5] + data.added_mass_coupling[i, 6]*nu_r[6];
  end for;
  c_RB[1] = nu[5]*h_RB[3] - nu[6]*h_RB[2];
  c_RB[2] = nu[6]*h_RB[1] - nu[4]*h_RB[3];
  c_RB[3] = nu[4]*h_RB[2] - nu[5]*h_RB[1];
  c_RB[4] = nu[2]*h_RB[3] - nu[3]*h_RB[2] + nu[5]*h_RB[6] - nu[6]*h_RB[5];
  c_RB[5] = nu[3]*h_RB[1] - nu[1]*h_RB[3] + nu[6]*h_RB[4] - nu[4]*h_RB[6];
  c_RB[6] = nu[1]*h_RB[2] - nu[2]*h_RB[1] + nu[4]*h_RB[5] - nu[5]*h_RB[4];
  c_A[1] = nu_r[5]*h_A[3] - nu_r[6]*h_A[2];
  c_A[2] = nu_r[6]*h_A[1] - nu_r[4]*h_A[3];
  c_A[3] = nu_r[4]*h_A[2] - nu_r[5]*h_A[1];
  c_A[4] = nu_r[2]*h_A[3] - nu_r[3]*h_A[2] + nu_r[5]*h_A[6] - nu_r[6]*h_A[5];
  c_A[5] = nu_r[3]*h_A[1] - nu_r[1]*h_A[3] + nu_r[6]*h_A[4] - nu_r[4]*h_A[6];
  c_A[6] = nu_r[1]*h_A[2] - nu_r[2]*h_A[1] + nu_r[4]*h_A[5] - nu_r[5]*h_A[4];

  // The water's velocity in the body frame changes as the body turns and as the water
  // accelerates: d/dt v_cb = -w x v_cb + a_fb, so nu_r_dot = nu_dot + [e_f; 0] with
  // e_f = w x v_cb - a_fb, and M_A nu_r_dot adds M_A [e_f; 0] (Auton et al. 1988).
  e_f[1] = nu[5]*v_cb[3] - nu[6]*v_cb[2] - a_fb[1];
  e_f[2] = nu[6]*v_cb[1] - nu[4]*v_cb[3] - a_fb[2];
  e_f[3] = nu[4]*v_cb[2] - nu[5]*v_cb[1] - a_fb[3];
  for i in 1:3 loop
    f_af[i] = data.added_mass[i]*e_f[i] + data.added_mass_coupling[i, 1]*e_f[1] + data.added_mass_coupling[i, 2]*e_f[2] + data.added_mass_coupling[i, 3]*e_f[3];
    f_af[i + 3] = data.added_mass_coupling[i + 3, 1]*e_f[1] + data.added_mass_coupling[i + 3, 2]*e_f[2] + data.added_mass_coupling[i + 3, 3]*e_f[3];
  end for;

  // Linear plus quadratic damping on the relative velocity (Nielsen 2018, eqs. 2.22-2.23),
  // with the off-diagonal terms of full matrices: D_L nu_r + D_Q diag(|nu_r|) nu_r.
  for i in 1:6 loop
    d[i] = (data.D_L[i] + data.D_Q[i]*abs(nu_r[i]))*nu_r[i] + (data.D_L_coupling[i, 1] + data.D_Q_coupling[i, 1]*abs(nu_r[1]))*nu_r[1] + (data.D_L_coupling[i, 2] + data.D_Q_coupling[i, 2]*abs(nu_r[2]))*nu_r[2] + (data.D_L_coupling[i, 3] + data.D_Q_coupling[i, 3]*abs(nu_r[3]))*nu_r[3] + (data.D_L_coupling[i, 4] + data.D_Q_coupling[i, 4]*abs(nu_r[4]))*nu_r[4] + (data.D_L_coupling[i, 5] + data.D_Q_coupling[i, 5]*abs(nu_r[5]))*nu_r[5] + (data.D_L_coupling[i, 6] + data.D_Q_coupling[i, 6]*abs(nu_r[6]))*nu_r[6];
  end for;

  // Free surface: the hull is taken as a sphere of diameter hull_height around the centre of
  // buoyancy; its submerged fraction is that of a sphere cut by the plane at the elevation zeta,
  // s^2 (3 - 2 s) with s the immersed part of the diameter (1 when hull_height = 0).
  z_cb = p[3] + R[3, 1]*data.r_b[1] + R[3, 2]*data.r_b[2] + R[3, 3]*data.r_b[3];
  w_cb = R[3, 1]*(nu[1] + nu[5]*data.r_b[3] - nu[6]*data.r_b[2]) + R[3, 2]*(nu[2] + nu[6]*data.r_b[1] - nu[4]*data.r_b[3]) + R[3, 3]*(nu[3] + nu[4]*data.r_b[2] - nu[5]*data.r_b[1]);
  s_sub = min(1, max(0, (z_cb + zeta)/max(hull_height, 1e-9) + 0.5));
  submerged_fraction = if hull_height > 0 then s_sub^2*(3 - 2*s_sub) else 1;
  for k in 1:data.n_thrusters loop
    s_thruster[k] = min(1, max(0, (p[3] + R[3, 1]*data.thruster_position[k, 1] + R[3, 2]*data.thruster_position[k, 2] + R[3, 3]*data.thruster_position[k, 3] + zeta)/max(thruster_height, 1e-9) + 0.5));
    thruster_immersion[k] = if hull_height > 0 then s_thruster[k]^2*(3 - 2*s_thruster[k]) else 1;
  end for;

  // Froude-Krylov force of the accelerating water on the submerged volume, at r_b.
  for i in 1:3 loop
    f_fk[i] = rho*data.volume*submerged_fraction*a_fb[i];
  end for;
  f_fk[4] = data.r_b[2]*f_fk[3] - data.r_b[3]*f_fk[2];
  f_fk[5] = data.r_b[3]*f_fk[1] - data.r_b[1]*f_fk[3];
  f_fk[6] = data.r_b[1]*f_fk[2] - data.r_b[2]*f_fk[1];

  // Seabed: Hunt-Crossley contact of the hull sphere's lowest point with the plane
  // z = seabed_depth, normal to it, frictionless: k d (1 + c d_dot), never pulling.
  d_seabed = max(0, z_cb + 0.5*hull_height - seabed_depth);
  f_seabed = max(0, seabed_stiffness*d_seabed*(1 + seabed_damping*w_cb));
  for i in 1:3 loop
    f_sb[i] = -f_seabed*R[3, i];
  end for;
  f_sb[4] = data.r_b[2]*f_sb[3] - data.r_b[3]*f_sb[2];
  f_sb[5] = data.r_b[3]*f_sb[1] - data.r_b[1]*f_sb[3];
  f_sb[6] = data.r_b[1]*f_sb[2] - data.r_b[2]*f_sb[1];

  // Restoring forces: weight at r_g and buoyancy at r_b (Nielsen 2018, eq. 2.26, Fossen signs).
  W = data.m*g;
  B = rho*g*data.volume*submerged_fraction;
  for i in 1:3 loop
    z_b[i] = R[3, i];
    f_hs[i] = (W - B)*z_b[i];
  end for;
  f_hs[4] = (data.r_g[2]*W - data.r_b[2]*B)*z_b[3] - (data.r_g[3]*W - data.r_b[3]*B)*z_b[2];
  f_hs[5] = (data.r_g[3]*W - data.r_b[3]*B)*z_b[1] - (data.r_g[1]*W - data.r_b[1]*B)*z_b[3];
  f_hs[6] = (data.r_g[1]*W - data.r_b[1]*B)*z_b[2] - (data.r_g[2]*W - data.r_b[2]*B)*z_b[1];

  // Kinetics: M nu_dot + C_RB(nu) nu + C_A(nu_r) nu_r + D(nu_r) nu_r + g(q) = tau + f_env
  // + Froude-Krylov + seabed, with M_A nu_r_dot written as M_A nu_dot + f_af.
  for i in 1:6 loop
    M[i, 1]*der(nu[1]) + M[i, 2]*der(nu[2]) + M[i, 3]*der(nu[3]) + M[i, 4]*der(nu[4]) + M[i, 5]*der(nu[5]) + M[i, 6]*der(nu[6]) = tau_ext[i] + f_env[i] + f_hs[i] - c_RB[i] - c_A[i] - d[i] - f_af[i] + f_fk[i] + f_sb[i];
  end for;

  annotation (Documentation(info = "<html>
<p>Fossen's 6-DOF model as written in Nielsen (2018, Ch. 2), in body-frame
quasi-velocities with a scalar-first unit quaternion, extended by a centre of gravity off
the origin, full added-mass and damping matrices, the water's velocity and acceleration
(current and waves), a free surface and a seabed:</p>
<pre>
  p_dot = R(q) v,   q_dot = T_q(q) w + gamma_q/2 (1 - q'q) q
  M nu_dot + C_RB(nu) nu + C_A(nu_r) nu_r + D(nu_r) nu_r + g(q)
     = tau_ext + f_env - M_A [w x R'u_f - R'a_f; 0] + f_FK + f_seabed
  nu_r = nu - [R(q)' u_f; 0]
</pre>
<p>M = M_RB + M_A is constant and exposed as the output M[6,6] for the constraint coupling.
M_A may be a full symmetric matrix (<code>added_mass</code> on the diagonal,
<code>added_mass_coupling</code> off it) and the damping full matrices
(<code>D_L_coupling</code>, <code>D_Q_coupling</code>). C_RB and C_A use the Kirchhoff (skew)
form with the momenta h = M nu, which holds for full matrices: with damping, current and
restoring forces off, the kinetic energy 0.5 nu'M nu and the linear and angular impulse in
NED are conserved. Gravity and buoyancy act along NED z; the restoring force in the body
frame is f = (W - B) R'e_z with moment r_g x W R'e_z - r_b x B R'e_z.</p>
<h4>The water acting on the vehicle</h4>
<p>The water at the body has the velocity u_f = v_c + v_w and acceleration a_f = a_c + a_w
(NED), sampled at <code>wave_point</code> (the centre of buoyancy) and taken as uniform over
the hull: the current from a constant (the scenario's environment) or from
<a href=\"modelica://MurCoSim.Ocean.CurrentField\">CurrentField</a>, the waves' orbital
kinematics (decaying as e^{-k d} with depth) from the
<a href=\"modelica://MurCoSim.Ocean\">Ocean</a> wave models. It enters through</p>
<pre>
  nu_r = nu - [R' u_f; 0]                                     (damping, C_A)
  M_A nu_r_dot = M_A nu_dot + M_A [w x R'u_f - R'a_f; 0]       (added mass)
  f_FK = rho V s [R'a_f; r_b x R'a_f]                         (Froude-Krylov)
</pre>
<p>the force on a body in an unsteady non-uniform flow of Auton et al. (1988) without its shear
lift: a sphere (M_A = C_a rho V) of density rho_b released in a uniformly accelerating flow
accelerates at (1 + C_a)/(rho_b/rho + C_a) times the flow's acceleration, and in a constant
uniform current a vehicle follows its still-water trajectory plus the current's displacement.
a_f is the water's acceleration at a fixed point, which equals its material acceleration for
the horizontal current field and, to first order, for linear waves.</p>
<h4>Free surface and seabed</h4>
<p>With <code>hull_height</code> &gt; 0 the hull is taken as a sphere of that diameter around
the centre of buoyancy. The surface is the plane at the elevation <code>zeta</code>; the
submerged fraction s = x^2 (3 - 2 x), x the immersed part of the diameter (0..1), is exact for
a sphere and a smooth (C1) approximation for other hulls. Buoyancy and the Froude-Krylov force
scale with s and act at r_b; added mass and damping stay those of the submerged hull (M must
stay constant for the coupling). Each thruster mount has its immersed fraction in
<code>thruster_immersion</code>, the same law for a sphere of diameter
<code>thruster_height</code> around the mount; the orchestrator feeds it to the mounted
thruster's input <code>immersion</code>, which scales its thrust. A vehicle driven up floats at
the waterline where s B plus what its thrusters still push balances W, instead of rising into
the air with full buoyancy. Every shipped vehicle and the connector bracket set their hull's
height (see <a href=\"modelica://MurCoSim.Vehicles\">Vehicles</a>); hull_height = 0, the
default of this partial model and of the bodies that bring their own hydrostatics in f_env (the
buoys) and of the arm links, keeps s = 1 and every immersion 1.</p>
<p>The seabed is the plane z = <code>seabed_depth</code> (default 1e6 m: none). The lowest point
of the hull sphere (the centre of buoyancy when hull_height = 0) touches it through a
Hunt-Crossley contact (Hunt and Crossley 1975), normal to the plane and frictionless:
f = k d (1 + c d_dot) for the penetration d &gt; 0, never pulling, acting at r_b. The DVL reads
the same seabed when the scenario's environment sets <code>seabed_depth</code>.</p>
<p>A model that extends Vehicle with forces of its own (the floating cylinders of
<a href=\"modelica://MurCoSim.Buoys\">Buoys</a>: buoyancy of the submerged part, drag relative
to the waves) binds them to <code>f_env</code>, e.g.
<code>extends Vehicle(f_env = f_hydro)</code>; a vehicle leaves it zero.</p>
<p>A model chooses its parameter record by redeclaring the record class <code>Data</code>,
e.g. <code>extends Vehicle(redeclare record Data = MurCoSim.Data.BlueROV)</code>. A partial
model may narrow the choice and a model extending it choose again:
<a href=\"modelica://MurCoSim.Buoys.CylinderBody\">CylinderBody</a> redeclares
<code>replaceable record Data = CylinderData constrainedby CylinderData</code> and each buoy
<code>redeclare record Data = PrototypeHousingData</code> (or its own record). The class is
redeclared, not the component <code>data</code>, so that the outermost choice is the one that
counts however many models lie between.</p>
</html>"));
end Vehicle;
