package HardStopLib "A mass with hard stops in the form of the MSL's Translational MassWithStopAndFriction"
  model SlidingMassWithStops "Mass of length L sliding freely between hard stops at smin and smax"
    parameter Real L(unit = "m") = 1 "Length of the mass";
    parameter Real smin(unit = "m") = -1 "Left stop";
    parameter Real smax(unit = "m") = 1 "Right stop";
    Real s(unit = "m", start = 0, fixed = true) "Position of the mass's centre";
    Real v(unit = "m/s", start = 0, fixed = true) "Velocity of the mass";
    Integer stopped "-1 at the left stop, +1 at the right one, 0 between";
    discrete Integer side(start = 0, fixed = true) "The stop reached last, by the when's body";
    discrete Real tStop(unit = "s", start = -1, fixed = true) "When it was reached";
  equation
    v = der(s);
    der(v) = 0;
    stopped = if s <= smin + L/2 then -1 else if s >= smax - L/2 then +1 else 0;
    when stopped <> 0 then
      reinit(s, if stopped < 0 then smin + L/2 else smax - L/2);
      reinit(v, 0);
      side = if stopped < 0 then -1 else 1;
      tStop = time;
    end when;
    annotation(Documentation(info = "<html><p>The hard stops of the MSL's
MassWithStopAndFriction, without friction: where the mass reaches a stop, its position is set
to the stop and its velocity to 0 by a when-equation whose body reads the stop reached.</p></html>"));
  end SlidingMassWithStops;

  model TwoStops "One mass moving to its left stop, one to its right stop"
    SlidingMassWithStops left(v(start = -1));
    SlidingMassWithStops right(v(start = 2));
    annotation(experiment(StopTime = 1));
  end TwoStops;
end HardStopLib;
