/* particles: libgpgpu inside a GLFW application, on the application's own
 * GL buffers and context, without copies.
 *
 * The application owns three GL buffers: vec4 positions (vertex data only),
 * per-particle speeds (float), and one buffer of u32 holding the particles'
 * alive flags followed by their slots. libgpgpu adopts the window's context
 * and wraps the speeds and the two halves of the flags/slots buffer. Every
 * frame it computes the speeds' min and max and their sum, counts the alive
 * particles, and an exclusive scan of the flags gives each alive particle its
 * slot in a compacted list. The draw reads speeds, flags and slots straight
 * from those buffers as vertex attributes: point size from the speed, colour
 * from the slot, dead particles dropped. At the end the results are checked
 * against the CPU on the same data, read back from GL. */
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <GL/glcorearb.h> /* types and PFN typedefs only: no GL_GLEXT_PROTOTYPES */

#include <gpgpu/gpgpu.h>

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EXIT_SKIP = 77, MAX_COUNT = 50000000 };

/* ------------------------------------------------------------- GL loader */

/* The few GL functions the demo calls itself, looked up through GLFW. */
#define GL_FUNCTIONS(X)                                                       \
    X(PFNGLGETSTRINGPROC, GetString)                                          \
    X(PFNGLGETERRORPROC, GetError)                                            \
    X(PFNGLVIEWPORTPROC, Viewport)                                            \
    X(PFNGLCLEARCOLORPROC, ClearColor)                                        \
    X(PFNGLCLEARPROC, Clear)                                                  \
    X(PFNGLENABLEPROC, Enable)                                                \
    X(PFNGLDRAWARRAYSPROC, DrawArrays)                                        \
    X(PFNGLCREATEBUFFERSPROC, CreateBuffers)                                  \
    X(PFNGLNAMEDBUFFERSTORAGEPROC, NamedBufferStorage)                        \
    X(PFNGLGETNAMEDBUFFERSUBDATAPROC, GetNamedBufferSubData)                  \
    X(PFNGLDELETEBUFFERSPROC, DeleteBuffers)                                  \
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
    X(PFNGLGETUNIFORMLOCATIONPROC, GetUniformLocation)                        \
    X(PFNGLUNIFORM1FPROC, Uniform1f)                                          \
    X(PFNGLUNIFORM2FPROC, Uniform2f)

static struct {
#define DECLARE(type, name) type name;
    GL_FUNCTIONS(DECLARE)
#undef DECLARE
} gl;

static bool load_gl(void)
{
#define LOAD(type, name)                                                      \
    gl.name = (type)glfwGetProcAddress("gl" #name);                           \
    if (!gl.name) {                                                           \
        fprintf(stderr, "particles: the GL context has no gl%s\n", #name);    \
        return false;                                                         \
    }
    GL_FUNCTIONS(LOAD)
#undef LOAD
    return true;
}

/* --------------------------------------------------------------- options */

typedef struct options {
    bool hidden;
    long frames; /* 0: until the window closes */
    long count;
} options;

static const char usage[] =
    "Usage: particles [--hidden] [--frames N] [--count N]\n"
    "\n"
    "Draws N particles with GLFW while libgpgpu, adopting the window's GL\n"
    "context, reduces and scans the application's own GL buffers in place:\n"
    "speed min/max/mean, and the slots of the alive particles (an exclusive\n"
    "scan of their flags). At the end the results are checked against the CPU.\n"
    "\n"
    "  --hidden     no visible window (runs 3 frames unless --frames is given)\n"
    "  --frames N   stop after N frames (default: until the window is closed)\n"
    "  --count N    number of particles (default 100000, at most 50000000)\n"
    "  --help       this text\n"
    "\n"
    "Exit status: 0 if the check passes, 1 if it fails or an error occurs,\n"
    "2 for bad options, 77 when no GL 4.5 window can be made (no display).\n";

static bool parse_long(const char *text, long lo, long hi, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (!*text || *end || errno || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, options *o)
{
    *o = (options){.count = 100000, .frames = -1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(a, "--hidden") == 0) {
            o->hidden = true;
        } else if (strcmp(a, "--frames") == 0) {
            if (i + 1 >= argc || !parse_long(argv[++i], 1, 1000000000, &o->frames)) {
                fprintf(stderr, "particles: --frames needs a number from 1\n%s", usage);
                return 2;
            }
        } else if (strcmp(a, "--count") == 0) {
            if (i + 1 >= argc || !parse_long(argv[++i], 1, MAX_COUNT, &o->count)) {
                fprintf(stderr, "particles: --count needs a number from 1 to %d\n%s", MAX_COUNT,
                        usage);
                return 2;
            }
        } else {
            fprintf(stderr, "particles: unknown option '%s'\n%s", a, usage);
            return 2;
        }
    }
    if (o->frames < 0)
        o->frames = o->hidden ? 3 : 0;
    return -1;
}

/* ------------------------------------------------------------- the data */

typedef struct vec4 {
    float x, y, z, w;
} vec4;

static uint64_t next_random(uint64_t *state) /* splitmix64: the same on every machine */
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static float unit(uint64_t r) /* [0, 1) from the top 24 bits */
{
    return (float)(r >> 40) / (float)(1u << 24);
}

/* The particles' initial data, made once on the CPU and handed to GL. */
typedef struct particles {
    size_t n;
    vec4 *position;
    float *speed;
    uint32_t *flags; /* n alive flags, then room for n slots */
} particles;

static bool make_particles(particles *p, size_t n)
{
    p->n = n;
    p->position = malloc(n * sizeof *p->position);
    p->speed = malloc(n * sizeof *p->speed);
    p->flags = calloc(2 * n, sizeof *p->flags);
    if (!p->position || !p->speed || !p->flags)
        return false;
    uint64_t state = 20240601;
    for (size_t i = 0; i < n; i++) {
        float radius = 0.9f * sqrtf(unit(next_random(&state)));
        float angle = 6.2831853f * unit(next_random(&state));
        p->position[i] = (vec4){radius * cosf(angle), radius * sinf(angle), 0.0f, 1.0f};
        p->speed[i] = 0.1f + 1.9f * unit(next_random(&state));
        p->flags[i] = next_random(&state) % 4 != 0; /* about 3 in 4 alive */
    }
    return true;
}

static void free_particles(particles *p)
{
    free(p->position);
    free(p->speed);
    free(p->flags);
}

/* ------------------------------------------------------------- drawing */

static const char vertex_source[] =
    "#version 450 core\n"
    "layout(location = 0) in vec4 position;\n"
    "layout(location = 1) in float speed;\n"
    "layout(location = 2) in uint alive;\n"
    "layout(location = 3) in uint slot;\n"
    "uniform float time;\n"
    "uniform vec2 speed_range;\n"
    "uniform float alive_count;\n"
    "out vec3 color;\n"
    "void main() {\n"
    "    float a = time * speed;\n"
    "    vec2 p = mat2(cos(a), sin(a), -sin(a), cos(a)) * position.xy;\n"
    "    gl_Position = alive != 0u ? vec4(p, position.z, 1.0) : vec4(2.0, 2.0, 2.0, 1.0);\n"
    "    float s = (speed - speed_range.x) / max(speed_range.y - speed_range.x, 1e-6);\n"
    "    gl_PointSize = 1.0 + 2.0 * s;\n"
    "    float t = float(slot) / max(alive_count, 1.0);\n"
    "    color = vec3(t, 0.4 + 0.4 * s, 1.0 - t);\n"
    "}\n";

static const char fragment_source[] =
    "#version 450 core\n"
    "in vec3 color;\n"
    "out vec4 frag;\n"
    "void main() { frag = vec4(color, 1.0); }\n";

static GLuint compile(GLenum kind, const char *source)
{
    GLuint shader = gl.CreateShader(kind);
    gl.ShaderSource(shader, 1, &source, NULL);
    gl.CompileShader(shader);
    GLint ok = 0;
    gl.GetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[4096] = "";
        gl.GetShaderInfoLog(shader, sizeof log, NULL, log);
        fprintf(stderr, "particles: shader does not compile:\n%s\n", log);
        gl.DeleteShader(shader);
        return 0;
    }
    return shader;
}

static GLuint make_program(void)
{
    GLuint vs = compile(GL_VERTEX_SHADER, vertex_source);
    GLuint fs = compile(GL_FRAGMENT_SHADER, fragment_source);
    if (!vs || !fs)
        return 0;
    GLuint program = gl.CreateProgram();
    gl.AttachShader(program, vs);
    gl.AttachShader(program, fs);
    gl.LinkProgram(program);
    gl.DeleteShader(vs);
    gl.DeleteShader(fs);
    GLint ok = 0;
    gl.GetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[4096] = "";
        gl.GetProgramInfoLog(program, sizeof log, NULL, log);
        fprintf(stderr, "particles: program does not link:\n%s\n", log);
        gl.DeleteProgram(program);
        return 0;
    }
    return program;
}

/* The application's GL objects. */
typedef struct scene {
    GLuint positions, speeds, flags; /* flags: n flags, then n slots */
    GLuint vao, program;
    GLint time_at, range_at, alive_at;
} scene;

static GLuint buffer_with(const void *data, size_t bytes)
{
    GLuint name = 0;
    gl.CreateBuffers(1, &name);
    gl.NamedBufferStorage(name, (GLsizeiptr)bytes, data, 0);
    return name;
}

/* Attribute `index` from buffer `buffer` at byte `offset`, one per vertex. */
static void attribute(GLuint vao, GLuint index, GLuint buffer, size_t offset, GLsizei stride,
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

static bool make_scene(scene *s, const particles *p)
{
    size_t n = p->n;
    s->positions = buffer_with(p->position, n * sizeof(vec4));
    s->speeds = buffer_with(p->speed, n * sizeof(float));
    s->flags = buffer_with(p->flags, 2 * n * sizeof(uint32_t));
    s->program = make_program();
    if (!s->program)
        return false;
    s->time_at = gl.GetUniformLocation(s->program, "time");
    s->range_at = gl.GetUniformLocation(s->program, "speed_range");
    s->alive_at = gl.GetUniformLocation(s->program, "alive_count");
    gl.CreateVertexArrays(1, &s->vao);
    attribute(s->vao, 0, s->positions, 0, sizeof(vec4), 4, GL_FLOAT, false);
    attribute(s->vao, 1, s->speeds, 0, sizeof(float), 1, GL_FLOAT, false);
    attribute(s->vao, 2, s->flags, 0, sizeof(uint32_t), 1, GL_UNSIGNED_INT, true);
    attribute(s->vao, 3, s->flags, n * sizeof(uint32_t), sizeof(uint32_t), 1, GL_UNSIGNED_INT, true);
    GLenum err = gl.GetError();
    if (err != GL_NO_ERROR)
        fprintf(stderr, "particles: GL error 0x%04x while making the scene\n", err);
    return err == GL_NO_ERROR;
}

static void free_scene(scene *s)
{
    gl.DeleteVertexArrays(1, &s->vao);
    gl.DeleteProgram(s->program);
    GLuint names[] = {s->positions, s->speeds, s->flags};
    gl.DeleteBuffers(3, names);
}

/* ------------------------------------------------------------ compute */

/* libgpgpu's views of the application's buffers. */
typedef struct compute {
    gpgpu_context *ctx;
    gpgpu_buffer *speeds, *flags, *slots;
} compute;

/* What a frame computes. */
typedef struct stats {
    float min, max, sum;
    uint32_t alive;
} stats;

static bool failed(gpgpu_context *ctx, gpgpu_status s, const char *what)
{
    if (s == GPGPU_SUCCESS)
        return false;
    fprintf(stderr, "particles: %s: %s (%s)\n", what, gpgpu_status_string(s),
            ctx ? gpgpu_last_error(ctx) : gpgpu_last_error(NULL));
    return true;
}

static bool start_compute(compute *c, const scene *s, size_t n)
{
    *c = (compute){0};
    gpgpu_status st = gpgpu_context_create(
        &(gpgpu_context_desc){.gl_get_proc_address = (gpgpu_get_proc_address)glfwGetProcAddress},
        &c->ctx);
    if (failed(NULL, st, "adopting the window's context"))
        return false;
    size_t bytes = n * sizeof(uint32_t); /* floats and u32 alike */
    return !failed(c->ctx, gpgpu_buffer_wrap_gl(c->ctx, s->speeds, 0, bytes, &c->speeds),
                   "wrapping the speeds") &&
           !failed(c->ctx, gpgpu_buffer_wrap_gl(c->ctx, s->flags, 0, bytes, &c->flags),
                   "wrapping the flags") &&
           !failed(c->ctx, gpgpu_buffer_wrap_gl(c->ctx, s->flags, bytes, bytes, &c->slots),
                   "wrapping the slots");
}

static void stop_compute(compute *c)
{
    gpgpu_buffer_destroy(c->speeds);
    gpgpu_buffer_destroy(c->flags);
    gpgpu_buffer_destroy(c->slots);
    gpgpu_context_destroy(c->ctx);
}

/* Speed min/max and sum, the alive count, and the slots (in place in GL). */
static bool run_compute(const compute *c, size_t n, stats *out)
{
    float minmax[2];
    return !failed(c->ctx,
                   gpgpu_reduce(c->ctx, &(gpgpu_reduce_desc){GPGPU_TYPE_F32, GPGPU_OP_MINMAX, 0},
                                c->speeds, 0, n, minmax),
                   "speed min/max") &&
           (out->min = minmax[0], out->max = minmax[1], true) &&
           !failed(c->ctx,
                   gpgpu_reduce(c->ctx, &(gpgpu_reduce_desc){GPGPU_TYPE_F32, GPGPU_OP_SUM, 0},
                                c->speeds, 0, n, &out->sum),
                   "speed sum") &&
           !failed(c->ctx,
                   gpgpu_reduce(c->ctx, &(gpgpu_reduce_desc){GPGPU_TYPE_U32, GPGPU_OP_SUM, 0},
                                c->flags, 0, n, &out->alive),
                   "alive count") &&
           !failed(c->ctx,
                   gpgpu_scan(c->ctx, &(gpgpu_scan_desc){GPGPU_TYPE_U32, true, 0}, c->flags, 0,
                              c->slots, 0, n),
                   "alive slots");
}

/* ---------------------------------------------------------------- check */

/* The frame's results against the CPU on the data read back from GL. */
static bool check(const scene *s, size_t n, const stats *got)
{
    float *speed = malloc(n * sizeof *speed);
    uint32_t *flags = malloc(2 * n * sizeof *flags);
    if (!speed || !flags) {
        free(speed);
        free(flags);
        fprintf(stderr, "particles: out of memory for the check\n");
        return false;
    }
    gl.GetNamedBufferSubData(s->speeds, 0, (GLsizeiptr)(n * sizeof *speed), speed);
    gl.GetNamedBufferSubData(s->flags, 0, (GLsizeiptr)(2 * n * sizeof *flags), flags);
    float lo = INFINITY, hi = -INFINITY;
    double sum = 0, sum_abs = 0;
    uint32_t alive = 0;
    size_t bad_slots = 0, first_bad = 0;
    for (size_t i = 0; i < n; i++) {
        lo = speed[i] < lo ? speed[i] : lo;
        hi = speed[i] > hi ? speed[i] : hi;
        sum += speed[i];
        sum_abs += fabs(speed[i]);
        if (flags[n + i] != alive && bad_slots++ == 0)
            first_bad = i;
        alive += flags[i];
    }
    /* Float sums differ by the order of additions: allow a few ulps per level. */
    double tolerance = 1e-5 * sum_abs + 1e-6;
    bool ok = true;
    if (got->min != lo || got->max != hi) {
        fprintf(stderr, "particles: speed min/max %.9g %.9g, CPU says %.9g %.9g\n", got->min,
                got->max, lo, hi);
        ok = false;
    }
    if (fabs(got->sum - sum) > tolerance) {
        fprintf(stderr, "particles: speed sum %.9g, CPU says %.9g\n", got->sum, sum);
        ok = false;
    }
    if (got->alive != alive) {
        fprintf(stderr, "particles: alive %u, CPU says %u\n", got->alive, alive);
        ok = false;
    }
    if (bad_slots) {
        fprintf(stderr, "particles: %zu slots are wrong, the first at particle %zu\n", bad_slots,
                first_bad);
        ok = false;
    }
    free(speed);
    free(flags);
    return ok;
}

/* ----------------------------------------------------------------- main */

static void glfw_error(int code, const char *message)
{
    fprintf(stderr, "particles: GLFW error 0x%x: %s\n", code, message);
}

static GLFWwindow *open_window(bool hidden)
{
    glfwSetErrorCallback(glfw_error);
    if (!glfwInit()) {
        fprintf(stderr, "particles: GLFW cannot start (no display? try xvfb-run -a): skipped\n");
        return NULL;
    }
    glfwWindowHint(GLFW_VISIBLE, hidden ? GLFW_FALSE : GLFW_TRUE);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    GLFWwindow *window = glfwCreateWindow(800, 800, "libgpgpu particles", NULL, NULL);
    if (!window) {
        fprintf(stderr, "particles: no window with a GL 4.5 core context: skipped\n");
        glfwTerminate();
        return NULL;
    }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(hidden ? 0 : 1);
    return window;
}

static void draw(GLFWwindow *window, const scene *s, size_t n, const stats *st, double time)
{
    int width, height;
    glfwGetFramebufferSize(window, &width, &height);
    gl.Viewport(0, 0, width, height);
    gl.ClearColor(0.02f, 0.02f, 0.05f, 1.0f);
    gl.Clear(GL_COLOR_BUFFER_BIT);
    gl.UseProgram(s->program);
    gl.Uniform1f(s->time_at, (float)time);
    gl.Uniform2f(s->range_at, st->min, st->max);
    gl.Uniform1f(s->alive_at, (float)st->alive);
    gl.BindVertexArray(s->vao);
    gl.DrawArrays(GL_POINTS, 0, (GLsizei)n);
    glfwSwapBuffers(window);
}

/* Runs the frames; returns the exit status. */
static int run(GLFWwindow *window, const options *o, const scene *s, const compute *c)
{
    size_t n = (size_t)o->count;
    stats st = {0};
    long frame = 0;
    while (!glfwWindowShouldClose(window) && (o->frames == 0 || frame < o->frames)) {
        if (!run_compute(c, n, &st))
            return 1;
        draw(window, s, n, &st, 0.02 * (double)frame);
        glfwPollEvents();
        frame++;
    }
    GLenum err = gl.GetError();
    if (err != GL_NO_ERROR) {
        fprintf(stderr, "particles: GL error 0x%04x\n", err);
        return 1;
    }
    bool ok = frame > 0 && check(s, n, &st);
    printf("particles: %zu, frames %ld, speed min/max/mean %.4f/%.4f/%.4f, alive %u, check %s\n",
           n, frame, st.min, st.max, st.sum / (double)n, st.alive, ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    options o;
    int status = parse_options(argc, argv, &o);
    if (status >= 0)
        return status;
    GLFWwindow *window = open_window(o.hidden);
    if (!window)
        return EXIT_SKIP;
    particles p = {0};
    scene s = {0};
    compute c = {0};
    status = 1;
    if (!load_gl()) {
        status = EXIT_SKIP;
    } else if (!make_particles(&p, (size_t)o.count)) {
        fprintf(stderr, "particles: out of memory for %ld particles\n", o.count);
    } else if (make_scene(&s, &p)) {
        fprintf(stderr, "particles: GL %s on %s\n", (const char *)gl.GetString(GL_VERSION),
                (const char *)gl.GetString(GL_RENDERER));
        gl.Enable(GL_PROGRAM_POINT_SIZE);
        if (start_compute(&c, &s, p.n))
            status = run(window, &o, &s, &c);
        stop_compute(&c);
    }
    if (s.program || s.positions)
        free_scene(&s);
    free_particles(&p);
    glfwDestroyWindow(window);
    glfwTerminate();
    return status;
}
