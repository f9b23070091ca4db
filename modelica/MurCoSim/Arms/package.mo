within MurCoSim;
package Arms "Manipulator links: rigid bodies in water joined by revolute joints"

  record AnthropomorphicLink1Data "Link 1 (base yaw) of the 3-DOF arm of Leon-Gonzalez et al. 2024, Tables 2 and 3"
    extends MurCoSim.Data.VehicleData(
      m = 0.096,
      I_g = {{5.57e-5, 0.09e-5, 0.05e-5}, {0.09e-5, 4.87e-5, 0.09e-5}, {0.05e-5, 0.09e-5, 3.16e-5}},
      r_g = {0, 0, 0},
      r_b = {0, 0, 0},
      volume = 0.076e-3,
      added_mass = {0.076, 0.076, 0.076, 0.004e-3, 0.004e-3, 0},
      D_L = {0.67e-3, 0.67e-3, 0, 0.07e-3, 0.07e-3, 0.07e-3},
      D_Q = {0, 0, 0, 0, 0, 0});
    annotation (Documentation(info = "<html>
<p>Leon-Gonzalez et al. 2024, Table 2: m = 0.096 kg, inertia about the centre of gravity (x 1e-5 kg.m2),
centre of gravity r_g = [5.33, 1.61, 1.00] x 1e-3 m in the link's modified-DH frame O_1.
Table 3: displaced volume 0.076e-3 m3, rotational added inertia diag(0.004, 0.004, 0) x 1e-3
kg.m2, linear damping d = diag(0.67, 0.67, 0) x 1e-3 N.s/m and D = diag(0.07) x 1e-3
N.m.s/rad. The body origin is the centre of gravity; see the package documentation for the
frame and the signs.</p>
</html>"));
  end AnthropomorphicLink1Data;

  record AnthropomorphicLink2Data "Link 2 (upper arm) of the 3-DOF arm of Leon-Gonzalez et al. 2024, Tables 2 and 3"
    extends MurCoSim.Data.VehicleData(
      m = 0.183,
      I_g = {{3.72e-5, 0, 0.35e-5}, {0, 39.65e-5, 0}, {0.35e-5, 0, 38.08e-5}},
      r_g = {0, 0, 0},
      r_b = {0, 0, 0},
      volume = 0.152e-3,
      added_mass = {0.152, 0.152, 0.152, 0, 2.8e-3, 2.8e-3},
      D_L = {0, 0.67e-3, 0.67e-3, 0.07e-3, 0.07e-3, 0.07e-3},
      D_Q = {0, 0, 0, 0, 0, 0});
    annotation (Documentation(info = "<html>
<p>Leon-Gonzalez et al. 2024, Table 2: m = 0.183 kg, inertia about the centre of gravity (x 1e-5 kg.m2),
r_g = [65.56, 0.01, 0.86] x 1e-3 m in O_2. Table 3: displaced volume 0.152e-3 m3,
rotational added inertia diag(0, 2.8, 2.8) x 1e-3 kg.m2, d = diag(0, 0.67, 0.67) x 1e-3
N.s/m, D = diag(0.07) x 1e-3 N.m.s/rad. Table 1: the link is a = 0.12 m long (x axis of O_2
to the elbow joint).</p>
</html>"));
  end AnthropomorphicLink2Data;

  record AnthropomorphicLink3Data "Link 3 (forearm) of the 3-DOF arm of Leon-Gonzalez et al. 2024, Tables 2 and 3"
    extends MurCoSim.Data.VehicleData(
      m = 0.217,
      I_g = {{7.16e-5, 0.47e-5, 6.06e-5}, {0.47e-5, 138.66e-5, 0.02e-5}, {6.06e-5, 0.02e-5, 138.38e-5}},
      r_g = {0, 0, 0},
      r_b = {0, 0, 0},
      volume = 0.164e-3,
      added_mass = {0.164, 0.164, 0.164, 0, 10.3e-3, 10.3e-3},
      D_L = {0, 0.67e-3, 0.67e-3, 0.07e-3, 0.07e-3, 0.07e-3},
      D_Q = {0, 0, 0, 0, 0, 0});
    annotation (Documentation(info = "<html>
<p>Leon-Gonzalez et al. 2024, Table 2: m = 0.217 kg, inertia about the centre of gravity (x 1e-5 kg.m2),
r_g = [53.78, 0.30, 1.09] x 1e-3 m in O_3. Table 3: displaced volume 0.164e-3 m3,
rotational added inertia diag(0, 10.3, 10.3) x 1e-3 kg.m2, d = diag(0, 0.67, 0.67) x 1e-3
N.s/m, D = diag(0.07) x 1e-3 N.m.s/rad.</p>
<p>Assumption (Leon-Gonzalez et al. (2024) gives no end-effector offset): the end effector is 0.25 m along the
x axis of O_3. Reach 0.12 + 0.25 = 0.37 m covers the task-space circle of the paper's
test 3 (farthest point 0.344 m, nearest 0.184 m from the attachment point) with the elbow
bent; a uniform rod of this link's mass and transverse inertia would be 0.28 m long.</p>
</html>"));
  end AnthropomorphicLink3Data;

  record RodLinkData "Sealed aluminium tube, 0.2 m long and 30 mm across: the links of Iversen et al. (2019)'s arms"
    extends MurCoSim.Data.VehicleData(
      m = 0.141372,
      I_g = {{2.5918e-5, 0, 0}, {0, 4.8420e-4, 0}, {0, 0, 4.8420e-4}},
      r_g = {0, 0, 0},
      r_b = {0, 0, 0},
      volume = 1.41372e-4,
      added_mass = {0, 0.141372, 0.141372, 0, 4.712e-4, 4.712e-4},
      D_L = {0, 0, 0, 0, 0, 0},
      D_Q = {0, 3.6, 3.6, 0, 9.0e-4, 9.0e-4});
    annotation (Documentation(info = "<html>
<p>Iversen et al. (2019) (the moving frame method for an ROV with two 2-link arms) gives no numbers.
Assumption: every link is a sealed aluminium tube (2700 kg/m3) of length l = 0.2 m and outer
radius r_o = 0.015 m along its x axis, with the body origin at its centre (Iversen et al. (2019) places each
link's centre of mass at l/2). Its wall is chosen for neutral buoyancy, as manipulator links
are often trimmed: displaced volume pi r_o^2 l = 1.41372e-4 m3, mass 0.141372 kg, inner radius
r_i = 0.011902 m. Inertia about the centre: m (r_o^2 + r_i^2)/2 = 2.5918e-5 kg.m2 axially,
m (3 (r_o^2 + r_i^2) + l^2)/12 = 4.8420e-4 kg.m2 transversely. Iversen et al. (2019) models no fluid
forces on the links; for a run in water we use slender-body strip theory: transverse added
mass rho pi r_o^2 l = 0.141372 kg, rotational added inertia rho pi r_o^2 l^3/12 = 4.712e-4
kg.m2, none axially; cross-flow drag with C_d = 1.2: 0.5 rho C_d 2 r_o l = 3.6 N.s2/m2
transversely and 0.5 rho C_d 2 r_o l^4/32 = 9.0e-4 N.m.s2/rad2 in rotation.</p>
</html>"));
  end RodLinkData;

  model AnthropomorphicLink1 "Link 1 of Leon-Gonzalez et al. (2024)'s 3-DOF underwater arm"
    extends MurCoSim.Vehicles.Vehicle(
      redeclare record Data = MurCoSim.Arms.AnthropomorphicLink1Data);
  end AnthropomorphicLink1;

  model AnthropomorphicLink2 "Link 2 of Leon-Gonzalez et al. (2024)'s 3-DOF underwater arm"
    extends MurCoSim.Vehicles.Vehicle(
      redeclare record Data = MurCoSim.Arms.AnthropomorphicLink2Data);
  end AnthropomorphicLink2;

  model AnthropomorphicLink3 "Link 3 of Leon-Gonzalez et al. (2024)'s 3-DOF underwater arm"
    extends MurCoSim.Vehicles.Vehicle(
      redeclare record Data = MurCoSim.Arms.AnthropomorphicLink3Data);
  end AnthropomorphicLink3;

  model RodLink "Aluminium tube link of Iversen et al. (2019)'s two-arm ROV"
    extends MurCoSim.Vehicles.Vehicle(redeclare record Data = MurCoSim.Arms.RodLinkData);
  end RodLink;

  annotation (Documentation(info = "<html>
<p>A manipulator link is a rigid body in water with the rigid-body contract of
<a href=\"modelica://MurCoSim.Vehicles.Vehicle\">Vehicle</a> (states p, q, nu; input
tau_ext; outputs nu_r and M): weight and buoyancy, added mass, damping. Links are joined to
each other and to their vehicle by revolute joints of the orchestrator's constraint coupling,
which also applies the joint motors' torques; a link model therefore has no joint of its
own.</p>
<h4>Leon-Gonzalez et al. (2024): the links of the 3-DOF anthropomorphic arm</h4>
<p>Body frame: the axes of the link's modified Denavit-Hartenberg frame O_l (Table 1), the
origin at the link's centre of gravity. The DH origin, where the joint with the parent sits,
is therefore at -r_g (Table 2) in the body frame. Leon-Gonzalez et al. (2024) lets every external force of a
link act through its centre of gravity (Eq. 30: n_el enters the moment balance about g_l,
f_el only the force balance) and places the centre of buoyancy there too (r_b/g = 0).
The added-mass and damping forces of Eqs. 35-36 are read with the acceleration and velocity
of that centre: f_a = -m_f a_g, n_a = -I_a alpha - w x I_a w, f_d = -d v_g, n_d = -D w.
(Taken literally with the DH origin's acceleration a_l, a force through g_l proportional to
the acceleration of another point gives a non-symmetric added-mass matrix.) With the origin at
the centre, Vehicle's diagonal added mass {m_f, m_f, m_f, I_a} and linear damping
{d, D} are exactly these forces.</p>
<p>Signs: the products of inertia and the centre-of-gravity components are taken positive
as printed (their signs could not be recovered); all four arms use the same link data (Table 2
prints equal magnitudes for arms 1-2 and 3-4).</p>
</html>"));
end Arms;
