/*
 * simon-fmu's FMI 2.0 Co-Simulation library: what its two parts share.
 *
 * An FMU built by simon-fmu carries two shared libraries in binaries/linux64/:
 *
 *   <modelIdentifier>.so         the loader (fmi2_loader.c): exports the FMI 2.0 functions,
 *                                needs nothing but libc and libdl;
 *   <modelIdentifier>_python.so  the implementation (fmi2_python.c): calls the CPython C API,
 *                                and is loaded by the loader once a libpython is in the process.
 *
 * The implementation exports one symbol, SIMON_FMI2_TABLE, a table of its functions; the loader
 * forwards every FMI call through it. See fmi2_loader.c for how the interpreter is found.
 */
#ifndef SIMON_FMI2_PYTHON_H
#define SIMON_FMI2_PYTHON_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2FunctionTypes.h"
#include "uri_path.h"          /* simon_fmu/native/c */

#define SIMON_FMI2_TABLE "simon_fmi2_table"
#define SIMON_FMI2_TABLE_VERSION 1

typedef struct {
    int version;         /* SIMON_FMI2_TABLE_VERSION */
    /* Start the interpreter unless it runs already (program name: the Python executable whose
     * environment the FMU uses, or NULL). 0 on success, else -1 with a message in error. */
    int (*start_python)(const char *executable, char *error, size_t size);

    fmi2SetDebugLoggingTYPE *setDebugLogging;
    fmi2InstantiateTYPE *instantiate;
    fmi2FreeInstanceTYPE *freeInstance;
    fmi2SetupExperimentTYPE *setupExperiment;
    fmi2EnterInitializationModeTYPE *enterInitializationMode;
    fmi2ExitInitializationModeTYPE *exitInitializationMode;
    fmi2TerminateTYPE *terminate;
    fmi2ResetTYPE *reset;
    fmi2GetRealTYPE *getReal;
    fmi2GetIntegerTYPE *getInteger;
    fmi2GetBooleanTYPE *getBoolean;
    fmi2GetStringTYPE *getString;
    fmi2SetRealTYPE *setReal;
    fmi2SetIntegerTYPE *setInteger;
    fmi2SetBooleanTYPE *setBoolean;
    fmi2SetStringTYPE *setString;
    fmi2GetFMUstateTYPE *getFMUstate;
    fmi2SetFMUstateTYPE *setFMUstate;
    fmi2FreeFMUstateTYPE *freeFMUstate;
    fmi2SerializedFMUstateSizeTYPE *serializedFMUstateSize;
    fmi2SerializeFMUstateTYPE *serializeFMUstate;
    fmi2DeSerializeFMUstateTYPE *deSerializeFMUstate;
    fmi2GetDirectionalDerivativeTYPE *getDirectionalDerivative;
    fmi2SetRealInputDerivativesTYPE *setRealInputDerivatives;
    fmi2GetRealOutputDerivativesTYPE *getRealOutputDerivatives;
    fmi2DoStepTYPE *doStep;
    fmi2CancelStepTYPE *cancelStep;
    fmi2GetStatusTYPE *getStatus;
    fmi2GetRealStatusTYPE *getRealStatus;
    fmi2GetIntegerStatusTYPE *getIntegerStatus;
    fmi2GetBooleanStatusTYPE *getBooleanStatus;
    fmi2GetStringStatusTYPE *getStringStatus;
} SimonFmi2Table;

/* The local path of a resource location URI (uri_path.h, the native runtime's reading:
 * file:///a/b, file:/a/b, file://localhost/a/b, or a plain path, %XX escapes decoded),
 * without a trailing slash. 0 on success; -1 for an empty location, another host, %00 or no
 * room. */
static inline int simon_uri_to_path(const char *uri, char *path, size_t size)
{
    if (!uri || !*uri) return -1;
    int n = sn_uri_path(uri, path, size);
    if (n < 0) return -1;
    while (n > 1 && path[n - 1] == '/') n--;
    path[n] = 0;
    return 0;
}

#endif
