/* The executor interface: everything an algorithm driver may ask of a
 * backend. Drivers (src/algo) are written once against it; a backend
 * (src/gl, later src/vk) fills one table of function pointers. This is
 * Kiciak's EXECSTAGE/EXECSTEP made explicit: set parameters, dispatch one
 * stage of a program family, storage barrier, loop. */
#ifndef GPGPU_EXEC_H
#define GPGPU_EXEC_H

#include "gpgpu/gpgpu.h"

enum {
    EXEC_MAX_BINDINGS = 8, /* GL guarantees 8 storage blocks per compute shader */
    EXEC_PARAM_COUNT = 16, /* matches PARAM_COUNT in glsl/common.glsl */
    EXEC_SHAPE_COUNT = 4   /* SHAPE0..SHAPE3 in glsl/common.glsl */
};

/* One compiled program: a family's source (glsl/<family>.comp) with one
 * element type and operator, and its tuning constants. */
typedef struct exec_variant {
    const char *family;   /* "reduce", "scan" */
    gpgpu_type type;
    gpgpu_op op;          /* 0 where the family has no operator */
    unsigned wg_size;     /* invocations per work-group (WG_SIZE) */
    unsigned items;       /* elements per invocation per step (ITEMS) */
    unsigned only_stage;  /* ONLY_STAGE: 0, or the one stage this program runs (below) */
    uint32_t shape[EXEC_SHAPE_COUNT]; /* SHAPE0..3: a family's own tile constants (below) */
} exec_variant;

/* shape: tuning constants beyond WG_SIZE and ITEMS, for a kernel whose tile has more
 * dimensions than two numbers can say (the dense product's BM x BN x BK tile and its
 * per-invocation block). Like WG_SIZE they are #defines under GL and specialization
 * constants under Vulkan, so the compiler sees constants and keeps register arrays in
 * registers; families that do not use them leave them 0. */

/* A shape field: bits [shift, shift + bits) of shape[word], as a family's ids table names
 * it (ALGO_SHAPE in src/algo/algo.h; glsl/embed.py gives the shader the same field), so that
 * one word may carry several of a program's constants. exec_shape_set puts value's low bits
 * there. */
#define EXEC_SHAPE_FIELD(word, shift, bits) (((word) << 16) | ((shift) << 8) | (bits))
static inline void exec_shape_set(exec_variant *v, unsigned field, uint32_t value)
{
    unsigned word = field >> 16, shift = (field >> 8) & 0xffu, bits = field & 0xffu;
    uint32_t mask = bits >= 32 ? 0xffffffffu : ((1u << bits) - 1u) << shift;
    v->shape[word] = (v->shape[word] & ~mask) | ((value << shift) & mask);
}

/* only_stage: a family's stages share one program, and a program holds the registers and
 * shared memory of its hungriest stage, which every stage then pays for in occupancy. A hot
 * stage that needs less gets a program of its own: with ONLY_STAGE set (a #define under GL,
 * a specialization constant under Vulkan) the shader runs that stage whatever params[0]
 * says, and the compiler drops the others. */

/* The names the shaders know a variant's type and operator by: GL prepends
 * "#define TYPE_<tag>" and "#define OP_<tag>", glsl/embed.py names the
 * Vulkan SPIR-V "<family>.<type tag>.<op tag>". Families without an
 * operator (op 0) are built with OP_SUM, since ops.glsl needs one. */
static inline const char *exec_type_tag(gpgpu_type type)
{
    static const char *const tags[] = {"?", "U32", "I32", "F32", "F64"};
    return type >= GPGPU_TYPE_U32 && type <= GPGPU_TYPE_F64 ? tags[type] : "?";
}

static inline const char *exec_op_tag(gpgpu_op op)
{
    static const char *const tags[] = {"SUM", "SUM", "MIN", "MAX", "MINMAX"};
    return op >= GPGPU_OP_SUM && op <= GPGPU_OP_MINMAX ? tags[op] : "SUM";
}

/* One EXECSTAGE: params[0] is the stage; buffers are bound whole to binding
 * points 0..7 (NULL = unused); groups work-groups are launched, and a
 * storage barrier follows so the next stage sees every write. */
typedef struct exec_dispatch {
    exec_variant variant;
    gpgpu_buffer *bind[EXEC_MAX_BINDINGS];
    uint32_t params[EXEC_PARAM_COUNT];
    uint32_t groups;
} exec_dispatch;

/* What an executor knows of its device beyond gpgpu_info, as the tuning plans
 * (src/algo/plans.h) need it: each backend's creation sets every field, with the measurement
 * that says why, and algo_plans_resolve turns them into concrete plans. No driver asks which
 * backend it runs on. */
typedef struct exec_facts {
    /* Tiles of more invocations with fewer elements each run faster: the one-sweep sort's 24
     * subgroups of 6 keys, the one-group sort's 32 subgroups, the single pass scan's 512 x 8
     * up to 2^22 elements. */
    bool shallow_tiles_pay;
    /* The single pass scan's large tiles run faster loaded again after the look-back than
     * held in registers across its loop. */
    bool reload_after_lookback;
    /* A one-sweep tile is faster ranking its keys before it counts their digits. */
    bool rank_before_count_pays;
    /* The fast bitonic network is faster with LOCAL_MERGE in registers and each level's
     * reverse step fused into STEPS. */
    bool bitonic_registers_pay;
    /* Sorts of keys alone are faster in a one-sweep program without the payload's code (and
     * in its own, larger tile). */
    bool keys_alone_program_pays;
    /* A selection's counting-first scatter stores each element from the invocation that
     * holds it faster than through shared memory. */
    bool direct_scatter_stores_pay;
    /* Work-groups start about in the order of their index, so that a selection's single
     * pass may take tile i in group i: a group's predecessors have then mostly published
     * when it looks back, and a silent one it counts itself (a GPU's scheduler; a CPU
     * device's threads take runs of groups each, and group i waited on every one before
     * it in its run: the selection tests ran 1.2-3x longer on lavapipe and llvmpipe). */
    bool groups_start_in_order;
} exec_facts;

typedef struct exec_backend {
    const char *name;
    void (*destroy)(gpgpu_context *ctx);

    /* buf->ctx and buf->size are set; the backend fills buf->impl, buf->storage and
     * buf->storage_offset. */
    gpgpu_status (*buffer_create)(gpgpu_buffer *buf);
    void (*buffer_destroy)(gpgpu_buffer *buf);
    /* Gives back the memory kept for reuse (gpgpu_context_trim); NULL where none is kept. */
    void (*trim)(gpgpu_context *ctx);
    gpgpu_status (*buffer_write)(gpgpu_buffer *buf, size_t offset, const void *data, size_t bytes);
    gpgpu_status (*buffer_read)(gpgpu_buffer *buf, size_t offset, void *data, size_t bytes);
    gpgpu_status (*buffer_copy)(gpgpu_buffer *src, size_t src_offset, gpgpu_buffer *dst,
                                size_t dst_offset, size_t bytes);
    /* Bytes between where a binding of buf starts and buf's first byte (a
     * wrapped buffer's offset rounded down to the binding alignment). */
    size_t (*binding_shift)(const gpgpu_buffer *buf);

    /* Around every public call: save and restore what the caller's GL state
     * needs, make the call's writes visible to the caller's later commands. */
    gpgpu_status (*begin)(gpgpu_context *ctx);
    gpgpu_status (*end)(gpgpu_context *ctx);

    gpgpu_status (*dispatch)(gpgpu_context *ctx, const exec_dispatch *d);

    /* True while work is recorded into a caller's command buffer (Vulkan):
     * nothing can be read back to the host until the caller submits it. */
    bool (*recording_for_caller)(gpgpu_context *ctx);

    gpgpu_status (*timer_begin)(gpgpu_context *ctx);
    gpgpu_status (*timer_end)(gpgpu_context *ctx, double *gpu_ns);
    gpgpu_status (*finish)(gpgpu_context *ctx);
} exec_backend;

#endif /* GPGPU_EXEC_H */
