within;
package FrictionLib "Friction elements whose modes relations decide inside logic on pre(mode)"
  partial model PartialModes
    "Stuck and sliding modes of a friction element with stiction (method of Otter, Elmqvist and Mattsson, 1999)"
    constant Integer Unknown = 3 "Mode before the first event";
    constant Integer Free = 2 "Not engaged";
    constant Integer Forward = 1 "Sliding with v_rel > 0";
    constant Integer Stuck = 0 "v_rel = 0, stuck or about to slide";
    constant Integer Backward = -1 "Sliding with v_rel < 0";
    Real v_rel "Relative velocity of the surfaces (m/s or rad/s)";
    Real a_rel "Relative acceleration of the surfaces (m/s2 or rad/s2)";
    Real f0 "Sliding friction at v_rel = 0 (N or N.m)";
    Real f0_max "Largest friction while stuck (N or N.m)";
    parameter Real v_small = 1e10
      "Relative velocity near zero, where a jump by reinit(..) may turn the sliding over";
    Boolean free "Whether the element is not engaged";
    Real sa "Path parameter: the friction while stuck, else the acceleration shifted by f0_max";
    Boolean startForward(start = false, fixed = true) "Stuck, and starting to slide forward";
    Boolean startBackward(start = false, fixed = true) "Stuck, and starting to slide backward";
    Boolean forward "Sliding forward or starting to";
    Boolean backward "Sliding backward or starting to";
    Boolean locked "Stuck and staying so";
    Integer mode(start = Unknown, fixed = true) "Stuck, Forward, Backward, Free (Unknown at first)";
  equation
    startForward = pre(mode) == Stuck and (sa > f0_max or pre(startForward) and sa > f0)
      or pre(mode) == Backward and v_rel > v_small or initial() and v_rel > 0;
    startBackward = pre(mode) == Stuck and (sa < -f0_max or pre(startBackward) and sa < -f0)
      or pre(mode) == Forward and v_rel < -v_small or initial() and v_rel < 0;
    forward = pre(mode) == Forward or startForward;
    backward = pre(mode) == Backward or startBackward;
    locked = not free and not (forward or backward);
    a_rel = if locked then 0 else if free then sa else if forward then sa - f0_max else sa + f0_max;
    mode = if free then Free
      else if (forward or pre(mode) == Free) and v_rel > 0 then Forward
      else if (backward or pre(mode) == Free) and v_rel < 0 then Backward
      else Stuck;
  end PartialModes;

  model StickSlipBlock "A block at rest on a rough floor, pushed back and forth by F sin(omega t)"
    extends PartialModes;
    parameter Real m(unit = "kg") = 1 "Mass of the block";
    parameter Real F(unit = "N") = 2 "Amplitude of the push";
    parameter Real omega(unit = "rad/s") = 2 "Angular frequency of the push";
    parameter Real f_slide(unit = "N") = 1 "Coulomb friction while sliding";
    parameter Real f_stick(unit = "N") = 1.5 "Largest friction while stuck";
    parameter Real s_start(unit = "m") = 0.2 "Position at the start";
    Real s(unit = "m", start = s_start, fixed = true) "Position";
    Real v(unit = "m/s", start = 0, fixed = true) "Velocity";
    Real f(unit = "N") "Friction on the block, against v";
  equation
    free = false;
    f0 = f_slide;
    f0_max = f_stick;
    v_rel = v;
    a_rel = der(v);
    der(s) = v;
    m*der(v) = F*sin(omega*time) - f;
    f = if locked then sa else if free then 0 else if forward then f0 else -f0;
    annotation (experiment(StopTime = 6));
  end StickSlipBlock;

  model EngagingClutch
    "A driven inertia and a free one, a clutch between them closing at t_on: it slides, then sticks"
    extends PartialModes;
    parameter Real J1(unit = "kg.m2") = 1 "Driven inertia";
    parameter Real J2(unit = "kg.m2") = 0.5 "Free inertia";
    parameter Real d(unit = "N.m.s/rad") = 0.5 "Viscous loss of the driven inertia";
    parameter Real w_start(unit = "rad/s") = 10 "Speed of the driven inertia at the start";
    parameter Real t_on(unit = "s") = 0.5 "Instant the clutch closes";
    parameter Real fn_max(unit = "N") = 20 "Normal force once closed";
    parameter Real mu(unit = "m") = 0.1 "Sliding friction torque per normal force";
    parameter Real mu0(unit = "m") = 0.15 "Largest stuck friction torque per normal force";
    parameter Real tau_drive(unit = "N.m", fixed = false)
      "Drive torque, such that the driven inertia starts steady";
    Real w1(unit = "rad/s", start = w_start, fixed = true) "Speed of the driven inertia";
    Real w2(unit = "rad/s", start = 0, fixed = true) "Speed of the free inertia";
    Real fn(unit = "N") "Normal force";
    Real tau(unit = "N.m") "Clutch torque on the free inertia";
  equation
    fn = if time < t_on then 0 else fn_max;
    free = fn <= 0;
    f0 = mu*fn;
    f0_max = mu0*fn;
    v_rel = w1 - w2;
    a_rel = der(w1) - der(w2);
    J1*der(w1) = tau_drive - d*w1 - tau;
    J2*der(w2) = tau;
    tau = if locked then sa else if free then 0 else if forward then f0 else -f0;
  initial equation
    der(w1) = 0;
    annotation (experiment(StopTime = 5));
  end EngagingClutch;

  model SlidingBlock
    "A block sliding backward at the start, pushed forward by F0 + r t: it sticks, then slides forward"
    extends PartialModes;
    parameter Real m(unit = "kg") = 0.1 "Mass of the block";
    parameter Real F0(unit = "N") = 1 "Push at the start";
    parameter Real r(unit = "N/s") = 2 "Rate at which the push grows";
    parameter Real f_slide(unit = "N") = 1 "Coulomb friction while sliding";
    parameter Real f_stick(unit = "N") = 1.5 "Largest friction while stuck";
    parameter Real v_start(unit = "m/s") = -2 "Velocity at the start";
    Real s(unit = "m", start = 0, fixed = true) "Position";
    Real v(unit = "m/s", start = v_start, fixed = true) "Velocity";
    Real f(unit = "N") "Friction on the block, against v";
  equation
    free = false;
    f0 = f_slide;
    f0_max = f_stick;
    v_rel = v;
    a_rel = der(v);
    der(s) = v;
    m*der(v) = F0 + r*time - f;
    f = if locked then sa else if free then 0 else if forward then f0 else -f0;
    annotation (experiment(StopTime = 0.5));
  end SlidingBlock;

  model SlidingClutch
    "A spinning inertia and one at rest, a closed clutch between them: it slides from the start, then sticks"
    extends PartialModes;
    parameter Real J1(unit = "kg.m2") = 1 "Spinning inertia";
    parameter Real J2(unit = "kg.m2") = 0.1 "Inertia at rest at the start";
    parameter Real d(unit = "N.m.s/rad") = 0.5 "Viscous loss of the spinning inertia";
    parameter Real fn(unit = "N") = 20 "Normal force";
    parameter Real mu(unit = "m") = 0.1 "Sliding friction torque per normal force";
    parameter Real mu0(unit = "m") = 0.15 "Largest stuck friction torque per normal force";
    Real w1(unit = "rad/s", start = 10, fixed = true) "Speed of the spinning inertia";
    Real w2(unit = "rad/s", start = 0, fixed = true) "Speed of the inertia at rest";
    Real tau(unit = "N.m") "Clutch torque on the inertia at rest";
  equation
    free = false;
    f0 = mu*fn;
    f0_max = mu0*fn;
    v_rel = w1 - w2;
    a_rel = der(w1) - der(w2);
    J1*der(w1) = -d*w1 - tau;
    J2*der(w2) = tau;
    tau = if locked then sa else if free then 0 else if forward then f0 else -f0;
    annotation (experiment(StopTime = 2));
  end SlidingClutch;

  model EasedSpring "A spring eased while the model initializes, as MSL's ElastoBacklash"
    parameter Real c(unit = "N/m") = 4 "Stiffness";
    parameter Real m(unit = "kg") = 1 "Mass";
    Real x(unit = "m", start = 1, fixed = true) "Position";
    Real v(unit = "m/s", start = 0, fixed = true) "Velocity";
    Real f(unit = "N") "Spring force";
  equation
    if initial() then
      f = c/3*x;
    else
      f = c*x;
    end if;
    der(x) = v;
    m*der(v) = -f;
    annotation (experiment(StopTime = 1));
  end EasedSpring;
end FrictionLib;
