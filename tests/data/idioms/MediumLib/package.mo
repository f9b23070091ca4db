within;
package MediumLib "Media as packages of constants and functions, extended and redeclared"
  package Interfaces "Partial classes"
    partial package PartialMedium "What every medium gives"
      constant Real cp(unit = "J/(kg.K)") "Specific heat capacity";
      constant Real T_ref(unit = "K") = 293.15 "Temperature of zero specific enthalpy";
      function specificEnthalpy "Specific enthalpy at a temperature"
        input Real T(unit = "K") "Temperature";
        output Real h(unit = "J/kg") "Specific enthalpy";
      algorithm
        h := cp*(T - T_ref);
      end specificEnthalpy;
    end PartialMedium;
  end Interfaces;

  package Water "Water at constant properties"
    extends Interfaces.PartialMedium(cp = 4184);
  end Water;

  package ColdWater = Interfaces.PartialMedium(cp = 4200, T_ref = 273.15)
    "Water with enthalpy from 0 degC, as a short class";

  package Brine "Salt water: a constant Water gives, given again"
    extends Water(cp = 3900);
  end Brine;

  model Heater "A heated mass of fluid: m cp T' = Q"
    replaceable package Medium = Interfaces.PartialMedium "Medium heated";
    parameter Real m(unit = "kg") = 2 "Mass";
    parameter Real Q_flow(unit = "W") = 1000 "Heat flow";
    Real T(unit = "K", start = 293.15, fixed = true) "Temperature";
    output Real h(unit = "J/kg") = Medium.specificEnthalpy(T) "Specific enthalpy";
  equation
    m*Medium.cp*der(T) = Q_flow;
  end Heater;

  model WaterHeater "The medium redeclared in a component's modification"
    Heater heater(redeclare package Medium = Water);
    output Real T(unit = "K") = heater.T "Temperature";
    output Real h(unit = "J/kg") = heater.h "Specific enthalpy";
  end WaterHeater;

  model SharedWaterHeater "Water heated by two shares of 1 kW (an element-wise product); uses none of the classes refused below"
    parameter Real share[2] = {0.25, 0.75} "Shares of the heat flow";
    Heater heater(redeclare package Medium = Water, Q_flow = sum({1000, 1000} .* share));
    output Real T(unit = "K") = heater.T "Temperature";
    output Real h(unit = "J/kg") = heater.h "Specific enthalpy";
  end SharedWaterHeater;

  model ColdWaterHeater "A short medium class redeclared"
    Heater heater(redeclare package Medium = ColdWater);
    output Real T(unit = "K") = heater.T "Temperature";
    output Real h(unit = "J/kg") = heater.h "Specific enthalpy";
  end ColdWaterHeater;

  model BrineHeater "A medium that modifies a constant its base modifies"
    Heater heater(redeclare package Medium = Brine);
    output Real T(unit = "K") = heater.T "Temperature";
    output Real h(unit = "J/kg") = heater.h "Specific enthalpy";
  end BrineHeater;

  model SaltyHeater "The same modification in the redeclaration"
    Heater heater(redeclare package Medium = Water(cp = 3900));
    output Real T(unit = "K") = heater.T "Temperature";
    output Real h(unit = "J/kg") = heater.h "Specific enthalpy";
  end SaltyHeater;

  model ExtendedHeater "The medium redeclared in extends, its function called by the base"
    extends Heater(redeclare package Medium = ColdWater);
  end ExtendedHeater;
end MediumLib;
