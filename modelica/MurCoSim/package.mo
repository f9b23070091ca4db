package MurCoSim "Modular underwater robots: vehicles, thrusters and connectors for co-simulation"

  type Mass = Real(final quantity = "Mass", final unit = "kg", min = 0);
  type Length = Real(final quantity = "Length", final unit = "m");
  type Position = Length;
  type Area = Real(final quantity = "Area", final unit = "m2");
  type Volume = Real(final quantity = "Volume", final unit = "m3", min = 0);
  type SecondMomentOfArea = Real(final quantity = "SecondMomentOfArea", final unit = "m4");
  type Density = Real(final quantity = "Density", final unit = "kg/m3", min = 0);
  type LinearDensity = Real(final quantity = "LinearDensity", final unit = "kg/m", min = 0);
  type Acceleration = Real(final quantity = "Acceleration", final unit = "m/s2");
  type Velocity = Real(final quantity = "Velocity", final unit = "m/s");
  type Angle = Real(final quantity = "Angle", final unit = "rad");
  type AngularVelocity = Real(final quantity = "AngularVelocity", final unit = "rad/s");
  type AngularAcceleration = Real(final quantity = "AngularAcceleration", final unit = "rad/s2");
  type AngularFrequency = Real(final quantity = "AngularFrequency", final unit = "rad/s");
  type Force = Real(final quantity = "Force", final unit = "N");
  type Torque = Real(final quantity = "Torque", final unit = "N.m");
  type TranslationalSpringConstant = Real(final quantity = "TranslationalSpringConstant", final unit = "N/m");
  type Time = Real(final quantity = "Time", final unit = "s");
  type MomentOfInertia = Real(final quantity = "MomentOfInertia", final unit = "kg.m2");
  type PulseWidth = Real(final quantity = "Time", final unit = "us")
    "ESC command pulse width";

  annotation (Documentation(info = "<html>
<p>Component library of <b>murcosim</b>, a co-simulation framework for modular underwater
robots. Every model here is exported as an FMI 3.0 Model Exchange FMU and coupled from
Python (Udwadia&ndash;Kalaba constraints, controllers, docking).</p>
<h4>Conventions</h4>
<ul>
<li>Frames: NED (north-east-down) is inertial; the body frame has x forward, y starboard,
z down, origin at the body origin CO (not necessarily the centre of gravity).</li>
<li>Rigid-body contract, shared by every body so that the coupling never needs to know which
component it holds: states <code>p[3]</code> (NED position of CO, m), <code>q[4]</code> (unit
quaternion body&rarr;NED, scalar first), <code>nu[6]</code> (body-frame velocity
[u v w p q r], m/s and rad/s); input <code>tau_ext[6]</code> (external generalized force at
CO in the body frame, N and N.m); output <code>M[6,6]</code> (constant generalized mass
M_RB + M_A).</li>
<li>Hydrodynamic coefficients are positive magnitudes; the forces they produce oppose the
motion (Fossen's sign convention with the minus signs written into the equations).</li>
<li>Components connect through the connectors of
<a href=\"modelica://MurCoSim.Interfaces\">Interfaces</a>: every input is a
<code>RealInput</code>, every output a <code>RealOutput</code>, with its unit where it is
declared (<code>RealInput pwm(start = 1500, unit = \"us\")</code> of a thruster,
<code>RealOutput tau[6](unit = {\"N\", \"N\", \"N\", \"N.m\", \"N.m\", \"N.m\"})</code>).
A thruster's <code>tau</code> connects to its vehicle's <code>tau_ext</code>, the vehicle's
<code>nu_r</code> to the thruster's <code>nu_r</code>; in a scenario the orchestrator makes
these connections between the components' FMUs.</li>
<li>Units: parameters and variables with a named quantity use the types above, which mirror
<code>Modelica.Units.SI</code> (same names, quantities and units; <code>PulseWidth</code>, in
us, is the library's own) so that the library does not depend on the Modelica Standard
Library; quantities it has no name for keep
<code>Real(unit = ...)</code> (drag scalings such as N.s2, the thrust map's N/us2), as do
arrays whose elements have different units (<code>nu[6]</code>: m/s and rad/s).</li>
<li>Parameter sets are records (<a href=\"modelica://MurCoSim.Data\">Data</a>), chosen by
redeclaring a model's record class.</li>
<li>Only standard Modelica is used; the same sources export with OpenModelica. murcosim builds
the library with its default front end, rumoca: pymoca 0.12 drops the input or output of a
short connector class and the dimensions of an array of a derived type, and is refused on
this library in one line.</li>
</ul>
<h4>References</h4>
<p>Models and records cite their sources by author and year:</p>
<ul>
<li>Nielsen (2018): M. C. Nielsen, <i>Modular Underwater Robots - Modeling and Docking
Control</i>, PhD thesis, Technical University of Denmark, 2018.</li>
<li>Nielsen et al. (2016): M. C. Nielsen, M. Blanke, I. Schjolberg, Efficient Modelling
Methodology for Reconfigurable Underwater Robots, IFAC-PapersOnLine 49(23), 74-80 (10th IFAC
CAMS), 2016.</li>
<li>Iversen et al. (2019): S. H. Iversen, M. R. Saure, A. B. Snekkevik, <i>Modeling subsea ROV
motion using the moving frame method</i>, bachelor thesis, Western Norway University of
Applied Sciences, 2019 (with the draft paper IMECE2019-10282, Modelling the motion of a 2-arm
ROV).</li>
<li>Cortesi (2012): R. Cortesi, <i>Modeling and Control of Joint-Actuated Buoys</i>, PhD
dissertation, The George Washington University, 2012.</li>
<li>Leon-Gonzalez et al. (2024): G. Leon-Gonzalez, R. S. Nunez-Cruz, E. D. Antonio-Yanez,
J. Herrera-Vidal, G. Canales-Gomez, C. Rueda-German, A Unified Approach to Modeling and
Simulation of Underwater Vehicle Multi-Manipulator Systems, Machines 12(2), 94, 2024.</li>
<li>Wu (2018): C.-J. Wu, <i>6-DoF Modelling and Control of a Remotely Operated Vehicle</i>,
master's thesis, Flinders University, 2018.</li>
<li>Fossen (2011): T. I. Fossen, <i>Handbook of Marine Craft Hydrodynamics and Motion
Control</i>, Wiley, 2011.</li>
<li>Manhaes et al. (2016): M. M. M. Manhaes, S. A. Scherer, M. Voss, L. R. Douat, T. Rauschenbach,
UUV Simulator: A Gazebo-based package for underwater intervention and multi-robot simulation,
OCEANS 2016 MTS/IEEE Monterey, 2016.</li>
<li>Berg (2012): V. Berg, <i>Development and Commissioning of a DP system for ROV SF 30k</i>,
master's thesis, Norwegian University of Science and Technology (NTNU), 2012.</li>
<li>Auton et al. (1988): T. R. Auton, J. C. R. Hunt, M. Prud'homme, The force exerted on a body
in inviscid unsteady non-uniform rotational flow, Journal of Fluid Mechanics 197, 241-257,
1988.</li>
<li>Hunt and Crossley (1975): K. H. Hunt, F. R. E. Crossley, Coefficient of restitution
interpreted as damping in vibroimpact, Journal of Applied Mechanics 42(2), 440-445, 1975.</li>
<li>Shinozuka and Deodatis (1991): M. Shinozuka, G. Deodatis, Simulation of stochastic
processes by spectral representation, Applied Mechanics Reviews 44(4), 191-204, 1991.</li>
</ul>
</html>"));
end MurCoSim;
