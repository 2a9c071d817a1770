/* gpgpu_version() and gpgpu/version.h's macros say meson's project version
 * (EXPECTED_VERSION, passed by tests/link/meson.build). */
#include <gpgpu/gpgpu.h>

#include <stdio.h>
#include <string.h>

int main(void)
{
    char parts[64];
    int failures = 0;

    snprintf(parts, sizeof parts, "%d.%d.%d", GPGPU_VERSION_MAJOR, GPGPU_VERSION_MINOR,
             GPGPU_VERSION_PATCH);
    const char *checks[][2] = { { "gpgpu_version()", gpgpu_version() },
                                { "GPGPU_VERSION_STRING", GPGPU_VERSION_STRING },
                                { "GPGPU_VERSION_MAJOR.MINOR.PATCH", parts } };
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
        if (checks[i][1] == NULL || strcmp(checks[i][1], EXPECTED_VERSION) != 0) {
            fprintf(stderr, "FAIL: %s is %s, the project's version %s\n", checks[i][0],
                    checks[i][1] ? checks[i][1] : "NULL", EXPECTED_VERSION);
            failures++;
        }
    }
    if (failures == 0)
        printf("ok: version %s\n", gpgpu_version());
    return failures ? 1 : 0;
}
