within MurCoSim;
package Ocean "Deep-water linear (Airy) waves: regular waves and Pierson-Moskowitz irregular seas"

  partial model WaveField "Surface elevation and wave particle kinematics at a point: a sum of Airy components"
    parameter Integer n = 1 "Number of wave components";
    parameter MurCoSim.Acceleration g = 9.8
      "Gravitational acceleration (Cortesi's (2012) value, as the buoys')";
    parameter Real direction(unit = "rad") = 0
      "Propagation direction, from north towards east (Cortesi 2012, eq. A.4, beta)";
    parameter Real stretching = 1
      "1: kinematics at the depth below the instantaneous surface (Wheeler); 0: below the mean level (Cortesi 2012, eq. A.7)";
    parameter Real phase[n](each unit = "rad") = fill(0, n) "Phases of the components at t = 0, chi = 0";
    input Real r[3](each start = 0, each unit = "m") "Point, NED";
    output Real zeta(unit = "m") "Surface elevation above the mean level at (r1, r2), positive up";
    output Real v[3](each unit = "m/s") "Wave particle velocity at r, NED";
    output Real a[3](each unit = "m/s2") "Wave particle acceleration at r (local), NED";
  protected
    Real A[n](each unit = "m") "Component amplitudes";
    Real w[n](each unit = "rad/s") "Component angular frequencies";
    Real arg[n](each unit = "rad") "Phase angles w t - k chi + phase, k = w^2/g (deep water, Cortesi 2012, eq. A.2)";
    Real speed[n](each unit = "m/s") "Particle speed amplitudes w A exp(-k depth)";
    Real chi(unit = "m") "Distance along the propagation direction";
    Real depth(unit = "m") "Depth below the surface at which the kinematics are taken (>= 0)";
    Real v_h(unit = "m/s") "Horizontal velocity along the propagation direction";
    Real a_h(unit = "m/s2") "Horizontal acceleration along the propagation direction";
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
    annotation (Documentation(info = "<html>
<p>Linear deep-water waves travelling in one direction (Cortesi 2012, Sec. 2.6 and App. A):</p>
<pre>
  zeta = sum A_j sin(w_j t - k_j chi + ph_j),      chi = x cos(beta) + y sin(beta)
  v    = sum w_j A_j exp(-k_j d) [sin() cos(beta), sin() sin(beta), -cos()]      (NED)
  a    = sum w_j^2 A_j exp(-k_j d) [cos() cos(beta), cos() sin(beta), sin()]
</pre>
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
    parameter MurCoSim.Length amplitude = 0.05
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
    parameter Real omega_min(unit = "rad/s") = 0.006
      "Lower end of the discretized spectrum, > 0 (Cortesi 2012, Table 5.3: 0.006 rad/s)";
    parameter Real omega_max(unit = "rad/s") = 6
      "Upper end of the discretized spectrum (Cortesi 2012, Table 5.3: 6 rad/s)";
    parameter Real components = 128
      "Number of component waves, at most n (see the documentation for why not Cortesi's (2012) 1000)";
    parameter Real omega_cutoff(unit = "rad/s") = 1e6
      "Components above this frequency are left out of the sum (Cortesi 2012, Sec. 5.13.2: c2 sea)";
    parameter Real seed = 1
      "Seed of the random draws; the orchestrator draws bin_offset and phase from it";
    parameter Real bin_offset[n] = fill(0.5, n)
      "Frequency of each component within its bin, 0..1 (uniform random draws; 0.5: bin centres)";
  protected
    parameter Real d_omega(unit = "rad/s") = (omega_max - omega_min)/components
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

  annotation (Documentation(info = "<html>
<p>Sea states for floating bodies: first-order (Airy) deep-water waves from one direction, as
Cortesi (2012, Sec. 2.6 and App. A) model them. Each component gives the elevation,
particle velocity and acceleration at a point; radiation, diffraction, Froude-Krylov and
second-order forces are not modelled (as in Cortesi (2012)).</p>
</html>"));
end Ocean;
