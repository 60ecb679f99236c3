/* Joining a thread in a sandbox, where a shared futex wait is refused.
 *
 * glibc's pthread_join waits for the kernel's wake at a thread's exit with a shared
 * futex (the kernel wakes the thread's id as a shared key). The sandbox refuses shared
 * futexes (a futex on a page of a file is a channel between sandboxes), so every join
 * would abort ("The futex facility returned an unexpected error code"). Preloaded into
 * every program of a sandbox, this library joins by asking pthread_tryjoin_np, which
 * never waits, with pauses growing from 20 us to 5 ms, and past a tenth of a second of
 * waiting to a twentieth of the wait, at most a second: a join ends at most 5 ms, or 5 %
 * of its wait, after the thread. Python, C++, Rust and the JVM's launcher join threads
 * this way; the launcher waits on the JVM's main thread for the program's whole life,
 * which at 5 ms a try woke it 200 times a second (7 ms of CPU a second, idle).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <time.h>

#define FIRST_PAUSE_NS 20000LL
#define SHORT_PAUSE_NS 5000000LL
#define LONGEST_PAUSE_NS 1000000000LL

static long long ns_of(const struct timespec *time) {
    return time->tv_sec * 1000000000LL + time->tv_nsec;
}

/* The next pause after ``pause``, having waited ``waited`` ns in all. */
static long long next_pause(long long pause, long long waited) {
    long long next = pause < SHORT_PAUSE_NS ? pause * 2 : pause;
    if (waited / 20 > next) next = waited / 20;
    return next < LONGEST_PAUSE_NS ? next : LONGEST_PAUSE_NS;
}

static int joined_by(pthread_t thread, void **result, clockid_t clock,
                     const struct timespec *deadline) {
    long long pause = FIRST_PAUSE_NS, waited = 0;
    for (;;) {
        int code = pthread_tryjoin_np(thread, result);
        if (code != EBUSY) return code;
        long long step = pause;
        if (deadline != NULL) {
            struct timespec now;
            clock_gettime(clock, &now);
            long long left = ns_of(deadline) - ns_of(&now);
            if (left <= 0) return ETIMEDOUT;
            if (left < step) step = left;
        }
        struct timespec sleep = {step / 1000000000LL, step % 1000000000LL};
        nanosleep(&sleep, NULL); /* a cancellation point, as pthread_join is */
        waited += step;
        pause = next_pause(pause, waited);
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
