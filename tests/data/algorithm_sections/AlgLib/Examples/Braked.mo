within AlgLib.Examples;
model Braked "A position rising at 2 m/s below 1 m and at a quarter of that above"
  Real x(start = 0, fixed = true, unit = "m") "Position";
  Real rate(unit = "m/s") "Rate of rise";
  Integer phase "1 below 1 m, 2 above";
equation
  der(x) = rate;
algorithm
  rate := 2;
  phase := 1;
  if x > 1 then
    rate := rate/4;
    phase := 2;
  end if;
  annotation (experiment(StopTime = 2));
end Braked;
