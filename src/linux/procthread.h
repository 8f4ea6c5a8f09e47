/* procthread.h — what /proc says of one thread of a process, for the
 * freeze (capture/ptrace/freeze.c): its state letter, its tracer, whether
 * it is dead; whether the process is in a group stop; its first thread in
 * uninterruptible sleep; and whether this process may trace others.
 *
 * Contract: each reads /proc/PID/task/TID/stat or status once per thread
 * asked about, never writes, and says what it could not read as the
 * function's own "unknown" value (below); no error is raised.
 */
#ifndef VMS_PROCTHREAD_H
#define VMS_PROCTHREAD_H

#include <stdbool.h>
#include <sys/types.h>

/* Thread tid of pid's state letter (its stat's third field: R, S, D, T,
 * t, Z...), or 'X' when it is gone. */
char procthread_state(pid_t pid, pid_t tid);

/* Whether thread tid of pid has exited (a zombie, or gone): ptrace refuses
 * such a thread with EPERM, and it has nothing left to stop. A process
 * whose main thread called pthread_exit() keeps that thread as a zombie. */
bool procthread_dead(pid_t pid, pid_t tid);

/* The tracer of thread tid of pid (its TracerPid: the tracing thread's
 * id), 0 for none, -1 when it cannot be read (gone). */
int procthread_tracer(pid_t pid, pid_t tid);

/* Whether thread tid of pid has a SIGKILL pending (its status's SigPnd:
 * a process being killed, or an exec's other threads): 1, 0, or -1 when
 * it cannot be read. */
int procthread_sigkill_pending(pid_t pid, pid_t tid);

/* Whether pid is in a group stop (SIGSTOPped): its main thread shows T,
 * or, the main thread exited (a zombie), one of its live threads does. */
bool procthread_job_stopped(pid_t pid);

/* The first thread of pid in uninterruptible sleep (D), or 0. */
pid_t procthread_in_d_state(pid_t pid);

/* Whether this process has CAP_SYS_PTRACE in its effective set (unknown:
 * true, so that nothing claims it is missing). */
bool procthread_self_cap_ptrace(void);

#endif
