/* The floor under any 10 Hz sampler: CPU time a thread spends just waking up 10 times a
 * second (absolute-deadline clock_nanosleep, nothing read). Prints ms of CPU per wall second.
 * Built statically so the same binary runs on the GPU hosts:
 *   gcc -O2 -static -o wakeup_cost lab/wakeup_cost.c && ./wakeup_cost 20 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double secs(clockid_t c) {
    struct timespec t;
    clock_gettime(c, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 20;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    double wall0 = secs(CLOCK_MONOTONIC), cpu0 = secs(CLOCK_THREAD_CPUTIME_ID);
    long wakes = 0;
    while (secs(CLOCK_MONOTONIC) - wall0 < seconds) {
        next.tv_nsec += 100000000;
        if (next.tv_nsec >= 1000000000) { next.tv_nsec -= 1000000000; next.tv_sec++; }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
        wakes++;
    }
    double wall = secs(CLOCK_MONOTONIC) - wall0, cpu = secs(CLOCK_THREAD_CPUTIME_ID) - cpu0;
    printf("{\"wakes\":%ld,\"cpu_ms_per_s\":%.4f,\"us_per_wake\":%.2f}\n", wakes, cpu / wall * 1e3, cpu / wakes * 1e6);
    return 0;
}
