within MurCoSim;
package Thrusters "Propeller thrusters driven by an ESC pulse-width command"

  partial model ThrusterBase "Thruster map with dead zone, saturation and advance-speed loss"
    replaceable parameter MurCoSim.Data.T200 data "Thruster characteristics";
    parameter MurCoSim.Position position[3] = {0, 0, 0}
      "Mount position relative to the vehicle origin CO, vehicle body frame";
    parameter Real direction[3] = {1, 0, 0}
      "Unit thrust direction for a positive command, vehicle body frame";
    parameter Real spin = 1
      "Propeller handedness: +1 when the shaft torque on the water points along direction for positive thrust";

    MurCoSim.Interfaces.RealInput pwm(start = 1500, unit = "us") "ESC command pulse width";
    MurCoSim.Interfaces.RealInput nu_r[6](each start = 0, unit = {"m/s", "m/s", "m/s", "rad/s", "rad/s", "rad/s"})
      "Vehicle velocity relative to the water at CO, body frame";
    MurCoSim.Interfaces.RealInput immersion(start = 1)
      "Immersed fraction of the propeller, 0..1: its thrust and torque scale with it (the vehicle's thruster_immersion under a free surface)";
    MurCoSim.Interfaces.RealOutput thrust(unit = "N") "Thrust along direction";
    MurCoSim.Interfaces.RealOutput torque(unit = "N.m") "Shaft torque (reaction on the vehicle is -spin*torque*direction)";
    MurCoSim.Interfaces.RealOutput tau[6](unit = {"N", "N", "N", "N.m", "N.m", "N.m"})
      "Generalized force on the vehicle at CO, body frame";
    MurCoSim.PulseWidth w "Effective command offset driving the propeller";

  protected
    MurCoSim.PulseWidth w_cmd "Command offset after saturation and dead zone";
    MurCoSim.Velocity u_a "Advance speed: water velocity into the propeller along direction";

  equation
    // A static map of the command, which changes only at controller samples: no events.
    w_cmd = if noEvent(pwm >= data.pwm_max) then data.pwm_max - data.pwm_neutral
      elseif noEvent(pwm <= data.pwm_min) then data.pwm_min - data.pwm_neutral
      elseif noEvent(abs(pwm - data.pwm_neutral) <= data.dead_zone) then 0
      else pwm - data.pwm_neutral;
    // Velocity of the mount point v + w x r, projected on the thrust direction.
    u_a = direction[1]*(nu_r[1] + nu_r[5]*position[3] - nu_r[6]*position[2])
      + direction[2]*(nu_r[2] + nu_r[6]*position[1] - nu_r[4]*position[3])
      + direction[3]*(nu_r[3] + nu_r[4]*position[2] - nu_r[5]*position[1]);
    // Static map (Nielsen 2018, eq. 4.8) with the advance-speed loss of eq. 5.8.
    thrust = immersion*(data.K_L*w + data.K_Q*abs(w)*w - data.K_advance*abs(w)*u_a);
    torque = data.torque_arm*thrust;
    for i in 1:3 loop
      tau[i] = thrust*direction[i];
    end for;
    tau[4] = thrust*(position[2]*direction[3] - position[3]*direction[2]) - spin*torque*direction[1];
    tau[5] = thrust*(position[3]*direction[1] - position[1]*direction[3]) - spin*torque*direction[2];
    tau[6] = thrust*(position[1]*direction[2] - position[2]*direction[1]) - spin*torque*direction[3];
    annotation (Documentation(info = "<html>
<p>Command: ESC pulse width pwm in us. It is saturated to [pwm_min, pwm_max]; inside
pwm_neutral +- dead_zone it gives no thrust; outside, the offset w = pwm - pwm_neutral drives
the map T = K_L w + K_Q |w| w - K_advance |w| u_a (Nielsen 2018, eqs. 4.8 and 5.8). Thrust and shaft
torque act on the vehicle at the mount: tau = [T d; r x T d - spin Q d]. Both scale with the
input <code>immersion</code> (1 by default): a thruster out of the water pushes nothing, a
smooth stand-in for the ventilation losses of a propeller near the surface, not a fitted
model.</p>
<p>The dead zone makes the map jump by about 0.9 N at its edges (Nielsen's (2018) fit is in the
offset from 1500 us); commands are held between controller samples, so the integrator never
steps across the jump.</p>
</html>"));
  end ThrusterBase;

  model Thruster "Static thruster: the propeller follows the command at once (Nielsen 2018, Ch. 6)"
    extends ThrusterBase;
  equation
    w = w_cmd;
  end Thruster;

  model LaggedThruster "Thruster with a first-order motor lag on the command"
    extends ThrusterBase(w(start = 0, fixed = true));
  equation
    data.T_motor*der(w) = w_cmd - w;
  end LaggedThruster;

  annotation (Documentation(info = "<html>
<p>Thrusters are separate components: mounted on a vehicle, their tau output adds to the
vehicle's tau_ext and they read the vehicle's nu_r. The orchestrator sets position and
direction from the vehicle's thruster layout.</p>
</html>"));
end Thrusters;
