within Authoring.Components;
model Damper "A damper whose law is replaceable"
  extends PartialCompliant;
  replaceable model Law = LinearLaw constrainedby Authoring.Interfaces.PartialLaw "Force law";
  Law law "Force law instance";
equation
  law.v = der(s_rel);
  f = law.f;
end Damper;
