/* The glsl/ files, embedded into the library by glsl/embed.py at build time. */
#ifndef GPGPU_GLSL_SOURCES_H
#define GPGPU_GLSL_SOURCES_H

#include <stddef.h>

typedef struct glsl_source {
    const char *name; /* file name in glsl/, e.g. "reduce.comp" */
    const char *text;
} glsl_source;

extern const glsl_source glsl_sources[];
extern const size_t glsl_source_count;

/* The text of glsl/<name>, NULL if there is no such file. */
const char *glsl_source_text(const char *name);

#endif /* GPGPU_GLSL_SOURCES_H */
