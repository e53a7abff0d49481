/* Fault injection for the end-to-end tests (test infrastructure only).
 *
 * Preloaded (LD_PRELOAD) into the simulator driver, this library interposes
 * rocprofiler_create_buffer: tools resolve SDK functions with dlsym(RTLD_DEFAULT, ...), which
 * finds this definition first. It forwards to the simulated runtime's function with the
 * buffer policy forced to ROCPROFILER_BUFFER_POLICY_DISCARD (1), so that a buffer that fills
 * up drops records and the runtime reports them to the tool as drop_count, which a tool asking
 * for LOSSLESS buffers never sees otherwise. Written from the documented C signature. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

typedef struct { uint64_t handle; } ctx_id_t;
typedef struct { uint64_t handle; } buffer_id_t;
typedef int (*create_buffer_fn)(ctx_id_t, size_t, size_t, int, void *, void *, buffer_id_t *);

int rocprofiler_create_buffer(ctx_id_t context, size_t size, size_t watermark, int policy,
                              void *callback, void *callback_data, buffer_id_t *buffer_id) {
    (void)policy;
    create_buffer_fn next = (create_buffer_fn)dlsym(RTLD_NEXT, "rocprofiler_create_buffer");
    if (next == NULL) {
        return 1; /* ROCPROFILER_STATUS_ERROR */
    }
    return next(context, size, watermark, 1 /* DISCARD */, callback, callback_data, buffer_id);
}
