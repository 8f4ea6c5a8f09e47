/* freeze_priv.h — what the freeze's files share: the thread entries and
 * the leftovers (freeze_threads.c), the handling of an exec met while
 * stopping (freeze_exec.c, whose header says why), used by freeze.c. Not
 * for other files: freeze.h is the contract.
 */
#ifndef VMS_FREEZE_PRIV_H
#define VMS_FREEZE_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "capture/ptrace/freeze.h"

/* f's entry for tid, or NULL. */
struct freeze_thread *freeze_find_thread(struct freeze *f, pid_t tid);
/* A new zeroed entry for tid (f->t may move), or NULL: out of memory. */
struct freeze_thread *freeze_add_thread(struct freeze *f, pid_t tid);
/* tid, seized and not stopped at release, detached when it stops. */
void freeze_keep_leftover(pid_t tid);
/* Whether tid is a leftover (and no longer one: taken back by a freeze
 * that finds it already its own). */
bool freeze_take_leftover(pid_t tid);

/* Thread tid's registers into *r (zeroed first) and their length into
 * *len; -1 when ptrace will not (not ours, or not stopped). */
int freeze_read_regs(pid_t tid, struct user_regs_struct *r, uint32_t *len);
/* The pid's entry made the task's there now (exec_seen if it changed). */
void freeze_recheck_pid(struct freeze *f);
/* Seized thread tid stopped being ours with no exit (ECHILD, or its tid
 * gone right after its seize): an exec's; the pid's entry looked at. */
void freeze_exec_took_tid(struct freeze *f, pid_t tid);
/* After a release: whether the change seen was a kill, not an exec. */
bool freeze_killed_not_exec(pid_t pid);

#endif
