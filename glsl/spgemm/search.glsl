// Part of glsl/spgemm.comp and glsl/transpose.comp: the binary searches.

// The largest x in [lo, hi) with key(x) <= v, for a key nondecreasing in x and key(lo) <= v.
#define LAST_AT_MOST(RESULT, LO, HI, KEY, V)                 \
    {                                                        \
        uint lo_ = (LO), hi_ = (HI);                         \
        while (hi_ - lo_ > 1u) {                             \
            uint mid_ = lo_ + (hi_ - lo_) / 2u;              \
            if ((KEY(mid_)) <= (V)) lo_ = mid_; else hi_ = mid_; \
        }                                                    \
        RESULT = lo_;                                        \
    }
// The first x in [lo, hi) with key(x) >= v (hi if none).
#define FIRST_AT_LEAST(RESULT, LO, HI, KEY, V)               \
    {                                                        \
        uint lo_ = (LO), hi_ = (HI);                         \
        while (lo_ < hi_) {                                  \
            uint mid_ = lo_ + (hi_ - lo_) / 2u;              \
            if ((KEY(mid_)) < (V)) lo_ = mid_ + 1u; else hi_ = mid_; \
        }                                                    \
        RESULT = lo_;                                        \
    }
