within Authoring.Components;
model LinearLaw "f = d v"
  extends Authoring.Interfaces.PartialLaw;
  parameter SI.TranslationalDampingConstant d = 1 "Damping";
equation
  f = d*v;
end LinearLaw;
