// Counts heap allocations per thread by interposing the C allocator.
// Linked only into the test executable; everything is forwarded to glibc's own allocator.
#include <errno.h>
#include <stddef.h>
#include "malloc_counter.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

static _Thread_local unsigned long long tl_allocations;
static unsigned long long g_allocations;

static inline void count(void) {
    tl_allocations++;
    __atomic_fetch_add(&g_allocations, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t n) { count(); return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { count(); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { count(); return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }
void *memalign(size_t alignment, size_t n) { count(); return __libc_memalign(alignment, n); }
void *aligned_alloc(size_t alignment, size_t n) { count(); return __libc_memalign(alignment, n); }
int posix_memalign(void **out, size_t alignment, size_t n) {
    count();
    void *p = __libc_memalign(alignment, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

unsigned long long mc_thread_allocations(void) { return tl_allocations; }
unsigned long long mc_total_allocations(void) { return __atomic_load_n(&g_allocations, __ATOMIC_RELAXED); }
