/*
 * A plain C FMI 2.0 host that runs several FMUs, two instances of each, in one process, and
 * reports what the process and its children have mapped (for tests/test_standalone.py).
 *
 *   standalone_host N_STEPS STEP_SIZE MAPS_FILE  FOLDER IDENTIFIER GUID OUT_VRS  [FOLDER ...]
 *
 * Each FMU (an extracted folder) gets instances "<IDENTIFIER>-a" and "-b"; all of them are set
 * up, initialised and stepped N_STEPS times, in turn. Then each instance's outputs OUT_VRS
 * (comma-separated value references) are printed, one line "<instance> v1 v2 ...", and
 * MAPS_FILE receives "== host <pid>" with /proc/self/maps, and "== child <pid>" with the maps
 * of each child process; then every instance is freed. Exit status 0, or 2 (load), 3 (FMI).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmi2Functions.h"

#define MAX_FMUS 4
#define MAX_VRS 256

typedef struct {
    void *library;
    fmi2InstantiateTYPE *instantiate;
    fmi2FreeInstanceTYPE *free_instance;
    fmi2SetupExperimentTYPE *setup;
    fmi2EnterInitializationModeTYPE *enter;
    fmi2ExitInitializationModeTYPE *exit_init;
    fmi2DoStepTYPE *step;
    fmi2GetRealTYPE *get_real;
    fmi2Component c[2];
    char names[2][128];
    fmi2ValueReference vrs[MAX_VRS];
    size_t n_vrs;
} Fmu;

static void logger(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
                   fmi2String category, fmi2String message, ...)
{
    (void)env;
    va_list args;
    va_start(args, message);
    fprintf(stderr, "[%s] %s %d: ", category ? category : "", name ? name : "", (int)status);
    vfprintf(stderr, message, args);
    fputc('\n', stderr);
    va_end(args);
}

static void copy_maps(FILE *out, const char *path)
{
    FILE *in = fopen(path, "r");
    if (!in) return;
    char line[4096];
    while (fgets(line, sizeof line, in)) fputs(line, out);
    fclose(in);
}

static void dump_maps(const char *file)
{
    FILE *out = fopen(file, "w");
    if (!out) return;
    fprintf(out, "== host %d\n", (int)getpid());
    copy_maps(out, "/proc/self/maps");
    DIR *proc = opendir("/proc");
    struct dirent *entry;
    while (proc && (entry = readdir(proc))) {
        int pid = atoi(entry->d_name);
        if (pid <= 0) continue;
        char path[64], stat[1024];
        snprintf(path, sizeof path, "/proc/%d/stat", pid);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        size_t n = fread(stat, 1, sizeof stat - 1, f);
        fclose(f);
        stat[n] = 0;
        const char *close_paren = strrchr(stat, ')');
        int ppid = 0;
        if (close_paren && sscanf(close_paren + 1, " %*c %d", &ppid) == 1 && ppid == getpid()) {
            fprintf(out, "== child %d\n", pid);
            snprintf(path, sizeof path, "/proc/%d/maps", pid);
            copy_maps(out, path);
        }
    }
    if (proc) closedir(proc);
    fclose(out);
}

static void *symbol(void *library, const char *name)
{
    void *s = dlsym(library, name);
    if (!s) {
        fprintf(stderr, "host: %s missing\n", name);
        exit(2);
    }
    return s;
}

int main(int argc, char **argv)
{
    if (argc < 8 || (argc - 4) % 4 != 0 || (argc - 4) / 4 > MAX_FMUS) {
        fprintf(stderr, "usage: %s N_STEPS STEP_SIZE MAPS_FILE FOLDER IDENTIFIER GUID OUT_VRS "
                "[...]\n", argv[0]);
        return 1;
    }
    long n_steps = strtol(argv[1], NULL, 10);
    double h = strtod(argv[2], NULL);
    int n_fmus = (argc - 4) / 4;
    static Fmu fmus[MAX_FMUS];
    fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};
    for (int i = 0; i < n_fmus; i++) {
        const char *folder = argv[4 + 4 * i], *id = argv[5 + 4 * i], *guid = argv[6 + 4 * i];
        Fmu *f = &fmus[i];
        char path[4096], uri[4200];
        snprintf(path, sizeof path, "%s/binaries/linux64/%s.so", folder, id);
        snprintf(uri, sizeof uri, "file://%s/resources", folder);
        f->library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!f->library) {
            fprintf(stderr, "host: %s\n", dlerror());
            return 2;
        }
        f->instantiate = symbol(f->library, "fmi2Instantiate");
        f->free_instance = symbol(f->library, "fmi2FreeInstance");
        f->setup = symbol(f->library, "fmi2SetupExperiment");
        f->enter = symbol(f->library, "fmi2EnterInitializationMode");
        f->exit_init = symbol(f->library, "fmi2ExitInitializationMode");
        f->step = symbol(f->library, "fmi2DoStep");
        f->get_real = symbol(f->library, "fmi2GetReal");
        for (char *s = argv[7 + 4 * i]; *s && f->n_vrs < MAX_VRS;) {
            f->vrs[f->n_vrs++] = (fmi2ValueReference)strtoul(s, &s, 10);
            if (*s == ',') s++;
        }
        for (int k = 0; k < 2; k++) {
            snprintf(f->names[k], sizeof f->names[k], "%s-%c", id, 'a' + k);
            f->c[k] = f->instantiate(f->names[k], fmi2CoSimulation, guid, uri, &callbacks,
                                     fmi2False, fmi2False);
            if (!f->c[k] || f->setup(f->c[k], fmi2False, 0.0, 0.0, fmi2False, 0.0) > fmi2Warning
                    || f->enter(f->c[k]) > fmi2Warning || f->exit_init(f->c[k]) > fmi2Warning) {
                fprintf(stderr, "host: %s cannot be instantiated and initialised\n",
                        f->names[k]);
                return 3;
            }
        }
    }
    for (long s = 0; s < n_steps; s++)
        for (int i = 0; i < n_fmus; i++)
            for (int k = 0; k < 2; k++)
                if (fmus[i].step(fmus[i].c[k], s * h, h, fmi2True) > fmi2Warning) {
                    fprintf(stderr, "host: %s: step %ld failed\n", fmus[i].names[k], s);
                    return 3;
                }
    for (int i = 0; i < n_fmus; i++)
        for (int k = 0; k < 2; k++) {
            fmi2Real values[MAX_VRS];
            if (fmus[i].get_real(fmus[i].c[k], fmus[i].vrs, fmus[i].n_vrs, values) > fmi2Warning)
                return 3;
            printf("%s", fmus[i].names[k]);
            for (size_t v = 0; v < fmus[i].n_vrs; v++) printf(" %.17g", values[v]);
            printf("\n");
        }
    fflush(stdout);
    dump_maps(argv[3]);
    for (int i = 0; i < n_fmus; i++)
        for (int k = 0; k < 2; k++) fmus[i].free_instance(fmus[i].c[k]);
    return 0;
}
