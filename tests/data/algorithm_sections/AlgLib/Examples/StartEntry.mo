within AlgLib.Examples;
model StartEntry "z reads y before the section assigns it: the start value of y"
  Real y(start = 2) "Assigned the time, after z has read it";
  Real z "Reads y where the section starts";
algorithm
  z := y;
  y := time;
  annotation (experiment(StopTime = 2));
end StartEntry;
