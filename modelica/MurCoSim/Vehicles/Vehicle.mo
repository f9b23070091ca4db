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
  parameter Real capture_speed(unit = "m/s") = 0.3
    "Docking capture envelope: largest closing speed that still latches";
  parameter Real capture_angle(unit = "rad") = 0.1745
    "Docking capture envelope: largest angle between a port normal and the partner's reversed normal";

  input Real tau_ext[6](each start = 0, unit = {"N", "N", "N", "N.m", "N.m", "N.m"})
    "External generalized force at CO, body frame [X Y Z K M N]";
  input Real v_c[3](each start = 0, each unit = "m/s") "Ocean current velocity, NED";

  output Real p[3](each start = 0, each fixed = true, each unit = "m")
    "Position of the body origin CO, NED";
  output Real q[4](start = {1, 0, 0, 0}, each fixed = true)
    "Unit quaternion body to NED, scalar first [eta eps1 eps2 eps3]";
  output Real nu[6](each start = 0, each fixed = true,
    unit = {"m/s", "m/s", "m/s", "rad/s", "rad/s", "rad/s"})
    "Body-frame velocity [u v w p q r]";
  output Real nu_r[6](unit = {"m/s", "m/s", "m/s", "rad/s", "rad/s", "rad/s"})
    "Body-frame velocity relative to the water";
  output Real M[6, 6] "Generalized mass M_RB + M_A (kg, kg.m, kg.m2 by block)";
  Real f_env[6](unit = {"N", "N", "N", "N.m", "N.m", "N.m"}) = {0, 0, 0, 0, 0, 0}
    "Generalized force an extending model adds at CO, body frame (e.g. exact buoyancy and drag of a floating body); zero for a vehicle";

protected
  Real R[3, 3] "Rotation matrix body to NED";
  Real qq "Squared quaternion norm";
  Real v_cb[3](each unit = "m/s") "Current velocity, body frame";
  Real S_g[3, 3](each unit = "m") "Skew matrix S(r_g)";
  Real r_g2(unit = "m2") "Squared distance of the centre of gravity from CO";
  Real I_o[3, 3](each unit = "kg.m2") "Inertia tensor about CO";
  Real M_RB[6, 6] "Rigid-body generalized mass about CO";
  Real h_RB[6] "Rigid-body generalized momentum M_RB nu";
  Real h_A[6] "Added-mass generalized momentum M_A nu_r";
  Real c_RB[6] "Rigid-body Coriolis and centripetal force C_RB(nu) nu";
  Real c_A[6] "Added-mass Coriolis and centripetal force C_A(nu_r) nu_r";
  Real d[6] "Damping force D(nu_r) nu_r";
  Real f_hs[6] "Restoring force and moment of weight and buoyancy, body frame";
  Real a_c[6] "Added-mass force of the current's rotation into the body frame";
  Real z_b[3] "NED down axis in body coordinates (third row of R)";
  Real W(unit = "N") "Weight";
  Real B(unit = "N") "Buoyancy";
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

  // Velocity relative to an irrotational current.
  for i in 1:3 loop
    v_cb[i] = R[1, i]*v_c[1] + R[2, i]*v_c[2] + R[3, i]*v_c[3];
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
    M[i, 1] = M_RB[i, 1] + data.added_mass[i]*I6[i, 1];
    M[i, 2] = M_RB[i, 2] + data.added_mass[i]*I6[i, 2];
    M[i, 3] = M_RB[i, 3] + data.added_mass[i]*I6[i, 3];
    M[i, 4] = M_RB[i, 4] + data.added_mass[i]*I6[i, 4];
    M[i, 5] = M_RB[i, 5] + data.added_mass[i]*I6[i, 5];
    M[i, 6] = M_RB[i, 6] + data.added_mass[i]*I6[i, 6];
  end for;

  // Momenta; Coriolis forces from the Kirchhoff form of C (Nielsen 2018, eq. 2.24):
  // C(nu) nu = [w x h_lin; v x h_lin + w x h_ang].
  for i in 1:6 loop
    h_RB[i] = M_RB[i, 1]*nu[1] + M_RB[i, 2]*nu[2] + M_RB[i, 3]*nu[3] + M_RB[i, 4]*nu[4] + M_RB[i, 5]*nu[5] + M_RB[i, 6]*nu[6];
    h_A[i] = data.added_mass[i]*nu_r[i];
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

  // The current, constant in NED, rotates in the body frame: d/dt v_cb = -w x v_cb, so
  // nu_r_dot = nu_dot + [w x v_cb; 0] and M_A nu_r_dot adds M_A [w x v_cb; 0].
  a_c[1] = data.added_mass[1]*(nu[5]*v_cb[3] - nu[6]*v_cb[2]);
  a_c[2] = data.added_mass[2]*(nu[6]*v_cb[1] - nu[4]*v_cb[3]);
  a_c[3] = data.added_mass[3]*(nu[4]*v_cb[2] - nu[5]*v_cb[1]);
  a_c[4] = 0;
  a_c[5] = 0;
  a_c[6] = 0;

  // Linear plus quadratic damping on the relative velocity (Nielsen 2018, eqs. 2.22-2.23).
  for i in 1:6 loop
    d[i] = (data.D_L[i] + data.D_Q[i]*abs(nu_r[i]))*nu_r[i];
  end for;

  // Restoring forces: weight at r_g and buoyancy at r_b (Nielsen 2018, eq. 2.26, Fossen signs).
  W = data.m*g;
  B = rho*g*data.volume;
  for i in 1:3 loop
    z_b[i] = R[3, i];
    f_hs[i] = (W - B)*z_b[i];
  end for;
  f_hs[4] = (data.r_g[2]*W - data.r_b[2]*B)*z_b[3] - (data.r_g[3]*W - data.r_b[3]*B)*z_b[2];
  f_hs[5] = (data.r_g[3]*W - data.r_b[3]*B)*z_b[1] - (data.r_g[1]*W - data.r_b[1]*B)*z_b[3];
  f_hs[6] = (data.r_g[1]*W - data.r_b[1]*B)*z_b[2] - (data.r_g[2]*W - data.r_b[2]*B)*z_b[1];

  // Kinetics: M nu_dot + C_RB(nu) nu + C_A(nu_r) nu_r + D(nu_r) nu_r + g(q) = tau + f_env.
  for i in 1:6 loop
    M[i, 1]*der(nu[1]) + M[i, 2]*der(nu[2]) + M[i, 3]*der(nu[3]) + M[i, 4]*der(nu[4]) + M[i, 5]*der(nu[5]) + M[i, 6]*der(nu[6]) = tau_ext[i] + f_env[i] + f_hs[i] - c_RB[i] - c_A[i] - d[i] - a_c[i];
  end for;

  annotation (Documentation(info = "<html>
<p>Fossen's 6-DOF model as written in Nielsen (2018, Ch. 2), in body-frame
quasi-velocities with a scalar-first unit quaternion, extended by a centre of gravity off
the origin and an ocean current:</p>
<pre>
  p_dot = R(q) v,   q_dot = T_q(q) w + gamma_q/2 (1 - q'q) q
  M nu_dot + C_RB(nu) nu + C_A(nu_r) nu_r + D(nu_r) nu_r + g(q) = tau_ext
  nu_r = nu - [R(q)' v_c; 0]
</pre>
<p>M = M_RB + M_A is constant and exposed as the output M[6,6] for the constraint coupling.
C_RB and C_A use the Kirchhoff (skew) form, so that with damping and current off the sum of
kinetic energy 0.5 nu'M nu and hydrostatic potential is conserved. The current is taken as
constant in NED (or slowly varying): its own acceleration is not modelled, only its rotation
into the body frame. Gravity and buoyancy act along NED z; the restoring force in the body
frame is f = (W - B) R'e_z with moment r_g x W R'e_z - r_b x B R'e_z.</p>
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
