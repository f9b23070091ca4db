within UserLib;
package InnerOuter "One environment shared by inner/outer"
  model Environment "Gravity and water of a pool"
    parameter SI.Acceleration g = UserLib.g "Gravity";
    parameter SI.Density rho = 1000 "Water density";
  end Environment;
  model Float "A body that reads the environment"
    outer Environment environment;
    parameter SI.Mass m = 1 "Mass";
    parameter SI.Volume V = 0.002 "Volume";
    SI.Force net "Buoyancy minus weight";
  equation
    net = (environment.rho*V - m)*environment.g;
  end Float;
  model Pool "Two floats in a pool of lower gravity"
    inner Environment environment(g = 3);
    Float a(m = 1);
    Float b(m = 1.5, V = 0.001);
    output SI.Force total = a.net + b.net "Net force on both";
  end Pool;
end InnerOuter;
