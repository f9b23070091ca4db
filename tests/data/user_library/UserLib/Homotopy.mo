within UserLib;
package Homotopy "Initialization by homotopy: op-amp circuits whose algebraic loops have several roots"
  type LimiterHomotopy = enumeration(
      NoHomotopy "The actual characteristic only",
      UpperLimit "Initialize at the upper supply voltage")
    "Simplified model of a limiter for homotopy-based initialization";

  model LimitedOpAmp "Op-amp with gain V0 limited to its supply voltages (as MSL's IdealizedOpAmpLimited)"
    parameter Real V0 = 15000.0 "No-load amplification";
    parameter SI.Voltage Vps = 15 "Positive supply voltage";
    parameter SI.Voltage Vns = -15 "Negative supply voltage";
    parameter Boolean strict = false "= true: limits in noEvent, as MSL's (a nonlinear loop); false: relations with events";
    parameter LimiterHomotopy homotopyType = LimiterHomotopy.NoHomotopy "Simplified model for initialization";
    Modelica.Electrical.Analog.Interfaces.PositivePin in_p "Non-inverting input";
    Modelica.Electrical.Analog.Interfaces.NegativePin in_n "Inverting input";
    Modelica.Electrical.Analog.Interfaces.PositivePin out "Output";
    SI.Voltage v_in = in_p.v - in_n.v "Input voltage difference";
  protected
    SI.Voltage simplifiedExpr = if homotopyType == LimiterHomotopy.UpperLimit then Vps else 0
      "Simplified expression for homotopy-based initialization";
  equation
    in_p.i = 0;
    in_n.i = 0;
    if strict then
      if homotopyType == LimiterHomotopy.NoHomotopy then
        out.v = smooth(0, noEvent(if V0*v_in > Vps then Vps else if V0*v_in < Vns then Vns else V0*v_in));
      else
        out.v = homotopy(actual = smooth(0, noEvent(if V0*v_in > Vps then Vps else if V0*v_in < Vns then Vns else V0*v_in)),
                         simplified = simplifiedExpr);
      end if;
    else
      if homotopyType == LimiterHomotopy.NoHomotopy then
        out.v = if V0*v_in > Vps then Vps else if V0*v_in < Vns then Vns else V0*v_in;
      else
        out.v = homotopy(actual = if V0*v_in > Vps then Vps else if V0*v_in < Vns then Vns else V0*v_in,
                         simplified = simplifiedExpr);
      end if;
    end if;
  end LimitedOpAmp;

  model Relaxation "Schmitt trigger (positive feedback R2, R1) charging a capacitor through R: at t = 0
    the loop has the roots 0 V and +-15 V, and homotopy chooses +15 V"
    parameter Boolean strict = false "= true: the op-amp's limits without events";
    parameter LimiterHomotopy homotopyType = LimiterHomotopy.UpperLimit "Simplified op-amp for initialization";
    LimitedOpAmp opAmp(strict = strict, homotopyType = homotopyType);
    Modelica.Electrical.Analog.Basic.Resistor r2(R = 1000) "Feedback from the output";
    Modelica.Electrical.Analog.Basic.Resistor r1(R = 4000) "To ground";
    Modelica.Electrical.Analog.Basic.Resistor r(R = 2000);
    Modelica.Electrical.Analog.Basic.Capacitor c(C = 1e-3, v(start = 0, fixed = true));
    Modelica.Electrical.Analog.Basic.Ground ground;
    output SI.Voltage v_out = opAmp.out.v "Trigger output";
    output SI.Voltage v_c = c.v "Capacitor voltage";
  equation
    connect(opAmp.out, r2.p);
    connect(r2.n, opAmp.in_p);
    connect(opAmp.in_p, r1.p);
    connect(r1.n, ground.p);
    connect(opAmp.out, r.p);
    connect(r.n, c.p);
    connect(c.p, opAmp.in_n);
    connect(c.n, ground.p);
  end Relaxation;

  model RelaxationStrict "The same trigger with limits in noEvent: a nonlinear algebraic loop"
    extends Relaxation(strict = true);
  end RelaxationStrict;

  model RelaxationActual "The same trigger without homotopy: the loop's trivial root"
    extends Relaxation(homotopyType = LimiterHomotopy.NoHomotopy);
  end RelaxationActual;

  model Unreachable "0 = y^2 + 1 has no real root: the continuation from the simplified
    0 = y - 1 ends where lambda y^2 + (1 - lambda) y + 2 lambda - 1 = 0 loses its roots"
    Real x(start = 1, fixed = true);
    Real y(start = 0);
  equation
    der(x) = -x*y;
    0 = homotopy(actual = y*y + 1, simplified = y - 1);
  end Unreachable;
  model NoRealRoot "y^2 + x = 0 has no real root for x > 0: the loop's NaN also fails an assert on y"
    Real x(start = 1, fixed = true);
    Real y(start = 0);
  equation
    der(x) = -x;
    0 = y*y + x;
    assert(y > -100, "y below -100");
  end NoRealRoot;
end Homotopy;
