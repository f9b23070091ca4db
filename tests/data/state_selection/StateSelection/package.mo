within;
package StateSelection "Models whose states only stateSelect chooses well"
  extends Modelica.Icons.Package;

  partial model CartesianPendulum
    "Point mass on a rigid massless rod, in Cartesian coordinates with the rod force as unknown"
    parameter Modelica.Units.SI.Length L = 1 "Length of the rod";
    parameter Modelica.Units.SI.Mass m = 1 "Mass at the end of the rod";
    parameter Modelica.Units.SI.Acceleration g = 9.81 "Gravity, along -y";
    Modelica.Units.SI.Position x "Horizontal position of the mass";
    Modelica.Units.SI.Position y "Vertical position of the mass (up)";
    Modelica.Units.SI.Velocity vx "Horizontal velocity";
    Modelica.Units.SI.Velocity vy "Vertical velocity";
    Modelica.Units.SI.Force F "Tension of the rod";
    Modelica.Units.SI.Angle phi "Angle of the rod from the downward vertical";
  equation
    der(x) = vx;
    der(y) = vy;
    m*der(vx) = -F*x/L;
    m*der(vy) = -F*y/L - m*g;
    x = L*sin(phi);
    y = -L*cos(phi);
  end CartesianPendulum;

  model AngleStates
    "The pendulum released with its rod horizontal: the angle and its rate must be the states"
    extends CartesianPendulum(phi(start = Modelica.Constants.pi/2, fixed = true,
      stateSelect = StateSelect.always));
    Modelica.Units.SI.AngularVelocity w(start = 0, fixed = true,
      stateSelect = StateSelect.always) "Rate of the angle";
  equation
    w = der(phi);
  end AngleStates;

  model PositionStates
    "The pendulum near its lowest point with the horizontal position and velocity preferred"
    extends CartesianPendulum(
      x(start = 0.3, fixed = true, stateSelect = StateSelect.prefer),
      vx(start = 0, fixed = true, stateSelect = StateSelect.prefer),
      y(stateSelect = StateSelect.avoid), vy(stateSelect = StateSelect.avoid),
      phi(stateSelect = StateSelect.never));
  end PositionStates;

  model Skate
    "Ideal rolling contact of an upright wheel on the plane z = 0 (no slip); no mass"
    parameter Modelica.Units.SI.Length R "Radius of the wheel";
    Modelica.Units.SI.Position r[2](each stateSelect = StateSelect.avoid)
      "Position of the wheel centre in the plane";
    Modelica.Units.SI.Velocity v[2](each stateSelect = StateSelect.avoid)
      "Velocity of the wheel centre";
    Modelica.Units.SI.Angle heading(stateSelect = StateSelect.avoid)
      "Angle of the rolling direction from the x axis";
    Modelica.Units.SI.Angle spin(stateSelect = StateSelect.avoid) "Rotation angle of the wheel";
    Modelica.Units.SI.AngularVelocity w_spin(stateSelect = StateSelect.avoid)
      "Rate of rotation of the wheel";
    Modelica.Units.SI.Force f_long "Contact force along the rolling direction";
    Modelica.Units.SI.Force f_lat "Contact force across the rolling direction";
    Modelica.Units.SI.Force f[2] "Contact force on the wheel";
  equation
    v = der(r);
    w_spin = der(spin);
    // no slip: the centre moves along the rolling direction at the rim's speed
    v = R*w_spin*{cos(heading), sin(heading)};
    f = f_long*{cos(heading), sin(heading)} + f_lat*{-sin(heading), cos(heading)};
  end Skate;

  model RollingDisc
    "A disc held upright, rolling without slip on the plane and turning at a constant rate"
    parameter Modelica.Units.SI.Length R = 0.3 "Radius of the disc";
    parameter Modelica.Units.SI.Mass m = 2 "Mass of the disc";
    parameter Modelica.Units.SI.Inertia I_axis = 0.09 "Inertia about the spin axis";
    parameter Modelica.Units.SI.Inertia I_long = 0.045 "Inertia about a vertical diameter";
    Skate skate(R = R);
    Modelica.Units.SI.Position x(start = 0, fixed = true, stateSelect = StateSelect.always)
      "x-coordinate of the disc centre";
    Modelica.Units.SI.Position y(start = 0, fixed = true, stateSelect = StateSelect.always)
      "y-coordinate of the disc centre";
    Modelica.Units.SI.Angle heading(start = 0.2, fixed = true,
      stateSelect = StateSelect.always) "Rolling direction from the x axis";
    Modelica.Units.SI.AngularVelocity der_heading(start = 1, fixed = true,
      stateSelect = StateSelect.always) "Turning rate";
    Modelica.Units.SI.AngularVelocity der_spin(start = 5, fixed = true,
      stateSelect = StateSelect.always) "Spin rate";
  equation
    x = skate.r[1];
    y = skate.r[2];
    heading = skate.heading;
    der_spin = skate.w_spin;
    der_heading = der(skate.heading);
    m*der(skate.v) = skate.f;
    I_axis*der(skate.w_spin) = -R*skate.f_long;
    I_long*der(der_heading) = 0;
  end RollingDisc;

  model AlwaysFromInput
    "stateSelect = always on a variable an input gives: it cannot be a state (a warning)"
    input Real u(start = 1) "Rate factor, 1/s";
    Real k(stateSelect = StateSelect.always) "Decay rate, 1/s";
    Real y(start = 1, fixed = true) "Decaying variable";
  equation
    k = 2*u;
    der(y) = -k*y;
  end AlwaysFromInput;
end StateSelection;
