package RailLib "Translational components and motion sources in the style of the MSL"
  annotation (Documentation(info = "<html><p>A library on the library path: a slider whose
position and velocity are declared in a class nested in it, and two motion sources each with
its own function <code>position</code>.</p></html>"));
end RailLib;
