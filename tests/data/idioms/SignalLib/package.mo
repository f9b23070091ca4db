within;
package SignalLib "Blocks with Boolean, Integer, enumeration and String interfaces"
  type Gear = enumeration(Reverse "Driving backwards", Neutral "No drive", Drive "Driving forwards")
    "Gear of a drive";

  connector BooleanOutput = output Boolean "Boolean output signal";
  connector IntegerOutput = output Integer "Integer output signal";
  connector RealInput = input Real "Real input signal";
  connector RealOutput = output Real "Real output signal";
  connector GearInput = input Gear "Gear input signal";

  block Hysteresis "true above uHigh until below uLow; counts the times it switched on"
    parameter Real uLow = -0.5 "Lower threshold";
    parameter Real uHigh = 0.5 "Upper threshold";
    parameter Boolean pre_y_start = false "Value of pre(y) at the start";
    parameter String label = "hysteresis" "Name given to the signal";
    RealInput u "Signal";
    BooleanOutput y "true above uHigh until below uLow";
    IntegerOutput count "Times y turned true";
  initial equation
    pre(y) = pre_y_start;
    pre(count) = 0;
  equation
    y = u > uHigh or pre(y) and u >= uLow;
    when y then
      count = pre(count) + 1;
    end when;
  end Hysteresis;

  block SwitchedHysteresis "The same hysteresis written with when-equations"
    parameter Real uLow = -0.5 "Lower threshold";
    parameter Real uHigh = 0.5 "Upper threshold";
    parameter Boolean y_start = false "Value at the start";
    parameter String label = "hysteresis" "Name given to the signal";
    RealInput u "Signal";
    BooleanOutput y(start = y_start, fixed = true) "true above uHigh until below uLow";
    IntegerOutput count(start = 0, fixed = true) "Times y turned true";
  equation
    when u > uHigh then
      y = true;
    elsewhen u < uLow then
      y = false;
    end when;
    when y then
      count = pre(count) + 1;
    end when;
  end SwitchedHysteresis;

  block GearBox "Output speed from the gear set at the input"
    parameter Real ratio[Gear] = {-0.5, 0, 2} "Ratio of each gear";
    GearInput gear "Gear selected";
    RealInput w_in "Input speed (rad/s)";
    RealOutput w_out "Output speed (rad/s)";
    IntegerOutput direction "-1 backwards, 0 in Neutral, 1 forwards";
    BooleanOutput moving "true unless in Neutral";
  equation
    w_out = w_in*(if gear == Gear.Reverse then ratio[Gear.Reverse]
      elseif gear == Gear.Neutral then ratio[Gear.Neutral] else ratio[Gear.Drive]);
    direction = if gear == Gear.Reverse then -1 elseif gear == Gear.Drive then 1 else 0;
    moving = gear <> Gear.Neutral;
  end GearBox;

  block UpwindFlux "Heat carried by a flow between two temperatures (semiLinear)"
    parameter Real cp(unit = "J/(kg.K)") = 1000 "Specific heat capacity";
    RealInput m_flow "Mass flow from a to b (kg/s)";
    RealInput T_a "Temperature at a (K)";
    RealInput T_b "Temperature at b (K)";
    RealOutput Q_flow "Heat flow from a to b (W)";
  equation
    Q_flow = semiLinear(m_flow, cp*T_a, cp*T_b);
  end UpwindFlux;

  model SwitchingRun "A sine through the hysteresis; the gear follows it"
    parameter String runName = "sine through a hysteresis" "Name of the run";
    SwitchedHysteresis hyst(uLow = -0.3, uHigh = 0.6, label = runName);
    GearBox box;
    UpwindFlux flux;
    output Boolean on = hyst.y "Hysteresis output";
    output Integer count = hyst.count "Times it switched on";
    output Integer direction = box.direction "Direction of the gear";
    output Boolean moving = box.moving "Gear not in neutral";
    output Real w = box.w_out "Output speed (rad/s)";
    output Real Q_flow = flux.Q_flow "Upwind heat flow (W)";
  equation
    hyst.u = sin(2*3.14159265358979323846*time);
    box.gear = if time < 0.4 then Gear.Drive elseif time < 1.2 then Gear.Neutral else Gear.Reverse;
    box.w_in = 10;
    flux.m_flow = sin(2*3.14159265358979323846*time);
    flux.T_a = 300;
    flux.T_b = 350;
  end SwitchingRun;
end SignalLib;
