within Authoring.Environments;
model Sinker "A body sinking through the current of the outer environment"
  outer Environment environment "Environment";
  replaceable parameter Data.BodyData data "Body";
  SI.Velocity w(start = 0, fixed = true) "Vertical velocity";
equation
  data.m*der(w) = data.m*environment.g - data.d*(w - environment.current);
end Sinker;
