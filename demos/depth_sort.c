/* depth_sort: back-to-front drawing of semi-transparent particles, sorted by
 * view depth every frame by libgpgpu on the application's own GL buffers.
 *
 * The application owns three GL buffers: the particles (vec4: position xyz,
 * hue w), one f32 depth key per particle and one u32 index per particle. Each
 * frame a small compute shader of the demo moves the particles (a swirl around
 * the vertical axis, faster near it) and writes each one's view depth as its
 * key and its own index 0..n-1 as its value. libgpgpu, adopting the window's
 * context, wraps the key and index buffers (no copies) and sorts the
 * (depth, index) pairs in place, descending: farthest first. The index buffer
 * is the draw's element buffer, so glDrawElements(GL_POINTS) draws the
 * particles back to front as alpha-blended, shaded round sprites. The camera
 * orbits as well, so the order changes every frame.
 *
 * The check reads the three buffers back from GL and recomputes the depths
 * on the CPU: the indices must be a permutation of 0..n-1, the sorted keys
 * nonincreasing, each key the depth of the particle it came with, and the
 * draw order back to front. --png writes the last frame (a small encoder
 * below: zlib's deflate where the build has zlib, stored blocks otherwise). */
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

const char demo_name[] = "depth_sort";

/* --------------------------------------------------------------- options */

typedef struct options {
    demo_options base; /* --hidden, --frames, --count */
    bool unsorted;
    const char *png;
} options;

static const char usage[] =
    "Usage: depth_sort [--hidden] [--frames N] [--count N] [--png FILE] [--unsorted]\n"
    "\n"
    "Draws N semi-transparent particles back to front with GLFW. Every frame a\n"
    "compute shader writes each particle's view depth into a GL buffer of keys\n"
    "and its index into a GL buffer of values; libgpgpu, adopting the window's\n"
    "GL context, sorts those buffers in place (descending: farthest first), and\n"
    "the sorted indices are the element buffer of the draw.\n"
    "\n"
    "The order is checked on the CPU (a permutation, keys nonincreasing and\n"
    "matching the depths recomputed from the particles): every frame with\n"
    "--hidden, the last frame otherwise.\n"
    "\n"
    "  --hidden     no visible window (runs 10 frames unless --frames is given)\n"
    "  --frames N   stop after N frames (default: until the window is closed)\n"
    "  --count N    number of particles (default 20000, at most 4000000)\n"
    "  --png FILE   write the last frame to FILE as a PNG\n"
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

/* The camera of a frame: it orbits the origin, looking at it. */
typedef struct camera {
    vec3 eye, right, up, forward;
} camera;

static camera camera_at(long frame)
{
    float azimuth = 0.3f + 0.015f * (float)frame, elevation = 0.5f, distance = 5.4f;
    camera c;
    c.eye = (vec3){distance * cosf(elevation) * sinf(azimuth), distance * sinf(elevation),
                   distance * cosf(elevation) * cosf(azimuth)};
    c.forward = normalize((vec3){-c.eye.x, -c.eye.y, -c.eye.z});
    c.right = normalize(cross(c.forward, (vec3){0.0f, 1.0f, 0.0f}));
    c.up = cross(c.right, c.forward);
    return c;
}

/* The view depth of a particle, as the compute shader computes it. */
static float depth_of(const camera *c, vec4 p)
{
    return dot(sub((vec3){p.x, p.y, p.z}, c->eye), c->forward);
}

/* ------------------------------------------------------------ shaders */

/* Moves the particles one step (a swirl around the y axis, faster near it)
 * and writes each one's view depth (key) and index (value). */
static const char depth_source[] =
    "#version 450 core\n"
    "layout(local_size_x = 256) in;\n"
    "layout(std430, binding = 0) buffer Particles { vec4 particle[]; };\n"
    "layout(std430, binding = 1) writeonly buffer Depths { float depth[]; };\n"
    "layout(std430, binding = 2) writeonly buffer Order { uint order[]; };\n"
    "uniform uint count;\n"
    "uniform float dt;\n"
    "uniform vec3 eye;\n"
    "uniform vec3 forward;\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    if (i >= count) return;\n"
    "    vec4 p = particle[i];\n"
    "    float a = dt * 0.9 / (0.3 + length(p.xz));\n"
    "    p.xz = mat2(cos(a), sin(a), -sin(a), cos(a)) * p.xz;\n"
    "    particle[i] = p;\n"
    "    depth[i] = dot(p.xyz - eye, forward);\n"
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
    GLuint particles, depths, order; /* vec4, f32 keys, u32 indices (the element buffer) */
    GLuint vao, draw, depth;         /* the vertex array, the draw and compute programs */
    float size;                      /* sprite diameter in world units */
} scene;

static bool make_scene(scene *s, const vec4 *particles, size_t n)
{
    s->n = n;
    s->size = 1.0f / cbrtf((float)n);
    s->particles = buffer_with(particles, n * sizeof(vec4));
    s->depths = buffer_with(NULL, n * sizeof(float));
    s->order = buffer_with(NULL, n * sizeof(uint32_t));
    s->draw = make_program(vertex_source, GL_VERTEX_SHADER, fragment_source, GL_FRAGMENT_SHADER);
    s->depth = make_program(depth_source, GL_COMPUTE_SHADER, NULL, 0);
    if (!s->draw || !s->depth)
        return false;
    gl.CreateVertexArrays(1, &s->vao);
    attribute(s->vao, 0, s->particles, 0, sizeof(vec4), 4, GL_FLOAT, false);
    gl.VertexArrayElementBuffer(s->vao, s->order);
    return !gl_failed("making the scene");
}

static void free_scene(scene *s)
{
    gl.DeleteVertexArrays(1, &s->vao);
    gl.DeleteProgram(s->draw);
    gl.DeleteProgram(s->depth);
    GLuint names[] = {s->particles, s->depths, s->order};
    gl.DeleteBuffers(3, names);
}

/* One step of motion, then the keys (depths) and values (indices). */
static void compute_depths(const scene *s, const camera *c, float dt)
{
    GLuint p = s->depth;
    gl.UseProgram(p);
    gl.Uniform1ui(gl.GetUniformLocation(p, "count"), (GLuint)s->n);
    gl.Uniform1f(gl.GetUniformLocation(p, "dt"), dt);
    gl.Uniform3fv(gl.GetUniformLocation(p, "eye"), 1, &c->eye.x);
    gl.Uniform3fv(gl.GetUniformLocation(p, "forward"), 1, &c->forward.x);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, s->particles);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, s->depths);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, s->order);
    gl.DispatchCompute((GLuint)((s->n + GROUP - 1) / GROUP), 1, 1);
    /* The sort starts with a barrier of its own; this one is for the draw
     * (vertex fetch of the moved particles) when the sort is skipped. */
    gl.MemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT |
                     GL_ELEMENT_ARRAY_BARRIER_BIT);
}

static void draw(GLFWwindow *window, const scene *s, const camera *c)
{
    int width, height;
    glfwGetFramebufferSize(window, &width, &height);
    if (width <= 0 || height <= 0)
        return;
    float f = 1.0f / tanf(0.5f * 45.0f * PI / 180.0f);
    gl.Viewport(0, 0, width, height);
    gl.ClearColor(0.03f, 0.03f, 0.06f, 1.0f);
    gl.Clear(GL_COLOR_BUFFER_BIT);
    GLuint p = s->draw;
    gl.UseProgram(p);
    gl.Uniform3fv(gl.GetUniformLocation(p, "eye"), 1, &c->eye.x);
    gl.Uniform3fv(gl.GetUniformLocation(p, "right"), 1, &c->right.x);
    gl.Uniform3fv(gl.GetUniformLocation(p, "up"), 1, &c->up.x);
    gl.Uniform3fv(gl.GetUniformLocation(p, "forward"), 1, &c->forward.x);
    gl.Uniform2f(gl.GetUniformLocation(p, "focal"), f * (float)height / (float)width, f);
    gl.Uniform1f(gl.GetUniformLocation(p, "size"), s->size * f * 0.5f * (float)height);
    gl.BindVertexArray(s->vao);
    gl.DrawElements(GL_POINTS, (GLsizei)s->n, GL_UNSIGNED_INT, NULL);
}

/* ------------------------------------------------------------ the sort */

/* libgpgpu's views of the application's key and index buffers. */
typedef struct sorter {
    gpgpu_context *ctx;
    gpgpu_buffer *depths, *order;
} sorter;

static bool start_sorter(sorter *t, const scene *s)
{
    *t = (sorter){0};
    t->ctx = adopt_context();
    if (!t->ctx)
        return false;
    return !failed(t->ctx, gpgpu_buffer_wrap_gl(t->ctx, s->depths, 0, s->n * 4, &t->depths),
                   "wrapping the depths") &&
           !failed(t->ctx, gpgpu_buffer_wrap_gl(t->ctx, s->order, 0, s->n * 4, &t->order),
                   "wrapping the draw order");
}

static void stop_sorter(sorter *t)
{
    gpgpu_buffer_destroy(t->depths);
    gpgpu_buffer_destroy(t->order);
    gpgpu_context_destroy(t->ctx);
}

/* (depth, index) pairs in place, farthest first. */
static bool sort_by_depth(const sorter *t, size_t n)
{
    gpgpu_sort_desc desc = {.type = GPGPU_TYPE_F32, .descending = true, .values_in = t->order};
    return !failed(t->ctx, gpgpu_sort(t->ctx, &desc, t->depths, 0, NULL, 0, n),
                   "sorting by depth");
}

/* ---------------------------------------------------------------- check */

/* Reads the frame's buffers back from GL and checks the draw order against
 * the depths recomputed on the CPU. `previous` (n indices, or NULL) is the
 * last frame's order: *changed counts the draw slots whose particle differs. */
static bool check(const scene *s, const camera *c, uint32_t *order, uint32_t *previous,
                  size_t *changed)
{
    size_t n = s->n;
    vec4 *particle = malloc(n * sizeof *particle);
    float *key = malloc(n * sizeof *key);
    unsigned char *seen = calloc(n, 1);
    bool ok = particle && key && seen;
    if (!ok) {
        fprintf(stderr, "depth_sort: out of memory for the check\n");
        goto done;
    }
    gl.GetNamedBufferSubData(s->particles, 0, (GLsizeiptr)(n * sizeof *particle), particle);
    gl.GetNamedBufferSubData(s->depths, 0, (GLsizeiptr)(n * sizeof *key), key);
    gl.GetNamedBufferSubData(s->order, 0, (GLsizeiptr)(n * sizeof *order), order);

    /* The GPU may contract the depth's dot product into fused multiply-adds:
     * allow a few ulps of the terms (positions and eye are within ~8). */
    const float tolerance = 2e-5f;
    size_t bad_index = 0, bad_key = 0, unsorted = 0, behind = 0, first = n;
    float prev_depth = INFINITY;
    for (size_t k = 0; k < n; k++) {
        uint32_t i = order[k];
        if (i >= n || seen[i]) {
            if (bad_index++ == 0)
                fprintf(stderr, "depth_sort: draw slot %zu holds %s index %u\n", k,
                        i >= n ? "the out-of-range" : "the repeated", i);
            continue;
        }
        seen[i] = 1;
        float d = depth_of(c, particle[i]);
        if (fabsf(key[k] - d) > tolerance && bad_key++ == 0)
            fprintf(stderr, "depth_sort: slot %zu: key %.9g, but particle %u is at depth %.9g\n",
                    k, key[k], i, d);
        if (k > 0 && !(key[k - 1] >= key[k]) && unsorted++ == 0)
            fprintf(stderr, "depth_sort: keys not descending at slot %zu: %.9g then %.9g\n", k,
                    key[k - 1], key[k]);
        if (d > prev_depth + 2 * tolerance && behind++ == 0)
            first = k;
        prev_depth = d;
        if (previous && previous[k] != i)
            ++*changed;
    }
    if (behind)
        fprintf(stderr,
                "depth_sort: %zu particles are drawn after a nearer one, the first at slot %zu\n",
                behind, first);
    ok = !bad_index && !bad_key && !unsorted && !behind;
    if (!ok)
        fprintf(stderr,
                "depth_sort: %zu bad or repeated indices, %zu keys off their particle's depth, "
                "%zu keys out of order\n",
                bad_index, bad_key, unsorted);
done:
    free(particle);
    free(key);
    free(seen);
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
    bool every_frame = o->base.hidden && !o->unsorted;
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
    size_t changed = 0;
    camera cam = camera_at(0);
    double start = glfwGetTime();
    while (ok && !glfwWindowShouldClose(window) && (o->base.frames == 0 || frame < o->base.frames)) {
        cam = camera_at(frame);
        compute_depths(s, &cam, 1.0f / 60.0f);
        if (!o->unsorted && !sort_by_depth(t, n)) {
            ok = false;
            break;
        }
        draw(window, s, &cam);
        glfwSwapBuffers(window);
        glfwPollEvents();
        if (every_frame) {
            ok = check(s, &cam, order, checked ? previous : NULL, &changed);
            uint32_t *swap = order;
            order = previous;
            previous = swap;
            checked++;
        }
        frame++;
    }
    double seconds = glfwGetTime() - start;
    if (ok && frame > 0 && !o->unsorted && !every_frame) {
        ok = check(s, &cam, order, NULL, &changed);
        checked++;
    }
    bool checked_ok = ok;
    if (ok && frame > 0 && o->png) {
        draw(window, s, &cam); /* the last frame again, into the back buffer */
        ok = save_frame(window, o->png);
    }
    if (gl_failed(NULL))
        ok = false;
    ok = ok && frame > 0;
    printf("depth_sort: %zu particles, %ld frames in %.2f s, %s", n, frame, seconds,
           o->unsorted ? "unsorted (no check)\n" : "");
    if (!o->unsorted) {
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
