/* GL's diagnostics: GPGPU_PROFILE=1 (core/profile.h) and GPGPU_GL_PROGRAM_DIR (the programs'
 * binaries, at the end). GPGPU_PROFILE on the GL backend: a GL timestamp is
 * recorded once all earlier commands have completed, so a stamp at the start
 * of a call and one after every dispatch give each dispatch's time as the gap
 * to the stamp before it (the storage barrier a dispatch waits behind, issued
 * just before it, counts in its gap). The stamps are read at
 * the end of each call, and around each upload or download (whose copy and
 * wait then count for no dispatch); reading them waits for the GPU, so
 * profiling is off unless asked for. */
#include <stdio.h>
#include <stdlib.h>

#include "core/profile.h"
#include "gl/gl_internal.h"

enum { GL_PROFILE_SLOTS = 256 };

struct gl_profile {
    GLuint query[GL_PROFILE_SLOTS];
    uint32_t used; /* stamps issued since the last read: 0 = the start, i = after dispatch i */
    profile_label label[GL_PROFILE_SLOTS];
    profile_table table;
};

void gl_profile_open(gl_state *st)
{
    if (!profile_wanted())
        return;
    gl_profile *p = calloc(1, sizeof *p);
    if (!p) {
        fprintf(stderr, "GPGPU_PROFILE: out of host memory, profiling off\n");
        return;
    }
    st->gl.GenQueries(GL_PROFILE_SLOTS, p->query);
    st->profile = p;
}

void gl_profile_begin(gl_state *st)
{
    gl_profile *p = st->profile;
    if (!p || st->foreign) /* its queries are the adopted context's */
        return;
    st->gl.QueryCounter(p->query[0], GL_TIMESTAMP);
    p->used = 1;
}

bool gl_profile_collect(gl_state *st)
{
    gl_profile *p = st->profile;
    if (!p || p->used == 0)
        return false;
    uint32_t n = p->used;
    p->used = 0;
    GLuint64 before = 0, t = 0;
    for (uint32_t i = 0; i < n; i++) {
        st->gl.GetQueryObjectui64v(p->query[i], GL_QUERY_RESULT, &t); /* waits */
        if (i > 0)
            profile_add(&p->table, &p->label[i], (double)(t - before));
        before = t;
    }
    return true;
}

void gl_profile_mark(gl_state *st, const exec_dispatch *d)
{
    gl_profile *p = st->profile;
    if (!p || p->used == 0)
        return;
    p->label[p->used] = profile_label_of(d);
    st->gl.QueryCounter(p->query[p->used++], GL_TIMESTAMP);
    if (p->used == GL_PROFILE_SLOTS) { /* read them and go on from a fresh start stamp */
        gl_profile_collect(st);
        gl_profile_begin(st);
    }
}

void gl_profile_close(gl_state *st, bool delete_queries)
{
    gl_profile *p = st->profile;
    if (!p)
        return;
    st->profile = NULL;
    if (delete_queries)
        st->gl.DeleteQueries(GL_PROFILE_SLOTS, p->query);
    profile_report(&p->table, st->renderer);
    free(p);
}

/* GPGPU_GL_PROGRAM_DIR=DIR: each program's binary as GL gives it, one file per variant. NVIDIA's
 * holds the driver's assembly as text (`strings` shows it): which loads share a block, what
 * stays a loop, how a subgroup operation was expanded; that is how the scan's rows were found
 * waiting on one another (docs/DECISIONS.md, Scan). */
void gl_program_dump(gl_state *st, const exec_variant *v, unsigned program)
{
    const char *dir = getenv("GPGPU_GL_PROGRAM_DIR");
    if (!dir || !*dir)
        return;
    const GladGLContext *gl = &st->gl;
    GLint length = 0;
    gl->GetProgramiv(program, GL_PROGRAM_BINARY_LENGTH, &length);
    void *binary = length > 0 ? malloc((size_t)length) : NULL;
    if (!binary)
        return;
    GLenum format = 0;
    gl->GetProgramBinary(program, length, NULL, &format, binary);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.%s.%s.wg%u.items%u.stage%u.shape%u-%u-%u-%u.bin", dir,
             v->family, exec_type_tag(v->type), exec_op_tag(v->op), v->wg_size, v->items,
             v->only_stage, v->shape[0], v->shape[1], v->shape[2], v->shape[3]);
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(binary, 1, (size_t)length, f);
        fclose(f);
    }
    free(binary);
}
