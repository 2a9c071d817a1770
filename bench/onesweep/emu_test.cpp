// emu_test.cpp: runs onesweep_port.cu's kernels on the CPU to check them
// without a GPU. Every invocation is a fiber (ucontext); __syncthreads and
// the warp operations block until the whole block / warp has arrived (and
// fail when they arrive from different call sites); several blocks are
// resident at once and a random runnable fiber runs next, so tiles overlap
// as on a device: a look-back meets missing statuses, polls (each status
// read yields) and recounts. The sorted output is checked against std::sort,
// and the status regions against what sort.h says they hold after the
// passes.
//
// Build: g++ -O2 -std=c++17 -o emu_test emu_test.cpp
// Run:   emu_test [quick]

#include <ucontext.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

typedef uint32_t u32;

namespace emu {

struct Dim {
    unsigned x = 0, y = 0, z = 0;
};
struct Block;
struct Fiber {
    ucontext_t ctx;
    char *stack = nullptr;
    Dim tid;
    Block *blk = nullptr;
    bool done = false;
};
struct Barrier {
    unsigned arrived = 0;
    int site = -1;
    std::vector<Fiber *> waiters;
};
struct Warp {
    unsigned arrived = 0, gen = 0;
    int site = -1;
    u32 vals[2][32];
    std::vector<Fiber *> waiters;
};
struct Block {
    Dim bid;
    unsigned nthreads = 0, live = 0;
    std::vector<Fiber> fibers;
    Barrier bar;
    std::vector<Warp> warps;
    std::vector<u32> smem;
};

Fiber *cur = nullptr;
ucontext_t sched;
std::vector<Fiber *> runnable;
std::mt19937_64 rng(1);
Dim grid;
std::function<void(u32 *)> body;
constexpr size_t STACK = 256 * 1024;
unsigned long long switches = 0;
unsigned skew = 1; // the next fiber: the latest block's of `skew` random picks (1: uniform)

[[noreturn]] void fail(const char *what)
{
    std::fprintf(stderr, "EMU FAIL: %s (block %u thread %u)\n", what, cur ? cur->blk->bid.x : 0u,
                 cur ? cur->tid.x : 0u);
    std::exit(3);
}

void park() // leave the runnable set until woken
{
    switches++;
    swapcontext(&cur->ctx, &sched);
}
void yield()
{
    runnable.push_back(cur);
    park();
}

void syncthreads(int site)
{
    Block *b = cur->blk;
    Barrier &B = b->bar;
    if (B.arrived == 0)
        B.site = site;
    else if (B.site != site)
        fail("__syncthreads reached from different call sites");
    if (++B.arrived == b->nthreads) {
        B.arrived = 0;
        for (Fiber *w : B.waiters)
            runnable.push_back(w);
        B.waiters.clear();
        yield();
    } else {
        B.waiters.push_back(cur);
        park();
    }
}

// Every lane deposits v; returns the 32 deposits once the warp has arrived.
const u32 *warp_collect(u32 v, int site, unsigned mask)
{
    if (mask != 0xffffffffu)
        fail("partial warp mask");
    Block *b = cur->blk;
    Warp &W = b->warps[cur->tid.x / 32u];
    if (W.arrived == 0)
        W.site = site;
    else if (W.site != site)
        fail("warp operation reached from different call sites");
    unsigned g = W.gen;
    W.vals[g & 1u][cur->tid.x % 32u] = v;
    if (++W.arrived == 32u) {
        W.arrived = 0;
        W.gen++;
        for (Fiber *w : W.waiters)
            runnable.push_back(w);
        W.waiters.clear();
    } else {
        W.waiters.push_back(cur);
        park();
    }
    return W.vals[g & 1u];
}

void entry()
{
    body(cur->blk->smem.data());
    cur->done = true;
    // uc_link returns to the scheduler
}

// A launch of grid blocks of wg invocations, `resident` of them at a time.
void launch(unsigned grid_x, unsigned wg, unsigned resident, size_t smem_words, std::function<void(u32 *)> fn)
{
    grid = Dim{grid_x, 1, 1};
    body = fn;
    std::vector<Block *> live;
    unsigned next = 0;
    for (;;) {
        while (live.size() < resident && next < grid_x) {
            Block *b = new Block;
            b->bid = Dim{next++, 0, 0};
            b->nthreads = b->live = wg;
            b->fibers.resize(wg);
            b->warps.resize((wg + 31) / 32);
            b->smem.assign(smem_words, 0xdeadbeefu); // garbage, as on a device
            for (unsigned t = 0; t < wg; t++) { // NOLINT
                Fiber &f = b->fibers[t];
                f.tid = Dim{t, 0, 0};
                f.blk = b;
                f.stack = (char *)std::malloc(STACK);
                getcontext(&f.ctx);
                f.ctx.uc_stack.ss_sp = f.stack;
                f.ctx.uc_stack.ss_size = STACK;
                f.ctx.uc_link = &sched;
                makecontext(&f.ctx, entry, 0);
                runnable.push_back(&f);
            }
            live.push_back(b);
        }
        if (runnable.empty()) {
            if (live.empty())
                break;
            cur = nullptr;
            fail("deadlock: no runnable invocation");
        }
        size_t i = rng() % runnable.size();
        for (unsigned k = 1; k < skew; k++) {
            size_t j = rng() % runnable.size();
            if (runnable[j]->blk->bid.x > runnable[i]->blk->bid.x)
                i = j;
        }
        std::swap(runnable[i], runnable.back());
        Fiber *f = runnable.back();
        runnable.pop_back();
        cur = f;
        switches++;
        swapcontext(&sched, &f->ctx);
        if (f->done) {
            Block *b = f->blk;
            if (--b->live == 0) {
                if (b->bar.arrived || !b->bar.waiters.empty())
                    fail("block ended with invocations at a barrier");
                for (auto &x : b->fibers)
                    std::free(x.stack);
                live.erase(std::find(live.begin(), live.end(), b));
                delete b;
            }
        }
        cur = nullptr;
    }
}

} // namespace emu

#define threadIdx (emu::cur->tid)
#define blockIdx (emu::cur->blk->bid)
#define gridDim (emu::grid)
#define SYNC() emu::syncthreads(__LINE__)
#define SUBGROUP_BARRIER() (void)emu::warp_collect(0u, __LINE__, 0xffffffffu)
#define BALLOT(p) emu_ballot((p), __LINE__)
#define SHUFFLE(v, l) emu::warp_collect((v), __LINE__, 0xffffffffu)[(l) & 31u]
#define SHUFFLE_UP(v, o) emu_shfl_up((v), (o), __LINE__)

inline u32 emu_ballot(bool p, int site)
{
    const u32 *v = emu::warp_collect(p ? 1u : 0u, site, 0xffffffffu);
    u32 m = 0;
    for (u32 l = 0; l < 32; l++)
        m |= (v[l] & 1u) << l;
    return m;
}
inline u32 emu_shfl_up(u32 x, u32 o, int site)
{
    const u32 *v = emu::warp_collect(x, site, 0xffffffffu);
    u32 lane = threadIdx.x % 32u;
    return lane >= o ? v[lane - o] : x;
}
inline int __clz(u32 x) { return x ? __builtin_clz(x) : 32; }
inline int __popc(u32 x) { return __builtin_popcount(x); }
inline u32 atomicAdd(u32 *p, u32 v)
{
    u32 o = *p;
    *p = o + v;
    return o;
}
unsigned long long stuck_marks = 0; // atomicMax only marks S_LB_STUCK
inline u32 atomicMax(u32 *p, u32 v)
{
    stuck_marks++;
    u32 o = *p;
    *p = o > v ? o : v;
    return o;
}
// Global status words: each access lets others run first.
inline u32 status_load(u32 *p)
{
    emu::yield();
    return *p;
}
inline void status_store(u32 *p, u32 v)
{
    *p = v;
    emu::yield();
}

#define EMU 1
#include "onesweep_port.cu"

using namespace os;

struct Stats {
    unsigned long long stuck = 0;
};

template <class C> bool run_case(const char *name, size_t n, u32 polls, unsigned resident, u32 seed, bool verbose)
{
    std::mt19937 g(seed);
    std::vector<u32> in(n);
    for (auto &x : in)
        x = g();
    // a few runs of equal keys, and small digits, to stress ties
    for (size_t i = 0; i < n / 8; i++)
        in[i] = (in[i] & 0x0f0f0f0fu);
    u32 tiles = n == 0 ? 1u : (u32)((n + C::TILE - 1) / C::TILE);
    std::vector<u32> a(n, 0xabababab), b(n, 0xcdcdcdcd), aux(aux_words(tiles), 0x77777777u);
    // OS_CLEAR, OS_HIST, OS_SCAN
    emu::launch((OS_CLEARED + 255) / 256, 256, 2, 0, [&](u32 *) {
        stage_os_clear(aux.data(), blockIdx.x * 256u + threadIdx.x);
    });
    u32 hg = std::min(tiles, HIST_GROUPS);
    emu::launch(hg, HIST_WG, 3, KEY_PASSES * DIGITS, [&](u32 *s) {
        stage_os_hist(in.data(), (u32)n, aux.data(), tiles, C::REGIONS, s);
    });
    emu::launch(1, SCAN_WG, 1, SCAN_S_WORDS, [&](u32 *s) { stage_os_scan(aux.data(), s); });
    // check the starts against a host count
    for (u32 p = 0; p < KEY_PASSES; p++) {
        std::vector<u32> cnt(DIGITS, 0);
        for (u32 x : in)
            cnt[(x >> (8 * p)) & 255]++;
        u32 run = 0;
        for (u32 d = 0; d < DIGITS; d++) {
            if (aux[OS_STARTS + p * DIGITS + d] != run) {
                std::printf("  %s n=%zu: start of pass %u digit %u is %u, want %u\n", name, n, p, d,
                            aux[OS_STARTS + p * DIGITS + d], run);
                return false;
            }
            run += cnt[d];
        }
    }
    for (size_t i = OS_CLEARED; i < OS_CLEARED + (size_t)C::REGIONS * tiles * DIGITS; i++)
        if (aux[i] != 0) {
            std::printf("  %s: OS_HIST left status word %zu = %x\n", name, i, aux[i]);
            return false;
        }
    const u32 *src[4] = {in.data(), b.data(), a.data(), b.data()};
    u32 *dst[4] = {b.data(), a.data(), b.data(), a.data()};
    unsigned long long sw0 = emu::switches;
    for (u32 p = 0; p < KEY_PASSES; p++) {
        OsParams prm{src[p], dst[p], aux.data(), (u32)n, p, tiles, polls};
        std::vector<u32> pass_in(src[p], src[p] + n);
        emu::launch(tiles, C::WG, resident, C::S_WORDS, [&](u32 *s) { stage_onesweep<C>(prm, s); });
        // sort.h: ticket = tiles, region p%2 holds INCLUSIVE | count of tiles 0..t, region (p+1)%2 zero
        // (EPOCH: the one region holds INCLUSIVE | the pass's parity | count)
        if (aux[OS_TICKETS + p] != tiles) {
            std::printf("  %s: ticket %u = %u, want %u\n", name, p, aux[OS_TICKETS + p], tiles);
            return false;
        }
        u32 curr = os_status(C::EPOCH ? 0u : p & 1u, tiles), nxt = os_status((p + 1u) & 1u, tiles);
        std::vector<u32> incl(DIGITS, 0);
        for (u32 t = 0; t < tiles; t++) {
            size_t lo = (size_t)t * C::TILE, hi = std::min(n, lo + C::TILE);
            for (size_t i = lo; i < hi; i++)
                incl[(pass_in[i] >> (8 * p)) & 255]++;
            bool last = t + 1 == tiles;
            for (u32 d = 0; d < DIGITS; d++) {
                u32 want = OS_FLAG_INCL | os_epoch<C>(p) | incl[d];
                if (C::PAD && last && d == 255)
                    want += (u32)(C::TILE - (hi - lo)); // CUB's padding counts in the last tile
                if (aux[curr + t * DIGITS + d] != want || (!C::EPOCH && aux[nxt + t * DIGITS + d] != 0)) {
                    std::printf("  %s n=%zu pass %u: status (%u, %u) = %x (want %x), next %x\n", name, n, p, t, d,
                                aux[curr + t * DIGITS + d], want, aux[nxt + t * DIGITS + d]);
                    return false;
                }
            }
        }
        // the pass is a stable counting sort by its digit
        std::vector<u32> want(pass_in);
        std::stable_sort(want.begin(), want.end(),
                         [p](u32 x, u32 y) { return ((x >> (8 * p)) & 255) < ((y >> (8 * p)) & 255); });
        if (!std::equal(want.begin(), want.end(), dst[p])) {
            size_t i = 0;
            while (want[i] == dst[p][i])
                i++;
            std::printf("  %s n=%zu pass %u: first wrong key at %zu: %08x, want %08x\n", name, n, p, i, dst[p][i],
                        want[i]);
            return false;
        }
    }
    std::vector<u32> ref(in);
    std::sort(ref.begin(), ref.end());
    bool ok = ref == a;
    if (verbose || !ok)
        std::printf("  %-12s n=%-7zu tiles=%-4u polls=%-3u resident=%u skew=%u: %s (%llu switches, %llu stuck "
                    "marks so far)\n",
                    name, n, tiles, polls, resident, emu::skew, ok ? "OK" : "FAIL", emu::switches - sw0,
                    stuck_marks);
    return ok;
}

template <class C> bool suite(const char *name, bool quick)
{
    bool ok = true;
    std::vector<size_t> ns = {1, 37, C::TILE - 1, C::TILE, C::TILE + 1, 2 * C::TILE + 333, 5 * C::TILE + 4097};
    if (!quick)
        ns.push_back(12 * C::TILE + 1001);
    u32 seed = 7;
    struct Mode {
        u32 polls;
        unsigned resident, skew;
    } modes[] = {{64, 1, 1}, {64, 3, 1}, {64, 6, 4}, {1, 3, 4}, {0, 3, 4}, {0, 6, 8}, {0, 6, 1}};
    for (size_t n : ns)
        for (auto m : modes) {
            emu::skew = m.skew;
            ok = run_case<C>(name, n, m.polls, m.resident, seed++, n == ns.back()) && ok;
        }
    std::printf("%-12s %s (look-backs marked stuck so far: %llu)\n", name, ok ? "all OK" : "FAILED", stuck_marks);
    std::fflush(stdout);
    return ok;
}

int main(int argc, char **argv)
{
    bool quick = argc > 1 && std::string(argv[1]) == "quick";
    bool ok = true;
    ok = suite<C_ours>("ours", quick) && ok;
    ok = suite<C_count>("count_first", quick) && ok;
    ok = suite<C_wide>("wide", quick) && ok;
    ok = suite<C_whole>("whole_tile", quick) && ok;
    ok = suite<C_cubsh>("cub_shape", quick) && ok;
    ok = suite<C_occ4>("occ4", quick) && ok;
    ok = suite<C_cublike>("cub_like", quick) && ok;
    ok = suite<C_noval>("no_valid_ballot", quick) && ok;
    ok = suite<C_epoch>("epoch", quick) && ok;
    ok = suite<C_u384x11>("u384x11", quick) && ok;
    ok = suite<C_u256x9>("u256x9", quick) && ok;
    ok = suite<C_u768x10>("u768x10", quick) && ok;
    ok = suite<C_u512x15>("u512x15", quick) && ok;
    ok = suite<C_u384x20>("u384x20", quick) && ok;
    ok = suite<C_i256x20>("i256x20", quick) && ok;
    ok = suite<C_i256x24>("i256x24", quick) && ok;
    ok = suite<C_i256x24b>("i256x24b", quick) && ok;
    ok = suite<C_i256x32b>("i256x32b", quick) && ok;
    ok = suite<C_i384x20>("i384x20", quick) && ok;
    ok = suite<C_i384x20c>("i384x20c", quick) && ok;
    ok = suite<C_w768x16>("w768x16", quick) && ok;
    ok = suite<C_w768x24c>("w768x24c", quick) && ok;
    ok = suite<C_i384x24>("i384x24", quick) && ok;
    std::printf("%s\n", ok ? "EMU: ALL OK" : "EMU: FAILURES");
    return ok ? 0 : 1;
}
