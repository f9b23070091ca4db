within Authoring;
package Data "Parameter records"
  type Mode = enumeration(
      Free "No force",
      Linear "Linear damping",
      Quadratic "Quadratic damping") "How a damper acts";
  record BodyData "A body's mass and damping"
    parameter SI.Mass m = 1 "Mass";
    parameter SI.TranslationalDampingConstant d = 0.5 "Linear damping";
  end BodyData;
  record HeavyBody "A heavier body"
    extends BodyData(m = 4, d = 2);
  end HeavyBody;
  record StiffBody "A heavy body on a stiff mount"
    extends HeavyBody(d = 1);
    parameter SI.TranslationalSpringConstant c = 16 "Mount stiffness";
  end StiffBody;
end Data;
