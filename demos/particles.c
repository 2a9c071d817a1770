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
#include "demo_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { MAX_COUNT = 50000000 };

const char demo_name[] = "particles";

/* --------------------------------------------------------------- options */

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

/* Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, demo_options *o)
{
    *o = (demo_options){.count = 100000, .frames = -1};
    for (int i = 1; i < argc; i++) {
        int status = parse_demo_option(argc, argv, &i, o, MAX_COUNT, usage);
        if (status == -2)
            return unknown_option(argv[i], usage);
        if (status >= 0)
            return status;
    }
    if (o->frames < 0)
        o->frames = o->hidden ? 3 : 0;
    return -1;
}

/* ------------------------------------------------------------- the data */

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

/* The application's GL objects. */
typedef struct scene {
    GLuint positions, speeds, flags; /* flags: n flags, then n slots */
    GLuint vao, program;
    GLint time_at, range_at, alive_at;
} scene;

static bool make_scene(scene *s, const particles *p)
{
    size_t n = p->n;
    s->positions = buffer_with(p->position, n * sizeof(vec4));
    s->speeds = buffer_with(p->speed, n * sizeof(float));
    s->flags = buffer_with(p->flags, 2 * n * sizeof(uint32_t));
    s->program = make_program(vertex_source, GL_VERTEX_SHADER, fragment_source,
                              GL_FRAGMENT_SHADER);
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
    return !gl_failed("making the scene");
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

static bool start_compute(compute *c, const scene *s, size_t n)
{
    *c = (compute){0};
    c->ctx = adopt_context();
    if (!c->ctx)
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
                   gpgpu_scan(c->ctx, &(gpgpu_scan_desc){.type = GPGPU_TYPE_U32, .exclusive = true, .algo = 0}, c->flags, 0,
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
static int run(GLFWwindow *window, const demo_options *o, const scene *s, const compute *c)
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
    if (gl_failed(NULL))
        return 1;
    bool ok = frame > 0 && check(s, n, &st);
    printf("particles: %zu, frames %ld, speed min/max/mean %.4f/%.4f/%.4f, alive %u, check %s\n",
           n, frame, st.min, st.max, st.sum / (double)n, st.alive, ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    demo_options o;
    int status = parse_options(argc, argv, &o);
    if (status >= 0)
        return status;
    GLFWwindow *window = open_window(o.hidden, 800, 800, "libgpgpu particles");
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
        print_gl_info();
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
