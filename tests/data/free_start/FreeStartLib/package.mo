package FreeStartLib "A point mass on a line, its position along the line left to the start values (MSL's Constraints.PrismaticConstraint in small)"
  import Modelica.Units.SI;

  connector Point "A point of the plane and the force on it"
    SI.Position r[2] "Position, resolved in the world frame";
    flow SI.Force f[2] "Force on the point, resolved in the world frame";
  end Point;

  model Mass "Point mass"
    parameter SI.Mass m = 1 "Mass";
    Point point "Where the mass is";
    SI.Position r[2](start = {0.6, 0}) "Position, resolved in the world frame";
    SI.Velocity v[2](start = {0, 0}) "Velocity, resolved in the world frame";
  equation
    r = point.r;
    v = der(r);
    m*der(v) = point.f;
  end Mass;

  model Spring "Linear spring from the world's origin to a point"
    parameter SI.TranslationalSpringConstant c = 20 "Spring constant";
    Point point "The spring's free end";
  equation
    point.f = c*point.r;
  end Spring;

  connector Frame "A frame of the plane: its origin and the direction of its x axis"
    SI.Position r[2] "Origin, resolved in the world frame";
    SI.Angle phi "Direction of the x axis from the world's x axis";
    flow SI.Force f[2] "Force on the frame, resolved in the world frame";
    flow SI.Torque t "Torque on the frame";
  end Frame;

  model Anchor "A frame fixed in the world"
    parameter SI.Position r[2] = {0.2, -0.3} "Origin, resolved in the world frame";
    parameter SI.Angle phi = 0.5 "Direction of the x axis from the world's x axis";
    Frame frame "The fixed frame";
  equation
    frame.r = r;
    frame.phi = phi;
  end Anchor;

  model FixedRotation "frame_b rotated by angle from frame_a about its origin shifted by r"
    parameter SI.Position r[2] = {0, 0} "Origin of frame_b, resolved in frame_a";
    parameter SI.Angle angle = 0 "Angle of frame_b from frame_a";
    Frame frame_a "The frame rotated";
    Frame frame_b "The rotated frame";
  equation
    frame_b.r = frame_a.r + {cos(frame_a.phi)*r[1] - sin(frame_a.phi)*r[2],
      sin(frame_a.phi)*r[1] + cos(frame_a.phi)*r[2]};
    frame_b.phi = frame_a.phi + angle;
    frame_a.f + frame_b.f = zeros(2);
    frame_a.t + frame_b.t + (frame_b.r[1] - frame_a.r[1])*frame_b.f[2]
      - (frame_b.r[2] - frame_a.r[2])*frame_b.f[1] = 0;
  end FixedRotation;

  model LineConstraint "Holds a point on the x axis of frame_a (no friction)"
    Frame frame_a "The line: its origin and direction";
    Point point "The point held";
    SI.Force f_n "Force on the point normal to the line";
  equation
    -sin(frame_a.phi)*(point.r[1] - frame_a.r[1]) + cos(frame_a.phi)*(point.r[2] - frame_a.r[2]) = 0;
    point.f = f_n*{-sin(frame_a.phi), cos(frame_a.phi)};
    frame_a.f = -point.f;
    frame_a.t = 0;
  end LineConstraint;

  model LinePosition "Position and velocity of a point along and across the x axis of frame_a (as FreeMotionScalarInit)"
    Frame frame_a "The frame the point is observed from";
    Point point "The point observed";
    SI.Position s(start = 0, stateSelect = StateSelect.never) "Position along the x axis";
    SI.Position n(start = 0, stateSelect = StateSelect.never) "Position across the x axis";
    SI.Velocity v_s(start = 0, stateSelect = StateSelect.never) "Velocity along the x axis";
    SI.Velocity v_n(start = 0, stateSelect = StateSelect.never) "Velocity across the x axis";
  equation
    s = cos(frame_a.phi)*(point.r[1] - frame_a.r[1]) + sin(frame_a.phi)*(point.r[2] - frame_a.r[2]);
    n = -sin(frame_a.phi)*(point.r[1] - frame_a.r[1]) + cos(frame_a.phi)*(point.r[2] - frame_a.r[2]);
    v_s = der(s);
    v_n = der(n);
    point.f = zeros(2);
    frame_a.f = zeros(2);
    frame_a.t = 0;
  end LinePosition;

  model SlidingMass "The mass on the line, pulled by the spring; its position across the line and its velocities fixed beside the constraint, its position along the line left free"
    Anchor anchor(r = {0, 0}, phi = 0);
    FixedRotation rotation(r = {0.2, -0.3}, angle = 0.5);
    Mass mass;
    Spring spring;
    LineConstraint line;
    LinePosition position(n(fixed = true), v_n(fixed = true), v_s(fixed = true));
  equation
    connect(anchor.frame, rotation.frame_a);
    connect(rotation.frame_b, line.frame_a);
    connect(rotation.frame_b, position.frame_a);
    connect(mass.point, spring.point);
    connect(mass.point, line.point);
    connect(mass.point, position.point);
  end SlidingMass;
end FreeStartLib;
