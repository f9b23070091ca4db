within;
package RigidLib "Rotation of a rigid body and linear systems written with vectors and matrices"
  function skewMatrix "The cross product as a matrix: skewMatrix(a)*b = cross(a, b)"
    input Real a[3] "Vector";
    output Real S[3, 3] "Skew-symmetric matrix";
  algorithm
    S := {{0, -a[3], a[2]}, {a[3], 0, -a[1]}, {-a[2], a[1], 0}};
  end skewMatrix;

  function quadraticForm "Half the quadratic form of a symmetric matrix, scaled"
    input Real J[:, size(J, 1)] "Symmetric matrix";
    input Real w[size(J, 1)] "Vector";
    input Real scale = 0.5 "Factor of the form";
    output Real E "scale*w'*J*w";
  algorithm
    E := scale*(w*(J*w));
  end quadraticForm;

  model FreeRotation "A body turning free of torques: Euler's equations, attitude as a matrix"
    parameter Real J[3, 3](each unit = "kg.m2") = [2, 0.1, 0; 0.1, 3, 0.2; 0, 0.2, 4]
      "Inertia tensor about the centre of mass, body frame";
    parameter Real w_start[3](each unit = "rad/s") = {1, 0.5, -0.8} "Initial angular velocity";
    Real w[3](each unit = "rad/s", start = w_start, each fixed = true)
      "Angular velocity of the body, body frame";
    Real R[3, 3](start = identity(3), each fixed = true)
      "Rotation from the world frame to the body frame";
    output Real L[3](each unit = "kg.m2/s") "Angular momentum, world frame (constant)";
    output Real E(unit = "J") "Kinetic energy (constant)";
    output Real E_named(unit = "J") "Kinetic energy, named arguments in another order";
    output Real w_out[3](each unit = "rad/s") = w "Angular velocity, body frame";
    output Real R13 = R[1, 3] "An element of the attitude";
    output Real orthogonality "Largest element of R*R' - I (stays near 0)";
  protected
    Real D[3, 3] = R*transpose(R) - identity(3);
  equation
    J*der(w) = -cross(w, J*w);
    der(R) = -skew(w)*R;
    L = transpose(R)*(J*w);
    E = quadraticForm(J, w);
    E_named = quadraticForm(scale = 1, w = w, J = J)/2;
    orthogonality = max(abs(D));
  end FreeRotation;

  model SpinningTop "A symmetric body spun about its axis, a torque applied at a half second"
    parameter Real I1(unit = "kg.m2") = 1 "Transverse moment of inertia";
    parameter Real I3(unit = "kg.m2") = 2 "Axial moment of inertia";
    parameter Real tau[3](each unit = "N.m") = {0, 0, 0.5} "Torque from t_on, body frame";
    parameter Real t_on(unit = "s") = 0.5 "Time the torque starts";
    Real w[3](each unit = "rad/s", start = {0.3, 0, 2}, each fixed = true)
      "Angular velocity, body frame";
    output Real w1 = w[1];
    output Real w2 = w[2];
    output Real w3 = w[3];
  equation
    diagonal({I1, I1, I3})*der(w) + skewMatrix(w)*(diagonal({I1, I1, I3})*w)
      = if time >= t_on then tau else zeros(3);
  end SpinningTop;

  model SteadyLinearSystem "A linear system started at rest for its input, the input stepped later"
    parameter Real A[2, 2] = [-1, 2; -3, -4] "System matrix (1/s)";
    parameter Real B[2] = {1, 0.5} "Input vector";
    parameter Real M[2, 2] = [2, 1; 1, 3] "Mass matrix";
    parameter Real u0 = 1 "Input before the step";
    parameter Real u1 = -2 "Input after the step";
    Real x[2] "State";
    output Real x1 = x[1];
    output Real x2 = x[2];
    output Real u = if time < 1 then u0 else u1 "Input";
  initial equation
    der(x) = zeros(2);
  equation
    M*der(x) = A*x + B*u;
  end SteadyLinearSystem;
end RigidLib;
