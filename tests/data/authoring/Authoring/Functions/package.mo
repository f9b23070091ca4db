within Authoring;
package Functions "Functions with defaults, records, derivatives and inverses"
  function decayRate "A decay rate from a time constant, scaled"
    input SI.Time T "Time constant";
    input Real scale = 1 "Scale factor";
    output Real rate(unit = "1/s") "Decay rate";
  algorithm
    rate := scale/T;
  end decayRate;
  function energy "Kinetic and potential energy of a body on a spring"
    input Data.StiffBody body "Body";
    input SI.Position s "Position";
    input SI.Velocity v "Velocity";
    output Real E(unit = "J") "Energy";
  algorithm
    E := 0.5*body.m*v^2 + 0.5*body.c*s^2;
  end energy;
  function makeBody "A body record from a mass"
    input SI.Mass m "Mass";
    output Data.BodyData body "Body with damping proportional to its mass";
  algorithm
    body := Data.BodyData(m = m, d = 0.25*m);
  end makeBody;
  function cube "x^3, with its derivative and inverse declared"
    input Real x;
    output Real y;
  algorithm
    y := x^3;
    annotation(derivative = cube_der, inverse(x = cubeRoot(y)));
  end cube;
  function cube_der "Derivative of cube"
    input Real x;
    input Real der_x;
    output Real der_y;
  algorithm
    der_y := 3*x^2*der_x;
  end cube_der;
  function cubeRoot "Inverse of cube"
    input Real y;
    output Real x;
  algorithm
    x := if y >= 0 then y^(1/3) else -(-y)^(1/3);
  end cubeRoot;
  partial function partialLaw "A decay law"
    input Real x "State";
    output Real rate "Its rate of decay";
  end partialLaw;
  function linearLaw "k x"
    extends partialLaw;
    input Real k = 1 "Gain";
  algorithm
    rate := k*x;
  end linearLaw;
  function cubicLaw "x^3"
    extends partialLaw;
  algorithm
    rate := x^3;
  end cubicLaw;
end Functions;
