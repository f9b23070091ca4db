within Authoring.Components;
model Force "A force from a signal"
  RealInput f(unit = "N") "Force";
  Flange flange "Flange";
equation
  flange.f = -f;
end Force;
