"""CPU references and test data shared by the tests."""
import numpy as np

DTYPES = [np.uint32, np.int32, np.float32, np.float64]
FLOATS = [np.float32, np.float64]
# Awkward sizes: 0, 1, small primes, 2^k - 1, 2^k, 2^k + 1 up to 2^16 + 1 (llvmpipe runs
# the shaders on the CPU: larger ones go to the few LARGE tests).
SIZES = [0, 1, 2, 3, 7, 31, 97, 255, 256, 257, 1021, 2047, 2048, 2049, 4097, 65535, 65537]
LARGE = [(1 << 20) + 1]


def data(rng, dtype, n, special=False):
    """n values of dtype, never zero (unwritten output shows); integers spread over the
    whole range so that sums wrap; floats with NaN, +-inf and -0/+0 when special."""
    dtype = np.dtype(dtype)
    if dtype == np.uint32:
        a = rng.integers(1, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    elif dtype == np.int32:
        a = rng.integers(-(1 << 31), 1 << 31, n, dtype=np.int64).astype(np.int32)
        a[a == 0] = 1
    else:
        a = (rng.random(n) + 0.5) * rng.choice([-1.0, 1.0], n)
        a = a.astype(dtype)
        if special and n >= 8:
            idx = rng.choice(n, size=max(n // 8, 6), replace=False)
            spec = np.array([np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0], dtype)
            a[idx] = spec[np.arange(idx.size) % spec.size]
    return a


def few_values(rng, dtype, n):
    """n values with many duplicates (stability shows)."""
    return rng.integers(1, 8, n).astype(dtype)


def order_key(a):
    """Integer keys in the library's sort order: floats by their bits mapped to a total
    order (-inf < negatives < -0 < +0 < positives < +inf < NaN, all NaNs equal)."""
    a = np.asarray(a)
    if a.dtype == np.uint32:
        return a.astype(np.uint64)
    if a.dtype == np.int32:
        return (a.view(np.uint32) ^ np.uint32(0x80000000)).astype(np.uint64)
    bits = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}[a.dtype]
    u = a.view(bits).astype(np.uint64)
    top = np.uint64(1 << (8 * a.dtype.itemsize - 1))
    mask = np.uint64((1 << (8 * a.dtype.itemsize)) - 1)
    k = np.where(u & top, (~u) & mask, u | top)
    return np.where(np.isnan(a), mask, k)


def ref_argsort(a, descending=False, segments=None):
    """The stable permutation the library's sort makes (within each segment)."""
    k = order_key(a)
    if descending:
        k = np.uint64(np.iinfo(np.uint64).max) - k
    if segments is None:
        return np.argsort(k, kind="stable")
    seg = np.repeat(np.arange(len(segments) - 1), np.diff(segments))
    return np.lexsort((k, seg))


def bits(a):
    a = np.asarray(a)
    return a.view({4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def same_bits(x, y):
    return x.dtype == y.dtype and x.shape == y.shape and np.array_equal(bits(x), bits(y))


def sum_bound(a):
    """A bound on the error of the library's float sum (a tree, items per invocation
    summed in order first): (items + log2 n) ulps of sum |a|."""
    a = np.asarray(a)
    n = max(a.size, 1)
    eps = np.finfo(a.dtype).eps
    return (64 + np.log2(n)) * eps * np.abs(a.astype(np.float64)).sum()


def segment_offsets(rng, n, count):
    """count + 1 offsets from 0 to n, some segments empty, some of one key."""
    cuts = np.sort(rng.integers(0, n + 1, max(count - 1, 0)))
    return np.concatenate([[0], cuts, [n]]).astype(np.uint32)
