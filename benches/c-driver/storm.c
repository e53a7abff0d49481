/* A HIP-call storm played as an application: T threads each make N hipLaunchKernel calls on
 * a created stream through the simulated rocprofiler-sdk runtime (rocprof_sim_hip_call in
 * librocprofiler_sdk_sim.so), which dispatches every callback to the tools it loaded from
 * ROCP_TOOL_LIBRARIES exactly as its replay does. Prints one line:
 *   threads=T calls=N wall_ns_per_call=W cpu_ns_per_call=C app_cpu_ns_per_call=A maxrss_kib=R
 * wall: from the release of all threads to the last one's end, per call of all threads;
 * cpu: the process's CPU time over that span (the runtime's and the tool's threads included),
 * per call; app cpu: the calling threads' own CPU time, per call.
 * Usage: storm LIBSIM THREADS CALLS
 * Test infrastructure: the runtime is the simulator, not a GPU runtime. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

typedef int (*hip_call_fn)(uint64_t stream);

static hip_call_fn hip_call;
static long calls;
static pthread_barrier_t start_line;
static _Atomic uint64_t app_cpu_ns;

static uint64_t now_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *app_thread(void *arg) {
    /* Each thread launches on its own created stream (a distinct non-null hipStream_t). */
    uint64_t stream = 0x7e5700000000ull + ((uint64_t)(uintptr_t)arg << 12);
    pthread_barrier_wait(&start_line);
    uint64_t cpu0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
    for (long i = 0; i < calls; i++) {
        if (hip_call(stream) != 0) {
            fprintf(stderr, "storm: rocprof_sim_hip_call failed\n");
            exit(2);
        }
    }
    atomic_fetch_add(&app_cpu_ns, now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: storm LIBSIM THREADS CALLS\n");
        return 2;
    }
    int threads = atoi(argv[2]);
    calls = atol(argv[3]);
    if (threads < 1 || calls < 1) {
        fprintf(stderr, "storm: THREADS and CALLS must be positive\n");
        return 2;
    }
    /* Global scope, as an application linked against the runtime would see it. */
    void *sim = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (!sim) {
        fprintf(stderr, "storm: %s\n", dlerror());
        return 2;
    }
    hip_call = (hip_call_fn)dlsym(sim, "rocprof_sim_hip_call");
    if (!hip_call) {
        fprintf(stderr, "storm: %s has no rocprof_sim_hip_call\n", argv[1]);
        return 2;
    }
    /* The first call starts the runtime (tools loaded and initialized) outside the timing. */
    if (hip_call(0x7e56ff000000ull) != 0) {
        fprintf(stderr, "storm: the runtime did not start\n");
        return 2;
    }
    pthread_t *ids = calloc((size_t)threads, sizeof *ids);
    pthread_barrier_init(&start_line, NULL, (unsigned)threads + 1);
    for (int t = 0; t < threads; t++) {
        if (pthread_create(&ids[t], NULL, app_thread, (void *)(uintptr_t)(t + 1)) != 0) {
            fprintf(stderr, "storm: pthread_create failed\n");
            return 2;
        }
    }
    uint64_t cpu0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
    uint64_t wall0 = now_ns(CLOCK_MONOTONIC);
    pthread_barrier_wait(&start_line);
    for (int t = 0; t < threads; t++) pthread_join(ids[t], NULL);
    uint64_t wall = now_ns(CLOCK_MONOTONIC) - wall0;
    uint64_t cpu = now_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("threads=%d calls=%ld wall_ns_per_call=%.1f cpu_ns_per_call=%.1f app_cpu_ns_per_call=%.1f "
           "maxrss_kib=%ld\n",
           threads, calls, (double)wall / ((double)calls * threads),
           (double)cpu / ((double)calls * threads),
           (double)atomic_load(&app_cpu_ns) / ((double)calls * threads), ru.ru_maxrss);
    fflush(stdout);
    free(ids);
    /* exit() runs the runtime's atexit finalization: the tool's finalize and its output. */
    exit(0);
}
