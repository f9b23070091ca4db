package MultiBodyInit "Initialization of MultiBody models as the MSL's examples write it"
  import Modelica.Units.SI;
  import Modelica.Mechanics.MultiBody.Frames;
  import Modelica.Mechanics.MultiBody.Interfaces;

  model LineSpring "Linear spring between the origins of two frames (no mass, no torque)"
    Interfaces.Frame_a frame_a "Frame at one end";
    Interfaces.Frame_b frame_b "Frame at the other end";
    parameter SI.TranslationalSpringConstant c "Spring constant";
    parameter SI.Length s_unstretched = 0 "Unstretched length";
    parameter Boolean animation = true "= true, if the spring is shown (no shapes here)";
    parameter Boolean showLine = animation "= true, if its line is shown: bound to another";
    SI.Length length "Distance between the origins of frame_a and frame_b";
    SI.Force f "Tension of the spring";
    Real e_rel_0[3](each final unit = "1") "Unit vector from frame_a to frame_b, in the world frame";
    Real e_n_0[3](each final unit = "1") "Normal of the plane of motion, in the world frame";
  equation
    length = sqrt((frame_b.r_0 - frame_a.r_0)*(frame_b.r_0 - frame_a.r_0));
    e_rel_0 = (frame_b.r_0 - frame_a.r_0)/length;
    e_n_0 = {0, 0, 1};
    assert(abs(e_n_0*e_rel_0) < 0.99, "The spring points out of the plane of motion");
    f = c*(length - s_unstretched);
    frame_a.f = -Frames.resolve2(frame_a.R, f*e_rel_0);
    frame_b.f = Frames.resolve2(frame_b.R, f*e_rel_0);
    frame_a.t = zeros(3);
    frame_b.t = zeros(3);
  end LineSpring;

  model Anchor "A frame fixed in the world at r"
    Interfaces.Frame_b frame_b "The fixed frame";
    parameter SI.Position r[3] "Its origin, resolved in the world frame";
  equation
    Connections.root(frame_b.R);
    frame_b.r_0 = r;
    frame_b.R = Frames.nullRotation();
  end Anchor;

  partial model SpringPendulum "A point mass on a massless rod, hinged to the world, held by a spring"
    inner Modelica.Mechanics.MultiBody.World world;
    parameter SI.Angle phi0 = 0.3 "Initial angle of the rod";
    parameter SI.AngularVelocity w0 = 0.5 "Initial angular velocity of the rod";
    Modelica.Mechanics.MultiBody.Joints.Revolute rev(phi(start = phi0), w(start = w0))
      "Hinge about z";
    Modelica.Mechanics.MultiBody.Parts.FixedTranslation rod(r = {1, 0, 0}) "Massless rod";
    Modelica.Mechanics.MultiBody.Parts.Body body(m = 2, I = diagonal({0.01, 0.02, 0.03}))
      "Mass at the rod's end";
    Anchor anchor(r = {0.6, 0.8, 0}) "Where the spring hangs";
    LineSpring spring(s_unstretched = 0.1) "Spring to the rod's end";
  equation
    connect(world.frame_b, rev.frame_a);
    connect(rev.frame_b, rod.frame_a);
    connect(rod.frame_b, body.frame_a);
    connect(anchor.frame_b, spring.frame_a);
    connect(rod.frame_b, spring.frame_b);
  end SpringPendulum;

  model SteadySpring "The spring constant from a fixed start acceleration (a(fixed = true))"
    extends SpringPendulum(
      rev(a(start = 0, fixed = true)),
      spring(c(fixed = false, start = 100)));
  end SteadySpring;

  model SteadySpringEquation "The same from an initial equation der(w) = 0"
    extends SpringPendulum(spring(c(fixed = false, start = 100)));
  initial equation
    der(rev.w) = 0;
  end SteadySpringEquation;

  model SpringWithoutCondition "A fixed = false spring constant that no condition determines"
    extends SpringPendulum(spring(c(fixed = false, start = 100)));
  end SpringWithoutCondition;

  model RepeatedAngle "The joint's angle fixed again in the model that holds it (consistent)"
    extends SpringPendulum(spring(c = 40));
    SI.Angle angle(start = phi0, fixed = true) "The rod's angle, the joint's angle again";
    SI.AngularVelocity rate(start = w0, fixed = true) "Its rate, the joint's rate again";
  equation
    angle = rev.phi;
    rate = der(angle);
  end RepeatedAngle;

  model ContradictedAngle "The joint's angle fixed again to another value (inconsistent)"
    extends SpringPendulum(spring(c = 40));
    SI.Angle angle(start = phi0 + 0.1, fixed = true) "The rod's angle, fixed to another value";
  equation
    angle = rev.phi;
  end ContradictedAngle;

  model HubAtHinge "A body at the hinge, whose frame the joint holds at the world's origin"
    extends SpringPendulum(spring(c = 40));
    parameter SI.Length hub_offset = 0.1 "Centre of mass of the hub from the hinge"
      annotation (Evaluate = true);
    Modelica.Mechanics.MultiBody.Parts.Body hub(
      m = 1, r_CM = {hub_offset, 0, 0}, I = diagonal({0.01, 0.02, 0.03})) "Hub on the hinge";
  equation
    connect(rev.frame_b, hub.frame_a);
  end HubAtHinge;
end MultiBodyInit;
