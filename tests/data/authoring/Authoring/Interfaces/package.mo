within Authoring;
package Interfaces "Connectors and partial classes"
  connector RealInput = input Real "Real input signal";
  connector RealOutput = output Real "Real output signal";
  connector BooleanInput = input Boolean "Boolean input signal";
  connector Flange "One-dimensional translational flange"
    SI.Position s "Absolute position";
    flow SI.Force f "Cut force into the flange";
  end Flange;
  partial block SISO "One input, one output"
    RealInput u "Input";
    RealOutput y "Output";
  end SISO;
  partial model PartialCompliant "Two flanges with a relative position and a force"
    Flange flange_a "Left flange";
    Flange flange_b "Right flange";
    SI.Length s_rel(start = 0) "Relative position";
    SI.Force f "Force from flange_a to flange_b";
  equation
    s_rel = flange_b.s - flange_a.s;
    flange_b.f = f;
    flange_a.f = -f;
  end PartialCompliant;
  partial model PartialLaw "A force law of a relative velocity"
    input SI.Velocity v "Relative velocity";
    output SI.Force f "Force";
  end PartialLaw;
end Interfaces;
