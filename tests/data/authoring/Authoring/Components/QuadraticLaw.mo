within Authoring.Components;
model QuadraticLaw "f = k v |v|"
  extends Authoring.Interfaces.PartialLaw;
  parameter Real k(unit = "N.s2/m2") = 1 "Quadratic coefficient";
equation
  f = k*v*abs(v);
end QuadraticLaw;
