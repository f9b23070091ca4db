package StateChoice "Models whose states, chosen by stateSelect alone, are singular where they start"
  model HangingSpring "A point mass on a spring-damper to a fixed anchor; the spring's length
    is a candidate state beside the mass's position, as a MultiBody line force's is"
    parameter Real m(unit = "kg") = 1 "Mass";
    parameter Real c(unit = "N/m") = 30 "Spring constant";
    parameter Real d(unit = "N.s/m") = 2 "Damping constant";
    parameter Real s_unstretched(unit = "m") = 0.1 "Unstretched length of the spring";
    parameter Real g(unit = "m/s2") = 9.81 "Gravity acceleration along -y";
    Real r[3](each unit = "m", start = {0, -0.2, 0}, each fixed = true,
      each stateSelect = StateSelect.avoid) "Position of the mass from the anchor";
    Real v[3](each unit = "m/s", start = {0.5, 0, 0}, each fixed = true,
      each stateSelect = StateSelect.avoid) "Velocity of the mass";
    Real s(unit = "m") "Length of the spring";
    Real f(unit = "N") "Tension of the spring and damper";
  equation
    der(r) = v;
    s = sqrt(r*r);
    f = c*(s - s_unstretched) + d*der(s);
    m*der(v) = -f*r/s + m*{0, -g, 0};
  end HangingSpring;
end StateChoice;
