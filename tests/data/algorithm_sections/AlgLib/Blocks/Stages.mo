within AlgLib.Blocks;
block Stages "Three stages i*u, their sum, the last stage clipped at a limit"
  parameter Real limit = 1.5 "Largest value of the last stage";
  input Real u "Input signal";
  output Real w[3] "Stages i*u, the last clipped at limit";
  output Real total "Sum of the stages before clipping";
algorithm
  for i in 1:3 loop
    w[i] := i*u;
  end for;
  total := sum(w);
  if w[3] > limit then
    w[3] := limit;
  end if;
end Stages;
