/*
 * The local path of an FMU's resource location, shared by the native runtime
 * (simon_native.c, resource_path) and the development FMU's libraries
 * (simon_fmu/runtime/native/fmi2_python.h, simon_uri_to_path): docs/native.md, "The runtime".
 */
#ifndef SIMON_URI_PATH_H
#define SIMON_URI_PATH_H

#include <stddef.h>

static inline int sn_hex_digit(char h)
{
    return (h >= '0' && h <= '9') ? h - '0' : (h >= 'a' && h <= 'f') ? h - 'a' + 10
         : (h >= 'A' && h <= 'F') ? h - 'A' + 10 : -1;
}

/* whether p starts with the ASCII text `prefix`, case aside (a URI's scheme and host are
   case-insensitive: FILE:///, file://LOCALHOST/) */
static inline int sn_starts_nocase(const char *p, const char *prefix)
{
    for (; *prefix; p++, prefix++) {
        char a = *p >= 'A' && *p <= 'Z' ? (char)(*p - 'A' + 'a') : *p;
        if (a != *prefix)
            return 0;
    }
    return 1;
}

#ifdef _WIN32
/* a drive letter and its colon: C: */
static inline int sn_is_drive(const char *p)
{
    return ((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':';
}
#endif

/* The local path of the resource location `uri` (a file URI, RFC 3986, as FMI 2.0 asks),
   into out (size bytes): file:///a/b/, file:/a/b/ and file://localhost/a/b/ give /a/b/, a
   plain path stands as it is. %XX escapes are decoded to their bytes (a name's
   percent-encoded UTF-8 stays UTF-8); a % not followed by two hexadecimal digits is the
   name's own. On Windows file:///C:/a/b/ (and file://C:/a/b/, which some tools write) gives
   C:/a/b/, and a URI naming a host, file://server/share/b/, the UNC path //server/share/b/;
   elsewhere such a URI is no local file URI. Returns the path's length (0: empty), or -1 for
   no local file URI, a %00 (no file's name holds it) or no room. */
static inline int sn_uri_path(const char *uri, char *out, size_t size)
{
    const char *p = uri;
    int unc = 0;
    if (p == NULL || size == 0)
        return -1;
    if (sn_starts_nocase(p, "file://")) {
        p += 7;
        if (sn_starts_nocase(p, "localhost/"))
            p += 9;
        else if (p[0] != '/')
#ifdef _WIN32
            unc = *p != '\0' && !sn_is_drive(p);
#else
            return -1;
#endif
    } else if (sn_starts_nocase(p, "file:")) {
        p += 5;
    }
#ifdef _WIN32
    /* file:///C:/a/b/ -> C:/a/b/ (a drive letter after the URI's root slash) */
    if (p[0] == '/' && sn_is_drive(p + 1))
        p += 1;
#endif
    size_t k = 0;
    for (int i = 0; i < 2 * unc; i++) {
        if (k + 1 >= size)
            return -1;
        out[k++] = '/';
    }
    for (; *p; p++) {
        char c = *p;
        int hi = c == '%' ? sn_hex_digit(p[1]) : -1;
        int lo = hi >= 0 ? sn_hex_digit(p[2]) : -1;
        if (lo >= 0) {
            c = (char)(16 * hi + lo);
            if (c == '\0')
                return -1;
            p += 2;
        }
        if (k + 1 >= size)
            return -1;
        out[k++] = c;
    }
    out[k] = '\0';
    return (int)k;
}

#endif
