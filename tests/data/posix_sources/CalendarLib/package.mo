package CalendarLib "External C written for POSIX, compiled from its source by the build"
  function dayOfYear "Day of the year (0 on 1 January) of a calendar time in UTC"
    input Integer seconds "Seconds since 1970-01-01 00:00:00 UTC";
    output Integer day "Days since 1 January of that year";
  external "C" day = CalendarLib_dayOfYear(seconds)
    annotation (Include = "int CalendarLib_dayOfYear(int seconds);", Library = "CalendarDays");
  end dayOfYear;

  model DaySeeds "Calendar days: of a constant time (evaluated while the model is translated) and of a time stepped at each sample (called by the FMU)"
    parameter Integer start = 86400*40 + 3600 "A calendar time, s";
    parameter Integer constantDay = dayOfYear(86400*400 + 7) "Day of a constant time";
    discrete Integer sampledDay "Day of start plus 100 days per sample";
    output Real y1 = constantDay;
    output Real y2 = sampledDay;
  equation
    when sample(0, 0.25) then
      sampledDay = dayOfYear(start + 86400*100*integer(4*time + 0.5));
    end when;
    annotation (experiment(StopTime = 1));
  end DaySeeds;
  model BeforeEpoch "A day of a time before 1970, an error of the C function while the model is translated"
    parameter Integer day = dayOfYear(-86400) "Day of 31 December 1969";
    output Real y = day;
    annotation (experiment(StopTime = 1));
  end BeforeEpoch;
end CalendarLib;
