/* The glsl/ files, embedded into the library by glsl/embed.py at build time: the prelude
 * (common.glsl, ops.glsl) as it is, and each family's text with its ids and parts in it. */
#ifndef GPGPU_GLSL_SOURCES_H
#define GPGPU_GLSL_SOURCES_H

#include <stddef.h>

typedef struct glsl_source {
    const char *name;  /* file name in glsl/, e.g. "reduce.comp" */
    const char *text;
    /* A family's files by source-string number, as its #line directives number them
     * ("1 common.glsl, 2 ops.glsl, 3 sort.comp, 4 sort/order.glsl, ..."); NULL for the
     * prelude. */
    const char *files;
} glsl_source;

extern const glsl_source glsl_sources[];
extern const size_t glsl_source_count;

/* The text of glsl/<name>, NULL if there is no such file. */
const char *glsl_source_text(const char *name);
/* A family's files by number (glsl_source.files), NULL if there is no such family. */
const char *glsl_source_files(const char *name);

#endif /* GPGPU_GLSL_SOURCES_H */
