/* depth_sort: back-to-front drawing of semi-transparent particles, culled to the view
 * frustum, sorted by view depth and moved into draw order every frame by libgpgpu on the
 * application's own GL buffers, with no readback in the frame.
 *
 * The particles are interleaved records (vec4: position xyz, hue w). Each frame a small
 * compute shader of the demo moves them (a swirl around the vertical axis, faster near it)
 * and writes each one's view depth as its key and whether its centre lies in the view
 * frustum as its flag. libgpgpu, adopting the window's context, wraps the application's
 * buffers (no copies) and then:
 *   1. compacts the visible particles' keys and indices (gpgpu_select), writing their
 *      count into the `count` field of a DrawArraysIndirectCommand in a GL buffer;
 *   2. sorts those (key, index) pairs, farthest first (gpgpu_sort), its count read from
 *      that field on the GPU;
 *   3. gathers the particles' records in that order into a vertex buffer (gpgpu_gather),
 *      its count read there too;
 * and glDrawArraysIndirect draws that buffer back to front as alpha-blended, shaded round
 * sprites, with the count the compaction wrote. The camera orbits close to the cloud, so
 * the visible set and the order change every frame. With --no-cull the frame is the three
 * calls of a plain depth sort of interleaved vertices: the keys (the compute shader, with
 * each particle's index as its value), the sort by key with the indices, the gather.
 *
 * The check reads the buffers back from GL and redoes the frame on the CPU: the culling
 * (a particle within rounding of a frustum plane may go either way), the count in the
 * draw command, the sort (keys nonincreasing, equal keys in index order, each key the
 * depth of its particle), and the gathered records bit for bit. --png writes the last
 * frame (a small encoder below: zlib's deflate where the build has zlib, stored blocks
 * otherwise). */
#include "demo_common.h"

#ifdef DEPTH_SORT_HAVE_ZLIB
#include <zlib.h>
#endif

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MAX_COUNT keeps the particles (16 bytes each) within one storage binding
 * everywhere (llvmpipe: 128 MiB) and the dispatch within 65535 groups. */
enum { MAX_COUNT = 4000000, GROUP = 256, WIDTH = 800, HEIGHT = 800 };

static const float PI = 3.14159265f;
static const float NEAR_Z = 0.1f, FAR_Z = 100.0f; /* the projection's near and far planes */

const char demo_name[] = "depth_sort";

/* --------------------------------------------------------------- options */

typedef struct options {
    demo_options base; /* --hidden, --frames, --count */
    bool unsorted, no_cull;
    const char *png;
} options;

static const char usage[] =
    "Usage: depth_sort [--hidden] [--frames N] [--count N] [--png FILE] [--no-cull]\n"
    "                  [--unsorted]\n"
    "\n"
    "Draws N semi-transparent particles back to front with GLFW. Every frame a\n"
    "compute shader writes each particle's view depth into a GL buffer of keys and\n"
    "whether it lies in the view frustum into one of flags; libgpgpu, adopting the\n"
    "window's GL context, compacts the visible particles' keys and indices (their\n"
    "count goes into the draw's indirect command), sorts them farthest first and\n"
    "gathers the particles' records in that order into the vertex buffer that\n"
    "glDrawArraysIndirect draws: no readback in the frame.\n"
    "\n"
    "The frame is checked on the CPU (the culling, the count, the order, the\n"
    "records): every frame with --hidden, the last frame otherwise.\n"
    "\n"
    "  --hidden     no visible window (runs 10 frames unless --frames is given)\n"
    "  --frames N   stop after N frames (default: until the window is closed)\n"
    "  --count N    number of particles (default 20000, at most 4000000)\n"
    "  --png FILE   write the last frame to FILE as a PNG\n"
    "  --no-cull    every particle: the keys, a sort by key with the indices and a\n"
    "               gather of the records; glDrawArrays\n"
    "  --unsorted   skip the sort and draw in index order (shows what the sort\n"
    "               fixes; no check)\n"
    "  --help       this text\n"
    "\n"
    "Exit status: 0 if the check passes, 1 if it fails or an error occurs,\n"
    "2 for bad options, 77 when no GL 4.5 window can be made (no display).\n";

/* Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, options *o)
{
    *o = (options){.base = {.count = 20000, .frames = -1}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--unsorted") == 0) {
            o->unsorted = true;
        } else if (strcmp(a, "--no-cull") == 0) {
            o->no_cull = true;
        } else if (strcmp(a, "--png") == 0) {
            if (i + 1 >= argc || !*argv[i + 1]) {
                fprintf(stderr, "depth_sort: --png needs a file name\n%s", usage);
                return 2;
            }
            o->png = argv[++i];
        } else {
            int status = parse_demo_option(argc, argv, &i, &o->base, MAX_COUNT, usage);
            if (status == -2)
                return unknown_option(a, usage);
            if (status >= 0)
                return status;
        }
    }
    if (o->base.frames < 0)
        o->base.frames = o->base.hidden ? 10 : 0;
    return -1;
}

/* ------------------------------------------------------------- the data */

typedef struct vec3 {
    float x, y, z;
} vec3;

static vec3 sub(vec3 a, vec3 b) { return (vec3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static float dot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static vec3 cross(vec3 a, vec3 b)
{
    return (vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static vec3 normalize(vec3 a)
{
    float l = sqrtf(dot(a, a));
    return (vec3){a.x / l, a.y / l, a.z / l};
}

static float gaussian(uint64_t *state) /* Box-Muller, one of the pair */
{
    float u = 1.0f - unit(next_random(state)); /* (0, 1] */
    float v = unit(next_random(state));
    return sqrtf(-2.0f * logf(u)) * cosf(2.0f * PI * v);
}

/* Seven coloured clusters on a tilted ring: as they swirl and the camera
 * orbits, they pass in front of each other. w is the particle's hue. */
static vec4 *make_particles(size_t n)
{
    vec4 *p = malloc(n * sizeof *p);
    if (!p)
        return NULL;
    enum { CLUSTERS = 7 };
    uint64_t state = 20240607;
    for (size_t i = 0; i < n; i++) {
        unsigned c = (unsigned)(i * CLUSTERS / n); /* contiguous: --unsorted draws cluster by cluster */
        float a = 2.0f * PI * (float)c / CLUSTERS;
        float s = 0.30f;
        p[i] = (vec4){1.25f * cosf(a) + s * gaussian(&state),
                      0.35f * sinf(2.0f * a) + 0.8f * s * gaussian(&state),
                      1.25f * sinf(a) + s * gaussian(&state),
                      fmodf((float)c / CLUSTERS + 0.04f * gaussian(&state) + 1.0f, 1.0f)};
    }
    return p;
}

/* The camera of a frame: it orbits the origin close enough for part of the ring to leave
 * the view, looking at it; focal holds f / aspect and f of the projection. */
typedef struct camera {
    vec3 eye, right, up, forward;
    float focal[2];
} camera;

static camera camera_at(long frame, int width, int height)
{
    float azimuth = 0.3f + 0.015f * (float)frame, elevation = 0.5f, distance = 3.3f;
    camera c;
    c.eye = (vec3){distance * cosf(elevation) * sinf(azimuth), distance * sinf(elevation),
                   distance * cosf(elevation) * cosf(azimuth)};
    c.forward = normalize((vec3){-c.eye.x, -c.eye.y, -c.eye.z});
    c.right = normalize(cross(c.forward, (vec3){0.0f, 1.0f, 0.0f}));
    c.up = cross(c.right, c.forward);
    float f = 1.0f / tanf(0.5f * 45.0f * PI / 180.0f);
    c.focal[0] = f * (float)(height > 0 ? height : 1) / (float)(width > 0 ? width : 1);
    c.focal[1] = f;
    return c;
}

/* The view depth of a particle, as the compute shader computes it. */
static float depth_of(const camera *c, vec4 p)
{
    return dot(sub((vec3){p.x, p.y, p.z}, c->eye), c->forward);
}

/* The least margin of a particle's centre inside the frustum's six planes, in view
 * units: positive inside, negative outside (the compute shader's test, on the CPU). */
static float frustum_margin(const camera *c, vec4 p)
{
    vec3 v = sub((vec3){p.x, p.y, p.z}, c->eye);
    float z = dot(v, c->forward), x = dot(v, c->right) * c->focal[0],
          y = dot(v, c->up) * c->focal[1];
    float m = fminf(z - NEAR_Z, FAR_Z - z);
    m = fminf(m, fminf(z - x, z + x));
    return fminf(m, fminf(z - y, z + y));
}

/* ------------------------------------------------------------ shaders */

/* Moves the particles one step (a swirl around the y axis, faster near it) and writes
 * each one's view depth (key), whether its centre is in the view frustum (flag: as GL
 * clips a point, by its centre) and its index (the values of the sort without culling). */
static const char depth_source[] =
    "#version 450 core\n"
    "layout(local_size_x = 256) in;\n"
    "layout(std430, binding = 0) buffer Particles { vec4 particle[]; };\n"
    "layout(std430, binding = 1) writeonly buffer Depths { float depth[]; };\n"
    "layout(std430, binding = 2) writeonly buffer Flags { uint visible[]; };\n"
    "layout(std430, binding = 3) writeonly buffer Order { uint order[]; };\n"
    "uniform uint count;\n"
    "uniform float dt;\n"
    "uniform vec3 eye, right, up, forward;\n"
    "uniform vec2 focal;\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    if (i >= count) return;\n"
    "    vec4 p = particle[i];\n"
    "    float a = dt * 0.9 / (0.3 + length(p.xz));\n"
    "    p.xz = mat2(cos(a), sin(a), -sin(a), cos(a)) * p.xz;\n"
    "    particle[i] = p;\n"
    "    vec3 v = p.xyz - eye;\n"
    "    float z = dot(v, forward);\n"
    "    vec2 xy = vec2(dot(v, right), dot(v, up)) * focal;\n"
    "    depth[i] = z;\n"
    "    visible[i] = z > 0.1 && z < 100.0 && abs(xy.x) < z && abs(xy.y) < z ? 1u : 0u;\n"
    "    order[i] = i;\n"
    "}\n";

static const char vertex_source[] =
    "#version 450 core\n"
    "layout(location = 0) in vec4 particle;\n"
    "uniform vec3 eye, right, up, forward;\n"
    "uniform vec2 focal;\n"    /* f / aspect, f */
    "uniform float size;\n"    /* sprite diameter in pixels at depth 1 */
    "out vec3 color;\n"
    "vec3 hue(float h) {\n"
    "    vec3 k = clamp(abs(fract(h + vec3(0.0, 2.0, 1.0) / 3.0) * 6.0 - 3.0) - 1.0, 0.0, 1.0);\n"
    "    return mix(vec3(1.0), k, 0.8);\n"
    "}\n"
    "void main() {\n"
    "    vec3 v = particle.xyz - eye;\n"
    "    float z = dot(v, forward);\n" /* near 0.1, far 100 */
    "    gl_Position = vec4(dot(v, right) * focal.x, dot(v, up) * focal.y,\n"
    "                       z * (100.1 / 99.9) - 20.0 / 99.9, z);\n"
    "    gl_PointSize = clamp(size / z, 1.0, 64.0);\n"
    "    color = hue(particle.w);\n"
    "}\n";

/* A shaded ball with a soft rim, 70% opaque, premultiplied alpha. */
static const char fragment_source[] =
    "#version 450 core\n"
    "in vec3 color;\n"
    "out vec4 frag;\n"
    "void main() {\n"
    "    vec2 q = gl_PointCoord * 2.0 - 1.0;\n"
    "    float r2 = dot(q, q);\n"
    "    if (r2 > 1.0) discard;\n"
    "    vec3 normal = vec3(q.x, -q.y, sqrt(1.0 - r2));\n"
    "    float light = max(dot(normal, normalize(vec3(-0.5, 0.6, 0.65))), 0.0);\n"
    "    float alpha = 0.7 * smoothstep(1.0, 0.75, r2);\n"
    "    frag = vec4(color * (0.2 + 0.8 * light) * alpha, alpha);\n"
    "}\n";

/* ------------------------------------------------------------- the scene */

/* The application's GL objects. */
typedef struct scene {
    size_t n;
    GLuint particles;      /* the records, vec4 each, moved by the compute shader */
    GLuint depths, flags;  /* a key and a visibility flag per particle */
    GLuint keys, order;    /* the visible ones' keys and indices, then sorted */
    GLuint sorted;         /* the records in draw order: the vertex buffer */
    GLuint command;        /* DrawArraysIndirectCommand {count, 1, 0, 0} */
    GLuint vao, draw, depth; /* the vertex array, the draw and compute programs */
    float size;            /* sprite diameter in world units */
} scene;

static bool make_scene(scene *s, const vec4 *particles, size_t n)
{
    s->n = n;
    s->size = 1.0f / cbrtf((float)n);
    s->particles = buffer_with(particles, n * sizeof(vec4));
    s->depths = buffer_with(NULL, n * sizeof(float));
    s->flags = buffer_with(NULL, n * sizeof(uint32_t));
    s->keys = buffer_with(NULL, n * sizeof(float));
    s->order = buffer_with(NULL, n * sizeof(uint32_t));
    s->sorted = buffer_with(NULL, n * sizeof(vec4));
    const uint32_t command[4] = {0, 1, 0, 0};
    s->command = buffer_with(command, sizeof command);
    s->draw = make_program(vertex_source, GL_VERTEX_SHADER, fragment_source, GL_FRAGMENT_SHADER);
    s->depth = make_program(depth_source, GL_COMPUTE_SHADER, NULL, 0);
    if (!s->draw || !s->depth)
        return false;
    gl.CreateVertexArrays(1, &s->vao);
    attribute(s->vao, 0, s->sorted, 0, sizeof(vec4), 4, GL_FLOAT, false);
    return !gl_failed("making the scene");
}

static void free_scene(scene *s)
{
    gl.DeleteVertexArrays(1, &s->vao);
    gl.DeleteProgram(s->draw);
    gl.DeleteProgram(s->depth);
    GLuint names[] = {s->particles, s->depths, s->flags, s->keys, s->order, s->sorted,
                      s->command};
    gl.DeleteBuffers(7, names);
}

/* One step of motion, then the keys (depths), flags (visible) and values (indices). */
static void compute_depths(const scene *s, const camera *c, float dt)
{
    GLuint p = s->depth;
    gl.UseProgram(p);
    gl.Uniform1ui(gl.GetUniformLocation(p, "count"), (GLuint)s->n);
    gl.Uniform1f(gl.GetUniformLocation(p, "dt"), dt);
    gl.Uniform3fv(gl.GetUniformLocation(p, "eye"), 1, &c->eye.x);
    gl.Uniform3fv(gl.GetUniformLocation(p, "right"), 1, &c->right.x);
    gl.Uniform3fv(gl.GetUniformLocation(p, "up"), 1, &c->up.x);
    gl.Uniform3fv(gl.GetUniformLocation(p, "forward"), 1, &c->forward.x);
    gl.Uniform2f(gl.GetUniformLocation(p, "focal"), c->focal[0], c->focal[1]);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, s->particles);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, s->depths);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, s->flags);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, s->order);
    gl.DispatchCompute((GLuint)((s->n + GROUP - 1) / GROUP), 1, 1);
    /* libgpgpu's calls start with a barrier of their own; this one is for the draw
     * (vertex fetch of the moved particles) when they are skipped (--unsorted). */
    gl.MemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT);
}

/* The frame: every particle through the vertex buffer, or (indirect) as many as the
 * compaction's count in the draw command says. */
static void draw(GLFWwindow *window, const scene *s, const camera *c, bool indirect)
{
    int width, height;
    glfwGetFramebufferSize(window, &width, &height);
    if (width <= 0 || height <= 0)
        return;
    gl.Viewport(0, 0, width, height);
    gl.ClearColor(0.03f, 0.03f, 0.06f, 1.0f);
    gl.Clear(GL_COLOR_BUFFER_BIT);
    GLuint p = s->draw;
    gl.UseProgram(p);
    gl.Uniform3fv(gl.GetUniformLocation(p, "eye"), 1, &c->eye.x);
    gl.Uniform3fv(gl.GetUniformLocation(p, "right"), 1, &c->right.x);
    gl.Uniform3fv(gl.GetUniformLocation(p, "up"), 1, &c->up.x);
    gl.Uniform3fv(gl.GetUniformLocation(p, "forward"), 1, &c->forward.x);
    gl.Uniform2f(gl.GetUniformLocation(p, "focal"), c->focal[0], c->focal[1]);
    gl.Uniform1f(gl.GetUniformLocation(p, "size"), s->size * c->focal[1] * 0.5f * (float)height);
    gl.BindVertexArray(s->vao);
    if (indirect) {
        gl.BindBuffer(GL_DRAW_INDIRECT_BUFFER, s->command);
        gl.DrawArraysIndirect(GL_POINTS, NULL);
        gl.BindBuffer(GL_DRAW_INDIRECT_BUFFER, 0);
    } else {
        gl.DrawArrays(GL_POINTS, 0, (GLsizei)s->n);
    }
}

/* ------------------------------------------------------- the library's part */

/* libgpgpu's views of the application's buffers (no copies). */
typedef struct sorter {
    gpgpu_context *ctx;
    gpgpu_buffer *particles, *depths, *flags, *keys, *order, *sorted, *command;
} sorter;

static bool wrap(const sorter *t, GLuint name, size_t bytes, gpgpu_buffer **out,
                 const char *what)
{
    return !failed(t->ctx, gpgpu_buffer_wrap_gl(t->ctx, name, 0, bytes, out), what);
}

static bool start_sorter(sorter *t, const scene *s)
{
    *t = (sorter){0};
    t->ctx = adopt_context();
    if (!t->ctx)
        return false;
    size_t n = s->n;
    return wrap(t, s->particles, n * sizeof(vec4), &t->particles, "wrapping the particles") &&
           wrap(t, s->depths, n * 4, &t->depths, "wrapping the depths") &&
           wrap(t, s->flags, n * 4, &t->flags, "wrapping the flags") &&
           wrap(t, s->keys, n * 4, &t->keys, "wrapping the visible keys") &&
           wrap(t, s->order, n * 4, &t->order, "wrapping the draw order") &&
           wrap(t, s->sorted, n * sizeof(vec4), &t->sorted, "wrapping the vertex buffer") &&
           wrap(t, s->command, 16, &t->command, "wrapping the draw command");
}

static void stop_sorter(sorter *t)
{
    gpgpu_buffer *bufs[] = {t->particles, t->depths, t->flags, t->keys, t->order, t->sorted,
                            t->command};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        gpgpu_buffer_destroy(bufs[i]);
    gpgpu_context_destroy(t->ctx);
}

/* The frame's calls. Culling: the visible particles' keys and indices compacted, their
 * count into the draw command (word 0); the sort and the gather read it there. Without:
 * the keys sorted in place with the indices the compute shader wrote, all n. */
static bool cull_sort_gather(const sorter *t, size_t n, bool cull)
{
    gpgpu_buffer *keys = cull ? t->keys : t->depths, *count = cull ? t->command : NULL;
    if (cull) {
        gpgpu_select_desc select = {.type = GPGPU_TYPE_F32, .flags = t->flags,
                                    .indices_out = t->order, .count_out = t->command};
        if (failed(t->ctx, gpgpu_select(t->ctx, &select, t->depths, 0, t->keys, 0, n, NULL),
                   "culling"))
            return false;
    }
    gpgpu_sort_desc sort = {.type = GPGPU_TYPE_F32, .descending = true, .values_in = t->order,
                            .count_buffer = count};
    gpgpu_gather_desc gather = {.record_bytes = sizeof(vec4), .count_buffer = count};
    return !failed(t->ctx, gpgpu_sort(t->ctx, &sort, keys, 0, NULL, 0, n), "sorting by depth") &&
           !failed(t->ctx,
                   gpgpu_gather(t->ctx, &gather, t->particles, 0, n, t->order, 0, t->sorted, 0,
                                n),
                   "gathering the particles");
}

/* ---------------------------------------------------------------- check */

/* A frame's buffers, read back from GL for the check. */
typedef struct readback {
    vec4 *particle, *sorted;
    float *key;
    uint32_t *order;
    unsigned char *seen;
} readback;

/* Reads the frame's buffers back and redoes the frame on the CPU: the culling (a
 * particle within `margin` of a plane may go either way, as the GPU's rounding puts it),
 * the count the draw command holds, the sort, the gathered records. `previous` (n
 * indices, or NULL) is the last frame's order: *changed counts the draw slots whose
 * particle differs; *drawn receives the count. */
static bool check(const scene *s, const camera *c, bool cull, uint32_t *order,
                  uint32_t *previous, size_t *changed, size_t *drawn)
{
    size_t n = s->n;
    readback r = {malloc(n * sizeof(vec4)), malloc(n * sizeof(vec4)), malloc(n * sizeof(float)),
                  order, calloc(n, 1)};
    bool ok = r.particle && r.sorted && r.key && r.seen;
    if (!ok) {
        fprintf(stderr, "depth_sort: out of memory for the check\n");
        goto done;
    }
    uint32_t command[4] = {(uint32_t)n, 1, 0, 0};
    if (cull)
        gl.GetNamedBufferSubData(s->command, 0, sizeof command, command);
    size_t k = command[0] <= n ? command[0] : n;
    gl.GetNamedBufferSubData(s->particles, 0, (GLsizeiptr)(n * sizeof(vec4)), r.particle);
    gl.GetNamedBufferSubData(s->sorted, 0, (GLsizeiptr)(k * sizeof(vec4)), r.sorted);
    gl.GetNamedBufferSubData(cull ? s->keys : s->depths, 0, (GLsizeiptr)(k * 4), r.key);
    gl.GetNamedBufferSubData(s->order, 0, (GLsizeiptr)(k * 4), r.order);
    *drawn = k;
    if (command[0] > n || command[1] != 1 || command[2] != 0 || command[3] != 0) {
        fprintf(stderr, "depth_sort: the draw command is {%u, %u, %u, %u}\n", command[0],
                command[1], command[2], command[3]);
        ok = false;
    }

    /* The GPU may contract the depth's dot product into fused multiply-adds:
     * allow a few ulps of the terms (positions and eye are within ~8). */
    const float tolerance = 2e-5f, margin = 1e-4f;
    size_t bad_index = 0, bad_key = 0, unsorted = 0, behind = 0, first = n, bad_record = 0;
    float prev_depth = INFINITY;
    for (size_t j = 0; j < k; j++) {
        uint32_t i = r.order[j];
        if (i >= n || r.seen[i]) {
            if (bad_index++ == 0)
                fprintf(stderr, "depth_sort: draw slot %zu holds %s index %u\n", j,
                        i >= n ? "the out-of-range" : "the repeated", i);
            continue;
        }
        r.seen[i] = 1;
        float d = depth_of(c, r.particle[i]);
        if (fabsf(r.key[j] - d) > tolerance && bad_key++ == 0)
            fprintf(stderr, "depth_sort: slot %zu: key %.9g, but particle %u is at depth %.9g\n",
                    j, r.key[j], i, d);
        /* Keys nonincreasing; equal keys keep their index order (both calls are stable). */
        if (j > 0 && !(r.key[j - 1] > r.key[j] ||
                       (r.key[j - 1] == r.key[j] && r.order[j - 1] < i)) &&
            unsorted++ == 0)
            fprintf(stderr, "depth_sort: slot %zu: key %.9g (particle %u) after %.9g (%u)\n", j,
                    r.key[j], i, r.key[j - 1], r.order[j - 1]);
        if (d > prev_depth + 2 * tolerance && behind++ == 0)
            first = j;
        prev_depth = d;
        if (memcmp(&r.sorted[j], &r.particle[i], sizeof(vec4)) != 0 && bad_record++ == 0)
            fprintf(stderr, "depth_sort: vertex %zu is not particle %u's record\n", j, i);
        if (previous && previous[j] != i)
            ++*changed;
    }
    /* The culling: every particle clearly inside drawn, none clearly outside. */
    size_t missing = 0, extra = 0;
    for (size_t i = 0; cull && i < n; i++) {
        float m = frustum_margin(c, r.particle[i]);
        if (m > margin && !r.seen[i] && missing++ == 0)
            fprintf(stderr, "depth_sort: particle %zu is in view (by %g) but not drawn\n", i, m);
        if (m < -margin && r.seen[i] && extra++ == 0)
            fprintf(stderr, "depth_sort: particle %zu is out of view (by %g) but drawn\n", i,
                    -m);
    }
    if (behind)
        fprintf(stderr,
                "depth_sort: %zu particles are drawn after a nearer one, the first at slot %zu\n",
                behind, first);
    ok = ok && !bad_index && !bad_key && !unsorted && !behind && !bad_record && !missing &&
         !extra;
    if (!ok)
        fprintf(stderr,
                "depth_sort: %zu bad or repeated indices, %zu keys off their particle's depth, "
                "%zu keys out of order, %zu records not their particle's, %zu in view not "
                "drawn, %zu out of view drawn\n",
                bad_index, bad_key, unsorted, bad_record, missing, extra);
done:
    free(r.particle);
    free(r.sorted);
    free(r.key);
    free(r.seen);
    return ok;
}

/* ------------------------------------------------------------------ PNG */

static uint32_t crc32_of(uint32_t crc, const unsigned char *p, size_t n)
{
    static uint32_t table[256];
    if (!table[1])
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    crc = ~crc;
    for (size_t i = 0; i < n; i++)
        crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return ~crc;
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static bool write_chunk(FILE *f, const char *type, const unsigned char *data, size_t n)
{
    unsigned char head[8], tail[4];
    put32(head, (uint32_t)n);
    memcpy(head + 4, type, 4);
    uint32_t crc = crc32_of(crc32_of(0, head + 4, 4), data, n);
    put32(tail, crc);
    return fwrite(head, 1, 8, f) == 8 && (n == 0 || fwrite(data, 1, n, f) == n) &&
           fwrite(tail, 1, 4, f) == 4;
}

/* A zlib stream of `raw`: deflated by zlib where the build has it, else
 * stored blocks with an Adler-32 of our own. Returns NULL when out of memory. */
static unsigned char *zlib_stream(const unsigned char *raw, size_t n, size_t *out_n)
{
#ifdef DEPTH_SORT_HAVE_ZLIB
    uLongf bound = compressBound((uLong)n);
    unsigned char *z = malloc(bound);
    if (!z || compress2(z, &bound, raw, (uLong)n, 6) != Z_OK) {
        free(z);
        return NULL;
    }
    *out_n = bound;
    return z;
#else
    size_t blocks = n / 65535 + 1;
    unsigned char *z = malloc(2 + 5 * blocks + n + 4), *o = z;
    if (!z)
        return NULL;
    *o++ = 0x78;
    *o++ = 0x01;
    size_t at = 0;
    do {
        size_t len = n - at < 65535 ? n - at : 65535;
        *o++ = at + len == n; /* BFINAL, BTYPE 00 */
        o[0] = (unsigned char)len;
        o[1] = (unsigned char)(len >> 8);
        o[2] = (unsigned char)~len;
        o[3] = (unsigned char)(~len >> 8);
        memcpy(o + 4, raw + at, len);
        o += 4 + len;
        at += len;
    } while (at < n);
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < n; i++) {
        a = (a + raw[i]) % 65521;
        b = (b + a) % 65521;
    }
    put32(o, b << 16 | a);
    *out_n = (size_t)(o + 4 - z);
    return z;
#endif
}

/* Writes 8-bit RGB rows (the first row the top one) as a PNG file. */
static bool write_png(const char *path, const unsigned char *rgb, int width, int height)
{
    size_t row = 3 * (size_t)width, raw_n = (row + 1) * (size_t)height, z_n = 0;
    unsigned char *raw = malloc(raw_n), *z = NULL;
    bool ok = false;
    errno = 0;
    if (raw) {
        for (size_t y = 0; y < (size_t)height; y++) {
            raw[y * (row + 1)] = 0; /* filter: none */
            memcpy(raw + y * (row + 1) + 1, rgb + y * row, row);
        }
        z = zlib_stream(raw, raw_n, &z_n);
    }
    FILE *f = z ? fopen(path, "wb") : NULL;
    if (f) {
        unsigned char ihdr[13] = {0};
        put32(ihdr, (uint32_t)width);
        put32(ihdr + 4, (uint32_t)height);
        ihdr[8] = 8; /* bits per channel */
        ihdr[9] = 2; /* RGB */
        ok = fwrite("\x89PNG\r\n\x1a\n", 1, 8, f) == 8 && write_chunk(f, "IHDR", ihdr, 13) &&
             write_chunk(f, "IDAT", z, z_n) && write_chunk(f, "IEND", NULL, 0);
        ok = fclose(f) == 0 && ok;
    }
    if (!ok)
        fprintf(stderr, "depth_sort: cannot write %s%s%s\n", path, errno ? ": " : "",
                errno ? strerror(errno) : "");
    free(raw);
    free(z);
    return ok;
}

/* Reads the back buffer (the frame just drawn, before the swap) into a PNG. */
static bool save_frame(GLFWwindow *window, const char *path)
{
    int width, height;
    glfwGetFramebufferSize(window, &width, &height);
    size_t row = 3 * (size_t)width;
    unsigned char *pixels = malloc(row * (size_t)height), *flipped = malloc(row * (size_t)height);
    bool ok = false;
    if (pixels && flipped) {
        gl.PixelStorei(GL_PACK_ALIGNMENT, 1);
        gl.ReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels);
        for (int y = 0; y < height; y++) /* GL's first row is the bottom one */
            memcpy(flipped + (size_t)y * row, pixels + (size_t)(height - 1 - y) * row, row);
        ok = write_png(path, flipped, width, height);
    } else {
        fprintf(stderr, "depth_sort: out of memory for the PNG\n");
    }
    free(pixels);
    free(flipped);
    return ok;
}

/* ----------------------------------------------------------------- main */

/* Runs the frames; returns the exit status. */
static int run(GLFWwindow *window, const options *o, const scene *s, const sorter *t)
{
    size_t n = s->n;
    bool cull = !o->no_cull && !o->unsorted, every_frame = o->base.hidden && !o->unsorted;
    uint32_t *order = malloc(n * sizeof *order), *previous = malloc(n * sizeof *previous);
    if (!order || !previous) {
        fprintf(stderr, "depth_sort: out of memory for %zu indices\n", n);
        free(order);
        free(previous);
        return 1;
    }
    gl.Disable(GL_DEPTH_TEST);
    gl.Enable(GL_BLEND);
    gl.BlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA); /* premultiplied alpha, "over" */
    gl.Enable(GL_PROGRAM_POINT_SIZE);

    bool ok = true;
    long frame = 0, checked = 0;
    size_t changed = 0, drawn = 0, drawn_sum = 0;
    int width = WIDTH, height = HEIGHT;
    camera cam = camera_at(0, width, height);
    double start = glfwGetTime();
    while (ok && !glfwWindowShouldClose(window) && (o->base.frames == 0 || frame < o->base.frames)) {
        glfwGetFramebufferSize(window, &width, &height);
        cam = camera_at(frame, width, height);
        compute_depths(s, &cam, 1.0f / 60.0f);
        if (o->unsorted) {
            /* the records as they are, in index order */
            gpgpu_gather_desc copy = {.record_bytes = sizeof(vec4)};
            ok = !failed(t->ctx, gpgpu_gather(t->ctx, &copy, t->particles, 0, n, t->order, 0,
                                              t->sorted, 0, n),
                         "copying the particles");
        } else {
            ok = cull_sort_gather(t, n, cull);
        }
        if (!ok)
            break;
        draw(window, s, &cam, cull);
        glfwSwapBuffers(window);
        glfwPollEvents();
        if (every_frame) {
            ok = check(s, &cam, cull, order, checked ? previous : NULL, &changed, &drawn);
            drawn_sum += drawn;
            uint32_t *swap = order;
            order = previous;
            previous = swap;
            checked++;
        }
        frame++;
    }
    double seconds = glfwGetTime() - start;
    if (ok && frame > 0 && !o->unsorted && !every_frame) {
        ok = check(s, &cam, cull, order, NULL, &changed, &drawn);
        drawn_sum += drawn;
        checked++;
    }
    bool checked_ok = ok;
    if (ok && frame > 0 && o->png) {
        draw(window, s, &cam, cull); /* the last frame again, into the back buffer */
        ok = save_frame(window, o->png);
    }
    if (gl_failed(NULL))
        ok = false;
    ok = ok && frame > 0;
    printf("depth_sort: %zu particles, %ld frames in %.2f s, %s", n, frame, seconds,
           o->unsorted ? "unsorted (no check)\n" : "");
    if (!o->unsorted) {
        if (cull && checked > 0)
            printf("%.1f%% in view, ", 100.0 * (double)drawn_sum / ((double)n * (double)checked));
        printf("%ld checked", checked);
        if (checked > 1)
            printf(" (%.1f%% of the draw slots change particle per frame)",
                   100.0 * (double)changed / ((double)n * (double)(checked - 1)));
        printf(", check %s\n", checked_ok && checked > 0 ? "OK" : "FAILED");
    }
    if (ok && o->png)
        printf("depth_sort: last frame written to %s\n", o->png);
    free(order);
    free(previous);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    options o;
    int status = parse_options(argc, argv, &o);
    if (status >= 0)
        return status;
    GLFWwindow *window = open_window(o.base.hidden, WIDTH, HEIGHT, "libgpgpu depth sort");
    if (!window)
        return EXIT_SKIP;
    vec4 *particles = NULL;
    scene s = {0};
    sorter t = {0};
    status = 1;
    if (!load_gl()) {
        status = EXIT_SKIP;
    } else if (!(particles = make_particles((size_t)o.base.count))) {
        fprintf(stderr, "depth_sort: out of memory for %ld particles\n", o.base.count);
    } else if (make_scene(&s, particles, (size_t)o.base.count)) {
        print_gl_info();
        if (start_sorter(&t, &s))
            status = run(window, &o, &s, &t);
        stop_sorter(&t);
    }
    if (s.particles)
        free_scene(&s);
    free(particles);
    glfwDestroyWindow(window);
    glfwTerminate();
    return status;
}
