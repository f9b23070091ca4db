within Authoring.Components;
model Spring "A linear spring"
  extends Authoring.Interfaces.PartialCompliant;
  parameter SI.TranslationalSpringConstant c = 1 "Stiffness";
  parameter SI.Length s_rel0 = 0 "Unstretched length";
equation
  f = c*(s_rel - s_rel0);
end Spring;
