within;
package HeldLib "Initial conditions that read values held between events"
  model PreInRelation "A relation on pre(n) in an equation the initial system reads"
    Real x(start = 1, fixed = true) "Level";
    Real v "Outflow";
    Boolean high "Whether the level is above 0.5";
    Integer n(start = 0, fixed = true) "Changes of high";
  equation
    high = x > 0.5;
    when change(high) then
      n = pre(n) + 1;
    end when;
    v = if pre(n) >= 0 and high then x else 2*x;
    der(x) = -v + (if n > 0 then 0 else 0.1);
  initial equation
    v = 1 "repeats x = 1 through v = x";
  end PreInRelation;
end HeldLib;
