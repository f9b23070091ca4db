within UserLib;
package MultiBody "Bodies and joints connected through frames with overdetermined orientations"
  model SwingingArm "A body on a rod, hinged to the world: a physical pendulum"
    inner Modelica.Mechanics.MultiBody.World world;
    Modelica.Mechanics.MultiBody.Joints.Revolute rev(phi(start = 0.3)) "Hinge about z";
    Modelica.Mechanics.MultiBody.Parts.FixedTranslation rod(r = {0.5, 0, 0}) "Massless rod";
    Modelica.Mechanics.MultiBody.Parts.Body body(
      m = 2, r_CM = {0.25, 0, 0}, I = diagonal({0.01, 0.02, 0.03})) "Body at the rod's end";
  equation
    connect(world.frame_b, rev.frame_a);
    connect(rev.frame_b, rod.frame_a);
    connect(rod.frame_b, body.frame_a);
  end SwingingArm;

  model SwingingArmReversed "The same pendulum with its hinge turned round (frame b to the world)"
    inner Modelica.Mechanics.MultiBody.World world;
    Modelica.Mechanics.MultiBody.Joints.Revolute rev(phi(start = -0.3)) "Hinge about z";
    Modelica.Mechanics.MultiBody.Parts.FixedTranslation rod(r = {0.5, 0, 0}) "Massless rod";
    Modelica.Mechanics.MultiBody.Parts.Body body(
      m = 2, r_CM = {0.25, 0, 0}, I = diagonal({0.01, 0.02, 0.03})) "Body at the rod's end";
  equation
    connect(world.frame_b, rev.frame_b);
    connect(rev.frame_a, rod.frame_a);
    connect(rod.frame_b, body.frame_a);
  end SwingingArmReversed;

  model Slider "A body sliding down a frictionless incline"
    inner Modelica.Mechanics.MultiBody.World world;
    Modelica.Mechanics.MultiBody.Parts.FixedTranslation top(r = {0, 1, 0}) "Top of the incline";
    Modelica.Mechanics.MultiBody.Joints.Prismatic incline(n = {1, -1, 0}) "Slide at 45 degrees";
    Modelica.Mechanics.MultiBody.Parts.Body body(m = 3) "Sliding body";
  equation
    connect(world.frame_b, top.frame_a);
    connect(top.frame_b, incline.frame_a);
    connect(incline.frame_b, body.frame_a);
  end Slider;

  model TumblingBody "A free body, its frame a root with Cardan-angle states"
    inner Modelica.Mechanics.MultiBody.World world;
    Modelica.Mechanics.MultiBody.Parts.Body body(
      m = 1.5, I = diagonal({1, 2, 3}),
      r_0(each start = 0, each fixed = true), v_0(start = {1, 2, 0}, each fixed = true),
      phi(each start = 0, each fixed = true), phi_d(start = {0.3, 0.2, 1.0}, each fixed = true))
      "Free body";
  end TumblingBody;

  model QuaternionComponent "A unit quaternion's scalar part from its vector part, by Newton"
    parameter Real amplitude = 0.6 "Amplitude of the vector part";
    parameter Real q4_start = sqrt(1 - amplitude^2) "Start of the scalar part: its positive root";
    Real q1 "Vector part (one component)";
    Real q4(start = q4_start) "Scalar part: Newton from its start, where its derivative is not 0";
  equation
    q1 = amplitude*cos(time);
    q1^2 + q4^2 = 1;
  end QuaternionComponent;
end MultiBody;
