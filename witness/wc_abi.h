/*
 * wc_abi.h: the binary interface between libcuzk and a compiled circom
 * witness calculator (a circuit's .wasm translated to C by wasm2c and built
 * into a shared object by witness/compile.c).
 *
 * The shared object exports one symbol, cuzk_wc_abi_v1, a table of the
 * operations below.  Each operation runs a whole step of circom's witness
 * protocol inside the object (a signal's words written and set, every
 * witness value read), so a trap or a circom exception costs one setjmp per
 * step, not per word.  Every operation returns 0 on success, or one of the
 * CUZK_WC_E* codes with a one-line reason in |msg|.
 *
 * This header is compiled into both sides: libcuzk, and each circuit's
 * shared object (its text is embedded in libcuzk and written beside the
 * generated C).  It must stay self-contained C99; change the version in the
 * symbol's name when the table changes, so a stale cached object is
 * rebuilt, never called with the wrong layout.
 *
 * Thread safety: one instance is used by one thread at a time; different
 * instances of one object may run concurrently.
 */
#ifndef CUZK_WC_ABI_H
#define CUZK_WC_ABI_H

#include <stddef.h>
#include <stdint.h>

#define CUZK_WC_ABI_VERSION 1
#define CUZK_WC_ABI_SYMBOL "cuzk_wc_abi_v1"

enum {
    CUZK_WC_OK = 0,
    CUZK_WC_ETRAP = 1,      /* the module trapped (bad memory access, ...) */
    CUZK_WC_EEXCEPTION = 2, /* circom's exceptionHandler: assert, signal */
    CUZK_WC_ENOMEM = 3,     /* linear memory could not be allocated */
    CUZK_WC_ERANGE = 4      /* an argument out of range (index, n32) */
};

/* Called for each line a circuit prints with log() (circom's own
 * writeBufferMessage protocol); |line| has no trailing newline. */
typedef void (*cuzk_wc_log_fn)(void *ctx, const char *line);

typedef struct cuzk_wc_abi {
    uint32_t version; /* CUZK_WC_ABI_VERSION */
    uint32_t size;    /* sizeof(cuzk_wc_abi) */
    /* A new instance with its own linear memory; NULL and |msg| on failure. */
    void *(*instance_new)(cuzk_wc_log_fn log, void *log_ctx, char *msg, size_t msg_len);
    void (*instance_free)(void *inst);
    /* getVersion, getMinorVersion, getPatchVersion; getFieldNumLen32;
     * getRawPrime into |prime| (n32 words, least significant first);
     * getWitnessSize; getInputSize. */
    int (*info)(void *inst, uint32_t version[3], uint32_t *n32, uint32_t *prime,
                uint32_t prime_words, uint32_t *witness_size, uint32_t *input_size,
                char *msg, size_t msg_len);
    /* init(sanity_check) */
    int (*init)(void *inst, uint32_t sanity_check, char *msg, size_t msg_len);
    /* getInputSignalSize(h_msb, h_lsb) (negative: no such input) */
    int (*input_size)(void *inst, uint32_t h_msb, uint32_t h_lsb, int32_t *size,
                      char *msg, size_t msg_len);
    /* writeSharedRWMemory(j, value[j]) for j < n32, then
     * setInputSignal(h_msb, h_lsb, index); |value| least significant word
     * first. */
    int (*set_input)(void *inst, uint32_t h_msb, uint32_t h_lsb, uint32_t index,
                     const uint32_t *value, char *msg, size_t msg_len);
    /* getWitness(i) and readSharedRWMemory for i in [first, first+count):
     * |out| receives count * |stride_words| words, value i at
     * out[(i-first)*stride_words], n32 words least significant first, the
     * rest of each stride zeroed. */
    int (*get_witness)(void *inst, uint32_t first, uint32_t count, uint32_t *out,
                       uint32_t stride_words, char *msg, size_t msg_len);
    /* CUZK_WC_FLAG_* of the instance. */
    uint32_t (*flags)(void *inst);
} cuzk_wc_abi;

/* The instance computes field products natively (wc_glue.c.in). */
#define CUZK_WC_FLAG_NATIVE_FR 1u

#endif
