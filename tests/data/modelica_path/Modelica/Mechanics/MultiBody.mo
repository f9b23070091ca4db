within Modelica.Mechanics;
package MultiBody "3-dimensional mechanics: frames with overdetermined orientation records"
  import SI = Modelica.Units.SI;

  package Frames "Orientations of frames and their functions"
    record Orientation "Orientation of a frame relative to the world frame"
      Real T[3, 3] "Transformation matrix from the world frame to the local frame";
      SI.AngularVelocity w[3] "Absolute angular velocity of the local frame, resolved in it";

      encapsulated function equalityConstraint "Residues of two orientations that are the same"
        import Modelica;
        input Modelica.Mechanics.MultiBody.Frames.Orientation R1 "First orientation";
        input Modelica.Mechanics.MultiBody.Frames.Orientation R2 "Second orientation";
        output Real residue[3] "Small rotation angles from R1 to R2 (zero when equal)";
      protected
        Real T_rel[3, 3] = R2.T*transpose(R1.T) "Rotation from R1's frame to R2's";
      algorithm
        residue := {T_rel[2, 3] - T_rel[3, 2], T_rel[3, 1] - T_rel[1, 3], T_rel[1, 2] - T_rel[2, 1]}/2;
      end equalityConstraint;
    end Orientation;

    function nullRotation "The orientation of the world frame"
      output Orientation R "No rotation";
    algorithm
      R := Orientation(T = identity(3), w = zeros(3));
    end nullRotation;

    function planarRotation "Rotation about a fixed axis by an angle"
      input Real e[3] "Unit vector of the axis, the same in both frames";
      input SI.Angle angle "Rotation angle";
      input SI.AngularVelocity der_angle "Its derivative";
      output Orientation R "Rotation from the first frame to the rotated one";
    algorithm
      R := Orientation(
        T = outerProduct(e, e) + (identity(3) - outerProduct(e, e))*cos(angle) - skew(e)*sin(angle),
        w = e*der_angle);
    end planarRotation;

    function absoluteRotation "Orientation of frame 2 from frame 1's and the relative one"
      input Orientation R1 "Orientation of frame 1";
      input Orientation R_rel "Rotation from frame 1 to frame 2";
      output Orientation R2 "Orientation of frame 2";
    algorithm
      R2 := Orientation(T = R_rel.T*R1.T, w = resolve2(R_rel, R1.w) + R_rel.w);
    end absoluteRotation;

    function resolve1 "A vector resolved in frame 2 resolved in frame 1"
      input Orientation R "Rotation from frame 1 to frame 2";
      input Real v2[3] "Vector in frame 2";
      output Real v1[3] "The same vector in frame 1";
    algorithm
      v1 := transpose(R.T)*v2;
    end resolve1;

    function resolve2 "A vector resolved in frame 1 resolved in frame 2"
      input Orientation R "Rotation from frame 1 to frame 2";
      input Real v1[3] "Vector in frame 1";
      output Real v2[3] "The same vector in frame 2";
    algorithm
      v2 := R.T*v1;
    end resolve2;

    function angularVelocity2 "Absolute angular velocity of a frame, resolved in it"
      input Orientation R "Orientation of the frame";
      output SI.AngularVelocity w[3] "Its angular velocity, resolved in it";
    algorithm
      w := R.w;
    end angularVelocity2;

    function axesRotations "Rotation by three angles about the x, y and z axes in turn"
      input SI.Angle angles[3] "Rotation angles about x, then the rotated y, then z";
      input SI.AngularVelocity der_angles[3] "Their derivatives";
      output Orientation R "Rotation from the first frame to the rotated one";
    algorithm
      R := absoluteRotation(
        absoluteRotation(
          planarRotation({1, 0, 0}, angles[1], der_angles[1]),
          planarRotation({0, 1, 0}, angles[2], der_angles[2])),
        planarRotation({0, 0, 1}, angles[3], der_angles[3]));
    end axesRotations;
  end Frames;

  package Interfaces "Frame connectors"
    connector Frame "Coordinate system fixed to a component"
      SI.Position r_0[3] "Position of the frame's origin, resolved in the world frame";
      Frames.Orientation R "Orientation of the frame relative to the world frame";
      flow SI.Force f[3] "Cut force, resolved in the frame";
      flow SI.Torque t[3] "Cut torque, resolved in the frame";
    end Frame;
    connector Frame_a = Frame "Frame a of a component";
    connector Frame_b = Frame "Frame b of a component";
  end Interfaces;

  model World "The world frame and uniform gravity"
    Interfaces.Frame_b frame_b "The world frame";
    parameter SI.Acceleration g = 9.81 "Acceleration of gravity";
    parameter Real n[3] = {0, -1, 0} "Direction of gravity, resolved in the world frame";
  equation
    Connections.root(frame_b.R);
    frame_b.r_0 = zeros(3);
    frame_b.R = Frames.nullRotation();
  end World;

  package Parts "Rigid bodies and rigid connections"
    model Body "Rigid body with mass and inertia; its frame's states where it is a root"
      Interfaces.Frame_a frame_a "Frame at the body's reference point";
      outer World world;
      parameter SI.Mass m = 1 "Mass";
      parameter SI.Position r_CM[3] = {0, 0, 0} "Centre of mass from frame_a, resolved in frame_a";
      parameter SI.Inertia I[3, 3] = identity(3) "Inertia tensor about the centre of mass, in frame_a";
      SI.Position r_0[3](each stateSelect = StateSelect.avoid) "Position of frame_a";
      SI.Velocity v_0[3](each stateSelect = StateSelect.avoid) "Velocity of frame_a, in the world frame";
      SI.Acceleration a_0[3] "Acceleration of frame_a, in the world frame";
      SI.AngularVelocity w_a[3] "Angular velocity, resolved in frame_a";
      SI.AngularAcceleration z_a[3] "Angular acceleration, resolved in frame_a";
      SI.Angle phi[3](each stateSelect = StateSelect.always) "Cardan angles (x, y, z) of frame_a where it is a root";
      SI.AngularVelocity phi_d[3](each stateSelect = StateSelect.always) "Their derivatives";
    equation
      Connections.potentialRoot(frame_a.R);
      r_0 = frame_a.r_0;
      v_0 = der(r_0);
      a_0 = der(v_0);
      if Connections.isRoot(frame_a.R) then
        phi_d = der(phi);
        frame_a.R = Frames.axesRotations(phi, phi_d);
      else
        phi = zeros(3);
        phi_d = zeros(3);
      end if;
      w_a = Frames.angularVelocity2(frame_a.R);
      z_a = der(w_a);
      frame_a.f = m*(Frames.resolve2(frame_a.R, a_0 - world.g*world.n) + cross(z_a, r_CM) + cross(w_a, cross(w_a, r_CM)));
      frame_a.t = I*z_a + cross(w_a, I*w_a) + cross(r_CM, frame_a.f);
    end Body;

    model FixedTranslation "Frame b translated by a fixed vector from frame a"
      Interfaces.Frame_a frame_a "Frame a";
      Interfaces.Frame_b frame_b "Frame b";
      parameter SI.Position r[3] "Frame b's origin from frame a's, resolved in frame a";
    equation
      Connections.branch(frame_a.R, frame_b.R);
      frame_b.r_0 = frame_a.r_0 + Frames.resolve1(frame_a.R, r);
      frame_b.R = frame_a.R;
      zeros(3) = frame_a.f + frame_b.f;
      zeros(3) = frame_a.t + frame_b.t + cross(r, frame_b.f);
    end FixedTranslation;
  end Parts;

  package Joints "Joints without friction or drive"
    model Revolute "Rotation of frame b about an axis fixed in frame a"
      Interfaces.Frame_a frame_a "Frame a";
      Interfaces.Frame_b frame_b "Frame b";
      parameter Real n[3] = {0, 0, 1} "Axis of rotation, the same in frames a and b";
      SI.Angle phi(start = 0, fixed = true, stateSelect = StateSelect.prefer) "Rotation angle from frame a to frame b";
      SI.AngularVelocity w(start = 0, fixed = true, stateSelect = StateSelect.prefer) "Its derivative";
      SI.AngularAcceleration a "Second derivative of phi";
      SI.Torque tau "Torque about the axis (none: the joint is free)";
    protected
      parameter Real e[3] = n/sqrt(n*n) "Unit vector of the axis";
      Frames.Orientation R_rel "Rotation from frame a to frame b";
    equation
      Connections.branch(frame_a.R, frame_b.R);
      w = der(phi);
      a = der(w);
      frame_b.r_0 = frame_a.r_0;
      if Connections.rooted(frame_a.R) then
        R_rel = Frames.planarRotation(e, phi, w);
        frame_b.R = Frames.absoluteRotation(frame_a.R, R_rel);
        frame_a.f = -Frames.resolve1(R_rel, frame_b.f);
        frame_a.t = -Frames.resolve1(R_rel, frame_b.t);
      else
        R_rel = Frames.planarRotation(-e, phi, w);
        frame_a.R = Frames.absoluteRotation(frame_b.R, R_rel);
        frame_b.f = -Frames.resolve1(R_rel, frame_a.f);
        frame_b.t = -Frames.resolve1(R_rel, frame_a.t);
      end if;
      tau = -frame_b.t*e;
      tau = 0;
    end Revolute;

    model Prismatic "Translation of frame b along an axis fixed in frame a"
      Interfaces.Frame_a frame_a "Frame a";
      Interfaces.Frame_b frame_b "Frame b";
      parameter Real n[3] = {1, 0, 0} "Axis of translation, resolved in frame a";
      SI.Position s(start = 0, fixed = true, stateSelect = StateSelect.prefer) "Distance from frame a to frame b along the axis";
      SI.Velocity v(start = 0, fixed = true, stateSelect = StateSelect.prefer) "Its derivative";
      SI.Acceleration a "Second derivative of s";
      SI.Force f "Force along the axis (none: the joint is free)";
    protected
      parameter Real e[3] = n/sqrt(n*n) "Unit vector of the axis";
    equation
      Connections.branch(frame_a.R, frame_b.R);
      v = der(s);
      a = der(v);
      frame_b.r_0 = frame_a.r_0 + Frames.resolve1(frame_a.R, e*s);
      frame_b.R = frame_a.R;
      zeros(3) = frame_a.f + frame_b.f;
      zeros(3) = frame_a.t + frame_b.t + cross(e*s, frame_b.f);
      f = -e*frame_b.f;
      f = 0;
    end Prismatic;
  end Joints;
end MultiBody;
