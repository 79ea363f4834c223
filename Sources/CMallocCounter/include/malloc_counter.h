#ifndef MALLOC_COUNTER_H
#define MALLOC_COUNTER_H
/// Heap allocations (malloc, calloc, realloc, memalign family) made by the calling thread.
unsigned long long mc_thread_allocations(void);
/// Heap allocations made by all threads of the process.
unsigned long long mc_total_allocations(void);
#endif
