/* tracewire.h — what the tracer library (trace/vmstrace.c, preloaded into a
 * traced program) and vmscope (src/trace/) share: the layout of one shared
 * memory file and the records in it. Declared once, here; both sides
 * include it and nothing else of each other.
 *
 * The file (a memfd vmscope creates and the program inherits; its fd
 * number in VMSCOPE_TRACE_FD) is a header, then TW_SLOTS rings of
 * TW_RING_BYTES. A thread claims a free ring on its first call (an atomic
 * exchange of its state from TW_SLOT_FREE to TW_SLOT_LIVE); it is the only
 * writer of that ring, vmscope the only reader (single producer, single
 * consumer: head is written by the thread, tail by vmscope, each with
 * release order after its data, read with acquire order). When the thread
 * exits its ring goes TW_SLOT_DONE; vmscope drains it and frees it.
 *
 * Records are 8-byte aligned, one header word each (op, length in words,
 * and an op-specific 32-bit field), never split at the ring's end (a
 * TW_OP_PAD fills the rest). Times are CLOCK_MONOTONIC nanoseconds.
 *
 * Order across threads: every event (TW_EVENT_WORDS non-zero) carries a
 * sequence number from one counter in the header, taken once its ring has
 * room, so the numbers are dense and increase along each ring; vmscope
 * merges the rings by them. A number is taken where it orders what other
 * threads can see: after the call for what only hands memory out (malloc,
 * mmap), before it for what gives memory back (free; and munmap, realloc
 * and mremap, whose record is written after the call, with what it did,
 * under the number taken before). So a free of p in one thread and the
 * malloc that returns p again in another are read in the order they
 * happened, which the threads' clocks cannot say (the coarse clock ticks
 * in milliseconds). A number taken and not yet written holds vmscope's
 * merge back for at most TW_WAIT_NS (a thread stopped inside the call);
 * then it is passed over.
 *
 * The commonest events have a short form, for the ring's size: what
 * crosses from the program's core to vmscope's is each cache line of the
 * ring, once written and once read (at 72 bytes a malloc and free, some
 * 110 ns of a pair's 195 on this project's VM: docs/benchmarks.md).
 * A short event takes its time from the ring's event before it, and its
 * number from that one's: the next above it with these low 32 bits. The
 * thread writes a short form only once its ring has had an event since
 * it was claimed (short ones may follow short ones), with the same time
 * (the coarse clock's) as the one before, and a number less than 2^32
 * above it, decided once the number is taken; vmscope reads a short form
 * with no event before it, or with flags, as bad. A ring claimed again
 * (TW_OP_THREAD) starts with a long one.
 *
 * Stacks are interned per thread: a TW_OP_STACK record gives a stack id of
 * that ring and its frames (return addresses, innermost first) before the
 * first event that uses it; vmscope maps (ring, id) to its own call site.
 * A thread that runs out of stack ids starts over (TW_OP_STACK_RESET).
 *
 * Nothing blocks the program for long: a full ring waits for vmscope only
 * while vmscope's heartbeat moves (bounded by TW_WAIT_NS without
 * progress), then the library goes pass-through for good and counts what
 * it did not record in the header (dropped): the report says so.
 * passthrough says why: TW_PASS_ENDED, vmscope ended the trace or is gone
 * (its robust lock's owner cleared: consumer_lock; in a file without
 * it, its pid no longer exists, asked from vmscope's pid namespace only:
 * consumer_pidns; nothing more is counted: no one reads it);
 * TW_PASS_LAGGED, the library gave up waiting for vmscope, which still
 * reads the header at the end: every allocation from then on is counted
 * dropped.
 */
#ifndef VMS_TRACEWIRE_H
#define VMS_TRACEWIRE_H

#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>

#define TW_MAGIC 0x31727476736d76ull /* "vmsvtr1" */
#ifndef TW_VERSION /* (a test builds a library of another: -DTW_VERSION) */
#define TW_VERSION 3u /* 3: the short events */
#endif
#define TW_EXIT_WAITING 1u
#define TW_EXIT_TAKING 2u
#define TW_EXIT_TAKEN 3u
#define TW_EXIT_HOLD_NS 60000000000ull /* 60 s: a capture at most */
#define TW_PASS_ENDED 1u
#define TW_PASS_LAGGED 2u
#define TW_PASS_REFUSED 3u /* a child's file vmscope does not follow */
#define TW_SLOTS 256u
#define TW_RING_BYTES (1u << 20)
#define TW_MAX_FRAMES 48u
#define TW_STACK_IDS                                                           \
	8192u /* stack ids a thread may use before it starts
			    * over (TW_OP_STACK_RESET) */
#define TW_WAIT_NS                                                             \
	2000000000ull /* a full ring: wait this long at most
				  * without vmscope's heartbeat moving */
#define TW_FILE_BYTES                                                          \
	((uint64_t)sizeof(struct tw_header) +                                  \
	 (uint64_t)TW_SLOTS * (sizeof(struct tw_slot) + TW_RING_BYTES))

/* The operations: what the program called. */
enum tw_op {
	TW_OP_PAD = 0, /* the rest of the ring up to its end: skip */
	TW_OP_STACK, /* arg: stack id; words: the frames */
	TW_OP_STACK_RESET, /* the thread's stack ids start over */
	TW_OP_MALLOC, /* arg: stack id; addr, size (calloc, memalign ...) */
	TW_OP_FREE, /* addr */
	TW_OP_REALLOC, /* arg: stack id; addr (new), size, old (freed).
			* addr 0: no new block, no stack: size 0, old freed
			* (realloc(old, 0)); size > 0, the call failed and
			* old is as it was */
	TW_OP_MMAP, /* arg: stack id; addr, size, prot | flags << 8 */
	TW_OP_MUNMAP, /* addr, size (0: the call failed) */
	TW_OP_MREMAP, /* arg: stack id; addr (new; 0: the call failed), size,
		       * old, old size */
	TW_OP_BRK, /* arg: stack id; addr (the old break), size (grown by;
		    * negative: shrunk) */
	TW_OP_THREAD, /* the ring's thread: arg tid */
	TW_OP_MODULE, /* a loaded file: its load bias, then its path (NUL
		       * ended, padded to a word), sent before the first
		       * stack with an address in it */
	TW_OP_MPROTECT, /* arg: stack id (prot not PROT_NONE); addr, size,
			 * prot: the call succeeded */
	/* the short forms (above): no time word, no number word */
	TW_OP_FREE_SHORT, /* arg: the number's low 32 bits; addr */
	TW_OP_MALLOC_SHORT, /* arg: stack id; the number's low 32 bits
			     * << 32 | size (below 4 GiB), addr */
	TW_OP_COUNT
};

/* The header word of every record. */
struct tw_rec {
	uint8_t op; /* enum tw_op */
	uint8_t words; /* the record's length in 8-byte words, this one too */
	uint16_t flags; /* TW_F_* */
	uint32_t arg; /* op-specific: stack id, tid */
};

#define TW_F_SAMPLED 1u /* recorded by sampling: stands for more bytes */
#define TW_F_KEEP_OLD 2u /* mremap: MREMAP_DONTUNMAP, the old range kept */

/* After the header word of an event: its time, its sequence number, then
 * the op's fields, each a u64 (a short form: as above). 0: not an event
 * (no time, no number). */
#define TW_EVENT_WORDS(op)                                                     \
	((op) == TW_OP_FREE_SHORT     ? 2u                                     \
	 : (op) == TW_OP_MALLOC_SHORT ? 3u                                     \
	 : (op) == TW_OP_FREE	      ? 4u                                     \
	 : (op) == TW_OP_MALLOC	      ? 5u                                     \
	 : (op) == TW_OP_MUNMAP	      ? 5u                                     \
	 : (op) == TW_OP_BRK	      ? 5u                                     \
	 : (op) == TW_OP_REALLOC      ? 6u                                     \
	 : (op) == TW_OP_MMAP	      ? 6u                                     \
	 : (op) == TW_OP_MREMAP	      ? 7u                                     \
	 : (op) == TW_OP_MPROTECT     ? 6u                                     \
				      : 0u)

enum tw_slot_state {
	TW_SLOT_FREE = 0,
	TW_SLOT_LIVE, /* a thread writes it */
	TW_SLOT_DONE, /* its thread ended: drain, then free */
};

struct tw_slot {
	uint32_t state; /* enum tw_slot_state */
	int32_t tid;
	uint64_t head; /* bytes written, ever (the thread's) */
	uint64_t tail; /* bytes read, ever (vmscope's) */
	uint64_t pad[5]; /* head and tail on separate cache lines */
};

struct tw_header {
	uint64_t magic; /* TW_MAGIC */
	uint32_t version; /* TW_VERSION */
	uint32_t slots, ring_bytes, max_frames;
	int32_t consumer_pid; /* vmscope */
	int32_t traced_pid; /* the process the rings are of (not a child) */
	uint64_t heartbeat; /* vmscope's: moves while it reads (at most
			     * every ms: src/trace/tracer.c) */
	uint64_t sample_bytes; /* 0: every call; else the mean sampling
				* interval of allocations under 64 KiB */
	uint64_t dropped; /* calls not recorded (no ring, vmscope gone) */
	uint64_t dropped_bytes; /* bytes they allocated */
	uint32_t passthrough; /* TW_PASS_*: the library records nothing
			       * more */
	uint32_t follow_children; /* 1: --trace-children (the file of a
				   * process followed, or of one whose
				   * children are) */
	uint64_t start_ns; /* CLOCK_MONOTONIC when vmscope made the file:
			    * the trace's time 0 */
	uint64_t seed; /* sampling's: each thread's stream starts from it */
	/* vmscope's, an attach with the kernel's trace (src/trace/bpfmaps.h)
	 * running: 1, the mmap family is traced from the kernel, and the
	 * library's mmap, munmap and mremap forward their calls without
	 * recording them (trace/attach.c says how the two are switched) */
	uint32_t kernel_maps;
	/* vmscope's pid namespace: the inode of its /proc/self/ns/pid (a
	 * namespace's inode number is 32-bit: the kernel's ns_common.inum);
	 * 0, not known. consumer_pid is a pid of that namespace alone: from
	 * another (vmscope on the host, the program in a container) it
	 * names no process, or another one, so the library asks kill()
	 * whether vmscope lives only from the same namespace, and else
	 * takes it to live (trace/record.c: consumer_gone; an attach's
	 * take-over, vt_orphaned, takes it for gone). Only in a file
	 * without consumer_lock (below), which tells in any namespace.
	 * (Was padding: 0 in a file of before, not known: no new
	 * version.) */
	uint32_t consumer_pidns;
	/* the library's (vt_start): where each thread's "inside the
	 * library" flag (an int, non-zero while the thread runs one of the
	 * library's malloc-family interposers or records a call) lies, as
	 * an offset from the thread pointer (x86-64: the FS base), the same
	 * for every thread (static TLS); 0 when not said */
	int64_t inside_off;
	/* the library's, an attach in two steps (trace/attach.c:
	 * vmstrace_attach_patch): CLOCK_MONOTONIC as it starts to redirect
	 * the GOT entries, the trace's start for the kernel's events (those
	 * before it are left out: the library recorded nothing then); 0 when
	 * not said */
	uint64_t trace_from_ns;
	/* of dropped, the library's: calls of a thread that found no ring
	 * free (more than TW_SLOTS threads holding one at once: a thread
	 * holds its ring from its first call to its end) */
	uint64_t dropped_threads;
	/* A launch's last snapshot (-w FILE): exit_hold, vmscope's, 1 when
	 * it wants the command held at its exit (the library's destructor,
	 * at exit()) until it has taken a snapshot of it, its map still
	 * there; exit_state (TW_EXIT_*) the library's WAITING there, then
	 * vmscope's TAKING while it captures and TAKEN once done, which
	 * lets it go. The library waits while vmscope's heartbeat moves or
	 * it captures, TW_WAIT_NS at most without either, TW_EXIT_HOLD_NS
	 * at most in all, and not at all for a forked child, pass-through
	 * or vmscope gone. (Were `reserved`: 0 in a file of before, and a
	 * library of before never waits: no new version.) */
	uint32_t exit_hold;
	uint32_t exit_state;
	/* the next event's sequence number, on a cache line of its own
	 * (every thread adds to it; the fields above are read often) */
	uint64_t seq __attribute__((aligned(64)));
	/* Whether vmscope lives, in any pid namespace (consumer_pid tells
	 * only from vmscope's own: consumer_pidns). consumer_mutex is a
	 * process-shared robust pthread mutex (glibc's pthread_mutex_t, 40
	 * bytes on x86-64 and aarch64: src/trace/tracer_lock.c asserts it
	 * fits) that vmscope locks from the thread that makes and frees the
	 * trace and never unlocks: when that thread ends (vmscope killed, or
	 * exited) the kernel's walk of its robust list sets
	 * FUTEX_OWNER_DIED in the lock word (the mutex's first int) and
	 * clears the owner's tid there. consumer_lock, vmscope's: 1 once it
	 * holds the mutex (stored after it, release order); then vmscope is
	 * gone iff (the lock word & FUTEX_TID_MASK) == 0, which the library
	 * reads with one atomic load, no system call, from any namespace
	 * (trace/record.c: consumer_gone; an attach's take-over,
	 * vt_orphaned). 0 (a file of an earlier vmscope; a child's file
	 * vmscope did not lock): the pid, as consumer_pidns says. Here,
	 * beside seq, as the space after it was padding (0 in a file of
	 * before: no new version): written once by vmscope as the trace
	 * starts (a followed child's: as vmscope takes its file) and once
	 * by the kernel at vmscope's end, read by the library only when a
	 * ring is full or an attach comes, so seq's line stays the threads'
	 * own while they record. */
	uint32_t consumer_lock;
	uint32_t lock_pad;
	uint64_t consumer_mutex[5];
	uint64_t seq_pad[1];
};

/* The owner's tid in a robust futex word (linux/futex.h's
 * FUTEX_TID_MASK; not included: the library's build sees no kernel
 * header it need not). */
#define TW_FUTEX_TID_MASK 0x3fffffffu
_Static_assert(sizeof(struct tw_header) == 192,
	       "the header's layout is the wire's (seq alone on its line)");

/* The calling process's pid namespace as consumer_pidns holds one, for
 * vmscope (its own, written) and the library (the traced process's,
 * compared): the inode of /proc/self/ns/pid; 0 when not known (no /proc)
 * or past 32 bits (no kernel makes one), which never equals a known one.
 * errno kept (the library calls it inside the program's calls). */
static inline uint32_t tw_pidns_now(void)
{
	struct stat st;
	int saved = errno;
	uint32_t ns = 0;

	if (stat("/proc/self/ns/pid", &st) == 0 && st.st_ino <= UINT32_MAX)
		ns = (uint32_t)st.st_ino;
	errno = saved;
	return ns;
}

/* Following children (--trace-children). vmscope starts the command with
 * TW_FOLLOW_ENV in its environment too:
 * "CONSUMER:PIDNS:SAMPLE_BYTES:SEED:NAME", vmscope's pid and pid namespace
 * (consumer_pid, consumer_pidns), the sampling's interval (0: exact) and
 * seed, and the name of a datagram socket in the abstract namespace vmscope
 * reads. The library then leaves LD_PRELOAD and TW_FOLLOW_ENV to the
 * program's children. A process that starts the library with TW_FOLLOW_ENV
 * and without VMSCOPE_TRACE_FD (a child exec'd), or a child fork() made of a
 * followed process (its parent's rings are not its own), makes a file of its
 * own as vmscope makes one (a memfd, this layout, sealed against shrinking
 * and growing, its header filled from TW_FOLLOW_ENV), and sends it to that
 * socket: one struct tw_follow_msg with, as SCM_RIGHTS, the file's
 * descriptor and a pidfd of the process (vmscope sees its end by it; none on
 * a kernel without pidfd_open). It records only once the message is sent
 * (never blocking: MSG_DONTWAIT's failure, vmscope gone or its queue full,
 * leaves the process untraced). vmscope takes the pid from the kernel's
 * credentials of the message, never from its body; a file it does not follow
 * (TW_FOLLOW_MAX reached) is set TW_PASS_REFUSED at once. A child fork()
 * makes of a process refused sends the message alone, no file (how
 * TW_FOLLOW_COUNT), at its first call: it is counted. A followed process
 * that makes a child (fork(), posix_spawn() with TW_FOLLOW_ENV in the
 * child's environment) says so as the call returns, before the child's file
 * can come (TW_FOLLOW_BORN: the child's pid in child, a pidfd of it the only
 * descriptor): vmscope's trace does not end while such a child neither sent
 * a file nor ended. */
#define TW_FOLLOW_ENV "VMSCOPE_TRACE_FOLLOW"
#define TW_FOLLOW_MAGIC 0x31776c66736d76ull /* "vmsflw1" */
#define TW_FOLLOW_MAX                                                          \
	64u /* processes followed in all, the launched one
			   * too; the others are counted */

enum tw_follow_how {
	TW_FOLLOW_EXEC = 1, /* the library started in a program exec'd */
	TW_FOLLOW_FORK = 2, /* a child fork() made (no exec) */
	TW_FOLLOW_COUNT = 3, /* a child fork() made of a process refused:
			      * not followed, counted (no descriptor) */
	TW_FOLLOW_BORN = 4, /* a followed process made a child (sent by the
			     * parent: the child's pid and pidfd) */
};

struct tw_follow_msg {
	uint64_t magic; /* TW_FOLLOW_MAGIC */
	uint32_t version; /* TW_VERSION */
	uint32_t how; /* enum tw_follow_how */
	int32_t ppid; /* its parent, as it says */
	int32_t child; /* TW_FOLLOW_BORN: the child's pid; else 0 */
	char cmd[240]; /* its command line (/proc/self/cmdline, arguments
			* joined by spaces, cut), NUL ended */
};

/* The n-th slot and ring of a mapped file. */
static inline struct tw_slot *tw_slot_at(void *base, unsigned n)
{
	return (struct tw_slot *)((char *)base + sizeof(struct tw_header) +
				  (uint64_t)n * sizeof(struct tw_slot));
}

static inline unsigned char *tw_ring_at(void *base, unsigned n)
{
	return (unsigned char *)base + sizeof(struct tw_header) +
	       (uint64_t)TW_SLOTS * sizeof(struct tw_slot) +
	       (uint64_t)n * TW_RING_BYTES;
}

#endif
