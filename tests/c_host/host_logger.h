/* The FMI logger of the test hosts: one line on stderr per message, "[instance|status|category]
 * message". */
#ifndef HOST_LOGGER_H
#define HOST_LOGGER_H

#include <stdarg.h>
#include <stdio.h>

#include "fmi2Functions.h"

static void logger(fmi2ComponentEnvironment env, fmi2String instance, fmi2Status status,
                   fmi2String category, fmi2String message, ...)
{
    (void)env;
    va_list args;
    va_start(args, message);
    fprintf(stderr, "[%s|%d|%s] ", instance ? instance : "?", (int)status,
            category ? category : "");
    vfprintf(stderr, message, args);
    fputc('\n', stderr);
    va_end(args);
}

#endif
