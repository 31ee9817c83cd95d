/*
 * The floating-point environment of an FMU's entry points (FP_GUARD), shared by the native
 * runtime (simon_native.c) and the development FMU's loader (simon_fmu/runtime/native/
 * fmi2_loader.c): docs/native.md, "The floating-point environment".
 */
#ifndef SIMON_FP_GUARD_H
#define SIMON_FP_GUARD_H

/* The floating-point environment every entry point computes in, the one the kernels were
   compiled for: every exception masked, rounding to nearest, no flushing of subnormals (and
   on x86-64 the x87 unit, which mingw-w64's sin and cos use on Windows, at the precision the
   platform's processes start with). A host may run with its own: exceptions unmasked (a tool
   built with Delphi, a real-time target that traps to find numerical faults), subnormals
   flushed to zero (for speed, on real-time targets), the x87 at single precision
   (Direct3D). The kernels' compiled code computes divisions it then discards where their
   divisor is zero (LLVM's if-conversion, legal in the default environment), so in a host
   that unmasks the invalid operation a crash event killed the host process with SIGFPE
   (both FMUs); flushed subnormals would change the results. Each entry point therefore
   takes this environment on entry and gives the host its own back on return, flags as they
   were (`sn_fp_enter`, `sn_fp_leave`): a handful of instructions, no system call, and a
   register written only where the host's differs. */
typedef struct {
#if defined(__x86_64__)
    unsigned int mxcsr;
    unsigned short x87cw;
    unsigned char x87env[28];       /* fnstenv's image, kept when the host's x87 differs */
#elif defined(__aarch64__)
    unsigned long fpcr, fpsr;
#endif
    int changed;
} sn_fpenv;

#if defined(__x86_64__)
#define SN_MXCSR_DEFAULT 0x1f80u    /* every exception masked, to nearest, no FTZ or DAZ */
#define SN_MXCSR_CONTROL 0xffc0u    /* the control bits (masks, rounding, FTZ, DAZ) */
/* the x87 control words the FMU takes as they are: every exception masked, rounding to
   nearest, double or double-extended precision (a Windows process starts at double, _PC_53,
   a Linux one, and wine's, at double-extended); any other is set to the platform's own */
#define SN_X87_FMU(cw) (((cw) & 0x0c3fu) == 0x003fu && ((cw) & 0x0200u) != 0)
#ifdef _WIN32
#define SN_X87_DEFAULT 0x027fu
#else
#define SN_X87_DEFAULT 0x037fu
#endif
#endif

static inline sn_fpenv sn_fp_enter(void)
{
    sn_fpenv e;
    e.changed = 0;
#if defined(__x86_64__)
    __asm__ volatile("stmxcsr %0" : "=m"(e.mxcsr));
    __asm__ volatile("fnstcw %0" : "=m"(e.x87cw));
    if ((e.mxcsr & SN_MXCSR_CONTROL) != (SN_MXCSR_DEFAULT & SN_MXCSR_CONTROL)) {
        unsigned int fmu = SN_MXCSR_DEFAULT;
        __asm__ volatile("ldmxcsr %0" : : "m"(fmu) : "memory");
        e.changed |= 1;
    }
    if (!SN_X87_FMU(e.x87cw)) {
        unsigned short fmu = SN_X87_DEFAULT;
        __asm__ volatile("fnstenv %0" : "=m"(e.x87env));   /* masks every x87 exception */
        __asm__ volatile("fldcw %0" : : "m"(fmu) : "memory");
        e.changed |= 2;
    }
#elif defined(__aarch64__)
    __asm__ volatile("mrs %0, fpcr" : "=r"(e.fpcr));
    __asm__ volatile("mrs %0, fpsr" : "=r"(e.fpsr));
    /* the trap enables (IOE..IDE), FZ, the rounding mode, DN and AHP: all 0 by default */
    if ((e.fpcr & 0x07c09f00ul) != 0) {
        unsigned long fmu = e.fpcr & ~0x07c09f00ul;
        __asm__ volatile("msr fpcr, %0" : : "r"(fmu) : "memory");
        e.changed = 1;
    }
#endif
    return e;
}

static inline void sn_fp_leave(sn_fpenv *e)
{
#if defined(__x86_64__)
    /* the host's flags as they were: what the FMU raised is its own (a write only where
       the register differs: ldmxcsr costs more than stmxcsr) */
    unsigned int now;
    __asm__ volatile("stmxcsr %0" : "=m"(now) : : "memory");
    if (now != e->mxcsr)
        __asm__ volatile("ldmxcsr %0" : : "m"(e->mxcsr) : "memory");
    if (e->changed & 2)
        __asm__ volatile("fldenv %0" : : "m"(e->x87env) : "memory");
#elif defined(__aarch64__)
    unsigned long now;
    if (e->changed)
        __asm__ volatile("msr fpcr, %0" : : "r"(e->fpcr) : "memory");
    __asm__ volatile("mrs %0, fpsr" : "=r"(now) : : "memory");
    if (now != e->fpsr)
        __asm__ volatile("msr fpsr, %0" : : "r"(e->fpsr) : "memory");
#else
    (void)e;
#endif
}

/* the FMU's floating-point environment from here to the end of the entry point's block */
#define FP_GUARD sn_fpenv sn_fp_host __attribute__((cleanup(sn_fp_leave))) = sn_fp_enter();

#endif
