package QuaternionLib "Rigid bodies whose orientation is four quaternion components held by one constraint, as MSL's MultiBody Body and FreeMotion write it"
  import SI = Modelica.Units.SI;

  function orientationConstraint "Residue of the unit norm of a quaternion (shall be zero)"
    input Real Q[4] "Quaternion, scalar part last";
    output Real residue[1] "Q*Q - 1";
  algorithm
    residue := {Q*Q - 1};
    annotation (Inline = true);
  end orientationConstraint;

  function angularVelocity2 "Angular velocity of a frame, resolved in it, from its quaternion and the derivative"
    input Real Q[4] "Quaternion of the frame relative to the world, scalar part last";
    input Real der_Q[4](each unit = "1/s") "Its derivative";
    output SI.AngularVelocity w[3] "Angular velocity, resolved in the frame";
  algorithm
    w := 2*([Q[4], Q[3], -Q[2], -Q[1]; -Q[3], Q[4], Q[1], -Q[2]; Q[2], -Q[1], Q[4], -Q[3]]*der_Q);
    annotation (Inline = true);
  end angularVelocity2;

  function resolve1 "A vector resolved in the frame of quaternion Q, resolved in the world frame"
    input Real Q[4] "Quaternion of the frame relative to the world, scalar part last";
    input Real v2[3] "Vector resolved in the frame";
    output Real v1[3] "The same vector resolved in the world frame";
  algorithm
    v1 := 2*((Q[4]*Q[4] - 0.5)*v2 + (Q[1:3]*v2)*Q[1:3] - Q[4]*cross(Q[1:3], v2));
    annotation (Inline = true);
  end resolve1;

  model TumblingBody "A free rigid body spinning near its intermediate principal axis, which flips over (Dzhanibekov): its orientation turns by more than pi about every axis"
    parameter SI.Inertia I[3] = {1, 2, 3} "Principal moments of inertia about the centre of mass";
    Real Q[4](start = {0, 0, 0, 0.5}, fixed = {true, true, true, false},
      each stateSelect = StateSelect.avoid)
      "Orientation of the body frame, scalar part last (Q[4]'s start a guess: the norm gives 1)";
    SI.AngularVelocity w[3](start = {0.05, 2, 0.05}, each fixed = true,
      each stateSelect = StateSelect.avoid) "Angular velocity, resolved in the body frame";
  equation
    w = angularVelocity2(Q, der(Q));
    {0} = orientationConstraint(Q);
    I[1]*der(w[1]) = (I[2] - I[3])*w[2]*w[3];
    I[2]*der(w[2]) = (I[3] - I[1])*w[3]*w[1];
    I[3]*der(w[3]) = (I[1] - I[2])*w[1]*w[2];
  end TumblingBody;

  model TumblingMarker "The same body with a point fixed on it, whose position and velocity are candidate states (StateSelect.avoid, as a MultiBody point mass's r_0 and v_0)"
    extends TumblingBody;
    parameter SI.Position d[3] = {0, 0, 1} "The point from the centre of mass, resolved in the body frame";
    SI.Position r[3](each stateSelect = StateSelect.avoid) "The point's position, resolved in the world frame";
    SI.Velocity v[3](each stateSelect = StateSelect.avoid) "Its velocity, resolved in the world frame";
  equation
    r = resolve1(Q, d);
    v = der(r);
  end TumblingMarker;
end QuaternionLib;
