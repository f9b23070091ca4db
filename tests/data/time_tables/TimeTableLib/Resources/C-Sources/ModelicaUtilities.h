/* The functions a Modelica tool provides to external C code (Modelica Language
 * Specification 3.6, Sec. 12.9.6), as TableLib's C code uses them. */
#ifndef MODELICA_UTILITIES_H
#define MODELICA_UTILITIES_H

#include <stddef.h>

void ModelicaMessage(const char* string);
void ModelicaFormatMessage(const char* format, ...);
void ModelicaError(const char* string);
void ModelicaFormatError(const char* format, ...);
char* ModelicaAllocateString(size_t length);

#endif
