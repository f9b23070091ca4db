within AlgLib.Blocks;
block SplitGain "Twice the input, and that plus one, doubled where the input exceeds a half"
  input Real u "Input signal";
  output Real y "Twice the input";
  output Real z "y + 1, doubled where u > 0.5";
algorithm
  y := 2*u;
  z := y + 1;
  if u > 0.5 then
    z := 2*z;
  end if;
end SplitGain;
