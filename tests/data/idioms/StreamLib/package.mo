within;
package StreamLib "Thermal-fluid components with stream connectors and a replaceable medium"
  constant Real pi = 3.14159265358979323846;
  package Media "Incompressible media: constants and functions of a medium package"
    partial package PartialMedium "What every medium gives"
      constant String mediumName "Name of the medium";
      constant Real cp(unit = "J/(kg.K)") "Specific heat capacity";
      constant Real T_ref(unit = "K") = 293.15 "Temperature of zero specific enthalpy";
      function specificEnthalpy "Specific enthalpy at a temperature"
        input Real T(unit = "K") "Temperature";
        output Real h(unit = "J/kg") "Specific enthalpy";
      algorithm
        h := cp*(T - T_ref);
      end specificEnthalpy;
      function temperature "Temperature at a specific enthalpy"
        input Real h(unit = "J/kg") "Specific enthalpy";
        output Real T(unit = "K") "Temperature";
      algorithm
        T := T_ref + h/cp;
      end temperature;
    end PartialMedium;

    package Water "Water at constant properties"
      extends PartialMedium(mediumName = "Water", cp = 4184);
    end Water;

    package Oil "A light oil at constant properties"
      extends PartialMedium(mediumName = "Oil", cp = 1900, T_ref = 273.15);
    end Oil;
  end Media;

  connector FluidPort "Pressure, mass flow into the component and the enthalpy leaving it"
    Real p(unit = "Pa") "Pressure";
    flow Real m_flow(unit = "kg/s") "Mass flow rate into the component";
    stream Real h_outflow(unit = "J/kg") "Specific enthalpy of the fluid leaving the component";
  end FluidPort;

  model MassFlowSource "A prescribed mass flow into the circuit at a prescribed temperature"
    replaceable package Medium = Media.PartialMedium "Medium in the component";
    parameter Real m_flow_nominal(unit = "kg/s") = 1 "Amplitude of the mass flow";
    parameter Real f(unit = "Hz") = 0 "Frequency of the mass flow (0: constant)";
    parameter Real T(unit = "K") = 293.15 "Temperature of the fluid it gives";
    FluidPort port;
  equation
    port.m_flow = -m_flow_nominal*cos(2*pi*f*time);
    port.h_outflow = Medium.specificEnthalpy(T);
  end MassFlowSource;

  model Boundary "A fixed pressure and temperature"
    replaceable package Medium = Media.PartialMedium "Medium in the component";
    parameter Real p(unit = "Pa") = 1e5 "Pressure";
    parameter Real T(unit = "K") = 293.15 "Temperature of the fluid it gives";
    FluidPort port;
  equation
    port.p = p;
    port.h_outflow = Medium.specificEnthalpy(T);
  end Boundary;

  model MixingVolume "A well-mixed volume of fixed mass: both ports at its pressure and enthalpy"
    replaceable package Medium = Media.PartialMedium "Medium in the component";
    parameter Real m(unit = "kg") = 1 "Mass of the fluid in the volume";
    parameter Real T_start(unit = "K") = 293.15 "Initial temperature";
    parameter Real Q_flow(unit = "W") = 0 "Heat flow into the volume";
    Real T(unit = "K", start = T_start, fixed = true) "Temperature";
    Real p(unit = "Pa") "Pressure";
    FluidPort port_a;
    FluidPort port_b;
  equation
    port_a.m_flow + port_b.m_flow = 0;
    port_a.p = p;
    port_b.p = p;
    port_a.h_outflow = Medium.specificEnthalpy(T);
    port_b.h_outflow = Medium.specificEnthalpy(T);
    m*Medium.cp*der(T) = port_a.m_flow*actualStream(port_a.h_outflow)
      + port_b.m_flow*actualStream(port_b.h_outflow) + Q_flow;
  end MixingVolume;

  model Pipe "A linear pressure loss, no storage"
    parameter Real k(unit = "kg/(s.Pa)") = 1e-4 "Mass flow per pressure difference";
    FluidPort port_a;
    FluidPort port_b;
    Real m_flow(unit = "kg/s") "Mass flow from a to b";
  equation
    m_flow = port_a.m_flow;
    port_a.m_flow + port_b.m_flow = 0;
    m_flow = k*(port_a.p - port_b.p);
    port_a.h_outflow = inStream(port_b.h_outflow);
    port_b.h_outflow = inStream(port_a.h_outflow);
  end Pipe;

  model TemperatureSensor "The temperature of the fluid arriving at a port (no flow through it)"
    replaceable package Medium = Media.PartialMedium "Medium in the component";
    FluidPort port;
    output Real T(unit = "K") "Temperature";
  equation
    port.m_flow = 0;
    port.h_outflow = 0;
    T = Medium.temperature(inStream(port.h_outflow));
  end TemperatureSensor;

  model ReversingFlow "Two volumes in series; the flow through them reverses every half period"
    replaceable package Medium = Media.Water "Medium in the circuit";
    MassFlowSource source(redeclare package Medium = Medium, m_flow_nominal = 0.2, f = 0.5, T = 353.15);
    MixingVolume volume1(redeclare package Medium = Medium, m = 0.5, T_start = 303.15, Q_flow = 2000);
    Pipe pipe(k = 2e-5);
    MixingVolume volume2(redeclare package Medium = Medium, m = 0.3, T_start = 293.15);
    Boundary sink(redeclare package Medium = Medium, T = 283.15);
    output Real T1(unit = "K") = volume1.T "Temperature of the first volume";
    output Real T2(unit = "K") = volume2.T "Temperature of the second volume";
    output Real dp(unit = "Pa") = volume1.p - volume2.p "Pressure drop of the pipe";
  equation
    connect(source.port, volume1.port_a);
    connect(volume1.port_b, pipe.port_a);
    connect(pipe.port_b, volume2.port_a);
    connect(volume2.port_b, sink.port);
  end ReversingFlow;

  model ReversingOil "The same circuit with oil: the medium redeclared in extends"
    extends ReversingFlow(redeclare package Medium = Media.Oil);
  end ReversingOil;

  model ThreeWayMixing "Two sources into one volume through one connection, a sensor at the node"
    package Medium = Media.Water "Medium in the circuit";
    MassFlowSource hot(redeclare package Medium = Medium, m_flow_nominal = 0.3, T = 363.15);
    MassFlowSource cold(redeclare package Medium = Medium, m_flow_nominal = 0.1, T = 283.15);
    MixingVolume volume(redeclare package Medium = Medium, m = 2, T_start = 293.15);
    TemperatureSensor sensor(redeclare package Medium = Medium);
    Boundary sink(redeclare package Medium = Medium);
    output Real T(unit = "K") = volume.T "Temperature of the volume";
    output Real T_mix(unit = "K") = sensor.T "Temperature of the mixed inflow";
  equation
    connect(hot.port, volume.port_a);
    connect(cold.port, volume.port_a);
    connect(sensor.port, volume.port_a);
    connect(volume.port_b, sink.port);
  end ThreeWayMixing;
end StreamLib;
