/* bpfmaps.bpf.c — the kernel half of bpfmaps.h: the system calls mmap,
 * munmap, mremap, brk, madvise (MADV_DONTNEED, MADV_FREE) and mprotect of
 * one process (its tgid, set before loading), each call that
 * succeeded sent with its user stack through a ring buffer
 * (bpfmaps_event.h); with an injected library's flag said (inside_on),
 * not the calls its threads make inside it.
 *
 * At the syscall's entry its arguments are kept by thread (brk: the break
 * before, read from the task's mm); at its exit, when it succeeded, the
 * event is made with the user ip, stack pointer, rbp and a copy of the
 * top of the user stack, which the reader unwinds by the call frame
 * information (glibc's wrappers have no frame pointer, nor have Debian's
 * libraries and most programs: the kernel's frame-pointer walk,
 * bpf_get_stack, loses the wrappers' callers and stops at the first such
 * function; and each read it makes past a chain's end faults, which cost
 * half the time of a loop of mmap and munmap here, for one or two frames
 * where the copy gives the whole stack: it is not made). A full ring
 * buffer drops the event and counts it.
 *
 * Compiled with clang -target bpf against the running kernel's BTF
 * (CO-RE: vmlinux.h from bpftool), embedded in vmscope as a skeleton.
 */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bpfmaps_event.h"

#define MADV_DONTNEED 4
#define MADV_FREE 8
#define RING_BYTES (16 << 20) /* some 4,000 events */

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 target_tgid = 0;
/* the injected library's "inside" flag (base/tracewire.h: inside_off):
 * inside_on, a call of a thread that runs inside the library's malloc
 * family (the allocator's own maps for a block it records) or records
 * the call itself is left out, counted in inside_skipped; one made in
 * the library's own work (attaching, detaching: flag 2) is left out
 * uncounted. Set by the reader (bpfmaps_arm) once the library, injected
 * after the program is loaded and attached, says where its flag is */
__u32 inside_on = 0;
__s64 inside_off = 0;
/* 0: attached, recording nothing (bpfmaps_arm sets it once the flag is
 * known: the attach is made before the library is injected) */
__u32 armed = 0;

/* what was lost to a full ring buffer */
__u64 dropped = 0, dropped_bytes = 0;
__u64 pending_lost = 0;
__u64 inside_skipped = 0;

struct pending {
	__u32 op, pad;
	__u64 a0, a1, a2, a3, a4;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct pending);
} calls SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, RING_BYTES);
} events SEC(".maps");

static __always_inline bool ours(__u32 *tid)
{
	__u64 id = bpf_get_current_pid_tgid();

	*tid = (__u32)id;
	return (id >> 32) == target_tgid;
}

/* The thread's flag, inside the library now (non-zero: 1 a call of the
 * malloc family, 2 the library's own work; trace/vmstrace.h), read from
 * its static TLS at the FS base (the thread pointer glibc set by
 * arch_prctl, which the kernel keeps in thread.fsbase); 0 when not. */
static __always_inline int inside(void)
{
	struct task_struct *task;
	__u64 fs;
	int v = 0;

	if (!inside_on)
		return 0;
	task = bpf_get_current_task_btf();
	fs = BPF_CORE_READ(task, thread.fsbase);
	if (!fs ||
	    bpf_probe_read_user(&v, sizeof(v), (void *)(fs + inside_off)))
		return 0;
	return v;
}

static __always_inline int enter(__u32 op, __u64 a0, __u64 a1, __u64 a2,
				 __u64 a3, __u64 a4)
{
	struct pending p = {
		.op = op, .a0 = a0, .a1 = a1, .a2 = a2, .a3 = a3, .a4 = a4
	};
	__u32 tid;
	int in;

	if (!armed || !ours(&tid))
		return 0;
	in = inside();
	if (in) { /* the allocator's own counted, the library's not */
		if (in == 1)
			__sync_fetch_and_add(&inside_skipped, 1);
		bpf_map_delete_elem(&calls, &tid);
		return 0;
	}
	if (bpf_map_update_elem(&calls, &tid, &p, BPF_ANY))
		__sync_fetch_and_add(&pending_lost, 1);
	return 0;
}

static __always_inline int leave(void *ctx, __u32 op, long ret)
{
	struct bpfmaps_event *e;
	struct pending *p;
	struct pt_regs *regs;
	__u64 sp = 0;
	__u32 tid, i;

	if (!ours(&tid))
		return 0;
	p = bpf_map_lookup_elem(&calls, &tid);
	if (!p)
		return 0;
	if (p->op != op || (ret < 0 && ret > -4096)) {
		bpf_map_delete_elem(&calls, &tid);
		return 0;
	}
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&dropped, 1);
		__sync_fetch_and_add(&dropped_bytes,
				     op == BPFMAPS_BRK ? 0 : p->a1);
		bpf_map_delete_elem(&calls, &tid);
		return 0;
	}
	e->t_ns = bpf_ktime_get_ns();
	e->tid = tid;
	e->op = op;
	e->addr = e->len = e->old_addr = e->old_len = e->arg = e->prot = 0;
	switch (op) {
	case BPFMAPS_MMAP:
		e->addr = (__u64)ret;
		e->len = p->a1;
		e->arg = p->a3;
		e->prot = p->a2;
		break;
	case BPFMAPS_MUNMAP:
		e->addr = p->a0;
		e->len = p->a1;
		break;
	case BPFMAPS_MREMAP:
		e->addr = (__u64)ret;
		e->len = p->a2;
		e->old_addr = p->a0;
		e->old_len = p->a1;
		e->arg = p->a3;
		break;
	case BPFMAPS_BRK:
		e->addr = (__u64)ret;
		e->old_addr = p->a1; /* the break before */
		e->arg = p->a0; /* asked for */
		break;
	case BPFMAPS_MADVISE:
		e->addr = p->a0;
		e->len = p->a1;
		e->arg = p->a2;
		break;
	case BPFMAPS_MPROTECT:
		e->addr = p->a0;
		e->len = p->a1;
		e->prot = p->a2;
		break;
	}
	bpf_map_delete_elem(&calls, &tid);
	regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	sp = BPF_CORE_READ(regs, sp);
	e->sp = sp;
	e->bp = BPF_CORE_READ(regs, bp);
	e->ip = BPF_CORE_READ(regs, ip);
	/* by pieces, kept up to the first that cannot be read (a page not
	 * present: a read that touches one fails whole) */
	e->stack_bytes = 0;
	for (i = 0; i < BPFMAPS_STACK_BYTES / BPFMAPS_STACK_PIECE; i++) {
		if (bpf_probe_read_user(e->stack + i * BPFMAPS_STACK_PIECE,
					BPFMAPS_STACK_PIECE,
					(void *)(sp + i * BPFMAPS_STACK_PIECE)))
			break;
		e->stack_bytes = (i + 1) * BPFMAPS_STACK_PIECE;
	}
	/* vmscope is woken when a quarter of the ring is used; else it
	 * finds the events at its next poll (every 50 ms): no wake-up, so
	 * no switch to vmscope, for every call */
	bpf_ringbuf_submit(e, bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >
					      RING_BYTES / 4
				      ? BPF_RB_FORCE_WAKEUP
				      : BPF_RB_NO_WAKEUP);
	return 0;
}

/* The calls followed, by their numbers on x86-64 (asm/unistd_64.h). The
 * programs sit on the raw tracepoints every system call passes (BTF's
 * typed form, attached by name: no tracefs, which a machine may not have
 * mounted and the per-call tracepoints need to be found; fentry on the
 * calls themselves is refused on some kernels, this machine's among
 * them), so while a trace runs every system call of every process runs
 * them: its tgid compared first, then the call's number. A 32-bit call
 * (int 0x80, or a 32-bit process: TS_COMPAT in the thread's status, set
 * from its entry to its return) has other numbers and registers and is
 * left out, as the syscalls tracepoints left it out. */
#define NR_MMAP 9
#define NR_MPROTECT 10
#define NR_MUNMAP 11
#define NR_BRK 12
#define NR_MREMAP 25
#define NR_MADVISE 28
#define TS_COMPAT 0x0002 /* arch/x86/include/asm/thread_info.h */

/* The current thread's, in the target's process, and a 64-bit call */
static __always_inline bool target_call(void)
{
	struct task_struct *task;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return false;
	task = bpf_get_current_task_btf();
	return !(BPF_CORE_READ(task, thread_info.status) & TS_COMPAT);
}

/* The op of a call followed (0: not one) */
static __always_inline __u32 op_of(long id)
{
	switch (id) {
	case NR_MMAP:
		return BPFMAPS_MMAP;
	case NR_MUNMAP:
		return BPFMAPS_MUNMAP;
	case NR_MREMAP:
		return BPFMAPS_MREMAP;
	case NR_BRK:
		return BPFMAPS_BRK;
	case NR_MADVISE:
		return BPFMAPS_MADVISE;
	case NR_MPROTECT:
		return BPFMAPS_MPROTECT;
	}
	return 0;
}

/* A system call's entry: its arguments from the user registers (x86-64's
 * order: rdi, rsi, rdx, r10, r8) */
SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs *regs, long id)
{
	__u32 op;

	if (!target_call())
		return 0;
	op = op_of(id);
	if (!op)
		return 0;
	if (op == BPFMAPS_BRK) {
		struct task_struct *task = bpf_get_current_task_btf();

		return enter(op, regs->di, BPF_CORE_READ(task, mm, brk), 0, 0,
			     0);
	}
	/* only the advice that gives pages back */
	if (op == BPFMAPS_MADVISE && regs->dx != MADV_DONTNEED &&
	    regs->dx != MADV_FREE)
		return 0;
	/* mprotect: every call (the reader keeps which pages are PROT_NONE:
	 * a commit is a change from it, or to it) */
	return enter(op, regs->di, regs->si, regs->dx, regs->r10, regs->r8);
}

/* A system call's end: which call it was from the registers (orig_ax) */
SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
	__u32 op;

	if (!target_call())
		return 0;
	op = op_of(regs->orig_ax);
	return op ? leave(ctx, op, ret) : 0;
}
