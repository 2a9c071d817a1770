/* What the fuzz harnesses share: the libFuzzer entry point each defines, and
 * the helpers that turn its bytes into a file path or into numbers. The
 * harnesses build two ways: with clang's libFuzzer (-Dfuzz=true, the
 * engine's main) and with any compiler around fuzz_driver.c, whose main feeds
 * them files, so that every input found stays tested in the cpu suite. */
#ifndef GPGPU_FUZZ_H
#define GPGPU_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Runs one input; 0 always (libFuzzer reserves other values). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A path that reads back `size` bytes of data (a memfd: no disk), gzip'ed
 * first when gzip is true; valid until the next call. NULL on failure. */
const char *fuzz_file(const uint8_t *data, size_t size, bool gzip);

/* Whether data is a coordinate MatrixMarket file that declares more than
 * `limit` (but at most 2^31 - 1) rows or columns: the size line (the first
 * line after the banner that is neither blank nor a comment) read roughly as
 * the readers do. Such a file rightly makes a result of every declared row
 * however few entries it holds (a dense vector, a CSR's row pointers: up to
 * 16 GiB), which the reader harnesses skip; past 2^31 - 1 is refused before
 * any allocation and stays fuzzed. */
bool fuzz_declares_large_result(const uint8_t *data, size_t size, uint64_t limit);

/* The input as a stream of numbers; zeros once it runs out. */
typedef struct fuzz_input {
    const uint8_t *data;
    size_t size;
} fuzz_input;

uint8_t fuzz_u8(fuzz_input *in);
uint32_t fuzz_u32(fuzz_input *in);

#endif /* GPGPU_FUZZ_H */
