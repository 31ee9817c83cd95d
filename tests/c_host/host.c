/*
 * Minimal FMI 2.0 co-simulation host.
 *
 * Loads an FMU's binaries/linux64/<modelIdentifier>.so with dlopen, instantiates
 * it for co-simulation, steps it with a fixed communication step and prints the
 * requested Real outputs as CSV on stdout. It knows nothing about Python: any
 * environment an FMU's library needs has to come from the process environment.
 *
 * Usage:
 *   host FMU MODEL_IDENTIFIER GUID STEP_SIZE N_STEPS IN_VRS OUT_VRS [INPUT_CSV]
 *
 *   FMU          the .fmu file (extracted with `unzip`) or an extracted FMU folder
 *   IN_VRS       comma-separated value references of Real inputs ("" for none)
 *   OUT_VRS      comma-separated value references of Real outputs
 *   INPUT_CSV    optional; line k (k = 0 .. N_STEPS-1) holds the comma-separated
 *                input values applied before the step that starts at k*STEP_SIZE;
 *                line 0 is also applied in initialization mode. A header line
 *                starting with a letter is skipped. Missing lines repeat the last.
 *
 * Output: a header "time,<vr>,<vr>,..." then one line per communication point
 * t = k*STEP_SIZE (k = 1 .. N_STEPS), values printed with 17 significant digits.
 * Exit status 0 on success, 1 on usage errors, 2 on load errors, 3 on FMI errors.
 *
 * The host exits normally (returning from main), except for an FMU whose library
 * is pythonfmu 0.7.0's (it exports finalizePythonInterpreter): that library
 * releases its global interpreter state twice at normal process exit (once from a
 * C++ static destructor, once from a destructor function), which corrupts the heap
 * and can abort the process after all the work is done, so for it the host leaves
 * with _exit(), skipping the exit handlers. FMI_HOST_NORMAL_EXIT=1 makes it exit
 * normally for such an FMU too.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fmi2Functions.h"
#include "host_logger.h"

#define MAX_VARS 256
#define MAX_LINE 65536


static int parse_vrs(const char *text, fmi2ValueReference *vrs)
{
    int n = 0;
    const char *p = text;
    while (*p) {
        char *end;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p || n >= MAX_VARS) return -1;
        vrs[n++] = (fmi2ValueReference)v;
        p = end;
        if (*p == ',') p++;
        else if (*p) return -1;
    }
    return n;
}

static int parse_values(const char *line, double *values, int expected)
{
    int n = 0;
    const char *p = line;
    while (n < expected) {
        char *end;
        double v = strtod(p, &end);
        if (end == p) return -1;
        values[n++] = v;
        p = end;
        while (*p == ' ') p++;
        if (*p == ',') p++;
    }
    return n;
}

static void *symbol(void *lib, const char *name)
{
    void *f = dlsym(lib, name);
    if (!f) {
        fprintf(stderr, "host: missing symbol %s\n", name);
        exit(2);
    }
    return f;
}

/* Extract an .fmu archive into a fresh temporary folder with the unzip program. */
static int extract(const char *archive, char *folder, size_t size)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(folder, size, "%s/fmuhost-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(folder)) {
        perror("host: mkdtemp");
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        execlp("unzip", "unzip", "-qo", archive, "-d", folder, (char *)NULL);
        perror("host: unzip");
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "host: could not extract %s\n", archive);
        return -1;
    }
    return 0;
}

#define CHECK(call)                                                             \
    do {                                                                        \
        fmi2Status s_ = (call);                                                 \
        if (s_ > fmi2Warning) {                                                 \
            fprintf(stderr, "host: %s returned status %d\n", #call, (int)s_);   \
            return 3;                                                           \
        }                                                                       \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 8 || argc > 9) {
        fprintf(stderr,
                "usage: %s FMU MODEL_IDENTIFIER GUID STEP_SIZE N_STEPS IN_VRS OUT_VRS [INPUT_CSV]\n",
                argv[0]);
        return 1;
    }
    const char *fmu = argv[1];
    const char *model = argv[2];
    const char *guid = argv[3];
    double h = strtod(argv[4], NULL);
    long n_steps = strtol(argv[5], NULL, 10);
    fmi2ValueReference in_vrs[MAX_VARS], out_vrs[MAX_VARS];
    int n_in = parse_vrs(argv[6], in_vrs);
    int n_out = parse_vrs(argv[7], out_vrs);
    if (h <= 0 || n_steps <= 0 || n_in < 0 || n_out <= 0) {
        fprintf(stderr, "host: bad arguments\n");
        return 1;
    }

    char folder[PATH_MAX];
    struct stat st;
    if (stat(fmu, &st) != 0) {
        fprintf(stderr, "host: %s: %s\n", fmu, strerror(errno));
        return 1;
    }
    if (S_ISDIR(st.st_mode)) {
        if (!realpath(fmu, folder)) return 1;
    } else if (extract(fmu, folder, sizeof folder) != 0) {
        return 2;
    }

    char library[PATH_MAX + 64], resources[PATH_MAX + 64];
    snprintf(library, sizeof library, "%s/binaries/linux64/%s.so", folder, model);
    snprintf(resources, sizeof resources, "file://%s/resources", folder);

    void *lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "host: dlopen failed: %s\n", dlerror());
        return 2;
    }

    fmi2InstantiateTYPE *instantiate = symbol(lib, "fmi2Instantiate");
    fmi2FreeInstanceTYPE *free_instance = symbol(lib, "fmi2FreeInstance");
    fmi2SetupExperimentTYPE *setup = symbol(lib, "fmi2SetupExperiment");
    fmi2EnterInitializationModeTYPE *enter_init = symbol(lib, "fmi2EnterInitializationMode");
    fmi2ExitInitializationModeTYPE *exit_init = symbol(lib, "fmi2ExitInitializationMode");
    fmi2SetRealTYPE *set_real = symbol(lib, "fmi2SetReal");
    fmi2GetRealTYPE *get_real = symbol(lib, "fmi2GetReal");
    fmi2DoStepTYPE *do_step = symbol(lib, "fmi2DoStep");
    fmi2TerminateTYPE *terminate = symbol(lib, "fmi2Terminate");
    fmi2GetVersionTYPE *get_version = symbol(lib, "fmi2GetVersion");
    int pythonfmu_library = dlsym(lib, "finalizePythonInterpreter") != NULL;

    if (strcmp(get_version(), "2.0") != 0) {
        fprintf(stderr, "host: unexpected FMI version %s\n", get_version());
        return 2;
    }

    fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};
    fmi2Component c = instantiate("host", fmi2CoSimulation, guid, resources, &callbacks,
                                  fmi2False, fmi2False);
    if (!c) {
        fprintf(stderr, "host: fmi2Instantiate failed\n");
        return 3;
    }

    FILE *input = NULL;
    if (argc == 9) {
        input = fopen(argv[8], "r");
        if (!input) {
            fprintf(stderr, "host: %s: %s\n", argv[8], strerror(errno));
            return 1;
        }
    }
    static char line[MAX_LINE];
    double u[MAX_VARS] = {0}, y[MAX_VARS];
    int have_input = 0;
    /* Read the next row of input values; keeps the previous row at end of file. */
#define NEXT_INPUT()                                                            \
    do {                                                                        \
        while (input && fgets(line, sizeof line, input)) {                      \
            if ((line[0] >= 'a' && line[0] <= 'z') ||                           \
                (line[0] >= 'A' && line[0] <= 'Z') || line[0] == '\n')          \
                continue;                                                       \
            if (parse_values(line, u, n_in) != n_in) {                          \
                fprintf(stderr, "host: bad input line: %s", line);              \
                return 1;                                                       \
            }                                                                   \
            have_input = 1;                                                     \
            break;                                                              \
        }                                                                       \
    } while (0)

    double stop = n_steps * h;
    CHECK(setup(c, fmi2False, 0.0, 0.0, fmi2True, stop));
    CHECK(enter_init(c));
    NEXT_INPUT();
    if (have_input && n_in > 0) CHECK(set_real(c, in_vrs, (size_t)n_in, u));
    CHECK(exit_init(c));

    printf("time");
    for (int i = 0; i < n_out; i++) printf(",%u", (unsigned)out_vrs[i]);
    printf("\n");

    for (long k = 0; k < n_steps; k++) {
        if (k > 0) NEXT_INPUT();
        if (have_input && n_in > 0) CHECK(set_real(c, in_vrs, (size_t)n_in, u));
        CHECK(do_step(c, k * h, h, fmi2True));
        CHECK(get_real(c, out_vrs, (size_t)n_out, y));
        printf("%.17g", (k + 1) * h);
        for (int i = 0; i < n_out; i++) printf(",%.17g", y[i]);
        printf("\n");
    }
    fflush(stdout);

    CHECK(terminate(c));
    free_instance(c);
    if (input) fclose(input);
    dlclose(lib);
    if (!pythonfmu_library || getenv("FMI_HOST_NORMAL_EXIT")) return 0;
    fflush(NULL);
    _exit(0);
}
