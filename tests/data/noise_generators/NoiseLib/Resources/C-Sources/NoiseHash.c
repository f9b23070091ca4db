/* A hash of a string (djb2: h = 33 h + c from 5381, on 32 bits), a library NoiseLib's
   functions name by Library = "NoiseHash" and the build compiles from this source, as the
   MSL's ModelicaStrings_hashString of ModelicaExternalC. */
#include <stdint.h>

int NoiseLib_hash(const char* text)
{
    uint32_t h = 5381;
    while (*text) h = 33 * h + (unsigned char) *text++;
    return (int) h;
}
