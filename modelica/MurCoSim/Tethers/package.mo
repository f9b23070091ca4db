within MurCoSim;
package Tethers "Tethers and umbilicals: lumped-mass cables between two bodies or a body and a fixed point"

  model Tether "Lumped-mass tether: axial stiffness and damping, normal and tangential drag, weight and buoyancy"
    constant Integer n = 10 "Number of segments (n + 1 nodes, the two end nodes on the bodies)";
    parameter MurCoSim.Length L = 8 "Unstretched length";
    parameter MurCoSim.Length d = 0.0076
      "Diameter (Blue Robotics Fathom ROV tether: 7.6 mm)";
    parameter MurCoSim.LinearDensity m_l = 0.043
      "Mass per unit length (Blue Robotics Fathom ROV tether: 0.043 kg/m)";
    parameter MurCoSim.Force EA = 1e4
      "Axial stiffness: strain 0.1 % at 10 N (a nearly inextensible tether; see the documentation)";
    parameter Real zeta(min = 0) = 1
      "Damping ratio of a segment's axial mode (MoorDyn's BA/-zeta input; 1: critically damped)";
    parameter Real C_n(min = 0) = 1.2
      "Normal drag coefficient on the frontal area d l (von Benzon et al. 2022)";
    parameter Real C_t(min = 0) = 0.01
      "Tangential drag coefficient on the surface area pi d l (von Benzon et al. 2022; Nielsen 2018, eq. 6.15)";
    parameter Real Ca_n(min = 0) = 1
      "Normal added-mass coefficient of the displaced water (circular cylinder)";
    parameter Real Ca_t(min = 0) = 0 "Tangential added-mass coefficient";
    parameter MurCoSim.Density rho = 1000 "Density of the water";
    parameter MurCoSim.Acceleration g = 9.81 "Gravitational acceleration";
    parameter MurCoSim.Position r_a[3] = {0, 0, 0}
      "Attachment point of end a in body a's frame (relative to its origin CO)";
    parameter MurCoSim.Position r_b[3] = {0, 0, 8.008}
      "Attachment point of end b in body b's frame (a fixed point: its NED position, with body b left at rest at the origin; default: below the origin, the default tether stretched to 10 N)";

    MurCoSim.Interfaces.RealInput p_a[3](each start = 0, each unit = "m") "Body a: position of its origin CO, NED";
    MurCoSim.Interfaces.RealInput q_a[4](start = {1, 0, 0, 0}) "Body a: unit quaternion body to NED, scalar first";
    MurCoSim.Interfaces.RealInput nu_a[6](each start = 0, unit = {"m/s", "m/s", "m/s", "rad/s", "rad/s", "rad/s"})
      "Body a: body-frame velocity [u v w p q r]";
    MurCoSim.Interfaces.RealInput p_b[3](each start = 0, each unit = "m") "Body b: position of its origin CO, NED";
    MurCoSim.Interfaces.RealInput q_b[4](start = {1, 0, 0, 0}) "Body b: unit quaternion body to NED, scalar first";
    MurCoSim.Interfaces.RealInput nu_b[6](each start = 0, unit = {"m/s", "m/s", "m/s", "rad/s", "rad/s", "rad/s"})
      "Body b: body-frame velocity [u v w p q r]";
    MurCoSim.Interfaces.RealInput v_c[3](each start = 0, each unit = "m/s") "Ocean current velocity, NED (uniform along the tether)";

    MurCoSim.Interfaces.RealOutput tau_a[6](unit = {"N", "N", "N", "N.m", "N.m", "N.m"})
      "Generalized force of the tether on body a at its CO, body-a frame (connect to tau_ext)";
    MurCoSim.Interfaces.RealOutput tau_b[6](unit = {"N", "N", "N", "N.m", "N.m", "N.m"})
      "Generalized force of the tether on body b at its CO, body-b frame (connect to tau_ext)";
    MurCoSim.Interfaces.RealOutput f_a[3](each unit = "N") "Force of the tether on its end a, NED";
    MurCoSim.Interfaces.RealOutput f_b[3](each unit = "N") "Force of the tether on its end b, NED";
    MurCoSim.Interfaces.RealOutput tension_a(unit = "N") "Tension of the first segment (at end a)";
    MurCoSim.Interfaces.RealOutput tension_b(unit = "N") "Tension of the last segment (at end b)";
    MurCoSim.Interfaces.RealOutput x[n + 1, 3](each unit = "m") "Node positions from end a to end b, NED";

    MurCoSim.Length y[n - 1, 3](each start = 0, each fixed = true)
      "Inner nodes: displacement from their place on the straight line between the ends, NED";
    MurCoSim.Velocity v[n - 1, 3](each start = 0, each fixed = true)
      "Inner nodes: velocity, NED";

  protected
    parameter MurCoSim.Length l_0 = L/n "Unstretched segment length";
    parameter Real A = 3.141592653589793*d^2/4 "Cross-section area (m2)";
    parameter Real BA(unit = "N.s") = zeta*l_0*sqrt(EA*m_l)
      "Axial damping coefficient of a segment (MoorDyn's BA from zeta)";
    parameter Real w_net(unit = "N/m") = (m_l - rho*A)*g "Weight less buoyancy per unit length";
    parameter Real e_z[3] = {0, 0, 1} "NED down";
    parameter MurCoSim.Length l_min = 1e-9*l_0
      "Shortest length a direction is taken along (two nodes in one place give none)";
    parameter MurCoSim.Mass m_a = (m_l + rho*A*Ca_n)*l_0 "Inner node mass with normal added mass";
    parameter Real m_b(unit = "kg") = rho*A*(Ca_t - Ca_n)*l_0
      "Change of a node's added mass along its tangent";
    Real R_a[3, 3] "Rotation matrix body a to NED";
    Real R_b[3, 3] "Rotation matrix body b to NED";
    MurCoSim.Velocity o_a[3] "Velocity of end a relative to body a's CO, body-a frame (omega x r_a)";
    MurCoSim.Velocity o_b[3] "Velocity of end b relative to body b's CO, body-b frame (omega x r_b)";
    MurCoSim.Position xa[3] "End a, NED";
    MurCoSim.Position xb[3] "End b, NED";
    MurCoSim.Velocity va[3] "Velocity of end a, NED";
    MurCoSim.Velocity vb[3] "Velocity of end b, NED";
    MurCoSim.Velocity u[n + 1, 3] "Node velocities, NED";
    MurCoSim.Length l[n] "Stretched segment lengths";
    Real e[n, 3] "Segment unit vectors, from end a towards end b";
    MurCoSim.Force T_kv[n] "Elastic plus damping force of a segment (Kelvin-Voigt)";
    MurCoSim.Force T[n] "Segment tensions: T_kv while stretched and pulling, else 0";
    Real t[n + 1, 3] "Node tangents";
    Real t_norm[n + 1] "Length of the tangent before normalization";
    MurCoSim.Length l_node[n + 1] "Stretched length each node stands for (half of each adjacent segment)";
    MurCoSim.Length m_node[n + 1] "Unstretched length each node stands for";
    MurCoSim.Velocity u_r[n + 1, 3] "Water velocity relative to a node, NED";
    MurCoSim.Velocity u_t[n + 1] "Tangential component of u_r";
    MurCoSim.Velocity u_nv[n + 1, 3] "Normal part of u_r";
    MurCoSim.Velocity u_n[n + 1] "Magnitude of the normal part of u_r";
    MurCoSim.Force F[n + 1, 3] "Drag, weight and buoyancy on each node, NED";
    MurCoSim.Force G[n - 1, 3] "Total force on each inner node, NED";
    MurCoSim.Force Gt[n - 1] "Tangential component of G";
    MurCoSim.Force fb_a[3] "Force on end a, body-a frame";
    MurCoSim.Force fb_b[3] "Force on end b, body-b frame";

  equation
    // Attitude of the end bodies (Nielsen 2018, eq. 2.12).
    R_a[1, 1] = 1 - 2*(q_a[3]^2 + q_a[4]^2);
    R_a[1, 2] = 2*(q_a[2]*q_a[3] - q_a[4]*q_a[1]);
    R_a[1, 3] = 2*(q_a[2]*q_a[4] + q_a[3]*q_a[1]);
    R_a[2, 1] = 2*(q_a[2]*q_a[3] + q_a[4]*q_a[1]);
    R_a[2, 2] = 1 - 2*(q_a[2]^2 + q_a[4]^2);
    R_a[2, 3] = 2*(q_a[3]*q_a[4] - q_a[2]*q_a[1]);
    R_a[3, 1] = 2*(q_a[2]*q_a[4] - q_a[3]*q_a[1]);
    R_a[3, 2] = 2*(q_a[3]*q_a[4] + q_a[2]*q_a[1]);
    R_a[3, 3] = 1 - 2*(q_a[2]^2 + q_a[3]^2);
    R_b[1, 1] = 1 - 2*(q_b[3]^2 + q_b[4]^2);
    R_b[1, 2] = 2*(q_b[2]*q_b[3] - q_b[4]*q_b[1]);
    R_b[1, 3] = 2*(q_b[2]*q_b[4] + q_b[3]*q_b[1]);
    R_b[2, 1] = 2*(q_b[2]*q_b[3] + q_b[4]*q_b[1]);
    R_b[2, 2] = 1 - 2*(q_b[2]^2 + q_b[4]^2);
    R_b[2, 3] = 2*(q_b[3]*q_b[4] - q_b[2]*q_b[1]);
    R_b[3, 1] = 2*(q_b[2]*q_b[4] - q_b[3]*q_b[1]);
    R_b[3, 2] = 2*(q_b[3]*q_b[4] + q_b[2]*q_b[1]);
    R_b[3, 3] = 1 - 2*(q_b[2]^2 + q_b[3]^2);

    // End points and their velocities: x = p + R r, v = R (nu_v + omega x r).
    o_a[1] = nu_a[5]*r_a[3] - nu_a[6]*r_a[2];
    o_a[2] = nu_a[6]*r_a[1] - nu_a[4]*r_a[3];
    o_a[3] = nu_a[4]*r_a[2] - nu_a[5]*r_a[1];
    o_b[1] = nu_b[5]*r_b[3] - nu_b[6]*r_b[2];
    o_b[2] = nu_b[6]*r_b[1] - nu_b[4]*r_b[3];
    o_b[3] = nu_b[4]*r_b[2] - nu_b[5]*r_b[1];
    for i in 1:3 loop
      xa[i] = p_a[i] + R_a[i, 1]*r_a[1] + R_a[i, 2]*r_a[2] + R_a[i, 3]*r_a[3];
      xb[i] = p_b[i] + R_b[i, 1]*r_b[1] + R_b[i, 2]*r_b[2] + R_b[i, 3]*r_b[3];
      va[i] = R_a[i, 1]*(nu_a[1] + o_a[1]) + R_a[i, 2]*(nu_a[2] + o_a[2]) + R_a[i, 3]*(nu_a[3] + o_a[3]);
      vb[i] = R_b[i, 1]*(nu_b[1] + o_b[1]) + R_b[i, 2]*(nu_b[2] + o_b[2]) + R_b[i, 3]*(nu_b[3] + o_b[3]);
      x[1, i] = xa[i];
      x[n + 1, i] = xb[i];
      u[1, i] = va[i];
      u[n + 1, i] = vb[i];
    end for;

    // Inner nodes, measured from the straight line between the ends, so that the tether starts
    // straight wherever the bodies start (y = 0) and at rest (v = 0).
    for k in 1:n - 1 loop
      for i in 1:3 loop
        x[k + 1, i] = xa[i] + k/n*(xb[i] - xa[i]) + y[k, i];
        u[k + 1, i] = v[k, i];
        der(y[k, i]) = v[k, i] - va[i] - k/n*(vb[i] - va[i]);
      end for;
    end for;

    // Segments: EA strain plus BA strain rate (Hall and Goupee 2015, MoorDyn) while the segment
    // is stretched; none when it is slack (the material is not strained: MoorDyn keeps the
    // damping there, which resists straightening a slack tether) and none that would push.
    for s in 1:n loop
      l[s] = sqrt((x[s + 1, 1] - x[s, 1])^2 + (x[s + 1, 2] - x[s, 2])^2 + (x[s + 1, 3] - x[s, 3])^2);
      for i in 1:3 loop
        e[s, i] = (x[s + 1, i] - x[s, i])/noEvent(max(l[s], l_min));
      end for;
      T_kv[s] = EA*(l[s] - l_0)/l_0
        + BA/l_0*(e[s, 1]*(u[s + 1, 1] - u[s, 1]) + e[s, 2]*(u[s + 1, 2] - u[s, 2]) + e[s, 3]*(u[s + 1, 3] - u[s, 3]));
      T[s] = if noEvent(l[s] > l_0 and T_kv[s] > 0) then T_kv[s] else 0;
    end for;

    // Node tangents (along the chord of the neighbours, as MoorDyn) and lengths.
    for i in 1:3 loop
      t[1, i] = e[1, i];
      t[n + 1, i] = e[n, i];
    end for;
    t_norm[1] = 1;
    t_norm[n + 1] = 1;
    l_node[1] = l[1]/2;
    l_node[n + 1] = l[n]/2;
    m_node[1] = l_0/2;
    m_node[n + 1] = l_0/2;
    for k in 2:n loop
      t_norm[k] = sqrt((x[k + 1, 1] - x[k - 1, 1])^2 + (x[k + 1, 2] - x[k - 1, 2])^2 + (x[k + 1, 3] - x[k - 1, 3])^2);
      for i in 1:3 loop
        t[k, i] = (x[k + 1, i] - x[k - 1, i])/noEvent(max(t_norm[k], l_min));
      end for;
      l_node[k] = (l[k - 1] + l[k])/2;
      m_node[k] = l_0;
    end for;

    // Drag in the relative flow (Morison): normal 1/2 rho d C_n |u_n| u_n on the frontal area,
    // tangential 1/2 rho pi d C_t |u_t| u_t on the surface area; weight less buoyancy along NED z.
    for k in 1:n + 1 loop
      for i in 1:3 loop
        u_r[k, i] = v_c[i] - u[k, i];
      end for;
      u_t[k] = u_r[k, 1]*t[k, 1] + u_r[k, 2]*t[k, 2] + u_r[k, 3]*t[k, 3];
      for i in 1:3 loop
        u_nv[k, i] = u_r[k, i] - u_t[k]*t[k, i];
      end for;
      u_n[k] = sqrt(u_nv[k, 1]^2 + u_nv[k, 2]^2 + u_nv[k, 3]^2);
      for i in 1:3 loop
        F[k, i] = 0.5*rho*d*C_n*l_node[k]*u_n[k]*u_nv[k, i]
          + 0.5*rho*3.141592653589793*d*C_t*l_node[k]*abs(u_t[k])*u_t[k]*t[k, i]
          + w_net*m_node[k]*e_z[i];
      end for;
    end for;

    // Inner nodes: (m I + m_b t t') dv/dt = G, solved in closed form (Sherman-Morrison).
    for k in 1:n - 1 loop
      for i in 1:3 loop
        G[k, i] = T[k + 1]*e[k + 1, i] - T[k]*e[k, i] + F[k + 1, i];
      end for;
      Gt[k] = G[k, 1]*t[k + 1, 1] + G[k, 2]*t[k + 1, 2] + G[k, 3]*t[k + 1, 3];
      for i in 1:3 loop
        der(v[k, i]) = (G[k, i] - m_b/(m_a + m_b)*Gt[k]*t[k + 1, i])/m_a;
      end for;
    end for;

    // Forces on the ends: the end segment's tension and the loads of the end node's half
    // segment, whose own inertia the body carries (see the documentation).
    for i in 1:3 loop
      f_a[i] = T[1]*e[1, i] + F[1, i];
      f_b[i] = -T[n]*e[n, i] + F[n + 1, i];
      fb_a[i] = R_a[1, i]*f_a[1] + R_a[2, i]*f_a[2] + R_a[3, i]*f_a[3];
      fb_b[i] = R_b[1, i]*f_b[1] + R_b[2, i]*f_b[2] + R_b[3, i]*f_b[3];
      tau_a[i] = fb_a[i];
      tau_b[i] = fb_b[i];
    end for;
    tau_a[4] = r_a[2]*fb_a[3] - r_a[3]*fb_a[2];
    tau_a[5] = r_a[3]*fb_a[1] - r_a[1]*fb_a[3];
    tau_a[6] = r_a[1]*fb_a[2] - r_a[2]*fb_a[1];
    tau_b[4] = r_b[2]*fb_b[3] - r_b[3]*fb_b[2];
    tau_b[5] = r_b[3]*fb_b[1] - r_b[1]*fb_b[3];
    tau_b[6] = r_b[1]*fb_b[2] - r_b[2]*fb_b[1];
    tension_a = T[1];
    tension_b = T[n];

    annotation (Documentation(info = "<html>
<p>A tether or umbilical as a lumped-mass cable (the discretization of MoorDyn, Hall and
Goupee 2015): n segments of unstretched length l_0 = L/n between n + 1 nodes. The two end
nodes sit on attachment points of two bodies; the n - 1 inner nodes are states. Per segment:</p>
<pre>
  T = max(0, EA (l - l_0)/l_0 + BA (dl/dt)/l_0) while l > l_0, else 0,   BA = zeta l_0 sqrt(EA m_l)
</pre>
<p>A slack segment carries nothing, damping included: its material is not strained. (MoorDyn
damps slack segments too, so that straightening a slack line takes a force: 2.1 N for the
default tether, 8 m slack between ends 4 m apart, pulled along itself at 1 m/s without drag,
where this model takes none.)</p>
<p>Per node, with its half of each adjacent segment (length l_k), tangent t (the chord of its
neighbours; at an end, its segment) and the water's velocity relative to it u_r = v_c - v
split into u_t = (u_r.t) t and u_n = u_r - u_t:</p>
<pre>
  F = 1/2 rho d C_n l_k |u_n| u_n + 1/2 rho pi d C_t l_k |u_t| u_t + (m_l - rho A) g l_0 e_z
  (m_l l_0 I + rho A l_0 (Ca_n (I - t t') + Ca_t t t')) dv/dt = T_k+1 e_k+1 - T_k e_k + F
</pre>
<p>Tangential drag acts on the surface area pi d l, normal drag on the frontal area d l, as in
MoorDyn's CdAx and Cd. With the Fathom tether's d = 7.6 mm and C_t = 0.01, 1/2 rho pi d C_t =
0.119 N s2/m3: Nielsen's (2018, eq. 6.15) estimate 0.12 |u| u L of a tether towed lengthwise.</p>
<h4>Frames, units, connections</h4>
<p>Everything is in SI units and NED. Each end is given by a body's state as the rigid-body
contract has it (<code>p</code>, <code>q</code>, <code>nu</code>) and the attachment point in
that body's frame (<code>r_a</code>, <code>r_b</code>); the outputs <code>tau_a</code>,
<code>tau_b</code> are the tether's generalized forces on the bodies at their origins in
their body frames, the vehicles' <code>tau_ext</code>. A fixed end (an anchor, a point on a
quay) is a body left at rest: its inputs unconnected (p = 0, q = 1, nu = 0) and
<code>r_b</code> its NED position. A surface vessel modelled as a body connects as a vehicle
does. The current <code>v_c</code> is uniform along the tether (the scenario's environment
current). <code>f_a</code>, <code>f_b</code> give the same forces in NED at the attachment
points, <code>x</code> the node positions.</p>
<h4>Assumptions</h4>
<ul>
<li>No bending or torsional stiffness, no seabed contact, no current varying along the
tether, no Froude-Krylov force of an accelerating flow.</li>
<li>The end nodes move with the bodies: the drag and net weight of their half segments act on
the bodies; their mass (m_l l_0/2 and the added mass, 35 g for the defaults) is left out of
the bodies' inertia.</li>
<li>The inner nodes start on the straight line between the ends, at rest.</li>
</ul>
<h4>Step sizes</h4>
<p>The fastest modes of the discretized line are axial: up to 2 (n/L) sqrt(EA/m_l) (MoorDyn's
documentation), 1206 rad/s for the defaults. Held straight and taut, the line is a chain of
springs and dampers whose fastest mode has the frequency (2/l_0) sqrt(EA/m_l) sin((n-1) pi/(2n))
and the damping ratio zeta sin((n-1) pi/(2n)): RK4 is stable on it up to 2.36 ms. The README
gives the measured limit for the shipped scenario, where the tether is curved and partly slack
(1.9 ms stable, 2.0 ms rings); the adaptive solvers find their steps by themselves. EA of the
Fathom tether is not published; the default makes it nearly inextensible (strain 0.1 % at
10 N), which is what the end loads depend on, without making the line stiffer than needed.</p>
<h4>Sources</h4>
<ul>
<li>M. Hall, A. Goupee, Validation of a lumped-mass mooring line model with DeepCwind
semisubmersible model test data, Ocean Engineering 104, 590-603, 2015 (MoorDyn).</li>
<li>M. von Benzon, F. F. Sorensen, E. Uth, J. Jouffroy, J. Liniger, S. Pedersen, An Open-Source
Benchmark Simulator: Control of a BlueROV2 Underwater Robot, Journal of Marine Science and
Engineering 10(12), 1898, 2022 (tether C_n = 1.2, C_t = 0.01).</li>
<li>Blue Robotics, Fathom ROV Tether, product documentation (diameter 7.6 mm, 0.043 kg/m).</li>
<li>Nielsen (2018), eq. 6.15: the tether drag estimate of the two-vehicle experiments.</li>
</ul>
</html>"));
  end Tether;

  annotation (Documentation(info = "<html>
<p>Cables that tie a vehicle to a fixed point, a surface vessel or another vehicle. A tether is
a component of its own: it reads the end bodies' states and adds its forces to their
<code>tau_ext</code> through scenario connections.</p>
</html>"));
end Tethers;
