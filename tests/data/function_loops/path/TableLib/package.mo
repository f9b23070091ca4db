package TableLib "Tables searched by functions with while loops, and components that use them"
  package Functions "Searches in vectors"
    function segment
      "Linear interpolation in a table, its interval searched from a guessed one"
      input Real u[:] "Breakpoints, strictly increasing";
      input Real v[size(u, 1)] "Values at the breakpoints";
      input Real u0 "Point to interpolate at";
      input Integer guess = 1 "Interval the search starts from";
      output Real v0 "Value at u0, extrapolated from the first or last interval outside";
      output Integer found = 1 "Interval of u0, as the search left it";
    protected
      Integer k "Interval, u[k] <= u0 < u[k + 1] inside the table";
      Integer last = size(u, 1) "Number of breakpoints";
    algorithm
      if last < 2 then
        v0 := v[1];
      else
        k := max(1, min(guess, last - 1));
        if u0 < u[k] then
          // search down
          while k > 1 and u0 < u[k] loop
            k := k - 1;
          end while;
        else
          // search up
          while k < last - 1 and u[k + 1] <= u0 loop
            k := k + 1;
          end while;
        end if;
        v0 := v[k] + (v[k + 1] - v[k])*(u0 - u[k])/(u[k + 1] - u[k]);
        found := k;
      end if;
      annotation (Documentation(info="<html>
<p>Interpolates linearly in the table (u, v); the interval is searched from
<code>guess</code>, down while u0 lies below it, up while it lies above.</p>
</html>"));
    end segment;
  end Functions;

  package Components "Components with tabulated laws"
    model TableFriction "Rotational friction whose torque a table gives over the speed"
      parameter Real table[:, 2] = [0, 0; 1, 2; 2, 3; 4, 3.5]
        "Speed (rad/s) and friction torque (N.m), speeds increasing";
      parameter Integer guess = 2 "Interval the search starts from";
      input Real w(unit = "rad/s") "Speed";
      output Real tau(unit = "N.m") "Friction torque";
      Real tau_half(unit = "N.m") "Friction torque at 0.5 rad/s";
    equation
      // a call of two outputs in an expression: its first
      tau_half = Functions.segment(table[:, 1], table[:, 2], 0.5);
      tau = Functions.segment(table[:, 1], table[:, 2], w, guess);
    end TableFriction;
  end Components;
end TableLib;
