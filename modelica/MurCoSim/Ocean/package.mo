within MurCoSim;
package Ocean "Deep-water linear (Airy) waves: regular waves and Pierson-Moskowitz irregular seas"

  partial model WaveField "Surface elevation and wave particle kinematics at a point: a sum of Airy components"
    parameter Integer n = 1 "Number of wave components";
    parameter MurCoSim.Acceleration g = 9.8
      "Gravitational acceleration (Cortesi's (2012) value, as the buoys')";
    parameter MurCoSim.Angle direction = 0
      "Propagation direction, from north towards east (Cortesi 2012, eq. A.4, beta)";
    parameter Real stretching = 1
      "1: kinematics at the depth below the instantaneous surface (Wheeler); 0: below the mean level (Cortesi 2012, eq. A.7)";
    parameter MurCoSim.Angle phase[n] = fill(0, n) "Phases of the components at t = 0, chi = 0";
    MurCoSim.Interfaces.RealInput r[3](each start = 0, each unit = "m") "Point, NED";
    MurCoSim.Interfaces.RealOutput zeta(unit = "m") "Surface elevation above the mean level at (r1, r2), positive up";
    MurCoSim.Interfaces.RealOutput v[3](each unit = "m/s") "Wave particle velocity at r, NED";
    MurCoSim.Interfaces.RealOutput a[3](each unit = "m/s2") "Wave particle acceleration at r (local), NED";
    MurCoSim.Interfaces.RealOutput a_material[3](each unit = "m/s2")
      "Acceleration of the water particle at r (local plus convective (v . grad) v), NED";
  protected
    MurCoSim.Length A[n] "Component amplitudes";
    MurCoSim.AngularFrequency w[n] "Component angular frequencies";
    MurCoSim.Angle arg[n] "Phase angles w t - k chi + phase, k = w^2/g (deep water, Cortesi 2012, eq. A.2)";
    MurCoSim.Velocity speed[n] "Particle speed amplitudes w A exp(-k depth)";
    MurCoSim.Length chi "Distance along the propagation direction";
    MurCoSim.Length depth "Depth below the surface at which the kinematics are taken (>= 0)";
    MurCoSim.Velocity v_h "Horizontal velocity along the propagation direction";
    MurCoSim.Acceleration a_h "Horizontal acceleration along the propagation direction";
    Real G_hh(unit = "1/s") "Gradient of v_h along the propagation direction";
    Real G_hz(unit = "1/s") "Gradient of v_h downwards (equal to that of v[3] along the direction)";
    Real G_zz(unit = "1/s") "Gradient of v[3] downwards";
  equation
    chi = r[1]*cos(direction) + r[2]*sin(direction);
    for j in 1:n loop
      arg[j] = w[j]*time - w[j]^2/g*chi + phase[j];
      speed[j] = w[j]*A[j]*exp(-w[j]^2/g*depth);
    end for;
    // Cortesi 2012, eqs. A.8 and A.10 (z up there, down here), and the time derivative of A.10.
    zeta = sum(A .* sin(arg));
    depth = max(0, r[3] + stretching*zeta);
    v_h = sum(speed .* sin(arg));
    a_h = sum(w .* speed .* cos(arg));
    v[1] = v_h*cos(direction);
    v[2] = v_h*sin(direction);
    v[3] = -sum(speed .* cos(arg));
    a[1] = a_h*cos(direction);
    a[2] = a_h*sin(direction);
    a[3] = sum(w .* speed .* sin(arg));
    // Velocity gradients, k = w^2/g (stretching's dependence on zeta is left out).
    G_hh = -sum(w .^ 2/g .* speed .* cos(arg));
    G_hz = -sum(w .^ 2/g .* speed .* sin(arg));
    G_zz = sum(w .^ 2/g .* speed .* cos(arg));
    a_material[1] = a[1] + (v_h*G_hh + v[3]*G_hz)*cos(direction);
    a_material[2] = a[2] + (v_h*G_hh + v[3]*G_hz)*sin(direction);
    a_material[3] = a[3] + v_h*G_hz + v[3]*G_zz;
    annotation (Documentation(info = "<html>
<p>Linear deep-water waves travelling in one direction (Cortesi 2012, Sec. 2.6 and App. A):</p>
<pre>
  zeta = sum A_j sin(w_j t - k_j chi + ph_j),      chi = x cos(beta) + y sin(beta)
  v    = sum w_j A_j exp(-k_j d) [sin() cos(beta), sin() sin(beta), -cos()]      (NED)
  a    = sum w_j^2 A_j exp(-k_j d) [cos() cos(beta), cos() sin(beta), sin()]
</pre>
<p><code>a_material</code> adds the convective acceleration (v . grad) v of the same
sum (for one component, k (w A e^{-k d})^2 upwards): the acceleration of the water particle
at r, which a body moving with the water shares (second order in the amplitude, so linear
theory usually leaves it out; without it a neutrally buoyant body drifts off its orbit).</p>
<p>d is the depth of the point. Cortesi (2012) takes it below the mean level (unstretched linear
theory, <code>stretching = 0</code>), which lets short components grow without bound above
the mean level, where a buoy riding a crest samples them. The default,
<code>stretching = 1</code>, takes the depth below the instantaneous surface (Wheeler
stretching), so a point on the surface always sees the surface kinematics. Points above the
surface get the kinematics of the surface.</p>
<p>A body connects its <code>wave_point</code> to <code>r</code> and <code>zeta</code>,
<code>v</code> to its inputs; each body needs its own instance, all with the same
parameters.</p>
</html>"));
  end WaveField;

  model RegularWave "Regular Airy wave in deep water (Cortesi 2012, Sec. A.1)"
    extends WaveField(n = 1);
    parameter MurCoSim.Length amplitude(min = 0) = 0.05
      "Amplitude, half the wave height (Cortesi 2012, Sec. 5.12.2: 0.05 m is rejected at 2 s)";
    parameter MurCoSim.Time period = 2 "Period (Cortesi 2012, Sec. 5.12.2: 2 s)";
  equation
    A[1] = amplitude;
    w[1] = 2*3.141592653589793/period;
  end RegularWave;

  model IrregularSea "Pierson-Moskowitz irregular sea, random frequencies and phases (Fossen Alg. 3.1)"
    extends WaveField(n = 128);
    parameter MurCoSim.Length H_s = 2
      "Significant wave height H_1/3 of the spectrum (Cortesi 2012, Sec. 5.13.2: 2 m)";
    parameter MurCoSim.AngularFrequency omega_min = 0.006
      "Lower end of the discretized spectrum, > 0 (Cortesi 2012, Table 5.3: 0.006 rad/s)";
    parameter MurCoSim.AngularFrequency omega_max = 6
      "Upper end of the discretized spectrum (Cortesi 2012, Table 5.3: 6 rad/s)";
    parameter Real components = 128
      "Number of component waves, at most n (see the documentation for why not Cortesi's (2012) 1000)";
    parameter MurCoSim.AngularFrequency omega_cutoff = 1e6
      "Components above this frequency are left out of the sum (Cortesi 2012, Sec. 5.13.2: c2 sea)";
    parameter Real seed = 1
      "Seed of the random draws; the orchestrator draws bin_offset and phase from it";
    parameter Real bin_offset[n] = fill(0.5, n)
      "Frequency of each component within its bin, 0..1 (uniform random draws; 0.5: bin centres)";
  protected
    parameter MurCoSim.AngularFrequency d_omega = (omega_max - omega_min)/components
      "Width of a frequency bin";
  equation
    for j in 1:n loop
      w[j] = omega_min + (j - 1 + bin_offset[j])*d_omega;
      // A_j = sqrt(2 S(w_j) dw) with the Pierson-Moskowitz spectrum (Cortesi 2012, eqs. A.9, A.11).
      A[j] = if j <= components and w[j] <= omega_cutoff
        then sqrt(2*0.0081*g^2/w[j]^5*exp(-3.11/(w[j]^4*H_s^2))*d_omega) else 0;
    end for;
    annotation (Documentation(info = "<html>
<p>Fossen's Algorithm 3.1 as Cortesi 2012, App. A.2 uses it: the band [omega_min, omega_max] is
cut into <code>components</code> bins of width dw, each component takes a random frequency in
its bin and a random phase, and its amplitude is sqrt(2 S(w_j) dw) with the Pierson-Moskowitz
spectrum S(w) = 0.0081 g^2/w^5 exp(-3.11/(w^4 H_s^2)). Its variance integrates to
(H_s/4)^2, so 4 std(zeta) = H_s over a long record.</p>
<p>The random draws are parameters (<code>bin_offset</code>, <code>phase</code>): Modelica has
no seeded random generator in the subset this library is written in. The orchestrator draws
them from <code>seed</code> with NumPy when it builds the system (orchestrator/ocean.py), so
instances with the same seed see the same sea, and two seas that differ only in
<code>omega_cutoff</code> share every component below the cut-off (Cortesi 2012, Sec. 5.13.2).
Used alone (e.g. in another tool) the FMU has the bin centres and zero phases until they are
set.</p>
<p>The component count is a parameter up to n = 128; the sum always runs over n terms (unused
ones have zero amplitude). Cortesi (2012) uses about 1000 components (Table 5.3, Fossen's N without
random frequencies). The build compiles every component's equations into C, and its time
grows about with the square of n (128: 25 s, 200: 70 s, 1000: several minutes), so n is
kept at 128; with random frequencies within the bins (Fossen's alternative, Cortesi (2012)
Sec. A.2.2) 128 components carry the spectrum's variance: 4 sqrt(sum A_j^2/2) is within 3 %
of H_s for every seed 0-199 and H_s from 0.5 to 5 m on 0.006-6 rad/s.</p>
</html>"));
  end IrregularSea;


  model CurrentField
    "Ocean current at a point: depth profile, first-order Gauss-Markov variation of speed and direction, a gust"
    constant Integer n = 32 "Number of spectral components of each Gauss-Markov process";
    parameter MurCoSim.Velocity speed(min = 0) = 0 "Mean speed where the profile factor is 1";
    parameter MurCoSim.Angle direction = 0
      "Direction the current flows towards, from north towards east";
    parameter MurCoSim.Position profile_depth[4] = {0, 10, 100, 1000}
      "Depths below the mean level of the profile's points, increasing";
    parameter Real profile_factor[4] = {1, 1, 1, 1}
      "Speed factors at those depths: linear in between, constant above the first and below the last";
    parameter MurCoSim.Velocity speed_sigma(min = 0) = 0
      "Stationary standard deviation of the speed's Gauss-Markov variation (0: none)";
    parameter MurCoSim.Time speed_tau = 600 "Correlation time of the speed's variation";
    parameter MurCoSim.Angle direction_sigma(min = 0) = 0
      "Stationary standard deviation of the direction's Gauss-Markov variation (0: none)";
    parameter MurCoSim.Time direction_tau = 600 "Correlation time of the direction's variation";
    parameter Real band[2] = {0.01, 30}
      "Band of the spectral sums, as angular frequency times correlation time: lowest, highest";
    parameter Real seed = 1
      "Seed of the random draws; the orchestrator draws the bin offsets and phases from it";
    parameter Real speed_bin_offset[n] = fill(0.5, n)
      "Frequency of each speed component within its bin, 0..1 (uniform random draws)";
    parameter MurCoSim.Angle speed_phase[n] = fill(0, n)
      "Phases of the speed components (uniform random draws)";
    parameter Real direction_bin_offset[n] = fill(0.5, n)
      "Frequency of each direction component within its bin, 0..1 (uniform random draws)";
    parameter MurCoSim.Angle direction_phase[n] = fill(0, n)
      "Phases of the direction components (uniform random draws)";
    parameter MurCoSim.Velocity gust_velocity[3] = {0, 0, 0}
      "Peak velocity of a (1 - cos) gust, NED (0: none)";
    parameter MurCoSim.Time gust_start = 0 "Start of the gust";
    parameter MurCoSim.Time gust_duration(min = 1e-3) = 10 "Duration of the gust, > 0";
    MurCoSim.Interfaces.RealInput r[3](each start = 0, each unit = "m") "Point, NED";
    MurCoSim.Interfaces.RealOutput v[3](each unit = "m/s") "Current velocity at r, NED";
    MurCoSim.Interfaces.RealOutput a[3](each unit = "m/s2") "Current acceleration at r (time derivative at the point), NED";
  protected
    Real factor "Profile factor at the depth of r";
    MurCoSim.AngularFrequency w_s[n] "Angular frequencies of the speed components";
    MurCoSim.AngularFrequency w_d[n] "Angular frequencies of the direction components";
    MurCoSim.AngularFrequency g_s[n] "Bin width times the normalized spectrum 1/(1 + (w tau)^2), speed";
    MurCoSim.AngularFrequency g_d[n] "The same for the direction";
    MurCoSim.Velocity A_s[n] "Amplitudes of the speed components";
    MurCoSim.Angle A_d[n] "Amplitudes of the direction components";
    MurCoSim.Velocity U "Speed at r";
    MurCoSim.Acceleration U_dot "Rate of the speed";
    MurCoSim.Angle psi "Direction";
    MurCoSim.AngularVelocity psi_dot "Rate of the direction";
    Real s_gust "Progress of the gust, 0 to 1";
  equation
    factor = profile_factor[1]
      + (profile_factor[2] - profile_factor[1])/(profile_depth[2] - profile_depth[1])*(min(max(r[3], profile_depth[1]), profile_depth[2]) - profile_depth[1])
      + (profile_factor[3] - profile_factor[2])/(profile_depth[3] - profile_depth[2])*(min(max(r[3], profile_depth[2]), profile_depth[3]) - profile_depth[2])
      + (profile_factor[4] - profile_factor[3])/(profile_depth[4] - profile_depth[3])*(min(max(r[3], profile_depth[3]), profile_depth[4]) - profile_depth[3]);
    // Bins spaced geometrically over the band; component j at its drawn place in bin j.
    for j in 1:n loop
      w_s[j] = band[1]/speed_tau*(band[2]/band[1])^((j - 1 + speed_bin_offset[j])/n);
      w_d[j] = band[1]/direction_tau*(band[2]/band[1])^((j - 1 + direction_bin_offset[j])/n);
      g_s[j] = band[1]/speed_tau*((band[2]/band[1])^(j/n) - (band[2]/band[1])^((j - 1)/n))/(1 + (w_s[j]*speed_tau)^2);
      g_d[j] = band[1]/direction_tau*((band[2]/band[1])^(j/n) - (band[2]/band[1])^((j - 1)/n))/(1 + (w_d[j]*direction_tau)^2);
      A_s[j] = speed_sigma*sqrt(2*g_s[j]/sum(g_s));
      A_d[j] = direction_sigma*sqrt(2*g_d[j]/sum(g_d));
    end for;
    U = speed*factor + sum(A_s .* cos(w_s*time + speed_phase));
    U_dot = -sum(A_s .* w_s .* sin(w_s*time + speed_phase));
    psi = direction + sum(A_d .* cos(w_d*time + direction_phase));
    psi_dot = -sum(A_d .* w_d .* sin(w_d*time + direction_phase));
    s_gust = min(1, max(0, (time - gust_start)/gust_duration));
    v[1] = U*cos(psi) + gust_velocity[1]*(1 - cos(2*3.141592653589793*s_gust))/2;
    v[2] = U*sin(psi) + gust_velocity[2]*(1 - cos(2*3.141592653589793*s_gust))/2;
    v[3] = gust_velocity[3]*(1 - cos(2*3.141592653589793*s_gust))/2;
    a[1] = U_dot*cos(psi) - U*psi_dot*sin(psi) + gust_velocity[1]*3.141592653589793/gust_duration*sin(2*3.141592653589793*s_gust);
    a[2] = U_dot*sin(psi) + U*psi_dot*cos(psi) + gust_velocity[2]*3.141592653589793/gust_duration*sin(2*3.141592653589793*s_gust);
    a[3] = gust_velocity[3]*3.141592653589793/gust_duration*sin(2*3.141592653589793*s_gust);
    annotation (Documentation(info = "<html>
<p>A horizontal current whose speed varies with depth and, slowly, in time, plus a gust
(Fossen 2011, Sec. 8.3: speed V_c and direction as first-order Gauss-Markov processes):</p>
<pre>
  v = (speed f(z) + dV(t)) [cos(psi), sin(psi), 0] + v_gust(t),   psi = direction + dpsi(t)
  a = dv/dt at the point
</pre>
<p>f(z) is piecewise linear through (profile_depth, profile_factor), constant outside them
(e.g. a log or 1/7-power boundary layer sampled at four depths). dV and dpsi are first-order
Gauss-Markov processes (Ornstein-Uhlenbeck, autocorrelation sigma^2 exp(-|t|/tau)) in the
spectral representation of Shinozuka and Deodatis (1991): a sum of n cosines with random
phases, their frequencies random within n bins spaced geometrically over
[band1, band2]/tau, their amplitudes sqrt(2 S_j dw_j) from the one-sided spectrum
S(w) ~ 1/(1 + (w tau)^2), scaled so that the variance is sigma^2 exactly. The process is
a smooth function of time, so its rate, and with it the current's acceleration that the
vehicles' Froude-Krylov and added-mass terms need, is exact, and a run's current does not
depend on the integrator's steps. The default band 0.01-30 covers 97 % of the spectrum's
variance; the autocorrelation is that of the process for lags up to about 100 tau.</p>
<p>The random draws are parameters, drawn by the orchestrator from <code>seed</code> when it
builds the system (as for <a href=\"modelica://MurCoSim.Ocean.IrregularSea\">IrregularSea</a>):
instances with the same seed (one per body) see the same current.</p>
<p>The gust is the discrete (1 - cos) gust: v_gust = gust_velocity (1 - cos(2 pi s))/2,
s = (t - gust_start)/gust_duration clamped to [0, 1]; velocity and acceleration are
continuous.</p>
<p>The field has no vertical velocity, so the water's acceleration at a fixed point,
<code>a</code>, is also its material acceleration: the depth profile adds no convective term.
A body reads v and a at its <code>wave_point</code> into its inputs <code>v_c</code> and
<code>a_c</code>. The speed is not saturated: choose speed_sigma small against the speed when
the current must keep its sense.</p>
</html>"));
  end CurrentField;

  annotation (Documentation(info = "<html>
<p>Sea states for floating bodies: first-order (Airy) deep-water waves from one direction, as
Cortesi (2012, Sec. 2.6 and App. A) model them. Each component gives the elevation,
particle velocity and acceleration at a point; radiation, diffraction, Froude-Krylov and
second-order forces are not modelled (as in Cortesi (2012)). A submerged
<a href=\"modelica://MurCoSim.Vehicles.Vehicle\">Vehicle</a> takes a wave's <code>zeta</code>,
<code>v</code> and <code>a_material</code> into its inputs <code>zeta</code>, <code>v_w</code>
and <code>a_w</code>: the orbital velocity and acceleration, decaying as e^{-k d} with depth, act
through the relative velocity and the Froude-Krylov and added-mass terms.
<a href=\"modelica://MurCoSim.Ocean.CurrentField\">CurrentField</a> gives a current varying
with depth and time.</p>
</html>"));
end Ocean;
