/*
 * The public tools API (include/cuzk_tools.h) where it wraps internal
 * types: setups that make their own thread pool, the GPU query without
 * gpu/'s types, and atomic file writes.  The synthetic circuits, the
 * witness calculator and SHA-256 are public as they are (their own files
 * implement the declarations of cuzk_tools.h).
 *
 * Must not: keep state between calls (a pool lives for one call).
 */
#include <string.h>

#include "cuzk_tools.h"
#include "groth16/formats/binfile.h"
#include "groth16/devtools/setup.h"
#include "util/infile.h"
#include "util/threadpool.h"
#ifdef CUZK_HAVE_CUDA
#include "gpu/runtime.h"
#endif

cuzk_status cuzk_setup_dev(const char *r1cs_path, const char *zkey_path, const uint64_t *seed,
                           unsigned threads, cuzk_error *err) {
    cuzk_pool *pool = cuzk_pool_create(threads, err);
    if (!pool)
        return err ? err->status : CUZK_ENOMEM;
    cuzk_status s = cuzk_setup_dev_write(r1cs_path, zkey_path, seed, pool, err);
    cuzk_pool_destroy(pool);
    return s;
}

cuzk_status cuzk_setup_timing(const char *r1cs_path, const char *zkey_path, uint64_t seed,
                              unsigned threads, cuzk_error *err) {
    cuzk_pool *pool = cuzk_pool_create(threads, err);
    if (!pool)
        return err ? err->status : CUZK_ENOMEM;
    cuzk_status s = cuzk_setup_timing_write(r1cs_path, zkey_path, seed, pool, err);
    cuzk_pool_destroy(pool);
    return s;
}

cuzk_status cuzk_gpu_probe(int *count, cuzk_error *err) {
#ifdef CUZK_HAVE_CUDA
    return cuzk_gpu_device_probe(count, err);
#else
    *count = 0;
    return cuzk_fail(err, CUZK_EUNSUPPORTED, "libcuzk was built without CUDA");
#endif
}

int cuzk_gpu_count(void) {
#ifdef CUZK_HAVE_CUDA
    return cuzk_gpu_device_count();
#else
    return 0;
#endif
}

cuzk_status cuzk_gpu_query(int index, cuzk_gpu_info *info, cuzk_error *err) {
    memset(info, 0, sizeof *info);
#ifdef CUZK_HAVE_CUDA
    cuzk_gpu_device_info d;
    cuzk_status s = cuzk_gpu_device_query(index, &d, err);
    if (s != CUZK_OK)
        return s;
    info->index = d.index;
    memcpy(info->name, d.name, sizeof info->name);
    info->name[sizeof info->name - 1] = 0;
    info->total_mem_bytes = d.total_mem_bytes;
    info->free_mem_bytes = d.free_mem_bytes;
    info->sm_count = d.sm_count;
    info->cc_major = d.cc_major, info->cc_minor = d.cc_minor;
    info->l2_bytes = d.l2_bytes;
    return CUZK_OK;
#else
    (void)index;
    return cuzk_fail(err, CUZK_EUNSUPPORTED, "this build has no CUDA support");
#endif
}

cuzk_status cuzk_file_read(const char *path, const char *what, uint64_t max, uint8_t **out,
                           size_t *size, cuzk_error *err) {
    return cuzk_infile_read_all(path, what, max, 1, out, size, err);
}

cuzk_status cuzk_file_write_atomic(const char *path, const void *data, size_t size,
                                   cuzk_error *err) {
    return cuzk_write_file_atomic(path, data, size, err);
}
