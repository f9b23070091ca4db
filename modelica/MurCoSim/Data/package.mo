within MurCoSim;
package Data "Parameter sets of vehicles, connector bracket and thrusters, each number with its source"

  record VehicleData "Rigid-body, hydrostatic and hydrodynamic parameters of one body"
    parameter MurCoSim.Mass m = 1 "Mass in air";
    parameter MurCoSim.MomentOfInertia I_g[3, 3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
      "Inertia tensor about the centre of gravity, body axes";
    parameter MurCoSim.Position r_g[3] = {0, 0, 0}
      "Centre of gravity relative to the body origin CO, body frame";
    parameter MurCoSim.Position r_b[3] = {0, 0, 0}
      "Centre of buoyancy relative to the body origin CO, body frame";
    parameter MurCoSim.Volume volume = 1e-3 "Displaced volume (buoyancy = rho*g*volume)";
    parameter Real added_mass[6](unit = {"kg", "kg", "kg", "kg.m2", "kg.m2", "kg.m2"}) =
      {0, 0, 0, 0, 0, 0}
      "Diagonal of the added-mass matrix M_A as positive magnitudes (-X_udot ... -N_rdot)";
    parameter Real D_L[6](unit = {"N.s/m", "N.s/m", "N.s/m", "N.m.s/rad", "N.m.s/rad", "N.m.s/rad"}) =
      {0, 0, 0, 0, 0, 0} "Linear damping magnitudes (-X_u ... -N_r)";
    parameter Real D_Q[6](unit = {"N.s2/m2", "N.s2/m2", "N.s2/m2", "N.m.s2/rad2", "N.m.s2/rad2", "N.m.s2/rad2"}) =
      {0, 0, 0, 0, 0, 0} "Quadratic damping magnitudes (-X_|u|u ... -N_|r|r)";
    parameter Real added_mass_coupling[6, 6] = fill(0, 6, 6)
      "Off-diagonal part of a full added-mass matrix M_A, symmetric with a zero diagonal (kg, kg.m, kg.m2 by block; -X_wdot in row 1, column 3)";
    parameter Real D_L_coupling[6, 6] = fill(0, 6, 6)
      "Off-diagonal part of a full linear damping matrix (N.s/m, N.s, N.m.s/rad by block; magnitudes as D_L)";
    parameter Real D_Q_coupling[6, 6] = fill(0, 6, 6)
      "Off-diagonal part of a full quadratic damping matrix, acting on |nu_r[j]| nu_r[j] (magnitudes as D_Q)";
    parameter Integer n_thrusters = 0 "Number of thruster mounts";
    parameter MurCoSim.Position thruster_position[n_thrusters, 3]
      "Thruster positions relative to CO, body frame, one row per mount";
    parameter Real thruster_direction[n_thrusters, 3]
      "Unit thrust directions for a positive command, body frame, one row per mount";
    parameter Integer n_ports = 0 "Number of docking ports";
    parameter MurCoSim.Position port_position[n_ports, 3]
      "Mating points of the docking ports relative to CO, body frame, one row per port";
    parameter Real port_normal[n_ports, 3]
      "Outward unit normals of the docking ports (x axis of the mating frame), body frame";
    annotation (Documentation(info = "<html>
<p>The generalized mass is M = M_RB + M_A with M_RB built from m, I_g and r_g
(Fossen 2011, eq. 3.44) and M_A = diag(added_mass) + added_mass_coupling. Damping acts on the
velocity relative to the water: D(nu_r) nu_r = (D_L + D_Q |nu_r|) nu_r element-wise (diagonal
damping, Nielsen 2018, eq. 2.22) plus D_L_coupling nu_r + D_Q_coupling diag(|nu_r|) nu_r for the
off-diagonal terms of full matrices. The coupling matrices are zero by default; a full M_A must
be symmetric and M_RB + M_A positive definite (the orchestrator checks the assembled M of every
body when it builds a system).
The thruster layout and the docking ports are not used by the body's equations; the
orchestrator reads them to mount thruster components, build the thrust allocation and watch
port pairs for docking.</p>
</html>"));
  end VehicleData;

  record GenericVehicle "Generic 20 kg vehicle of the Udwadia-Kalaba verification cases"
    extends VehicleData(
      m = 20,
      I_g = {{0.001, 0, 0}, {0, 0.001, 0}, {0, 0, 0.001}},
      r_g = {0, 0, 0},
      r_b = {0, 0, -0.1},
      volume = 0.02,
      added_mass = {2.5, 2.5, 2.5, 0.0005, 0.0005, 0.0005},
      D_L = {5, 5, 5, 0.001, 0.001, 0.001},
      D_Q = {0, 0, 0, 0, 0, 0});
    annotation (Documentation(info = "<html>
<p>Source: Nielsen (2018) Table 3.3 for m, inertia, added mass and linear damping;
Sec. 3.6.1 for the centre of buoyancy r_b = [0, 0, -0.1] m and neutral buoyancy.</p>
<p>Assumptions where Nielsen (2018) is silent: origin at the centre of gravity (r_g = 0, as
everywhere in Nielsen (2018)); neutral buoyancy written as volume = m/rho with rho = 1000 kg/m3
(the model's default fluid density); no quadratic damping (Table 3.3 lists none).</p>
</html>"));
  end GenericVehicle;

  record BlueROV "BlueROV of Nielsen's (2018) towing-tank identification (Table 5.2)"
    extends VehicleData(
      m = 11.5,
      I_g = {{0.16, 0, 0}, {0, 0.16, 0}, {0, 0, 0.16}},
      r_g = {0, 0, 0.02},
      r_b = {0, 0, 0},
      volume = 0.0115,
      added_mass = {2.6, 18.5, 13.3, 0.054, 0.0173, 0.28},
      D_L = {0, 0.26, 0.19, 0.895, 0.287, 4.64},
      D_Q = {34.96, 103.25, 74.23, 0.084, 0.028, 0.43},
      n_thrusters = 6,
      thruster_position = {{-0.15, -0.12, 0}, {-0.15, 0.12, 0}, {0, 0, 0}, {0.15, -0.12, 0},
        {0.15, 0.12, 0}, {-0.15, 0, 0}},
      thruster_direction = {{1, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}},
      n_ports = 2,
      port_position = {{0, 0.19, 0}, {0, -0.19, 0}},
      port_normal = {{0, 1, 0}, {0, -1, 0}});
    annotation (Documentation(info = "<html>
<p>Hydrodynamics: Nielsen (2018) Table 5.2, towing tank for surge, heave and pitch, the
other directions extrapolated (Sec. 5.4.4), added mass from CFD.</p>
<p>Nielsen (2018) gives no mass, inertia, centre of gravity or thruster layout. Documented
assumptions: mass, inertia and r_g of the BlueROV2 as given for the BlueROV2 Heavy in
Leon-Gonzalez et al. 2024, Sec. 6.1 (m = 11.5 kg, I_g = 0.16 kg.m2 on each axis, r_g = [0, 0, 0.02] m) with the
origin at the centre of buoyancy (r_b = 0) as in Wu (2018); neutral buoyancy (volume =
m/rho), as Nielsen's (2018) depth-held experiments imply; six thrusters in the original BlueROV
layout (two forward thrusters aft at y = -+0.12 m, the first on the port side, one lateral,
three vertical), positions estimated from the frame size; two docking ports on the sides,
0.19 m from the centre line (port 1 starboard, port 2 port side), where the connector bracket
of Nielsen's (2018) Ch. 6 attaches.</p>
</html>"));
  end BlueROV;

  record BlueROV2Heavy "BlueROV2 Heavy of Leon-Gonzalez et al. 2024, Sec. 6.1, eight thrusters"
    extends VehicleData(
      m = 11.5,
      I_g = {{0.16, 0, 0}, {0, 0.16, 0}, {0, 0, 0.16}},
      r_g = {0, 0, 0.02},
      r_b = {0, 0, 0},
      volume = 0.011702,
      added_mass = {11.702, 11.702, 11.702, 0.12, 0.12, 0.12},
      D_L = {4.03, 6.22, 5.18, 0.07, 0.07, 0.07},
      D_Q = {18.18, 21.66, 36.99, 1.55, 1.55, 1.55},
      n_thrusters = 8,
      thruster_position = {{0.156, 0.111, 0.085}, {0.156, -0.111, 0.085},
        {-0.156, 0.111, 0.085}, {-0.156, -0.111, 0.085}, {0.12, 0.218, 0},
        {0.12, -0.218, 0}, {-0.12, 0.218, 0}, {-0.12, -0.218, 0}},
      thruster_direction = {{0.7071067811865476, -0.7071067811865476, 0},
        {0.7071067811865476, 0.7071067811865476, 0}, {-0.7071067811865476, -0.7071067811865476, 0},
        {-0.7071067811865476, 0.7071067811865476, 0}, {0, 0, -1}, {0, 0, 1}, {0, 0, 1},
        {0, 0, -1}},
      n_ports = 2,
      port_position = {{0.25, 0, 0}, {-0.25, 0, 0}},
      port_normal = {{1, 0, 0}, {-1, 0, 0}});
    annotation (Documentation(info = "<html>
<p>Source: Leon-Gonzalez et al. (2024, Machines 12(2) 94) Sec. 6.1: m = 11.5 kg,
I_g = diag(0.16) kg.m2, r_g = [0, 0, 0.02] m, displaced volume 11.702e-3 m3
(buoyancy 114.8 N against weight 112.8 N with g = 9.81 m/s2), translational added mass equal
to the displaced fluid mass 11.702 kg in every direction, rotational added inertia 0.12
kg.m2, linear damping d_0 = diag(4.03, 6.22, 5.18) N.s/m and D_0 = diag(0.07) N.m.s/rad.</p>
<p>Leon-Gonzalez et al. (2024) places the centre of buoyancy at the centre of gravity, which leaves the vehicle
without a righting moment; we follow Wu (2018), the source 004 cites, with the origin at the
centre of buoyancy (r_b = 0) and the centre of gravity 0.02 m below it.</p>
<p>Leon-Gonzalez et al. (2024) has no quadratic damping; with linear damping alone the vehicle would reach an
unrealistic 36 m/s at full thrust. The quadratic coefficients are Wu's (2018) values as
tabulated by von Benzon et al. (2022, J. Mar. Sci. Eng. 10, 1898), the same source as the
linear ones above.</p>
<p>Thruster layout: the signs of Leon-Gonzalez et al. (2024)'s T(alpha) (Eq. 38, printed without minus signs)
are those of Wu's (2018) matrix in metres, as a public BlueROV2 Heavy Simulink model
built on Wu (2018) lists it. Each column
[d; r x d] of that matrix is reproduced by the positions and directions here: horizontal
thrusters at (+-0.156, +-0.111, 0.085) m with directions (+-1, -+1, 0)/sqrt(2), vertical
thrusters at (+-0.12, +-0.218, 0) m pointing down (+1) or up (-1) along body z.</p>
<p>Docking ports (assumption, for nose-to-tail docking): port 1 at the bow (0.25, 0, 0) m
facing forward, port 2 at the stern (-0.25, 0, 0) m facing aft.</p>
</html>"));
  end BlueROV2Heavy;

  record RexROV "RexROV work-class ROV with a full 6x6 added-mass matrix (UUV Simulator, from Berg 2012)"
    extends VehicleData(
      m = 1862.87,
      I_g = {{525.39, -1.44, -33.41}, {-1.44, 794.2, 2.6}, {-33.41, 2.6, 691.23}},
      r_g = {0, 0, 0},
      r_b = {0, 0, -0.3},
      volume = 1.83826,
      added_mass = {779.79, 1222, 3659.9, 534.9, 842.69, 224.32},
      added_mass_coupling = {{0, 6.8773, 103.32, 8.5426, 165.54, 7.8033},
        {6.8773, 0, 51.29, -409.44, -5.8488, 62.726},
        {103.32, 51.29, 0, -6.1112, -386.42, 10.7745},
        {8.5426, -409.44, -6.1112, 0, 10.027, -21.019},
        {165.54, -5.8488, -386.42, 10.027, 0, -1.1162},
        {7.8033, 62.726, 10.7745, -21.019, -1.1162, 0}},
      D_L = {74.82, 69.48, 728.4, 268.8, 309.77, 105},
      D_Q = {748.22, 992.53, 1821.01, 672, 774.44, 523.27});
    annotation (Documentation(info = "<html>
<p>Source: the RexROV model of the UUV Simulator (Manhaes et al. 2016), whose hydrodynamic
parameters are those of the ROV SF 30k identified by Berg (2012): mass 1862.87 kg (Berg 2012,
p. 28), inertia tensor about the centre of gravity, displaced volume 1.83826 m3 (p. 31), the
fully populated added-mass matrix (p. 28), linear damping (p. 31) and quadratic damping
(p. 30), all as listed in <code>rexrov_base.xacro</code> and <code>rexrov.gazebo.xacro</code>
of the UUV Simulator. The UUV Simulator's centre of buoyancy (0, 0, 0.3) m above the centre of
gravity is used (it notes that Berg's printed values seem to be in a z-up frame).</p>
<p>Conversions: the UUV Simulator's body frame is x forward, y left, z up; here it is x forward,
y starboard, z down. With T = diag(1, -1, -1, 1, -1, -1), M_A = T M_A,UUV T and
I_g = T3 I_g,UUV T3: the couplings between {surge, roll} and {sway, heave, pitch, yaw} change
sign (e.g. the UUV Simulator's -103.32 kg between surge and heave is +103.32 here), the diagonal
does not. The UUV Simulator's matrix is symmetric except the heave-yaw pair (10.774 and 10.775);
their mean 10.7745 is used in both places. The diagonal is kept in <code>added_mass</code> and
the off-diagonal part in <code>added_mass_coupling</code>. M_RB + M_A is positive definite
(smallest eigenvalue of M_A alone 220 kg.m2). Damping is diagonal as published. No thrusters
are mounted (the UUV Simulator's eight thrusters are not part of this parameter set).</p>
</html>"));
  end RexROV;

  record SphereModule "Spherical module with thruster of Nielsen's (2018) experiments (Table 4.1)"
    extends VehicleData(
      m = 14.3,
      I_g = {{0.13, 0, 0}, {0, 0.16, 0}, {0, 0, 0.02}},
      r_g = {0, 0, 0},
      r_b = {0, 0, -0.0114},
      volume = 0.0143,
      added_mass = {6.49, 8.1, 7.41, 0.0074, 0.0317, 0.0453},
      D_L = {0.61, 3, 1.9, 0.05, 0.0353, 0.0764},
      D_Q = {3.8, 18.9, 12.1, 0.0082, 0.05, 0.108},
      n_thrusters = 1,
      thruster_position = {{-0.2, 0, 0}},
      thruster_direction = {{1, 0, 0}});
    annotation (Documentation(info = "<html>
<p>Source: Nielsen (2018) Table 4.1 (hull with T-200 thruster, CFD): added mass,
quadratic and linear damping, m = 14.3 kg, Ixx, Iyy, Izz, BGz = -0.0114 m (centre of
buoyancy 11.4 mm above the centre of gravity, origin at the centre of gravity).</p>
<p>Assumptions: neutral buoyancy (volume = m/rho), as in Nielsen's (2018) hydrostatic tests;
one thruster on the x axis 0.2 m aft of the centre, pushing forward (Nielsen (2018) gives no
mount position).</p>
</html>"));
  end SphereModule;

  record SphereModuleHull "Spherical module without thruster, hydrostatic test (Table 4.2)"
    extends SphereModule(
      added_mass = {7.06, 7.06, 7.06, 0, 0, 0},
      D_L = {0.67, 0.67, 0.67, 0.048, 0.048, 0.048},
      D_Q = {3.8, 3.8, 3.8, 0.0082, 0.0082, 0.0082},
      n_thrusters = 0,
      thruster_position = fill(0.0, 0, 3),
      thruster_direction = fill(0.0, 0, 3));
    annotation (Documentation(info = "<html>
<p>Source: Nielsen (2018) Table 4.2 (hull without thruster). Mass and inertia are not
re-listed there; those of Table 4.1 are kept (assumption).</p>
</html>"));
  end SphereModuleHull;

  record ConnectorBracket "Aluminium bracket joining two BlueROVs (Table 6.1)"
    extends VehicleData(
      m = 1.296,
      I_g = {{0.03996, 0, 0}, {0, 0.001087, 0}, {0, 0, 0.03889}},
      r_g = {0, 0, 0},
      r_b = {0, 0, 0},
      volume = 0.00048,
      added_mass = {1.52, 0.517, 0, 0, 0, 0.025},
      D_L = {0, 0.26, 0, 0, 0, 4.64},
      D_Q = {17.96, 14.09, 0, 0, 0, 0.11},
      n_ports = 2,
      port_position = {{0, 0.3, 0}, {0, -0.3, 0}},
      port_normal = {{0, 1, 0}, {0, -1, 0}});
    annotation (Documentation(info = "<html>
<p>Hydrodynamics: Nielsen (2018) Table 6.1 (drag from CFD, added mass from WADAM) for
surge, sway and yaw; Nielsen's (2018) experiment was planar and gives nothing for heave, roll and
pitch, which are set to zero here.</p>
<p>Mass and inertia are not given. Assumption: an aluminium plate (2700 kg/m3) 0.6 m long
along y, 0.1 m high along z and 8 mm thick along x, which matches the larger surge than sway
coefficients of Table 6.1: m = 1.296 kg, volume 4.8e-4 m3 (net weight 8.0 N in water), plate
inertia about its centre. Its two docking ports are the plate's ends, (0, +-0.3, 0) m,
facing outward along y.</p>
</html>"));
  end ConnectorBracket;

  record ThrusterData "Static map, dead zone, saturation and dynamics of one thruster"
    parameter MurCoSim.PulseWidth pwm_neutral = 1500 "Command with zero thrust";
    parameter MurCoSim.PulseWidth dead_zone = 0
      "Half width of the band around pwm_neutral without thrust";
    parameter MurCoSim.PulseWidth pwm_min = 1100 "Lowest accepted command";
    parameter MurCoSim.PulseWidth pwm_max = 1900 "Highest accepted command";
    parameter Real K_L(unit = "N/us") = 0 "Linear thrust coefficient";
    parameter Real K_Q(unit = "N/us2") = 0 "Quadratic thrust coefficient";
    parameter Real K_advance(unit = "N.s/(us.m)") = 0
      "Thrust loss per command offset and advance speed";
    parameter MurCoSim.Length torque_arm = 0 "Shaft torque per thrust (Q = torque_arm*T)";
    parameter MurCoSim.Time T_motor = 0.1 "Time constant of the motor (first-order lag)";
    annotation (Documentation(info = "<html>
<p>Command convention used throughout murcosim: thrusters take the ESC pulse width in
microseconds (1100-1900 us, neutral 1500 us), the signal a BlueROV autopilot sends. The map
works on the offset w = pwm - pwm_neutral.</p>
</html>"));
  end ThrusterData;

  record T200 "Blue Robotics T-200 on a hull, fitted in Nielsen (2018) (Table 4.4)"
    extends ThrusterData(
      K_L = 0.03123,
      K_Q = 2.52e-4,
      dead_zone = 25,
      K_advance = 0.0262,
      torque_arm = 0.01,
      T_motor = 0.1);
    annotation (Documentation(info = "<html>
<p>Static map T = K_L w + K_Q |w| w with w = pwm - 1500 us (command offset): Nielsen (2018) (Nielsen (2018))
Table 4.4, hull-mounted bollard fit K_L = 3.123e-2 N/us, K_Q = 2.52e-4 N/us2, R2 = 0.992;
this gives 52.8 N at 1900 us, in line with the T-200's published 5.1 kgf. Dead zone
1500 +- 25 us (Nielsen 2018, Sec. 4.4.1, own tests). Command range 1100-1900 us (Blue Robotics ESC).</p>
<p>Thrust loss with advance speed (Nielsen 2018, eq. 5.8, tau = T|w|w |w|w + T|w|u |w| u_a): the
Nielsen (2018) fits T|w|u but prints no value. Assumption from a linear K_T(J) that reaches zero at
J0 = 0.8, shaft speed 63 rev/s at w = 400 us (3800 rpm) and propeller diameter 0.0762 m:
K_advance = K_Q/(J0 (63/400) 0.0762) = 0.0262 N.s/(us.m), i.e. about 20 % thrust loss at
full command and 1 m/s. Shaft torque Q = 0.01 m * T (K_Q/K_T ~ 0.13 at J = 0 times the
diameter; assumption). Motor time constant 0.1 s (assumption; Nielsen (2018) treats the
thrusters as static, Ch. 6, which the static Thruster model does).</p>
</html>"));
  end T200;

  annotation (Documentation(info = "<html>
<p>Sources (full references in the documentation of the MurCoSim package): Nielsen (2018),
M. C. Nielsen's PhD thesis on modular underwater robots (Technical University of Denmark);
Leon-Gonzalez et al. (2024), Machines 12(2) 94; Wu (2018). Where a source is silent, the
record documents the assumption made.</p>
</html>"));
end Data;
