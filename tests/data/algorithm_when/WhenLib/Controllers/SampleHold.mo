within WhenLib.Controllers;
block SampleHold "Samples its input every period and holds it, counting the samples"
  parameter Real period = 0.2 "Sample period (s)";
  RealInput u "Signal sampled";
  RealOutput y(start = 0, fixed = true) "Value of u at the last sample";
  discrete RealOutput count(start = 0, fixed = true) "Samples taken";
algorithm
  when sample(period, period) then
    y := u;
    count := pre(count) + 1;
  end when;
end SampleHold;
