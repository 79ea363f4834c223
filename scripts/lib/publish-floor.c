/* The floor under any MQTT agent on this machine: wake once per burst on CLOCK_MONOTONIC and
 * publish payloads of the agent's sizes (QoS 0, written on this thread, the burst's messages
 * corked into one TCP segment) — no sensor, no fusion, no encoding beyond a header. Prints its CPU
 * time per wake-up in microseconds. Each payload starts like the agent's batches
 * (`{"seq":…,"n":1,"t0_mono_ns":<the wake-up's deadline>,"dt_us":[0],…`), so the bench's latency
 * subscriber measures this loop's deadline → arrival latency as it does the agent's.
 * With host `-` it connects nowhere and publishes nothing: the floor under any real-time agent,
 * an empty periodic wake-up.
 * Used by scripts/bench-peers; usage:
 *   publish-floor <host|-> <port> <topic-prefix> <wake-ups-per-second> <seconds> [<payload-bytes>...]
 * Build: cc -O2 -o publish-floor publish-floor.c -lmosquitto */
#define _GNU_SOURCE
#include <mosquitto.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: %s host|- port topic-prefix rate seconds [bytes...]\n", argv[0]);
        return 2;
    }
    const char *host = argv[1];
    int publishing = strcmp(host, "-") != 0;
    int port = atoi(argv[2]), rate = atoi(argv[4]);
    double seconds = atof(argv[5]);
    int n = argc - 6;
    char **topics = calloc(n, sizeof *topics);
    char **payloads = calloc(n, sizeof *payloads);
    int *sizes = calloc(n, sizeof *sizes);
    for (int i = 0; i < n; i++) {
        sizes[i] = atoi(argv[6 + i]);
        if (sizes[i] < 96) sizes[i] = 96;
        payloads[i] = malloc(sizes[i] + 1);
        topics[i] = malloc(strlen(argv[3]) + 16);
        sprintf(topics[i], "%s/%d", argv[3], i);
    }
    struct mosquitto *m = NULL;
    int fd = -1, on = 1, off = 0;
    if (publishing) {
        mosquitto_lib_init();
        m = mosquitto_new(NULL, true, NULL);
        if (!m || mosquitto_int_option(m, MOSQ_OPT_TCP_NODELAY, 1) != MOSQ_ERR_SUCCESS
            || mosquitto_connect(m, host, port, 60) != MOSQ_ERR_SUCCESS) {
            fprintf(stderr, "cannot connect to %s:%d\n", host, port);
            return 1;
        }
        for (int i = 0; i < 20; i++) mosquitto_loop(m, 50, 1);   /* CONNACK */
        fd = mosquitto_socket(m);
    }
    long period = 1000000000L / (rate > 0 ? rate : 100);
    int wakeups = (int)(seconds * rate);
    struct timespec next, c0, c1;
    clock_gettime(CLOCK_MONOTONIC, &next);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    for (int w = 0; w < wakeups; w++) {
        next.tv_nsec += period;
        while (next.tv_nsec >= 1000000000L) { next.tv_nsec -= 1000000000L; next.tv_sec++; }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
        if (!publishing) continue;
        unsigned long long t0 = (unsigned long long)next.tv_sec * 1000000000ULL + (unsigned long long)next.tv_nsec;
        setsockopt(fd, IPPROTO_TCP, TCP_CORK, &on, sizeof on);
        for (int i = 0; i < n; i++) {
            int h = snprintf(payloads[i], sizes[i], "{\"seq\":%d,\"n\":1,\"t0_mono_ns\":%llu,\"dt_us\":[0],\"pad\":\"", w, t0);
            memset(payloads[i] + h, '7', sizes[i] - h - 2);
            memcpy(payloads[i] + sizes[i] - 2, "\"}", 2);
            mosquitto_publish(m, NULL, topics[i], sizes[i], payloads[i], 0, false);
        }
        setsockopt(fd, IPPROTO_TCP, TCP_CORK, &off, sizeof off);
    }
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    printf("%.3f\n", ((c1.tv_sec - c0.tv_sec) * 1e9 + (c1.tv_nsec - c0.tv_nsec)) / 1e3 / wakeups);
    if (publishing) {
        mosquitto_disconnect(m);
        mosquitto_loop(m, 100, 1);
        mosquitto_destroy(m);
        mosquitto_lib_cleanup();
    }
    return 0;
}
