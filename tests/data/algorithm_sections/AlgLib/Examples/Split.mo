within AlgLib.Examples;
model Split "SplitGain driven by time"
  AlgLib.Blocks.SplitGain gain "The block under test";
equation
  gain.u = time;
  annotation (experiment(StopTime = 2));
end Split;
