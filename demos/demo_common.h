/* demo_common: what the GLFW demos share. The GL functions they call
 * themselves (looked up through GLFW), option and random-number helpers,
 * shader and buffer helpers, the window, and libgpgpu adopting its context.
 *
 * Each demo defines `demo_name` (e.g. "particles"): the prefix of every
 * message printed here. */
#ifndef DEMO_COMMON_H
#define DEMO_COMMON_H

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <GL/glcorearb.h> /* types and PFN typedefs only: no GL_GLEXT_PROTOTYPES */

#include <gpgpu/gpgpu.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { EXIT_SKIP = 77 };

extern const char demo_name[];

/* ------------------------------------------------------------- GL loader */

/* The GL functions the demos call themselves (all GL 4.5 core). */
#define DEMO_GL_FUNCTIONS(X)                                                  \
    X(PFNGLGETSTRINGPROC, GetString)                                          \
    X(PFNGLGETERRORPROC, GetError)                                            \
    X(PFNGLVIEWPORTPROC, Viewport)                                            \
    X(PFNGLCLEARCOLORPROC, ClearColor)                                        \
    X(PFNGLCLEARPROC, Clear)                                                  \
    X(PFNGLENABLEPROC, Enable)                                                \
    X(PFNGLDISABLEPROC, Disable)                                              \
    X(PFNGLBLENDFUNCPROC, BlendFunc)                                          \
    X(PFNGLDRAWARRAYSPROC, DrawArrays)                                        \
    X(PFNGLDRAWARRAYSINDIRECTPROC, DrawArraysIndirect)                        \
    X(PFNGLBINDBUFFERPROC, BindBuffer)                                        \
    X(PFNGLREADPIXELSPROC, ReadPixels)                                        \
    X(PFNGLPIXELSTOREIPROC, PixelStorei)                                      \
    X(PFNGLCREATEBUFFERSPROC, CreateBuffers)                                  \
    X(PFNGLNAMEDBUFFERSTORAGEPROC, NamedBufferStorage)                        \
    X(PFNGLGETNAMEDBUFFERSUBDATAPROC, GetNamedBufferSubData)                  \
    X(PFNGLDELETEBUFFERSPROC, DeleteBuffers)                                  \
    X(PFNGLBINDBUFFERBASEPROC, BindBufferBase)                                \
    X(PFNGLCREATEVERTEXARRAYSPROC, CreateVertexArrays)                        \
    X(PFNGLDELETEVERTEXARRAYSPROC, DeleteVertexArrays)                        \
    X(PFNGLBINDVERTEXARRAYPROC, BindVertexArray)                              \
    X(PFNGLVERTEXARRAYVERTEXBUFFERPROC, VertexArrayVertexBuffer)              \
    X(PFNGLENABLEVERTEXARRAYATTRIBPROC, EnableVertexArrayAttrib)              \
    X(PFNGLVERTEXARRAYATTRIBFORMATPROC, VertexArrayAttribFormat)              \
    X(PFNGLVERTEXARRAYATTRIBIFORMATPROC, VertexArrayAttribIFormat)            \
    X(PFNGLVERTEXARRAYATTRIBBINDINGPROC, VertexArrayAttribBinding)            \
    X(PFNGLCREATESHADERPROC, CreateShader)                                    \
    X(PFNGLSHADERSOURCEPROC, ShaderSource)                                    \
    X(PFNGLCOMPILESHADERPROC, CompileShader)                                  \
    X(PFNGLGETSHADERIVPROC, GetShaderiv)                                      \
    X(PFNGLGETSHADERINFOLOGPROC, GetShaderInfoLog)                            \
    X(PFNGLDELETESHADERPROC, DeleteShader)                                    \
    X(PFNGLCREATEPROGRAMPROC, CreateProgram)                                  \
    X(PFNGLATTACHSHADERPROC, AttachShader)                                    \
    X(PFNGLLINKPROGRAMPROC, LinkProgram)                                      \
    X(PFNGLGETPROGRAMIVPROC, GetProgramiv)                                    \
    X(PFNGLGETPROGRAMINFOLOGPROC, GetProgramInfoLog)                          \
    X(PFNGLDELETEPROGRAMPROC, DeleteProgram)                                  \
    X(PFNGLUSEPROGRAMPROC, UseProgram)                                        \
    X(PFNGLDISPATCHCOMPUTEPROC, DispatchCompute)                              \
    X(PFNGLMEMORYBARRIERPROC, MemoryBarrier)                                  \
    X(PFNGLGETUNIFORMLOCATIONPROC, GetUniformLocation)                        \
    X(PFNGLUNIFORM1UIPROC, Uniform1ui)                                        \
    X(PFNGLUNIFORM1FPROC, Uniform1f)                                          \
    X(PFNGLUNIFORM2FPROC, Uniform2f)                                          \
    X(PFNGLUNIFORM3FVPROC, Uniform3fv)

typedef struct demo_gl {
#define DEMO_GL_DECLARE(type, name) type name;
    DEMO_GL_FUNCTIONS(DEMO_GL_DECLARE)
#undef DEMO_GL_DECLARE
} demo_gl;

extern demo_gl gl;

/* Looks them all up in the current context; false (and a message) if one is
 * missing. */
bool load_gl(void);

/* --------------------------------------------------------------- options */

/* The options both demos take. */
typedef struct demo_options {
    bool hidden;
    long frames; /* 0: until the window closes */
    long count;
} demo_options;

/* The decimal number `text` into *out if it is within [lo, hi]. */
bool parse_long(const char *text, long lo, long hi, long *out);

/* Handles argv[*i] if it is one of --help, -h, --hidden, --frames N or
 * --count N (at most max_count), advancing *i past a value. Returns -1 when
 * handled, -2 when argv[*i] is not one of them, else the exit status (0
 * after --help, 2 after a message and `usage` for a bad value). */
int parse_demo_option(int argc, char **argv, int *i, demo_options *o, long max_count,
                      const char *usage);

/* The message and `usage` for an unknown option; returns 2, the exit status. */
int unknown_option(const char *option, const char *usage);

/* ------------------------------------------------------------- the data */

typedef struct vec4 {
    float x, y, z, w;
} vec4;

/* splitmix64: the same on every machine. */
uint64_t next_random(uint64_t *state);

/* [0, 1) from the top 24 bits of r. */
float unit(uint64_t r);

/* ------------------------------------------------------------------- GL */

/* A shader of `kind` from `source`; 0 (and the log) if it does not compile. */
GLuint compile(GLenum kind, const char *source);

/* A program of one or two shaders (the second may be 0); 0 (and the log) if
 * it does not link. */
GLuint link_program(GLuint a, GLuint b);

/* A program of one or two shaders compiled from source (`second` may be
 * NULL); the shaders are deleted once linked. 0 on failure. */
GLuint make_program(const char *first, GLenum first_kind, const char *second,
                    GLenum second_kind);

/* An immutable buffer of `bytes`, holding `data` (or undefined if NULL). */
GLuint buffer_with(const void *data, size_t bytes);

/* Attribute `index` from buffer `buffer` at byte `offset`, one per vertex. */
void attribute(GLuint vao, GLuint index, GLuint buffer, size_t offset, GLsizei stride,
               GLint size, GLenum type, bool integer);

/* Reports a GL error (while `what`, or NULL); true if there was one. */
bool gl_failed(const char *what);

/* ------------------------------------------------------------ the window */

/* A window of a GL 4.5 core context, made current (vsync unless hidden);
 * NULL (and a message: the caller exits EXIT_SKIP) if there is none. */
GLFWwindow *open_window(bool hidden, int width, int height, const char *title);

/* Prints the GL version and renderer to stderr. */
void print_gl_info(void);

/* ------------------------------------------------------------- libgpgpu */

/* Reports a libgpgpu failure of `what`; false for GPGPU_SUCCESS. */
bool failed(gpgpu_context *ctx, gpgpu_status s, const char *what);

/* libgpgpu adopting the current (window's) context; NULL on failure. */
gpgpu_context *adopt_context(void);

#endif
