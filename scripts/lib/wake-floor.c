/* The floor under any real-time agent on this machine: a thread that wakes N times a second on
 * CLOCK_MONOTONIC (clock_nanosleep, absolute deadlines, like the agent's timer-paced FIFO reads)
 * and does nothing else. Prints its CPU time per wake-up in microseconds.
 * Used by scripts/bench-peers; usage: wake-floor <wakeups-per-second> <seconds>. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
    int rate = argc > 1 ? atoi(argv[1]) : 100;
    double seconds = argc > 2 ? atof(argv[2]) : 5;
    long period = 1000000000L / (rate > 0 ? rate : 100);
    int wakeups = (int)(seconds * rate);
    struct timespec next, c0, c1;
    clock_gettime(CLOCK_MONOTONIC, &next);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    for (int i = 0; i < wakeups; i++) {
        next.tv_nsec += period;
        while (next.tv_nsec >= 1000000000L) { next.tv_nsec -= 1000000000L; next.tv_sec++; }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    }
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    double us = ((c1.tv_sec - c0.tv_sec) * 1e9 + (c1.tv_nsec - c0.tv_nsec)) / 1e3 / wakeups;
    printf("%.3f\n", us);
    return 0;
}
