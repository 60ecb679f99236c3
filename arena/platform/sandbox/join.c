/* Joining a thread in a sandbox, where a shared futex wait is refused.
 *
 * glibc's pthread_join waits for the kernel's wake at a thread's exit with a shared
 * futex (the kernel wakes the thread's id as a shared key). The sandbox refuses shared
 * futexes (a futex on a page of a file is a channel between sandboxes), so every join
 * would abort ("The futex facility returned an unexpected error code"). Preloaded into
 * every program of a sandbox, this library joins by asking pthread_tryjoin_np, which
 * never waits, with pauses growing from 20 us to 5 ms: a join ends at most 5 ms after
 * the thread. Python, C++, Rust and the JVM's launcher join threads this way.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <time.h>

static int joined_by(pthread_t thread, void **result, clockid_t clock,
                     const struct timespec *deadline) {
    struct timespec pause = {0, 20000};
    for (;;) {
        int code = pthread_tryjoin_np(thread, result);
        if (code != EBUSY) return code;
        if (deadline != NULL) {
            struct timespec now;
            clock_gettime(clock, &now);
            if (now.tv_sec > deadline->tv_sec ||
                (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec))
                return ETIMEDOUT;
        }
        nanosleep(&pause, NULL); /* a cancellation point, as pthread_join is */
        if (pause.tv_nsec < 5000000) pause.tv_nsec *= 2;
    }
}

int pthread_join(pthread_t thread, void **result) {
    return joined_by(thread, result, CLOCK_REALTIME, NULL);
}

int pthread_timedjoin_np(pthread_t thread, void **result, const struct timespec *deadline) {
    return joined_by(thread, result, CLOCK_REALTIME, deadline);
}

int pthread_clockjoin_np(pthread_t thread, void **result, clockid_t clock,
                         const struct timespec *deadline) {
    return joined_by(thread, result, clock, deadline);
}
