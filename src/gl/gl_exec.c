/* The GL executor: buffers, program cache, one dispatch per stage with a
 * storage barrier after it (Kiciak's EXECSTEP), timer queries. No algorithm
 * logic lives here.
 *
 * One file over 800 lines: the table gl_exec_backend and the static functions
 * it points to, with the creation that fills in the context's facts, as
 * src/vk/vk_exec.c is for Vulkan; what has a concern of its own is apart
 * (gl_context.c the platforms, gl_transfer.c the staging buffer, gl_vkmem.c
 * memory from Vulkan, gl_profile.c GPGPU_PROFILE). */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl/gl_internal.h"
#include "gl/gl_transfer.h"
#include "gl/gl_vkmem.h"
#include "glsl_sources.h"

gpgpu_status gl_check_error(gpgpu_context *ctx, const char *what)
{
    return gl_report_error(ctx, what, gl_of(ctx)->gl.GetError());
}

gpgpu_status gl_report_error(gpgpu_context *ctx, const char *what, GLenum err)
{
    gl_state *st = gl_of(ctx);
    if (err != GL_NO_ERROR) {
        while (st->gl.GetError() != GL_NO_ERROR) {
        }
    }
    /* With debug, a message of type error fails the call even where GL
     * raised no error (undefined behaviour, a driver's own complaint). */
    char debug[GL_DEBUG_MESSAGE_SIZE + 32] = "";
    if (st->debug->message[0])
        snprintf(debug, sizeof debug, ": GL debug output: %s", st->debug->message);
    st->debug->message[0] = '\0';
    if (err == GL_OUT_OF_MEMORY)
        return ctx_fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "%s: GL_OUT_OF_MEMORY%s", what, debug);
    if (err != GL_NO_ERROR)
        return ctx_fail(ctx, GPGPU_ERROR_BACKEND, "%s: GL error 0x%04x%s", what, err, debug);
    if (debug[0])
        return ctx_fail(ctx, GPGPU_ERROR_BACKEND, "%s%s", what, debug);
    return GPGPU_SUCCESS;
}

/* ------------------------------------------------------------ programs */

/* The #extension lines of a family's `// extensions:` line (glsl/embed.py reads the same),
 * which must come before the prelude's first declaration; "" when it has none. */
static void family_extensions(const char *family_text, char *out, size_t size)
{
    out[0] = '\0';
    const char *line = family_text ? strstr(family_text, "// extensions:") : NULL;
    if (!line)
        return;
    const char *p = line + strlen("// extensions:"), *end = strchr(p, '\n');
    size_t used = 0;
    while (p < end && used < size) {
        while (p < end && *p == ' ')
            p++;
        size_t len = strcspn(p, " \n");
        if (len == 0)
            break;
        int n = snprintf(out + used, size - used, "#extension %.*s : require\n", (int)len, p);
        used += n > 0 ? (size_t)n : 0;
        p += len;
    }
}

/* The #version line, the family's extensions and #defines in front of the sources; also
 * names the variant in error messages. */
static void variant_header(const gl_state *st, const exec_variant *v, const char *family_text,
                           char *out, size_t size)
{
    char ext[512];
    family_extensions(family_text, ext, sizeof ext);
    snprintf(out, size,
             "#version 450 core\n%s#define TYPE_%s\n#define OP_%s\n#define WG_SIZE %uu\n"
             "#define ITEMS %uu\n#define ONLY_STAGE %uu\n#define SHAPE0 %uu\n#define SHAPE1 %uu\n"
             "#define SHAPE2 %uu\n#define SHAPE3 %uu\n%s",
             ext, exec_type_tag(v->type), exec_op_tag(v->op), v->wg_size, v->items,
             v->only_stage, v->shape[0], v->shape[1], v->shape[2], v->shape[3],
             st->subgroups ? "#define SUBGROUPS\n" : "");
}

static gpgpu_status compile(gpgpu_context *ctx, const exec_variant *v, variant_entry *out)
{
    gl_state *st = gl_of(ctx);
    const GladGLContext *gl = &st->gl;
    char family_file[64], header[1024];
    snprintf(family_file, sizeof family_file, "%s.comp", v->family);
    const char *names[] = {"common.glsl", "ops.glsl", family_file};
    const char *text[3];
    for (int i = 0; i < 3; i++) {
        text[i] = glsl_source_text(names[i]);
        CHECK(text[i], ctx, GPGPU_ERROR_SHADER_COMPILE, "no embedded shader %s", names[i]);
    }
    variant_header(st, v, text[2], header, sizeof header);
    /* String 0 is the header; "#line 1 N" makes the info log say N for file N, and the
     * family's text numbers its own files (its ids and parts: glsl_source_files). */
    const char *strings[] = {header, "#line 1 1\n", text[0], "#line 1 2\n", text[1], text[2]};
    GLuint shader = gl->CreateShader(GL_COMPUTE_SHADER);
    gl->ShaderSource(shader, (GLsizei)(sizeof strings / sizeof *strings), strings, NULL);
    gl->CompileShader(shader);
    GLint ok = 0;
    gl->GetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    GLuint program = 0;
    if (ok) {
        program = gl->CreateProgram();
        gl->AttachShader(program, shader);
        gl->LinkProgram(program);
        gl->GetProgramiv(program, GL_LINK_STATUS, &ok);
    }
    if (!ok) {
        char log[8192] = "";
        if (program)
            gl->GetProgramInfoLog(program, sizeof log, NULL, log);
        else
            gl->GetShaderInfoLog(shader, sizeof log, NULL, log);
        gl->DeleteShader(shader);
        gl->DeleteProgram(program);
        return ctx_fail(ctx, GPGPU_ERROR_SHADER_COMPILE,
                        "%s %s.comp for TYPE_%s failed (source strings: 0 the header, %s; "
                        "header:\n%s):\n%s",
                        program ? "linking" : "compiling", v->family, exec_type_tag(v->type),
                        glsl_source_files(family_file), header, log);
    }
    gl->DeleteShader(shader); /* the program keeps what it needs */
    gl_program_dump(st, v, program);
    *out = (variant_entry){.key = *v, .handle = program,
                           .extra = gl->GetUniformLocation(program, "params")};
    return GPGPU_SUCCESS;
}

static gpgpu_status program_for(gpgpu_context *ctx, const exec_variant *v,
                                const variant_entry **out)
{
    variant_cache *programs = &gl_of(ctx)->programs;
    if ((*out = variant_cache_find(programs, v)))
        return GPGPU_SUCCESS;
    variant_entry compiled;
    TRY(compile(ctx, v, &compiled));
    gpgpu_status s = variant_cache_add(ctx, programs, compiled);
    if (s != GPGPU_SUCCESS) {
        gl_of(ctx)->gl.DeleteProgram((GLuint)compiled.handle);
        return s;
    }
    *out = &programs->entries[programs->count - 1];
    return GPGPU_SUCCESS;
}

/* ------------------------------------------------------------- buffers */

static gl_buffer *buf_of(const gpgpu_buffer *buf) { return buf->impl; }

/* Every path out of an entry point that made the context current (gl_platform_make_current)
 * ends here: the outermost call of a headless context puts back what the thread had current,
 * an inner one (a buffer a call makes or frees for itself) leaves that to the call. */
static gpgpu_status call_ends(gl_state *st, gpgpu_status status)
{
    if (st->call_depth == 0)
        gl_platform_put_back(st);
    return status;
}

/* Deletes an owned buffer's GL object where `with_gl` (its context is current), and the
 * Vulkan memory behind it in any case (the GL import holds a reference of its own). */
static void delete_owned(gl_state *st, gl_buffer *b, bool with_gl)
{
    if (b->memory_object)
        gl_vkmem_buffer_destroy(st, b, with_gl);
    else if (with_gl)
        st->gl.DeleteBuffers(1, &b->name);
}

/* Freed buffers are kept for reuse (core/kept.h): GL's large ones come from Vulkan's
 * allocator (gl_vkmem.c), which clears them. GL orders a buffer's new use after its old one
 * itself. Every path here has passed gl_platform_make_current, but destroy's where the
 * objects could not be reached (st->unreachable). */
static void kept_free(gpgpu_context *ctx, void *impl)
{
    delete_owned(gl_of(ctx), impl, !gl_of(ctx)->unreachable);
    free(impl);
}

/* The calls that return nothing (the destroys, trim): whether the library's GL objects can
 * be reached now (gl_platform_make_current); where not, one report through the error callback
 * that says why and what is left undone (`what` NULL: none, the caller reports). */
static bool reachable_for(gpgpu_context *ctx, gl_state *st, const char *what,
                          const char *left)
{
    gpgpu_error_callback callback = ctx->callback;
    ctx->callback = NULL;
    gpgpu_status status = gl_platform_make_current(ctx, st);
    ctx->callback = callback;
    if (status == GPGPU_SUCCESS)
        return true;
    if (!what)
        return false;
    char why[1024];
    snprintf(why, sizeof why, "%.1000s", ctx->message);
    ctx_fail(ctx, status, "%s: %s; %s", what, why, left);
    return false;
}

/* An owned buffer's storage, b->bytes of it: on Vulkan memory where gl_vkmem takes it, after
 * giving kept memory back if Vulkan refuses it (a GL buffer made instead might not fail where
 * it should: NVIDIA's GL took a 1 TiB one without an error). */
static void make_storage(gpgpu_context *ctx, gl_state *st, gl_buffer *b)
{
    if (gl_vkmem_buffer_create(st, b, b->bytes))
        return;
    if (gl_vkmem_wanted(st, b->bytes) && st->kept.count) {
        kept_release(ctx, &st->kept, 0);
        if (gl_vkmem_buffer_create(st, b, b->bytes))
            return;
    }
    st->gl.CreateBuffers(1, &b->name);
    st->gl.NamedBufferStorage(b->name, (GLsizeiptr)b->bytes, NULL, GL_DYNAMIC_STORAGE_BIT);
}

static void gl_trim(gpgpu_context *ctx)
{
    if (reachable_for(ctx, gl_of(ctx), "gpgpu_context_trim",
                      "its scratch buffers' GL buffers are left to the adopted context and the "
                      "freed buffers it keeps stay kept")) {
        kept_release(ctx, &gl_of(ctx)->kept, 0);
        call_ends(gl_of(ctx), GPGPU_SUCCESS);
    }
}

static gpgpu_status make_buffer(gpgpu_context *ctx, gl_state *st, gpgpu_buffer *buf)
{
    const GladGLContext *gl = &st->gl;
    gl_buffer *b = kept_take(&st->kept, buf->size);
    if (!b) {
        b = calloc(1, sizeof *b);
        CHECK(b, ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
        b->bytes = kept_size_class(buf->size);
        kept_make_room(ctx, &st->kept, b->bytes);
        make_storage(ctx, st, b);
        GLenum err = gl->GetError();
        if (err == GL_OUT_OF_MEMORY && st->kept.count) {
            /* kept memory goes before an allocation fails, and the failure is not reported */
            while (gl->GetError() != GL_NO_ERROR) {
            }
            st->debug->message[0] = '\0';
            delete_owned(st, b, true);
            kept_release(ctx, &st->kept, 0);
            *b = (gl_buffer){.bytes = b->bytes};
            make_storage(ctx, st, b);
            err = gl->GetError();
        }
        gpgpu_status status = gl_report_error(ctx, "creating a buffer", err);
        if (status != GPGPU_SUCCESS) {
            delete_owned(st, b, true);
            free(b);
            return status;
        }
        b->owned = true;
    }
    buf->impl = b;
    buf->storage = b->name;
    buf->storage_offset = 0;
    return GPGPU_SUCCESS;
}

static gpgpu_status gl_buffer_create(gpgpu_buffer *buf)
{
    gpgpu_context *ctx = buf->ctx;
    gl_state *st = gl_of(ctx);
    /* GLsizeiptr is signed: a larger size would reach GL as a negative one. */
    CHECK(buf->size <= (size_t)PTRDIFF_MAX, ctx, GPGPU_ERROR_OUT_OF_MEMORY,
          "creating a buffer: %zu bytes is more than GL can allocate", buf->size);
    /* Another context (the caller's, another gpgpu_context's) may be current. */
    TRY(gl_platform_make_current(ctx, st));
    return call_ends(st, make_buffer(ctx, st, buf));
}

static gpgpu_status wrap_buffer(gpgpu_context *ctx, gl_state *st, gpgpu_buffer *buf,
                                unsigned name, size_t offset)
{
    CHECK(st->gl.IsBuffer(name), ctx, GPGPU_ERROR_INVALID_ARGUMENT,
          "gpgpu_buffer_wrap_gl: %u is not a GL buffer object", name);
    GLint64 size = 0;
    st->gl.GetNamedBufferParameteri64v(name, GL_BUFFER_SIZE, &size);
    TRY(gl_check_error(ctx, "gpgpu_buffer_wrap_gl"));
    CHECK(offset <= (size_t)size && buf->size <= (size_t)size - offset, ctx,
          GPGPU_ERROR_OUT_OF_RANGE,
          "gpgpu_buffer_wrap_gl: bytes [%zu, %zu) run past GL buffer %u's %lld bytes", offset,
          offset + buf->size, name, (long long)size);
    gl_buffer *b = calloc(1, sizeof *b);
    CHECK(b, ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    *b = (gl_buffer){.name = name, .offset = offset, .owned = false};
    buf->impl = b;
    buf->storage = name; /* a second wrap of `name` is the same memory */
    buf->storage_offset = offset;
    return GPGPU_SUCCESS;
}

gpgpu_status gl_buffer_wrap(gpgpu_buffer *buf, const void *handle, size_t offset)
{
    gpgpu_context *ctx = buf->ctx;
    gl_state *st = gl_of(ctx);
    TRY(gl_platform_make_current(ctx, st));
    return call_ends(st, wrap_buffer(ctx, st, buf, *(const unsigned *)handle, offset));
}

/* Whether buf is one of the context's scratch buffers, which only trim and destroy free out of
 * a call: they report for them. */
static bool is_scratch(const gpgpu_buffer *buf)
{
    for (unsigned i = 0; i < CTX_SCRATCH_SLOTS; i++)
        if (buf->ctx->scratch[i] == buf)
            return true;
    return false;
}

/* A wrap has nothing of GL's to free. An owned buffer is kept or deleted only where its GL
 * buffer can be reached: with another context current its GL buffer stays, and goes with
 * the adopted context's objects when that context is destroyed. */
static void gl_buffer_destroy(gpgpu_buffer *buf)
{
    gl_buffer *b = buf_of(buf);
    gl_state *st = gl_of(buf->ctx);
    if (b && b->owned) {
        bool reachable = reachable_for(buf->ctx, st,
                                       is_scratch(buf) ? NULL : "gpgpu_buffer_destroy",
                                       "its GL buffer is left to the adopted context");
        bool kept = reachable && kept_add(buf->ctx, &st->kept, b, b->bytes);
        if (!kept)
            delete_owned(st, b, reachable);
        if (reachable)
            call_ends(st, GPGPU_SUCCESS);
        if (kept)
            return;
    }
    free(b);
}

static gpgpu_status gl_buffer_write(gpgpu_buffer *buf, size_t offset, const void *data, size_t bytes)
{
    gl_buffer *b = buf_of(buf);
    return gl_transfer_write(buf->ctx, gl_of(buf->ctx), b->name, b->offset + offset, data, bytes);
}

static gpgpu_status gl_buffer_read(gpgpu_buffer *buf, size_t offset, void *data, size_t bytes)
{
    gl_buffer *b = buf_of(buf);
    return gl_transfer_read(buf->ctx, gl_of(buf->ctx), b->name, b->offset + offset, data, bytes);
}

static gpgpu_status gl_buffer_copy(gpgpu_buffer *src, size_t src_offset, gpgpu_buffer *dst,
                                   size_t dst_offset, size_t bytes)
{
    gl_state *st = gl_of(src->ctx);
    const GladGLContext *gl = &st->gl;
    gl->MemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    gl->CopyNamedBufferSubData(buf_of(src)->name, buf_of(dst)->name,
                               (GLintptr)(buf_of(src)->offset + src_offset),
                               (GLintptr)(buf_of(dst)->offset + dst_offset), (GLsizeiptr)bytes);
    /* Stages that read dst next need the copy to have landed. */
    st->storage_barrier_due = true;
    return gl_check_error(src->ctx, "copying between buffers");
}

/* Bindings start at a multiple of the SSBO offset alignment and of 8, so
 * that the shift tells whether a wrap's offset suits 8-byte elements too. */
static size_t gl_binding_shift(const gpgpu_buffer *buf)
{
    size_t align = gl_of(buf->ctx)->ssbo_alignment;
    return buf_of(buf)->offset % (align > 8 ? align : 8);
}

/* ---------------------------------------------------- calls and stages */

/* The storage barrier a dispatch left due (see gl_state.storage_barrier_due). */
static void settle(gl_state *st)
{
    if (st->storage_barrier_due)
        st->gl.MemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    st->storage_barrier_due = false;
}

/* A timed call's query starts once its opening barrier is issued. */
static gpgpu_status start_timed_call(gpgpu_context *ctx, gl_state *st)
{
    if (!st->timing || st->call_depth != 1)
        return GPGPU_SUCCESS;
    if (st->timed_count == st->timed_cap) {
        size_t cap = st->timed_cap ? 2 * st->timed_cap : 16;
        GLuint *grown = realloc(st->timed_queries, cap * sizeof *grown);
        CHECK(grown, ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
        st->gl.GenQueries((GLsizei)(cap - st->timed_cap), grown + st->timed_cap);
        st->timed_queries = grown;
        st->timed_cap = cap;
    }
    st->gl.BeginQuery(GL_TIME_ELAPSED, st->timed_queries[st->timed_count]);
    return GPGPU_SUCCESS;
}

/* Adopt with gl_accept_shared_contexts: what the last call wrote in another of the contexts
 * must be complete before this one reads it (GL orders commands within a context only); the
 * fence it ended with is flushed, so waiting for it here cannot hang. */
static void wait_for_handoff(gl_state *st)
{
    if (st->handoff && st->handoff_context != st->current)
        st->gl.WaitSync(st->handoff, 0, GL_TIMEOUT_IGNORED);
}

static void end_with_handoff(gl_state *st)
{
    if (!st->accept_shared)
        return;
    if (st->handoff)
        st->gl.DeleteSync(st->handoff);
    st->handoff = st->gl.FenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    st->handoff_context = st->current;
    st->gl.Flush();
}

static gpgpu_status gl_begin(gpgpu_context *ctx)
{
    gl_state *st = gl_of(ctx);
    TRY(gl_platform_make_current(ctx, st)); /* put back by gl_end */
    const GladGLContext *gl = &st->gl;
    st->call_depth++;
    while (gl->GetError() != GL_NO_ERROR) {
        /* an error the caller left behind is not ours to report */
    }
    st->debug->message[0] = '\0'; /* nor a debug message of the caller's own calls */
    gl_profile_begin(st);
    if (st->platform == GPGPU_GL_PLATFORM_ADOPT) {
        gl->GetIntegerv(GL_CURRENT_PROGRAM, &st->saved_program);
        gl->GetIntegerv(GL_SHADER_STORAGE_BUFFER_BINDING, &st->saved_generic_ssbo);
        for (GLuint i = 0; i < EXEC_MAX_BINDINGS; i++) {
            gl->GetInteger64i_v(GL_SHADER_STORAGE_BUFFER_BINDING, i, &st->saved_ssbo[i][0]);
            gl->GetInteger64i_v(GL_SHADER_STORAGE_BUFFER_START, i, &st->saved_ssbo[i][1]);
            gl->GetInteger64i_v(GL_SHADER_STORAGE_BUFFER_SIZE, i, &st->saved_ssbo[i][2]);
        }
        /* Whatever the caller wrote before (draws, its own compute) must be
         * visible to our shaders. */
        gl->MemoryBarrier(GL_ALL_BARRIER_BITS);
        if (st->call_depth == 1)
            wait_for_handoff(st);
    }
    gpgpu_status status = start_timed_call(ctx, st);
    if (status != GPGPU_SUCCESS) {
        st->call_depth--; /* no gl_end follows a failed begin */
        call_ends(st, status);
    }
    return status;
}

static gpgpu_status gl_end(gpgpu_context *ctx)
{
    gl_state *st = gl_of(ctx);
    const GladGLContext *gl = &st->gl;
    if (st->timing && st->call_depth == 1) {
        gl->EndQuery(GL_TIME_ELAPSED);
        st->timed_count++;
    }
    if (st->call_depth > 0)
        st->call_depth--;
    /* Our writes must be visible to whatever reads the buffers next: the
     * caller's vertex fetch, draws, copies, or its own shaders. */
    gl->MemoryBarrier(GL_ALL_BARRIER_BITS);
    st->storage_barrier_due = false;
    gl_profile_collect(st);
    if (st->platform == GPGPU_GL_PLATFORM_ADOPT) {
        gl->UseProgram((GLuint)st->saved_program);
        for (GLuint i = 0; i < EXEC_MAX_BINDINGS; i++) {
            GLuint name = (GLuint)st->saved_ssbo[i][0];
            if (name && st->saved_ssbo[i][2] > 0)
                gl->BindBufferRange(GL_SHADER_STORAGE_BUFFER, i, name,
                                    (GLintptr)st->saved_ssbo[i][1],
                                    (GLsizeiptr)st->saved_ssbo[i][2]);
            else
                gl->BindBufferBase(GL_SHADER_STORAGE_BUFFER, i, name);
        }
        gl->BindBuffer(GL_SHADER_STORAGE_BUFFER, (GLuint)st->saved_generic_ssbo);
        if (st->call_depth == 0)
            end_with_handoff(st);
    }
    return call_ends(st, gl_check_error(ctx, "GL"));
}

static gpgpu_status gl_dispatch(gpgpu_context *ctx, const exec_dispatch *d)
{
    gl_state *st = gl_of(ctx);
    const GladGLContext *gl = &st->gl;
    if (d->groups == 0)
        return GPGPU_SUCCESS;
    const variant_entry *p = NULL;
    TRY(program_for(ctx, &d->variant, &p));
    gl->UseProgram((GLuint)p->handle);
    gl->Uniform1uiv((GLint)p->extra, EXEC_PARAM_COUNT, d->params);
    for (GLuint i = 0; i < EXEC_MAX_BINDINGS; i++) {
        if (!d->bind[i])
            continue;
        const gl_buffer *b = buf_of(d->bind[i]);
        size_t shift = gl_binding_shift(d->bind[i]);
        gl->BindBufferRange(GL_SHADER_STORAGE_BUFFER, i, b->name, (GLintptr)(b->offset - shift),
                            (GLsizeiptr)(d->bind[i]->size + shift));
    }
    /* Wider than the x limit: spread over y; shaders use invocation_index(). */
    GLuint gx = d->groups, gy = 1;
    if (gx > (GLuint)st->max_groups_x) {
        gx = 32768;
        gy = (d->groups + gx - 1) / gx;
    }
    settle(st); /* the dispatch before has written what this one may read */
    gl->DispatchCompute(gx, gy, 1);
    st->storage_barrier_due = true;
    gl_profile_mark(st, d);
    return ctx->debug ? gl_check_error(ctx, d->variant.family) : GPGPU_SUCCESS;
}

static bool gl_recording_for_caller(gpgpu_context *ctx)
{
    (void)ctx;
    return false; /* GL executes as it goes */
}

/* The timer's GL_TIME_ELAPSED queries are objects of the context that made them, which
 * contexts sharing its objects do not see: it runs in the adopted (or own) context alone. */
static gpgpu_status gl_timer_begin(gpgpu_context *ctx)
{
    gl_state *st = gl_of(ctx);
    TRY(gl_platform_make_current(ctx, st));
    call_ends(st, GPGPU_SUCCESS); /* no GL call: the queries come with the calls it measures */
    CHECK(!st->foreign, ctx, GPGPU_ERROR_WRONG_CONTEXT,
          "gpgpu_timer_begin: the current GL context (%p) shares objects with the adopted one "
          "(%p), but the timer's GL queries would be its own: make the adopted one current",
          st->current, st->adopted);
    st->timing = true;
    st->timed_count = 0;
    return GPGPU_SUCCESS;
}

static gpgpu_status timer_sum(gpgpu_context *ctx, gl_state *st, double *gpu_ns)
{
    CHECK(!st->foreign, ctx, GPGPU_ERROR_WRONG_CONTEXT,
          "gpgpu_timer_end: the current GL context (%p) shares objects with the adopted one "
          "(%p), but the timer's GL queries are the adopted one's: the measurement is lost",
          st->current, st->adopted);
    double total = 0;
    for (size_t i = 0; i < st->timed_count; i++) {
        GLuint64 ns = 0;
        st->gl.GetQueryObjectui64v(st->timed_queries[i], GL_QUERY_RESULT, &ns);
        total += (double)ns;
    }
    *gpu_ns = total;
    return gl_check_error(ctx, "gpgpu_timer_end");
}

static gpgpu_status gl_timer_end(gpgpu_context *ctx, double *gpu_ns)
{
    gl_state *st = gl_of(ctx);
    st->timing = false; /* a failed end ends the measurement too, as gpgpu_timer_end says */
    TRY(gl_platform_make_current(ctx, st));
    return call_ends(st, timer_sum(ctx, st, gpu_ns));
}

static gpgpu_status gl_finish(gpgpu_context *ctx)
{
    gl_state *st = gl_of(ctx);
    TRY(gl_platform_make_current(ctx, st));
    /* glFinish waits for this context's commands; the last call may have run in another */
    if (st->handoff && st->handoff_context != st->current)
        st->gl.ClientWaitSync(st->handoff, GL_SYNC_FLUSH_COMMANDS_BIT, UINT64_MAX);
    st->gl.Finish();
    return call_ends(st, gl_check_error(ctx, "gpgpu_finish"));
}

/* Sinks of debug callbacks that destroy could not take back from their adopted contexts:
 * those contexts still call into them, so they are never freed (a list, so that they stay
 * reachable memory). */
static _Atomic(gl_debug_sink *) sinks_left;

static void leave_sink(gl_debug_sink *sink)
{
    sink->next_left = atomic_load(&sinks_left);
    while (!atomic_compare_exchange_weak(&sinks_left, &sink->next_left, sink)) {
    }
}

/* GL work happens only where the library's objects can be reached. In the adopted (or own)
 * context everything goes. In a context that shares its objects (gl_accept_shared_contexts)
 * the shared ones go (programs, buffers, syncs), not the timer's and profiler's queries nor
 * the debug callback, which are the adopted context's own state. With another context
 * current, or none, no GL call is made: the objects are left to the adopted context, which
 * deletes them when it is destroyed, and the error callback hears it once. Where the debug
 * callback cannot be put back, its sink stays allocated, since GL still calls into it. */
static void gl_destroy(gpgpu_context *ctx)
{
    gl_state *st = gl_of(ctx);
    if (!st)
        return;
    bool reachable = st->gl.DeleteProgram &&
                     reachable_for(ctx, st, "gpgpu_context_destroy",
                                   "its GL objects (programs, buffers, queries, the debug "
                                   "callback) are left to the adopted context");
    bool own = reachable && !st->foreign;
    if (reachable && !own && (st->debug_installed || st->timed_cap || st->profile)) {
        char left[128];
        snprintf(left, sizeof left, "%s%s%s", st->debug_installed ? ", the debug callback" : "",
                 st->timed_cap ? ", the timer's queries" : "",
                 st->profile ? ", the profiler's queries" : "");
        ctx_fail(ctx, GPGPU_ERROR_WRONG_CONTEXT,
                 "gpgpu_context_destroy: the current GL context (%p) shares objects with the "
                 "adopted one (%p) but is not it: the adopted context's own state (%s) is left "
                 "to it", st->current, st->adopted, left + 2);
    }
    st->unreachable = !reachable;
    kept_list_free(ctx, &st->kept);
    if (own && st->debug_installed && st->platform == GPGPU_GL_PLATFORM_ADOPT) {
        /* The caller's context outlives ctx: never leave it a callback into freed memory. */
        GLDEBUGPROC callback;
        memcpy(&callback, &st->saved_debug_callback, sizeof callback);
        st->gl.DebugMessageCallback(callback, st->saved_debug_user);
        if (!st->saved_debug_synchronous)
            st->gl.Disable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
        if (!st->saved_debug_output)
            st->gl.Disable(GL_DEBUG_OUTPUT);
        st->debug_installed = false;
    }
    if (own && st->timed_cap)
        st->gl.DeleteQueries((GLsizei)st->timed_cap, st->timed_queries);
    if (reachable) {
        for (size_t i = 0; i < st->programs.count; i++)
            st->gl.DeleteProgram((GLuint)st->programs.entries[i].handle);
        gl_transfer_close(st);
        if (st->share_probe)
            st->gl.DeleteBuffers(1, &st->share_probe);
        if (st->handoff)
            st->gl.DeleteSync(st->handoff);
    }
    gl_profile_close(st, own);
    gl_vkmem_close(st); /* its buffers are gone: destroyed before the context */
    variant_cache_free(&st->programs);
    gl_platform_close(st);
    if (st->debug_installed && !own)
        leave_sink(st->debug);
    else
        free(st->debug);
    free(st->timed_queries);
    free(st);
    ctx->impl = NULL;
}

const exec_backend gl_exec_backend = {
    .name = "gl",
    .destroy = gl_destroy,
    .buffer_create = gl_buffer_create,
    .buffer_destroy = gl_buffer_destroy,
    .trim = gl_trim,
    .buffer_write = gl_buffer_write,
    .buffer_read = gl_buffer_read,
    .buffer_copy = gl_buffer_copy,
    .binding_shift = gl_binding_shift,
    .begin = gl_begin,
    .end = gl_end,
    .dispatch = gl_dispatch,
    .recording_for_caller = gl_recording_for_caller,
    .timer_begin = gl_timer_begin,
    .timer_end = gl_timer_end,
    .finish = gl_finish,
};

/* ------------------------------------------------------------ creation */

static void copy_string(const GladGLContext *gl, GLenum name, char *out, size_t size)
{
    const GLubyte *s = gl->GetString(name);
    snprintf(out, size, "%s", s ? (const char *)s : "");
}

static bool gl_has_extension(const GladGLContext *gl, const char *name)
{
    GLint count = 0;
    gl->GetIntegerv(GL_NUM_EXTENSIONS, &count);
    for (GLint i = 0; i < count; i++)
        if (strcmp((const char *)gl->GetStringi(GL_EXTENSIONS, (GLuint)i), name) == 0)
            return true;
    return false;
}

/* Subgroup arithmetic is used only where compute shaders have all of it;
 * GPGPU_NO_SUBGROUPS=1 forces the shared-memory paths (to test them). */
static void query_subgroups(gl_state *st, gpgpu_info *info)
{
    const GladGLContext *gl = &st->gl;
    if (!gl_has_extension(gl, "GL_KHR_shader_subgroup"))
        return;
    GLint stages = 0, features = 0, size = 0;
    gl->GetIntegerv(GL_SUBGROUP_SUPPORTED_STAGES_KHR, &stages);
    gl->GetIntegerv(GL_SUBGROUP_SUPPORTED_FEATURES_KHR, &features);
    gl->GetIntegerv(GL_SUBGROUP_SIZE_KHR, &size);
    const GLint needed = GL_SUBGROUP_FEATURE_BASIC_BIT_KHR | GL_SUBGROUP_FEATURE_VOTE_BIT_KHR |
                         GL_SUBGROUP_FEATURE_ARITHMETIC_BIT_KHR |
                         GL_SUBGROUP_FEATURE_BALLOT_BIT_KHR |
                         GL_SUBGROUP_FEATURE_SHUFFLE_BIT_KHR |
                         GL_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT_KHR;
    info->has_subgroups = (stages & GL_COMPUTE_SHADER_BIT) && (features & needed) == needed;
    info->subgroup_size = (unsigned)size;
    st->subgroups = info->has_subgroups && !env_on("GPGPU_NO_SUBGROUPS");
}

static void query_info(gpgpu_context *ctx, gl_state *st)
{
    const GladGLContext *gl = &st->gl;
    gpgpu_info *info = &ctx->info;
    copy_string(gl, GL_VENDOR, st->vendor, sizeof st->vendor);
    copy_string(gl, GL_RENDERER, st->renderer, sizeof st->renderer);
    copy_string(gl, GL_VERSION, st->version, sizeof st->version);
    GLint major = 0, minor = 0, invocations = 0, shared = 0, align = 0;
    GLint64 block = 0;
    gl->GetIntegerv(GL_MAJOR_VERSION, &major);
    gl->GetIntegerv(GL_MINOR_VERSION, &minor);
    gl->GetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &invocations);
    gl->GetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &st->max_groups_x);
    gl->GetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &shared);
    gl->GetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
    gl->GetIntegerv(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, &align);
    st->ssbo_alignment = align > 0 ? (size_t)align : 256;
    *info = (gpgpu_info){
        .backend = "gl",
        .platform = gl_platform_name(st->platform),
        .vendor = st->vendor,
        .renderer = st->renderer,
        .version = st->version,
        .version_major = major,
        .version_minor = minor,
        .has_f64 = major >= 4, /* double is core GLSL since 4.00 */
        .max_workgroup_invocations = (unsigned)invocations,
        .max_workgroup_count_x = (unsigned)st->max_groups_x,
        .max_shared_memory_bytes = (size_t)shared,
        .max_storage_block_bytes = (size_t)block,
        .max_storage_range_bytes = (size_t)block, /* a bound range is one block */
        .storage_offset_alignment = st->ssbo_alignment,
    };
    query_subgroups(st, info);
    /* The cooperative-matrix product (glsl/gemm_coopmat.comp) is built with
     * GL_NV_cooperative_matrix, and its tiles are per subgroup. */
    info->has_coopmat_f16 = info->has_subgroups &&
                            gl_has_extension(gl, "GL_NV_cooperative_matrix") &&
                            !env_on("GPGPU_NO_COOPMAT");
    /* The GPU's UUID as Vulkan reports it for the same device (GL_EXT_memory_object: what
     * GL-Vulkan interop matches on), else the EGL device's persistent id. */
    info->device = st->device_index;
    if (gl->EXT_memory_object) {
        GLubyte uuid[GL_UUID_SIZE_EXT] = {0};
        gl->GetUnsignedBytei_vEXT(GL_DEVICE_UUID_EXT, 0, uuid);
        info->has_uuid = gl->GetError() == GL_NO_ERROR;
        if (info->has_uuid)
            memcpy(info->uuid, uuid, sizeof info->uuid);
    }
    if (!info->has_uuid && st->egl_has_uuid) {
        info->has_uuid = true;
        memcpy(info->uuid, st->egl_uuid, sizeof info->uuid);
    }
    /* GL itself does not say how much memory the device has; NVIDIA's extension does (KiB). */
    if (gl_has_extension(gl, "GL_NVX_gpu_memory_info")) {
        GLint kib = 0;
        gl->GetIntegerv(0x9047 /* GPU_MEMORY_INFO_DEDICATED_VIDMEM_NVX */, &kib);
        info->device_memory_bytes = kib > 0 ? (size_t)kib * 1024 : 0;
    }
}

/* Keeps the first message of type error or undefined behaviour (or of high
 * severity) for gl_check_error, which the call ends with: a message fails
 * the call that caused it, as a GL error does. The shader compiler's
 * messages are left out: compile() reports its failures with the whole log. */
static void GLAD_API_PTR debug_message(GLenum source, GLenum type, GLuint id, GLenum severity,
                                       GLsizei length, const GLchar *message, const void *user)
{
    (void)id;
    (void)length;
    gl_debug_sink *sink = (gl_debug_sink *)user;
    bool bad = type == GL_DEBUG_TYPE_ERROR || type == GL_DEBUG_TYPE_UNDEFINED_BEHAVIOR ||
               severity == GL_DEBUG_SEVERITY_HIGH;
    if (bad && source != GL_DEBUG_SOURCE_SHADER_COMPILER && !sink->message[0])
        snprintf(sink->message, sizeof sink->message, "%s", message);
}

/* GPGPU_GL_DEBUG=1 turns debug on as desc.debug does, for programs that
 * cannot be changed (the test suite sets it for every GL test). */
static bool env_debug(void)
{
    const char *v = getenv("GPGPU_GL_DEBUG");
    return v && *v && strcmp(v, "0") != 0;
}

gpgpu_status gl_backend_create(gpgpu_context *ctx, const gpgpu_context_desc *caller_desc)
{
    gpgpu_context_desc with_env = *caller_desc;
    with_env.debug = caller_desc->debug || env_debug();
    const gpgpu_context_desc *desc = &with_env;
    ctx->debug = desc->debug; /* gl_dispatch's check after every dispatch too */
    gl_state *st = calloc(1, sizeof *st);
    gl_debug_sink *sink = calloc(1, sizeof *sink);
    if (!st || !sink) {
        free(st);
        free(sink);
        return ctx_fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    }
    st->debug = sink;
    st->display = EGL_NO_DISPLAY;
    st->egl_context = EGL_NO_CONTEXT;
    ctx->impl = st;
    ctx->exec = &gl_exec_backend;
    /* Measured under NVIDIA's GL on the H100 and H200 (docs/DECISIONS.md), against the same
     * shaders on Vulkan: its compiler keeps large per-invocation tiles in registers poorly.
     * Wider, shallower tiles ran faster (one-sweep 24 x 6 keys 30-37%, SMALL 2^12 keys 32.4
     * against 39.3 us, scans up to 2^22 in 512 x 8), the scan's large tiles faster reloaded
     * after the look-back (2^28 u32 817 against 1357 us), and the register forms slower:
     * one-sweep ranking first 4-5%, bitonic register stages (2^24 keys 9942 -> 13454 us),
     * the keys-alone one-sweep program 1.4%; a selection's counting-first scatter faster
     * stored from its invocations than staged (2^24 partition 98.1 against 138.2 us). */
    ctx->facts = (exec_facts){.shallow_tiles_pay = true, .reload_after_lookback = true,
                              .direct_scatter_stores_pay = true};
    gpgpu_status status = gl_platform_open(ctx, st, desc);
    if (status != GPGPU_SUCCESS) {
        gl_platform_close(st);
        free(st->debug);
        free(st);
        ctx->impl = NULL;
        return status;
    }
    query_info(ctx, st);
    gl_platform_share_probe(st);
    gl_profile_open(st);
    /* GL names no CPU device; only NVIDIA's extension says how much memory there is. */
    st->kept = kept_list_for(ctx, KEPT_DEFAULT_LIMIT(ctx->info.device_memory_bytes, false),
                             kept_free, NULL);
    if (desc->debug) {
        st->gl.GetPointerv(GL_DEBUG_CALLBACK_FUNCTION, &st->saved_debug_callback);
        st->gl.GetPointerv(GL_DEBUG_CALLBACK_USER_PARAM, &st->saved_debug_user);
        st->saved_debug_output = st->gl.IsEnabled(GL_DEBUG_OUTPUT);
        st->saved_debug_synchronous = st->gl.IsEnabled(GL_DEBUG_OUTPUT_SYNCHRONOUS);
        st->debug_installed = true;
        /* On by default only in a debug context; an adopted one may be none. */
        st->gl.Enable(GL_DEBUG_OUTPUT);
        st->gl.Enable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
        /* Low-severity messages are off by default; errors of every severity
         * are wanted. An adopted context's message control is the caller's. */
        if (st->platform != GPGPU_GL_PLATFORM_ADOPT)
            for (int i = 0; i < 2; i++)
                st->gl.DebugMessageControl(GL_DONT_CARE,
                                           i ? GL_DEBUG_TYPE_UNDEFINED_BEHAVIOR : GL_DEBUG_TYPE_ERROR,
                                           GL_DONT_CARE, 0, NULL, GL_TRUE);
        st->gl.DebugMessageCallback(debug_message, st->debug);
    }
    return call_ends(st, gl_check_error(ctx, "creating the context"));
}
