/* readahead.h — reads a file on a second thread while the caller works on
 * what has been read.
 *
 * Why: the kernel spends ~2.3 µs per region producing /proc/PID/smaps, one
 * page per read(); parsing what came costs a fraction of that. On two cores
 * the parse then hides behind the kernel's work, and a capture costs little
 * more than `cat smaps` (and a --freeze stops the target no longer than the
 * kernel needs).
 *
 * Contract: readahead_start() takes ownership of nothing: the fd stays the
 * caller's and must stay open until readahead_stop(). readahead_next() hands
 * out the next chunk in file order (it stays valid until readahead_done() is
 * called for it; one chunk at a time), returns its length, 0 at end of file,
 * or -1 with errno of the failed read(). readahead_stop() may be called at
 * any point (cancel): it stops the thread and frees everything.
 * readahead_start_inline() is the same without the thread: each
 * readahead_next() reads its chunk then and there (many small files one
 * after the other: vmscope --all, where a thread a file costs more than
 * the file's read). readahead_prime() reads an inline reader's first chunk
 * now, on the thread that calls it, for the readahead_next() that follows
 * (on any thread, once the caller has handed the reader over): --all reads
 * the next process's smaps on a second thread while this one works on the
 * process before (cli/run_all.c). readahead_start_held() is
 * readahead_start() whose thread, made now, faults in its first buffer and
 * then waits: the fd it reads is given to readahead_release(), its first
 * read() made then (a freeze: the thread made and its buffer touched
 * before the target is stopped, the file opened and read in the stop: a
 * /proc file opened before would read the address space it had then, an
 * exec's old one). readahead_next() on a held reader waits for ever:
 * release it first. readahead_stop() ends it, released or not.
 */
#ifndef VMS_READAHEAD_H
#define VMS_READAHEAD_H

#include <stddef.h>
#include <sys/types.h>

struct readahead;

/* NULL with errno set if the thread or its buffers cannot be had. */
struct readahead *readahead_start(int fd);
struct readahead *readahead_start_inline(int fd);
struct readahead *readahead_start_held(void);
void readahead_release(struct readahead *ra, int fd);
void readahead_prime(struct readahead *ra);
ssize_t readahead_next(struct readahead *ra, const char **data);
void readahead_done(struct readahead *ra);
void readahead_stop(struct readahead *ra);

#endif
