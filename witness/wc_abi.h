/*
 * wc_abi.h: the protocol between libcuzk and a witness calculator worker.
 *
 * A circuit's .wasm is translated to C by wasm2c and built, with the host
 * glue (wc_glue.c.in), into an executable (witness/compile.c).  libcuzk
 * never loads that code into its own process: it starts the executable as
 * a worker (witness/wc.c) and talks to it over a SOCK_SEQPACKET socket on
 * descriptor 3; the values of a calculation travel through a shared memory
 * file on descriptor 4.  A crash, a hang or a memory bomb in the circuit
 * costs the worker, which the library kills and starts again, never the
 * process that asked.
 *
 * Messages: each request is one wc_req; the worker answers with any number
 * of WC_OP_LOG messages (the lines the circuit prints, at most |log_max| a
 * request) and then exactly one wc_rep with the request's op.  The first
 * message of a worker, unasked, is a WC_OP_HELLO reply: its instance was
 * made (the module's start function ran) or why not.
 *
 * Every number a worker sends is untrusted: the library checks each one
 * against its limits before it uses it.
 *
 * This header is compiled into both sides and must stay self-contained
 * C99.  Change WC_PROTO_VERSION (and so the cache key) when a message
 * changes, so a stale cached worker is rebuilt, never spoken to wrongly.
 */
#ifndef CUZK_WC_ABI_H
#define CUZK_WC_ABI_H

#include <stddef.h>
#include <stdint.h>

#define WC_PROTO_VERSION 2u
#define WC_FD_SOCK 3 /* the worker's end of the socket */
#define WC_FD_SHM 4  /* the shared memory file */
#define WC_FD_SELF 5 /* the worker's own executable while it starts */

enum {
    CUZK_WC_OK = 0,
    CUZK_WC_ETRAP = 1,      /* the module trapped (bad memory access, ...) */
    CUZK_WC_EEXCEPTION = 2, /* circom's exceptionHandler: assert, signal */
    CUZK_WC_ENOMEM = 3,     /* linear memory over the worker's limit */
    CUZK_WC_ERANGE = 4,     /* the module reported an impossible size */
    CUZK_WC_EPROTO = 5      /* a request the worker cannot serve */
};

enum {
    WC_OP_HELLO = 1, /* reply only: the instance is made; vals[0] = WC_PROTO_VERSION */
    WC_OP_INFO,      /* vals: version[3], n32, witness size, input size, native, prime[8] */
    WC_OP_INPUT_SIZE, /* a = h_msb, b = h_lsb; reply vals[0] = getInputSignalSize (int32) */
    WC_OP_CALC,       /* the shared memory holds |count| wc_set records at |in_off|;
                         init(0), every input set, then |n_witness| values written at
                         |out_off|, 8 words each; reply vals[0] = inputs set,
                         vals[1] = log lines not sent */
    WC_OP_LOG         /* from the worker: one line the circuit printed, in |msg| */
};

#define WC_REP_VALS 16
#define WC_REP_MSG 1024

typedef struct wc_req {
    uint32_t op;
    uint32_t a, b;
    uint32_t log_max;   /* WC_OP_CALC: log lines to send at most */
    uint64_t count;     /* WC_OP_CALC: input records */
    uint64_t n_witness; /* WC_OP_CALC: witness values to write */
    uint64_t in_off, out_off;
    uint64_t shm_bytes; /* the shared memory file's size */
} wc_req;

typedef struct wc_rep {
    uint32_t op;
    int32_t rc; /* CUZK_WC_* */
    uint32_t vals[WC_REP_VALS];
    char msg[WC_REP_MSG]; /* the reason when rc != 0; the line of a WC_OP_LOG */
} wc_rep;

/* One input value to set: writeSharedRWMemory(j, v[j]) for j < 8, then
 * setInputSignal(hi, lo, index). */
typedef struct wc_set {
    uint32_t hi, lo, index, pad;
    uint32_t v[8];
} wc_set;

#endif
