within;
package TypedLib "Blocks whose Integer, Boolean and enumeration variables keep their types in the FMU"
  type Mode = enumeration(Off "Switched off", Slow "Half speed", Fast "Full speed")
    "Operating mode of a pump";
  type Gear = enumeration(Reverse "Driving backwards", Neutral "No drive", Drive "Driving forwards")
    "Gear of a drive";

  connector BooleanInput = input Boolean "Boolean input signal";
  connector IntegerInput = input Integer "Integer input signal";
  connector ModeInput = input Mode "Mode input signal";
  connector RealInput = input Real "Real input signal";
  connector BooleanOutput = output Boolean "Boolean output signal";
  connector IntegerOutput = output Integer "Integer output signal";
  connector RealOutput = output Real "Real output signal";
  connector ModeOutput = output Mode "Mode output signal";

  block Tank "A tank filled at a rate; relations and an event counter on its level"
    parameter Real rate(unit = "m/s") = 1 "Filling rate";
    parameter Integer stages = 2 "Level multiplier of the reported stage";
    parameter Boolean invert = false "Report the level below the threshold as high";
    parameter Mode startMode = Mode.Slow "Mode before the level reaches 1 m";
    Real level(unit = "m", start = 0, fixed = true) "Level";
    BooleanOutput high "Level above 0.5 m (inverted when invert)";
    IntegerOutput stage "stages where the level is above 1 m, else 1";
    IntegerOutput crossings(start = 0, fixed = true) "Times the level passed a whole metre";
    ModeOutput mode "Fast above 1 m, else startMode";
    discrete RealOutput lastCrossing(start = -1, fixed = true, unit = "s")
      "Time of the last whole metre passed";
  equation
    der(level) = rate;
    high = if invert then level <= 0.5 else level > 0.5;
    stage = if level > 1 then stages else 1;
    mode = if level > 1 then Mode.Fast else startMode;
    when level > pre(crossings) + 1 then
      crossings = pre(crossings) + 1;
      lastCrossing = time;
    end when;
  end Tank;

  block Selector "A gain switched on and chosen by Boolean, Integer and enumeration inputs"
    BooleanInput enable "Pass the signal on";
    IntegerInput factor(start = 3) "Gain";
    ModeInput mode "Off gives no output, Slow half of it";
    RealInput u "Signal";
    RealOutput y "factor*u where enabled and not Off, halved in Slow";
    BooleanOutput passing "enable and mode is not Off";
    IntegerOutput doubled "2*factor";
  equation
    passing = enable and mode <> Mode.Off;
    y = if passing then (if mode == Mode.Slow then 0.5 else 1)*factor*u else 0;
    doubled = 2*factor;
  end Selector;

  block Relay "Passes a gear and a mode on; no literal of either type is named"
    input Gear gear "Gear in";
    input Mode modeIn "Mode in";
    output Gear gearOut "The gear";
    output Mode modeOut "The mode";
  equation
    gearOut = gear;
    modeOut = modeIn;
  end Relay;
end TypedLib;
