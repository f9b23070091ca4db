within ;
package ExternalLib "Functions in C called by models, as library authors declare them"
  function quadraticDrag "Drag force of a body moving at v"
    input Real v "Velocity (m/s)";
    input Real k "Drag coefficient (kg/m)";
    output Real f "Drag force (N)";
  external "C" f = quadratic_drag(v, k)
    annotation (Include = "#include \"laws.c\"",
      IncludeDirectory = "modelica://ExternalLib/Resources/C-Sources");
  end quadraticDrag;

  function integerPower "x to the power n, n an Integer passed as C int"
    input Real x;
    input Integer n;
    output Real y;
  external "C" y = integer_power(x, n)
    annotation (Include = "#include \"powers.h\"", Library = "m");
  end integerPower;

  function dot "Scalar product of two vectors, their length passed as a size argument"
    input Real a[:];
    input Real b[size(a, 1)];
    output Real y;
  external "C" y = vector_dot(a, b, size(a, 1))
    annotation (Include = "#include \"laws.c\"",
      IncludeDirectory = "modelica://ExternalLib/Resources/C-Sources");
  end dot;

  function scale "k times a vector, written into an output array"
    input Real a[:];
    input Real k;
    output Real y[size(a, 1)];
  external "C" vector_scale(a, k, y, size(a, 1))
    annotation (Include = "#include \"laws.c\"",
      IncludeDirectory = "modelica://ExternalLib/Resources/C-Sources");
  end scale;

  function weightedSum "The sum of a vector's elements, each times an Integer weight"
    input Real a[:];
    input Integer weights[size(a, 1)];
    output Real y;
  external "C" y = weighted_sum(a, weights, size(a, 1))
    annotation (Include = "#include \"laws.c\"",
      IncludeDirectory = "modelica://ExternalLib/Resources/C-Sources");
  end weightedSum;

  function product "A matrix times a vector: the matrix passed in row-major order"
    input Real A[:, :];
    input Real x[size(A, 2)];
    output Real y[size(A, 1)];
  external "C" matrix_vector(A, size(A, 1), size(A, 2), x, y)
    annotation (Include = "#include \"laws.c\"",
      IncludeDirectory = "modelica://ExternalLib/Resources/C-Sources");
  end product;

  pure function cubic "k u^3, with its derivative in C too"
    input Real u;
    input Real k;
    output Real y;
  external "C" y = cubic(u, k)
    annotation (Include = "#include \"laws.c\"",
      IncludeDirectory = "modelica://ExternalLib/Resources/C-Sources");
    annotation (derivative(zeroDerivative = k) = cubicDerivative);
  end cubic;

  pure function cubicDerivative "The derivative of cubic for a constant k"
    input Real u;
    input Real k;
    input Real du;
    output Real dy;
  external "C" dy = cubic_derivative(u, k, du)
    annotation (Include = "#include \"laws.c\"",
      IncludeDirectory = "modelica://ExternalLib/Resources/C-Sources");
  end cubicDerivative;

  model Rates "The same cubic decay through a function with a derivative and one without"
    parameter Real k = 0.8 "Rate (1/s)";
    Real x(start = 1.5, fixed = true);
    Real y(start = 1.5, fixed = true);
  equation
    der(x) = -cubic(x, k);
    der(y) = -k*integerPower(y, 3);
  end Rates;

  model Decay "A body slowed by quadratic drag and a state decaying with its cube"
    parameter Real m = 2 "Mass (kg)";
    parameter Real k = 0.5 "Drag coefficient (kg/m)";
    parameter Real c = 0.8 "Rate of the cubic decay (1/s)";
    Real v(start = 1, fixed = true) "Velocity (m/s)";
    Real x(start = 1, fixed = true);
    Real f "Drag force (N)";
  equation
    f = quadraticDrag(v, k);
    m*der(v) = -f;
    der(x) = -c*integerPower(x, 3);
  end Decay;

  model Vectors "Arrays passed to C with their sizes"
    parameter Real k = 0.7 "Decay rate (1/s)";
    parameter Real A[2, 2] = [0, 1; -1, 0] "Rotation generator (1/s)";
    Real x[3](start = {1, 2, 3}, each fixed = true);
    Real z[2](start = {1, 0}, each fixed = true);
    Real e "Squared norm of x";
    Real s "x weighted by 1, 2 and 3";
  equation
    der(x) = -scale(x, k);
    der(z) = product(A, z);
    e = dot(x, x);
    s = weightedSum(x, {1, 2, 3});
  end Vectors;
end ExternalLib;
