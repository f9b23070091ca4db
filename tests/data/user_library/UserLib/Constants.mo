within UserLib;
package Constants "Package constants and imports from package.mo"
  model Pendulum "Small-angle pendulum with the library's gravity"
    parameter SI.Length L = 1.2 "Length";
    parameter SI.Angle phi0 = 0.1 "Initial angle";
    SI.Angle phi(start = phi0, fixed = true) "Angle";
    SI.AngularVelocity w(start = 0, fixed = true) "Angular velocity";
    output Real cycles = time/(2*pi*sqrt(L/g)) "Periods so far";
    output SI.Angle angle = phi "Angle";
  equation
    der(phi) = w;
    der(w) = -g/L*phi;
  end Pendulum;
end Constants;
