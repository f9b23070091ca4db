within ;
package TableLib "An interpolation table kept in C as an external object, as the MSL's tables keep theirs"
  type Extrapolation = enumeration(
      HoldLastPoint "Hold the first or last value",
      LastTwoPoints "Extend the first or last segment",
      Periodic "Repeat the table",
      NoExtrapolation "An error outside the table") "Beyond the table's abscissae";

  class LinearTable "Rows (u, y1, y2, ...) interpolated linearly in u, copied into C"
    extends ExternalObject;

    function constructor "Copy the table (the entry point and arguments of the MSL's 1-D tables)"
      input String tableName "NoName: the table is the matrix (rumoca 0.10 reads no file)";
      input String fileName "Not read: the table is the matrix";
      input Real table[:, :] "Rows (u, y1, y2, ...), u strictly increasing";
      input Integer columns[:] "Columns of table interpolated";
      input Integer smoothness "Only 1 (linear segments)";
      input Extrapolation extrapolation = Extrapolation.LastTwoPoints;
      input Boolean verboseRead = true "Report the construction";
      output LinearTable linearTable;
    external "C" linearTable = ModelicaStandardTables_CombiTable1D_init2(fileName, tableName,
        table, size(table, 1), size(table, 2), columns, size(columns, 1), smoothness,
        extrapolation, verboseRead)
      annotation (Include = "#include \"linear_table.h\"", Library = "LinearTables",
        IncludeDirectory = "modelica://TableLib/Resources/C-Sources");
    end constructor;

    function destructor "Free the copy"
      input LinearTable linearTable;
    external "C" ModelicaStandardTables_CombiTable1D_close(linearTable)
      annotation (Include = "#include \"linear_table.h\"", Library = "LinearTables",
        IncludeDirectory = "modelica://TableLib/Resources/C-Sources");
    end destructor;
  end LinearTable;

  function interpolate "The k-th interpolated column of a table at u"
    input LinearTable table;
    input Integer k "Index into the constructor's columns";
    input Real u;
    output Real y;
  external "C" y = linear_table_value(table, k, u)
    annotation (Include = "#include \"linear_table.h\"", Library = "LinearTables",
      IncludeDirectory = "modelica://TableLib/Resources/C-Sources");
  end interpolate;

  model Profiles "Two tables of time: a ramp with a kink and a falling line, one integrated"
    parameter Real ramp[3, 2] = [0, 0; 1, 2; 2, 3] "Rows (t, y)";
    parameter Real fall[2, 3] = [0, 1, 5; 2, -1, 5] "Rows (t, y, unused)";
    parameter Boolean onFile = false "Not offered: rumoca 0.10 reads no table file";
    parameter String name = "ramp" "The table's name in a file";
    parameter Boolean verbose = true;
    Real y "Ramp";
    Real z "Falling line";
    Real x(start = 0, fixed = true) "Integral of the ramp";
  protected
    parameter LinearTable rampTable = LinearTable(if onFile then name else "NoName", "NoName",
      ramp, {2}, 1, Extrapolation.LastTwoPoints, verbose);
    parameter LinearTable fallTable = LinearTable("NoName", "NoName", fall, {2}, 1);
  equation
    y = interpolate(rampTable, 1, time);
    z = interpolate(fallTable, 1, time);
    der(x) = y;
  end Profiles;

  model OutOfRange "A table of t in [0, 1] read at later times: an error from C"
    parameter Real data[2, 2] = [0, 0; 1, 1];
    Real y;
  protected
    parameter LinearTable t = LinearTable("NoName", "NoName", data, {2}, 1,
      Extrapolation.NoExtrapolation, false);
  equation
    y = interpolate(t, 1, time);
  end OutOfRange;

  model NextEvent "The when-equation of the MSL's time tables: the next event and a value from it"
    parameter Real interval = 0.7 "Time between events (s)";
    discrete Real next(start = 0, fixed = true) "Time of the next event (s)";
    discrete Real doubled(start = 0, fixed = true) "Twice next, from its new value";
    discrete Real capped(start = 0, fixed = true) "next, at most 1.5 s";
  equation
    when {time >= pre(next), initial()} then
      next = time + interval;
      doubled = 2 * next;
      capped = if next < 1.5 then next else 1.5;
    end when;
  end NextEvent;
end TableLib;
