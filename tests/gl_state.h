/* The GL state of the caller's context that the library documents as restored after each
 * call in an adopted context (or one sharing its objects): the current program, the eight
 * indexed SSBO bindings the library uses and the generic SSBO binding. test_api_gl.c and
 * test_gl_contexts.c take it before and after calls through their own GladGLContext. */
#ifndef GPGPU_TESTS_GL_STATE_H
#define GPGPU_TESTS_GL_STATE_H

#include "glad_gl.h"

enum { GL_STATE_BINDINGS = 8 };

typedef struct gl_snapshot {
    GLint program, generic;
    GLint64 ssbo[GL_STATE_BINDINGS][3]; /* name, start, size */
} gl_snapshot;

static inline void gl_snapshot_take(const GladGLContext *gl, gl_snapshot *s)
{
    gl->GetIntegerv(GL_CURRENT_PROGRAM, &s->program);
    gl->GetIntegerv(GL_SHADER_STORAGE_BUFFER_BINDING, &s->generic);
    for (GLuint i = 0; i < GL_STATE_BINDINGS; i++) {
        gl->GetInteger64i_v(GL_SHADER_STORAGE_BUFFER_BINDING, i, &s->ssbo[i][0]);
        gl->GetInteger64i_v(GL_SHADER_STORAGE_BUFFER_START, i, &s->ssbo[i][1]);
        gl->GetInteger64i_v(GL_SHADER_STORAGE_BUFFER_SIZE, i, &s->ssbo[i][2]);
    }
}

#endif /* GPGPU_TESTS_GL_STATE_H */
