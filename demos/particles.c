/* particles: libgpgpu inside a GLFW application, on the application's own
 * GL buffers and context, without copies and without readback in the frame.
 *
 * The application owns its particles' data in GL buffers: vec4 positions
 * (vertex data only), per-particle speeds (float) and alive flags (u32).
 * libgpgpu adopts the window's context and wraps them. Every frame it
 * computes the speeds' min and max and their sum into a GL buffer the
 * vertex shader reads as a uniform block, and culls the dead particles: it
 * compacts the alive ones' speeds and indices (gpgpu_select), writing their
 * count into the `count` field of a DrawArraysIndirectCommand, and gathers
 * their positions in that order (gpgpu_gather, its count read from the
 * command on the GPU). glDrawArraysIndirect draws the compacted particles:
 * point size from the speed, colour from the particle's place among the
 * alive ones. At the end the results are checked against the CPU on the
 * same data, read back from GL. */
#include "demo_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_COUNT = 50000000 };

const char demo_name[] = "particles";

/* --------------------------------------------------------------- options */

static const char usage[] =
    "Usage: particles [--hidden] [--frames N] [--count N]\n"
    "\n"
    "Draws N particles with GLFW while libgpgpu, adopting the window's GL\n"
    "context, works on the application's own GL buffers: speed min/max and sum\n"
    "(into a uniform block of the draw), and the alive particles compacted, with\n"
    "their count written into the indirect draw's command, and their positions\n"
    "gathered. glDrawArraysIndirect draws them; nothing is read back in the\n"
    "frame. At the end the results are checked against the CPU.\n"
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
    uint32_t *alive;
} particles;

static bool make_particles(particles *p, size_t n)
{
    p->n = n;
    p->position = malloc(n * sizeof *p->position);
    p->speed = malloc(n * sizeof *p->speed);
    p->alive = malloc(n * sizeof *p->alive);
    if (!p->position || !p->speed || !p->alive)
        return false;
    uint64_t state = 20240601;
    for (size_t i = 0; i < n; i++) {
        float radius = 0.9f * sqrtf(unit(next_random(&state)));
        float angle = 6.2831853f * unit(next_random(&state));
        p->position[i] = (vec4){radius * cosf(angle), radius * sinf(angle), 0.0f, 1.0f};
        p->speed[i] = 0.1f + 1.9f * unit(next_random(&state));
        p->alive[i] = next_random(&state) % 4 != 0; /* about 3 in 4 alive */
    }
    return true;
}

static void free_particles(particles *p)
{
    free(p->position);
    free(p->speed);
    free(p->alive);
}

/* ------------------------------------------------------------- drawing */

/* The speeds' range (Stats: min, max, then the sum) and the alive count (the draw
 * command's first word) come from GL buffers libgpgpu writes, as uniform blocks. */
static const char vertex_source[] =
    "#version 450 core\n"
    "layout(location = 0) in vec4 position;\n"
    "layout(location = 1) in float speed;\n"
    "layout(std140, binding = 0) uniform Stats { vec2 speed_range; };\n"
    "layout(std140, binding = 1) uniform Command { uint alive_count; };\n"
    "uniform float time;\n"
    "out vec3 color;\n"
    "void main() {\n"
    "    float a = time * speed;\n"
    "    vec2 p = mat2(cos(a), sin(a), -sin(a), cos(a)) * position.xy;\n"
    "    gl_Position = vec4(p, position.z, 1.0);\n"
    "    float s = (speed - speed_range.x) / max(speed_range.y - speed_range.x, 1e-6);\n"
    "    gl_PointSize = 1.0 + 2.0 * s;\n"
    "    float t = float(gl_VertexID) / max(float(alive_count), 1.0);\n"
    "    color = vec3(t, 0.4 + 0.4 * s, 1.0 - t);\n"
    "}\n";

static const char fragment_source[] =
    "#version 450 core\n"
    "in vec3 color;\n"
    "out vec4 frag;\n"
    "void main() { frag = vec4(color, 1.0); }\n";

/* The application's GL objects. */
typedef struct scene {
    GLuint positions, speeds, alive;   /* the particles */
    GLuint drawn_positions, drawn_speeds, drawn_index; /* the alive ones, compacted */
    GLuint stats;                      /* f32 speed min, max, sum */
    GLuint command;                    /* DrawArraysIndirectCommand {count, 1, 0, 0} */
    GLuint vao, program;
    GLint time_at;
} scene;

static bool make_scene(scene *s, const particles *p)
{
    size_t n = p->n;
    s->positions = buffer_with(p->position, n * sizeof(vec4));
    s->speeds = buffer_with(p->speed, n * sizeof(float));
    s->alive = buffer_with(p->alive, n * sizeof(uint32_t));
    s->drawn_positions = buffer_with(NULL, n * sizeof(vec4));
    s->drawn_speeds = buffer_with(NULL, n * sizeof(float));
    s->drawn_index = buffer_with(NULL, n * sizeof(uint32_t));
    s->stats = buffer_with(NULL, 4 * sizeof(float));
    const uint32_t command[4] = {0, 1, 0, 0};
    s->command = buffer_with(command, sizeof command);
    s->program = make_program(vertex_source, GL_VERTEX_SHADER, fragment_source,
                              GL_FRAGMENT_SHADER);
    if (!s->program)
        return false;
    s->time_at = gl.GetUniformLocation(s->program, "time");
    gl.CreateVertexArrays(1, &s->vao);
    attribute(s->vao, 0, s->drawn_positions, 0, sizeof(vec4), 4, GL_FLOAT, false);
    attribute(s->vao, 1, s->drawn_speeds, 0, sizeof(float), 1, GL_FLOAT, false);
    return !gl_failed("making the scene");
}

static void free_scene(scene *s)
{
    gl.DeleteVertexArrays(1, &s->vao);
    gl.DeleteProgram(s->program);
    GLuint names[] = {s->positions, s->speeds, s->alive, s->drawn_positions,
                      s->drawn_speeds, s->drawn_index, s->stats, s->command};
    gl.DeleteBuffers(8, names);
}

/* ------------------------------------------------------------ compute */

/* libgpgpu's views of the application's buffers. */
typedef struct compute {
    gpgpu_context *ctx;
    gpgpu_buffer *positions, *speeds, *alive, *drawn_positions, *drawn_speeds, *drawn_index,
        *stats, *command;
} compute;

static bool wrap(const compute *c, GLuint name, size_t bytes, gpgpu_buffer **out,
                 const char *what)
{
    return !failed(c->ctx, gpgpu_buffer_wrap_gl(c->ctx, name, 0, bytes, out), what);
}

static bool start_compute(compute *c, const scene *s, size_t n)
{
    *c = (compute){0};
    c->ctx = adopt_context();
    if (!c->ctx)
        return false;
    return wrap(c, s->positions, n * sizeof(vec4), &c->positions, "wrapping the positions") &&
           wrap(c, s->speeds, n * 4, &c->speeds, "wrapping the speeds") &&
           wrap(c, s->alive, n * 4, &c->alive, "wrapping the flags") &&
           wrap(c, s->drawn_positions, n * sizeof(vec4), &c->drawn_positions,
                "wrapping the drawn positions") &&
           wrap(c, s->drawn_speeds, n * 4, &c->drawn_speeds, "wrapping the drawn speeds") &&
           wrap(c, s->drawn_index, n * 4, &c->drawn_index, "wrapping the drawn indices") &&
           wrap(c, s->stats, 16, &c->stats, "wrapping the statistics") &&
           wrap(c, s->command, 16, &c->command, "wrapping the draw command");
}

static void stop_compute(compute *c)
{
    gpgpu_buffer *bufs[] = {c->positions, c->speeds, c->alive, c->drawn_positions,
                            c->drawn_speeds, c->drawn_index, c->stats, c->command};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        gpgpu_buffer_destroy(bufs[i]);
    gpgpu_context_destroy(c->ctx);
}

/* The frame's work, all on the GPU: speed min/max and sum into the statistics, the alive
 * particles' speeds and indices compacted (their count into the draw command), their
 * positions gathered in that order. */
static bool run_compute(const compute *c, size_t n)
{
    gpgpu_select_desc cull = {.type = GPGPU_TYPE_F32, .flags = c->alive,
                              .indices_out = c->drawn_index, .count_out = c->command};
    gpgpu_gather_desc gather = {.record_bytes = sizeof(vec4), .count_buffer = c->command};
    return !failed(c->ctx,
                   gpgpu_reduce_to_buffer(c->ctx,
                                          &(gpgpu_reduce_desc){GPGPU_TYPE_F32, GPGPU_OP_MINMAX, 0},
                                          c->speeds, 0, n, c->stats, 0),
                   "speed min/max") &&
           !failed(c->ctx,
                   gpgpu_reduce_to_buffer(c->ctx,
                                          &(gpgpu_reduce_desc){GPGPU_TYPE_F32, GPGPU_OP_SUM, 0},
                                          c->speeds, 0, n, c->stats, 2),
                   "speed sum") &&
           !failed(c->ctx, gpgpu_select(c->ctx, &cull, c->speeds, 0, c->drawn_speeds, 0, n, NULL),
                   "culling the dead") &&
           !failed(c->ctx,
                   gpgpu_gather(c->ctx, &gather, c->positions, 0, n, c->drawn_index, 0,
                                c->drawn_positions, 0, n),
                   "gathering the positions");
}

/* ---------------------------------------------------------------- check */

/* The last frame's results against the CPU on the data read back from GL. */
static bool check(const scene *s, size_t n, float stats[3], uint32_t *alive_count)
{
    vec4 *pos = malloc(n * sizeof *pos), *drawn_pos = malloc(n * sizeof *drawn_pos);
    float *speed = malloc(n * sizeof *speed), *drawn_speed = malloc(n * sizeof *drawn_speed);
    uint32_t *alive = malloc(n * sizeof *alive), *drawn = malloc(n * sizeof *drawn);
    bool ok = pos && drawn_pos && speed && drawn_speed && alive && drawn;
    if (!ok) {
        fprintf(stderr, "particles: out of memory for the check\n");
        goto done;
    }
    uint32_t command[4];
    gl.GetNamedBufferSubData(s->command, 0, sizeof command, command);
    gl.GetNamedBufferSubData(s->stats, 0, 3 * sizeof(float), stats);
    size_t k = command[0] <= n ? command[0] : n;
    gl.GetNamedBufferSubData(s->positions, 0, (GLsizeiptr)(n * sizeof *pos), pos);
    gl.GetNamedBufferSubData(s->speeds, 0, (GLsizeiptr)(n * sizeof *speed), speed);
    gl.GetNamedBufferSubData(s->alive, 0, (GLsizeiptr)(n * sizeof *alive), alive);
    gl.GetNamedBufferSubData(s->drawn_positions, 0, (GLsizeiptr)(k * sizeof *pos), drawn_pos);
    gl.GetNamedBufferSubData(s->drawn_speeds, 0, (GLsizeiptr)(k * sizeof *speed), drawn_speed);
    gl.GetNamedBufferSubData(s->drawn_index, 0, (GLsizeiptr)(k * sizeof *drawn), drawn);
    *alive_count = command[0];
    float lo = INFINITY, hi = -INFINITY;
    double sum = 0, sum_abs = 0;
    size_t want = 0, bad = 0, first_bad = 0;
    for (size_t i = 0; i < n; i++) {
        lo = speed[i] < lo ? speed[i] : lo;
        hi = speed[i] > hi ? speed[i] : hi;
        sum += speed[i];
        sum_abs += fabs(speed[i]);
        if (!alive[i])
            continue;
        /* The w-th alive particle is drawn w-th: its index, speed and position. */
        size_t w = want++;
        if (w < k && (drawn[w] != i || memcmp(&drawn_speed[w], &speed[i], 4) != 0 ||
                      memcmp(&drawn_pos[w], &pos[i], sizeof(vec4)) != 0) &&
            bad++ == 0)
            first_bad = w;
    }
    if (command[0] != want || command[1] != 1 || command[2] != 0 || command[3] != 0) {
        fprintf(stderr, "particles: the draw command is {%u, %u, %u, %u}, the CPU counts %zu "
                "alive\n", command[0], command[1], command[2], command[3], want);
        ok = false;
    }
    if (bad) {
        fprintf(stderr, "particles: %zu drawn particles are not the alive ones in order, the "
                "first at vertex %zu\n", bad, first_bad);
        ok = false;
    }
    /* Float sums differ by the order of additions: allow a few ulps per level. */
    double tolerance = 1e-5 * sum_abs + 1e-6;
    if (stats[0] != lo || stats[1] != hi) {
        fprintf(stderr, "particles: speed min/max %.9g %.9g, CPU says %.9g %.9g\n", stats[0],
                stats[1], lo, hi);
        ok = false;
    }
    if (fabs(stats[2] - sum) > tolerance) {
        fprintf(stderr, "particles: speed sum %.9g, CPU says %.9g\n", stats[2], sum);
        ok = false;
    }
done:
    free(pos);
    free(drawn_pos);
    free(speed);
    free(drawn_speed);
    free(alive);
    free(drawn);
    return ok;
}

/* ----------------------------------------------------------------- main */

static void draw(GLFWwindow *window, const scene *s, double time)
{
    int width, height;
    glfwGetFramebufferSize(window, &width, &height);
    gl.Viewport(0, 0, width, height);
    gl.ClearColor(0.02f, 0.02f, 0.05f, 1.0f);
    gl.Clear(GL_COLOR_BUFFER_BIT);
    gl.UseProgram(s->program);
    gl.Uniform1f(s->time_at, (float)time);
    gl.BindBufferBase(GL_UNIFORM_BUFFER, 0, s->stats);
    gl.BindBufferBase(GL_UNIFORM_BUFFER, 1, s->command);
    gl.BindVertexArray(s->vao);
    gl.BindBuffer(GL_DRAW_INDIRECT_BUFFER, s->command);
    gl.DrawArraysIndirect(GL_POINTS, NULL);
    gl.BindBuffer(GL_DRAW_INDIRECT_BUFFER, 0);
    glfwSwapBuffers(window);
}

/* Runs the frames; returns the exit status. */
static int run(GLFWwindow *window, const demo_options *o, const scene *s, const compute *c)
{
    size_t n = (size_t)o->count;
    long frame = 0;
    while (!glfwWindowShouldClose(window) && (o->frames == 0 || frame < o->frames)) {
        if (!run_compute(c, n))
            return 1;
        draw(window, s, 0.02 * (double)frame);
        glfwPollEvents();
        frame++;
    }
    if (gl_failed(NULL))
        return 1;
    float stats[3] = {0, 0, 0};
    uint32_t alive = 0;
    bool ok = frame > 0 && check(s, n, stats, &alive);
    printf("particles: %zu, frames %ld, speed min/max/mean %.4f/%.4f/%.4f, alive (drawn) %u, "
           "check %s\n",
           n, frame, stats[0], stats[1], stats[2] / (double)n, alive, ok ? "OK" : "FAILED");
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
