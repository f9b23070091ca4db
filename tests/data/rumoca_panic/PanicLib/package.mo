package PanicLib "A model rumoca 0.10 panics on: fields of an array of records indexed by a for variable"
  record R
    parameter Real m = 1;
  end R;
  model M
    parameter R b[2] = {R(m = 1), R(m = 2)};
    Real v[2](each start = 1, each fixed = true);
  equation
    for i in 1:2 loop
      b[i].m*der(v[i]) = -v[i];
    end for;
  end M;
end PanicLib;
