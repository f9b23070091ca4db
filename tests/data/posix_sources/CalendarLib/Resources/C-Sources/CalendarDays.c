/* The day of the year of a calendar time, a library CalendarLib's functions name by
   Library = "CalendarDays" and the build compiles from this source, written for POSIX as the
   MSL's ModelicaInternal_getTime is: gmtime_r, which strict C99 does not declare, returns a
   pointer to the broken-down time. A time before 1970 is an error (ModelicaError). */
#include <time.h>
#include <unistd.h>

#if !defined(_POSIX_) && defined(_POSIX_VERSION)
#define _POSIX_ 1
#endif

void ModelicaError(const char* text); /* of the tool (ModelicaUtilities.h) */

int CalendarLib_dayOfYear(int seconds)
{
    time_t calendarTime = (time_t) seconds;
    struct tm* broken;
    if (seconds < 0) ModelicaError("CalendarLib_dayOfYear: a time before 1970\n");
#if defined(_POSIX_)
    struct tm buffer;
    broken = gmtime_r(&calendarTime, &buffer);
#else
    broken = gmtime(&calendarTime);
#endif
    return broken->tm_yday;
}
