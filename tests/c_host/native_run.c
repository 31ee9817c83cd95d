/*
 * A portable C host for the native FMU on every platform it is built for (Linux x86-64,
 * Windows x86-64 under wine, Linux ARM64 under qemu-user; tests/test_native_platforms.py):
 * loads the FMU's binary, instantiates it, initialises it and follows a plan, writing the
 * outputs at every communication point to a file. Values cross as bit patterns, never as
 * decimal text, so no C library's number formatting is involved.
 *
 * Usage: native_run LIBRARY RESOURCE_URI GUID PLAN OUT
 *
 * PLAN, one command a line (a value is the 16 hex digits of a double's bit pattern):
 *   pari VR INT            fmi2SetInteger in initialisation mode (before any other command)
 *   parr VR VALUE          fmi2SetReal in initialisation mode (before any other command)
 *   real N vr1 .. vrN      the Real outputs to record
 *   bool N vr1 .. vrN      the Boolean outputs to record (as 0.0 or 1.0)
 *   seti VR INT            fmi2SetInteger after initialisation
 *   setr VR VALUE          fmi2SetReal after initialisation
 *   record                 write a row of the outputs
 *   step VR VALUE H        fmi2SetReal(VR, VALUE), then fmi2DoStep(t, H); t += H; a row
 * OUT: the rows (t, the Real outputs, the Boolean outputs) as little-endian doubles.
 *
 * NATIVE_RUN_FP in the environment sets the host's floating-point environment before the
 * library is loaded, as hosts set their own (docs/native.md, "The floating-point
 * environment"): "trap" unmasks the invalid operation, the division by zero and the
 * overflow (SSE and x87; FPCR's trap enables on ARM64), "flush" flushes subnormals to zero
 * (FTZ and DAZ; FPCR.FZ), "x87single" sets the x87 unit to single precision (x86-64). Every
 * call into the FMU must leave the host's control bits as it found them (exit status 4).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <dlfcn.h>
#endif

#include "fmi2Functions.h"
#include "host_logger.h"

#define MAX_VARS 4096

static void *library(const char *path)
{
#ifdef _WIN32
    return (void *)LoadLibraryA(path);
#else
    return dlopen(path, RTLD_NOW | RTLD_LOCAL);
#endif
}

static void *symbol(void *lib, const char *name)
{
#ifdef _WIN32
    return (void *)GetProcAddress((HMODULE)lib, name);
#else
    return dlsym(lib, name);
#endif
}

static double bits(const char *hex)
{
    uint64_t u = strtoull(hex, NULL, 16);
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

#define SYM(name) name##TYPE *name = (name##TYPE *)symbol(lib, #name); \
    if (!name) { fprintf(stderr, "no symbol %s\n", #name); return 2; }

static int host_fp(const char *mode)
{
    if (mode == NULL || mode[0] == '\0')
        return 0;
#if defined(__x86_64__)
    unsigned int csr;
    unsigned short cw;
    __asm__ volatile("stmxcsr %0" : "=m"(csr));
    __asm__ volatile("fnstcw %0" : "=m"(cw));
    if (strcmp(mode, "trap") == 0) {
        csr &= ~0x0680u;        /* IM, ZM, OM */
        cw &= ~0x000du;         /* the x87's IM, ZM, OM */
    } else if (strcmp(mode, "flush") == 0) {
        csr |= 0x8040u;         /* FTZ, DAZ */
    } else if (strcmp(mode, "x87single") == 0) {
        cw &= ~0x0300u;         /* PC = 00: 24 bits */
    } else {
        return -1;
    }
    __asm__ volatile("ldmxcsr %0" : : "m"(csr));
    __asm__ volatile("fldcw %0" : : "m"(cw));
    return 0;
#elif defined(__aarch64__)
    unsigned long fpcr;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    if (strcmp(mode, "trap") == 0)
        fpcr |= 0x0700ul;       /* IOE, DZE, OFE */
    else if (strcmp(mode, "flush") == 0)
        fpcr |= 1ul << 24;      /* FZ */
    else
        return -1;
    __asm__ volatile("msr fpcr, %0" : : "r"(fpcr));
    return 0;
#else
    return -1;
#endif
}

/* the control bits of the floating-point environment (masks, rounding, flushing, precision):
   what the host set, which every call into the FMU must leave as it found */
static unsigned long fp_control(void)
{
#if defined(__x86_64__)
    unsigned int csr;
    unsigned short cw;
    __asm__ volatile("stmxcsr %0" : "=m"(csr));
    __asm__ volatile("fnstcw %0" : "=m"(cw));
    return (unsigned long)(csr & 0xffc0u) | ((unsigned long)(cw & 0x1f3fu) << 16);
#elif defined(__aarch64__)
    unsigned long fpcr;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    return fpcr;
#else
    return 0;
#endif
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: native_run LIBRARY RESOURCE_URI GUID PLAN OUT\n");
        return 1;
    }
    if (host_fp(getenv("NATIVE_RUN_FP")) != 0) {
        fprintf(stderr, "NATIVE_RUN_FP=%s: not a mode of this platform's host\n",
                getenv("NATIVE_RUN_FP"));
        return 1;
    }
    const unsigned long host_control = fp_control();
    void *lib = library(argv[1]);
    if (lib == NULL) {
        fprintf(stderr, "cannot load %s\n", argv[1]);
        return 2;
    }
    SYM(fmi2Instantiate); SYM(fmi2SetupExperiment); SYM(fmi2EnterInitializationMode);
    SYM(fmi2ExitInitializationMode); SYM(fmi2DoStep); SYM(fmi2SetReal); SYM(fmi2SetInteger);
    SYM(fmi2GetReal); SYM(fmi2GetBoolean); SYM(fmi2Terminate); SYM(fmi2FreeInstance);
    FILE *plan = fopen(argv[4], "r"), *out = fopen(argv[5], "wb");
    if (plan == NULL || out == NULL) {
        fprintf(stderr, "cannot open the plan or the output file\n");
        return 1;
    }
    fmi2CallbackFunctions cb = {logger, calloc, free, NULL, NULL};
    fmi2Component c = fmi2Instantiate("run", fmi2CoSimulation, argv[3], argv[2], &cb, fmi2False,
                                      fmi2False);
    if (c == NULL)
        return 3;
    if (fmi2SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0) != fmi2OK
            || fmi2EnterInitializationMode(c) != fmi2OK)
        return 3;
    int initialising = 1;
    static fmi2ValueReference vr_real[MAX_VARS], vr_bool[MAX_VARS];
    static fmi2Real reals[MAX_VARS], row[2 * MAX_VARS + 1];
    static fmi2Boolean bools[MAX_VARS];
    size_t n_real = 0, n_bool = 0, steps = 0;
    double t = 0.0;
    char word[32], a[32], b[32], h[32];
    while (fscanf(plan, "%31s", word) == 1) {
        fmi2Status s = fmi2OK;
        int record = 0;
        int parameter = strcmp(word, "pari") == 0 || strcmp(word, "parr") == 0;
        if (parameter && !initialising) {
            fprintf(stderr, "%s after initialisation\n", word);
            return 1;
        }
        if (!parameter && initialising) {
            initialising = 0;
            if (fmi2ExitInitializationMode(c) != fmi2OK) {
                fprintf(stderr, "fmi2ExitInitializationMode failed\n");
                return 3;
            }
        }
        if (parameter && fscanf(plan, "%31s %31s", a, b) == 2) {
            fmi2ValueReference vr = (fmi2ValueReference)strtoul(a, NULL, 10);
            if (word[3] == 'i') {
                fmi2Integer v = (fmi2Integer)strtol(b, NULL, 10);
                s = fmi2SetInteger(c, &vr, 1, &v);
            } else {
                fmi2Real v = bits(b);
                s = fmi2SetReal(c, &vr, 1, &v);
            }
        } else if (strcmp(word, "real") == 0 || strcmp(word, "bool") == 0) {
            size_t n;
            if (fscanf(plan, "%zu", &n) != 1 || n > MAX_VARS)
                return 1;
            fmi2ValueReference *vr = word[0] == 'r' ? vr_real : vr_bool;
            for (size_t i = 0; i < n; i++) {
                unsigned long v;
                if (fscanf(plan, "%lu", &v) != 1)
                    return 1;
                vr[i] = (fmi2ValueReference)v;
            }
            *(word[0] == 'r' ? &n_real : &n_bool) = n;
        } else if (strcmp(word, "seti") == 0 && fscanf(plan, "%31s %31s", a, b) == 2) {
            fmi2ValueReference vr = (fmi2ValueReference)strtoul(a, NULL, 10);
            fmi2Integer v = (fmi2Integer)strtol(b, NULL, 10);
            s = fmi2SetInteger(c, &vr, 1, &v);
        } else if (strcmp(word, "setr") == 0 && fscanf(plan, "%31s %31s", a, b) == 2) {
            fmi2ValueReference vr = (fmi2ValueReference)strtoul(a, NULL, 10);
            fmi2Real v = bits(b);
            s = fmi2SetReal(c, &vr, 1, &v);
        } else if (strcmp(word, "record") == 0) {
            record = 1;
        } else if (strcmp(word, "step") == 0 && fscanf(plan, "%31s %31s %31s", a, b, h) == 3) {
            fmi2ValueReference vr = (fmi2ValueReference)strtoul(a, NULL, 10);
            fmi2Real v = bits(b), dt = bits(h);
            s = fmi2SetReal(c, &vr, 1, &v);
            if (s == fmi2OK)
                s = fmi2DoStep(c, t, dt, fmi2True);
            t += dt;
            steps++;
            record = 1;
        } else {
            fprintf(stderr, "bad plan command %s\n", word);
            return 1;
        }
        if (s != fmi2OK) {
            fprintf(stderr, "%s failed with status %d at t=%g\n", word, (int)s, t);
            return 3;
        }
        if (fp_control() != host_control) {
            fprintf(stderr, "%s left the host's floating-point control %#lx as %#lx\n", word,
                    host_control, fp_control());
            return 4;
        }
        if (record) {
            if (fmi2GetReal(c, vr_real, n_real, reals) != fmi2OK
                    || fmi2GetBoolean(c, vr_bool, n_bool, bools) != fmi2OK) {
                fprintf(stderr, "reading the outputs failed\n");
                return 3;
            }
            row[0] = t;
            for (size_t i = 0; i < n_real; i++)
                row[1 + i] = reals[i];
            for (size_t i = 0; i < n_bool; i++)
                row[1 + n_real + i] = bools[i] != fmi2False ? 1.0 : 0.0;
            fwrite(row, sizeof(double), 1 + n_real + n_bool, out);
        }
    }
    fclose(out);
    fclose(plan);
    fmi2Terminate(c);
    fmi2FreeInstance(c);
    if (fp_control() != host_control) {
        fprintf(stderr, "the FMU left the host's floating-point control %#lx as %#lx\n",
                host_control, fp_control());
        return 4;
    }
    printf("steps=%zu reals=%zu booleans=%zu t=%.17g\n", steps, n_real, n_bool, t);
    return 0;
}
