/*
 * The Linux libraries' oldest glibc (simon_fmu/native/targets.py, GLIBC_FLOOR; docs/native.md,
 * "Which Linux"): the math functions glibc gave new symbol versions after it are bound to
 * their first version, which every glibc since has kept with the same results (the same
 * implementation behind a wrapper that also sets errno).
 *
 * Linked into the Linux libraries only, with -Wl,--wrap=NAME for each SN_FIRST_1(NAME) and
 * SN_FIRST_2(NAME) below (simon_fmu/native/build.py reads the names from this file): the
 * kernels' and the runtime's calls of NAME reach __wrap_NAME, which calls NAME at its first
 * version. The build checks every version the library needs against the floor. Without it, one
 * library built on glibc 2.36 needed glibc 2.35 (hypot) and 2.29 (log, pow) and did not load
 * on RHEL 8 or 9, Ubuntu 20.04 or Debian 11.
 */
#if defined(__x86_64__)
#define SN_GLIBC_FIRST "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define SN_GLIBC_FIRST "GLIBC_2.17"
#else
#error "glibc_floor.c: no first glibc version known for this architecture"
#endif

#define SN_FIRST_1(name)                                                            \
    extern double sn_first_##name(double);                                          \
    __asm__(".symver sn_first_" #name ", " #name "@" SN_GLIBC_FIRST);               \
    __attribute__((visibility("hidden"))) double __wrap_##name(double x);           \
    double __wrap_##name(double x) { return sn_first_##name(x); }

#define SN_FIRST_2(name)                                                            \
    extern double sn_first_##name(double, double);                                  \
    __asm__(".symver sn_first_" #name ", " #name "@" SN_GLIBC_FIRST);               \
    __attribute__((visibility("hidden"))) double __wrap_##name(double x, double y); \
    double __wrap_##name(double x, double y) { return sn_first_##name(x, y); }

/* GLIBC_2.29 */
SN_FIRST_1(exp)
SN_FIRST_1(exp2)
SN_FIRST_1(log)
SN_FIRST_1(log2)
SN_FIRST_2(pow)
/* GLIBC_2.35 */
SN_FIRST_2(hypot)
