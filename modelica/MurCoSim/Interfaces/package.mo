within MurCoSim;
package Interfaces "Connectors of the components: the signals one component passes to another"

  connector RealInput = input Real "Real signal a component reads from another component"
    annotation (Documentation(info = "<html>
<p>A Real signal read by the component that declares it: a command (a thruster's
<code>pwm</code>), the state of another body (a tether's <code>p_a</code>), or the
environment at a point (a vehicle's <code>v_c</code>). Its unit, start value and array size
are given where it is declared, e.g.
<code>RealInput pwm(start = 1500, unit = \"us\")</code>; the start value is what the
component sees while nothing is connected.</p>
</html>"));

  connector RealOutput = output Real "Real signal a component gives to others"
    annotation (Documentation(info = "<html>
<p>A Real signal computed by the component that declares it (a thruster's <code>tau</code>,
a vehicle's state <code>nu</code>, a wave field's <code>zeta</code>), for other components
or the orchestrator to read. Its unit and array size are given where it is declared, e.g.
<code>RealOutput thrust(unit = \"N\")</code>.</p>
</html>"));

  annotation (Documentation(info = "<html>
<p>The connectors through which MurCoSim's components are wired: every input and output of
a component is declared with one of them, in the style of
<code>Modelica.Blocks.Interfaces</code> of the Modelica Standard Library, which MurCoSim does
not depend on. An input connects to an output of another component (a vehicle's
<code>nu_r</code> to its thruster's <code>nu_r</code>, the thruster's <code>tau</code> to the
vehicle's <code>tau_ext</code>); in a scenario the orchestrator makes these connections
between the exported FMUs, whose inputs and outputs are these connectors.</p>
<p>Arrays of signals are arrays of these connectors (<code>RealInput tau_ext[6]</code>);
separate vector connector classes, which the Standard Library has for their icons, would
mean the same here.</p>
</html>"));
end Interfaces;
