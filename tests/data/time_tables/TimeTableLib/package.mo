within ;
package TimeTableLib "A time table kept in C with its own event interval, as the MSL's CombiTimeTable keeps its"
  type Smoothness = enumeration(
      LinearSegments "Straight lines between rows",
      ConstantSegments "The values of a segment's first row") "How rows are joined";
  type Extrapolation = enumeration(HoldLastPoint "The last row's values") "After the last row";
  type TimeEvents = enumeration(Always "At every abscissa") "Where the table has time events";

  class TimeTable "Rows (t, y1, y2, ...) read at time t; the table keeps its current segment"
    extends ExternalObject;

    function constructor "Copy the table (the entry point of the MSL's time tables)"
      input String tableName "NoName: the table is the matrix";
      input String fileName "Not read: the table is the matrix";
      input Real table[:, :] "Rows (t, y1, y2, ...), t non-decreasing (a repeated t: a jump)";
      input Real startTime "Only 0 (s)";
      input Integer columns[:] "Columns of table read";
      input Smoothness smoothness;
      input Extrapolation extrapolation = Extrapolation.HoldLastPoint;
      input Real shiftTime = 0 "Only 0 (s)";
      input TimeEvents timeEvents = TimeEvents.Always;
      input Boolean verboseRead = false "Not read";
      output TimeTable timeTable;
    external "C" timeTable = ModelicaStandardTables_CombiTimeTable_init2(fileName, tableName,
        table, size(table, 1), size(table, 2), startTime, columns, size(columns, 1), smoothness,
        extrapolation, shiftTime, timeEvents, verboseRead)
      annotation (Include = "#include \"time_table.h\"", Library = "TimeTables",
        IncludeDirectory = "modelica://TimeTableLib/Resources/C-Sources");
    end constructor;

    function destructor "Free the copy"
      input TimeTable timeTable;
    external "C" ModelicaStandardTables_CombiTimeTable_close(timeTable)
      annotation (Include = "#include \"time_table.h\"", Library = "TimeTables",
        IncludeDirectory = "modelica://TimeTableLib/Resources/C-Sources");
    end destructor;
  end TimeTable;

  function nextTimeEvent "The next time event after t; moves the table to its next segment"
    input TimeTable timeTable;
    input Real t "Time (s)";
    output Real next "Next time event (s), 1e60 after the last row";
  external "C" next = time_table_next_event(timeTable, t)
    annotation (Include = "#include \"time_table.h\"", Library = "TimeTables",
      IncludeDirectory = "modelica://TimeTableLib/Resources/C-Sources");
  end nextTimeEvent;

  function value "Column k of the table at t, in the segment the table holds"
    input TimeTable timeTable;
    input Integer k "Index into the constructor's columns";
    input Real t "Time (s)";
    input Real nextTimeEvent "Next time event (s)";
    input Real preNextTimeEvent "Its value before the event update (s)";
    output Real y;
  external "C" y = time_table_value(timeTable, k, t, nextTimeEvent, preNextTimeEvent)
    annotation (Include = "#include \"time_table.h\"", Library = "TimeTables",
      IncludeDirectory = "modelica://TimeTableLib/Resources/C-Sources");
  end value;

  block TimeTableSource "Output y from a time table, its segments changed at time events"
    parameter Real table[:, :] "Rows (t, y), t non-decreasing";
    parameter Smoothness smoothness = Smoothness.LinearSegments;
    output Real y "The table's value at time";
    discrete Real nextEvent(start = 0, fixed = true) "Time of the next time event (s)";
  protected
    parameter TimeTable tableID = TimeTable("NoName", "NoName", table, 0, {2}, smoothness,
      Extrapolation.HoldLastPoint, 0, TimeEvents.Always, false);
  equation
    when {time >= pre(nextEvent), initial()} then
      nextEvent = nextTimeEvent(tableID, time);
    end when;
    y = value(tableID, 1, time, nextEvent, pre(nextEvent));
  end TimeTableSource;

  model DrivenMass "A mass driven by a force from a time table, a clock ticking between its rows"
    parameter Real m = 2 "Mass (kg)";
    parameter Smoothness smoothness = Smoothness.ConstantSegments;
    parameter Real forces[:, :] = [0, 1; 1, 1; 1, -2; 1.5, -2; 1.5, 0.5; 4, 0.5]
      "Rows (t, force in N)";
    TimeTableSource force(table = forces, smoothness = smoothness);
    Real x(start = 0, fixed = true) "Position (m)";
    Real v(start = 0, fixed = true) "Velocity (m/s)";
    discrete Real eventTime(start = -1, fixed = true) "Time of the table's last event (s)";
    discrete Integer ticks(start = 0, fixed = true) "Clock ticks: events between the rows";
  equation
    der(x) = v;
    m * der(v) = force.y;
    when time >= pre(force.nextEvent) then
      eventTime = time;
    end when;
    when sample(0.125, 0.25) then
      ticks = pre(ticks) + 1;
    end when;
  end DrivenMass;

  model DrivenMassLinear "The mass driven by straight segments with a jump"
    extends DrivenMass(smoothness = Smoothness.LinearSegments,
      forces = [0, 0; 1, 2; 1, -1; 1.5, 1; 4, 1]);
  end DrivenMassLinear;
end TimeTableLib;
