within AlgLib.Examples;
model Staged "Stages driven by time, its limit modified"
  AlgLib.Blocks.Stages stages(limit = 1.2) "The block under test";
equation
  stages.u = time;
  annotation (experiment(StopTime = 2));
end Staged;
