package LoopUser "Models whose functions search with while loops and return from loops"
  function firstTrue "Index of the first true element of a Boolean vector"
    input Boolean b[:] "Vector searched";
    output Integer index "Index of the first true element, -1 if none";
  algorithm
    index := 0;
    for k in 1:size(b, 1) loop
      if b[k] then
        index := k;
        return;
      end if;
    end for;
    index := -1;
  end firstTrue;

  function lastAtMost "Index of the last breakpoint at or below a point"
    input Real u[:] "Breakpoints, increasing";
    input Real u0 "Point";
    output Integer k "Index of the last u[k] <= u0, 0 if none";
  algorithm
    k := size(u, 1);
    while k >= 1 and u[k] > u0 loop
      k := k - 1;
    end while;
  end lastAtMost;

  model Sweep "Friction of a table over a speed swept through and past it, and a one-row table"
    TableLib.Components.TableFriction friction(guess = 3);
    Real w(unit = "rad/s") = 6*time - 1 "Speed, -1 to 5 rad/s";
    Real v = TableLib.Functions.segment({1.0}, {2.5}, w) "A table of one row: its value";
  equation
    friction.w = w;
  end Sweep;

  model SpinDown "A wheel slowed by tabulated friction"
    parameter Real J(unit = "kg.m2") = 0.5 "Inertia";
    TableLib.Components.TableFriction friction;
    Real w(start = 3.5, fixed = true, unit = "rad/s") "Speed";
  equation
    friction.w = w;
    J*der(w) = -friction.tau;
  end SpinDown;

  model FirstTrue "The first of three thresholds passed, and the last breakpoint passed"
    Integer first = firstTrue({time > 0.3, time > 0.7, time > 0.1});
    Real passed = lastAtMost({0.2, 0.4, 0.6, 0.8}, time);
  end FirstTrue;
end LoopUser;
