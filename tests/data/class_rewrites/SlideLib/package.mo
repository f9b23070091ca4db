package SlideLib "Models of RailLib's classes beside classes of the same forms of their own"
  block Ramp "y = u[1] + u[2] time"
    input Real u[2];
    output Real y;
  protected
    function position
      input Real q[2];
      input Real t;
      output Real p;
    algorithm
      p := q[1] + q[2]*t;
    end position;
  equation
    y = position(u, time);
  end Ramp;

  block Total "y = u[1] + u[2] + u[3]"
    input Real u[3];
    output Real y;
  protected
    function position
      input Real q[3];
      output Real p;
    algorithm
      p := q[1] + q[2] + q[3];
    end position;
  equation
    y = position(u);
  end Total;

  model Tank "Level of a tank draining through a linear outlet; its balance in a nested class"
    extends PartialTank;
    parameter Real A(unit = "m2") = 2 "Area";
    parameter Real k(unit = "m2/s") = 1 "Outflow per level";

    encapsulated partial model PartialTank "Level and outflow of a tank"
      parameter Real A0(unit = "m2") = 1 "Area the outflow is given per";
      Real h(unit = "m", start = 1, fixed = true) "Level";
      Real q(unit = "m/s") "Outflow per area A0";
    equation
      der(h) = -q/A0;
    end PartialTank;
  equation
    q = k/A*h*A0;
  end Tank;

  model Rig "RailLib's slider and motion sources beside this library's own classes"
    RailLib.Components.DampedSlider slider;
    RailLib.Sources.Move move(T = 0.25, u = {sin(time), cos(time), -sin(time)});
    RailLib.Adaptors.Lead lead(u = {sin(time), cos(time)});
    Ramp ramp(u = {1, 2});
    Total total(u = {time, 2, 3});
    Tank tank;
  end Rig;
end SlideLib;
