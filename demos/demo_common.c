/* demo_common: what the GLFW demos share (see demo_common.h). */
#include "demo_common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- GL loader */

demo_gl gl;

bool load_gl(void)
{
#define LOAD(type, name)                                                      \
    gl.name = (type)glfwGetProcAddress("gl" #name);                           \
    if (!gl.name) {                                                           \
        fprintf(stderr, "%s: the GL context has no gl%s\n", demo_name, #name); \
        return false;                                                         \
    }
    DEMO_GL_FUNCTIONS(LOAD)
#undef LOAD
    return true;
}

/* --------------------------------------------------------------- options */

bool parse_long(const char *text, long lo, long hi, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (!*text || *end || errno || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

int parse_demo_option(int argc, char **argv, int *i, demo_options *o, long max_count,
                      const char *usage)
{
    const char *a = argv[*i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
        fputs(usage, stdout);
        return 0;
    } else if (strcmp(a, "--hidden") == 0) {
        o->hidden = true;
    } else if (strcmp(a, "--frames") == 0) {
        if (*i + 1 >= argc || !parse_long(argv[++*i], 1, 1000000000, &o->frames)) {
            fprintf(stderr, "%s: --frames needs a number from 1\n%s", demo_name, usage);
            return 2;
        }
    } else if (strcmp(a, "--count") == 0) {
        if (*i + 1 >= argc || !parse_long(argv[++*i], 1, max_count, &o->count)) {
            fprintf(stderr, "%s: --count needs a number from 1 to %ld\n%s", demo_name, max_count,
                    usage);
            return 2;
        }
    } else {
        return -2;
    }
    return -1;
}

int unknown_option(const char *option, const char *usage)
{
    fprintf(stderr, "%s: unknown option '%s'\n%s", demo_name, option, usage);
    return 2;
}

/* ------------------------------------------------------------- the data */

uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

float unit(uint64_t r)
{
    return (float)(r >> 40) / (float)(1u << 24);
}

/* ------------------------------------------------------------------- GL */

GLuint compile(GLenum kind, const char *source)
{
    GLuint shader = gl.CreateShader(kind);
    gl.ShaderSource(shader, 1, &source, NULL);
    gl.CompileShader(shader);
    GLint ok = 0;
    gl.GetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[4096] = "";
        gl.GetShaderInfoLog(shader, sizeof log, NULL, log);
        fprintf(stderr, "%s: shader does not compile:\n%s\n", demo_name, log);
        gl.DeleteShader(shader);
        return 0;
    }
    return shader;
}

GLuint link_program(GLuint a, GLuint b)
{
    GLuint program = gl.CreateProgram();
    gl.AttachShader(program, a);
    if (b)
        gl.AttachShader(program, b);
    gl.LinkProgram(program);
    GLint ok = 0;
    gl.GetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[4096] = "";
        gl.GetProgramInfoLog(program, sizeof log, NULL, log);
        fprintf(stderr, "%s: program does not link:\n%s\n", demo_name, log);
        gl.DeleteProgram(program);
        return 0;
    }
    return program;
}

GLuint make_program(const char *first, GLenum first_kind, const char *second,
                    GLenum second_kind)
{
    GLuint a = compile(first_kind, first);
    GLuint b = second ? compile(second_kind, second) : 0;
    GLuint program = (a && (b || !second)) ? link_program(a, b) : 0;
    if (a)
        gl.DeleteShader(a);
    if (b)
        gl.DeleteShader(b);
    return program;
}

GLuint buffer_with(const void *data, size_t bytes)
{
    GLuint name = 0;
    gl.CreateBuffers(1, &name);
    gl.NamedBufferStorage(name, (GLsizeiptr)bytes, data, 0);
    return name;
}

void attribute(GLuint vao, GLuint index, GLuint buffer, size_t offset, GLsizei stride,
               GLint size, GLenum type, bool integer)
{
    gl.VertexArrayVertexBuffer(vao, index, buffer, (GLintptr)offset, stride);
    gl.EnableVertexArrayAttrib(vao, index);
    if (integer)
        gl.VertexArrayAttribIFormat(vao, index, size, type, 0);
    else
        gl.VertexArrayAttribFormat(vao, index, size, type, GL_FALSE, 0);
    gl.VertexArrayAttribBinding(vao, index, index);
}

bool gl_failed(const char *what)
{
    GLenum err = gl.GetError();
    if (err == GL_NO_ERROR)
        return false;
    fprintf(stderr, "%s: GL error 0x%04x%s%s\n", demo_name, err, what ? " while " : "",
            what ? what : "");
    return true;
}

/* ------------------------------------------------------------ the window */

static void glfw_error(int code, const char *message)
{
    fprintf(stderr, "%s: GLFW error 0x%x: %s\n", demo_name, code, message);
}

GLFWwindow *open_window(bool hidden, int width, int height, const char *title)
{
    glfwSetErrorCallback(glfw_error);
    if (!glfwInit()) {
        fprintf(stderr, "%s: GLFW cannot start (no display? try xvfb-run -a): skipped\n",
                demo_name);
        return NULL;
    }
    glfwWindowHint(GLFW_VISIBLE, hidden ? GLFW_FALSE : GLFW_TRUE);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    GLFWwindow *window = glfwCreateWindow(width, height, title, NULL, NULL);
    if (!window) {
        fprintf(stderr, "%s: no window with a GL 4.5 core context: skipped\n", demo_name);
        glfwTerminate();
        return NULL;
    }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(hidden ? 0 : 1);
    return window;
}

void print_gl_info(void)
{
    fprintf(stderr, "%s: GL %s on %s\n", demo_name, (const char *)gl.GetString(GL_VERSION),
            (const char *)gl.GetString(GL_RENDERER));
}

/* ------------------------------------------------------------- libgpgpu */

bool failed(gpgpu_context *ctx, gpgpu_status s, const char *what)
{
    if (s == GPGPU_SUCCESS)
        return false;
    fprintf(stderr, "%s: %s: %s (%s)\n", demo_name, what, gpgpu_status_string(s),
            ctx ? gpgpu_last_error(ctx) : gpgpu_last_error(NULL));
    return true;
}

gpgpu_context *adopt_context(void)
{
    gpgpu_context *ctx = NULL;
    gpgpu_status st = gpgpu_context_create(
        &(gpgpu_context_desc){.gl_get_proc_address = (gpgpu_get_proc_address)glfwGetProcAddress},
        &ctx);
    return failed(NULL, st, "adopting the window's context") ? NULL : ctx;
}
