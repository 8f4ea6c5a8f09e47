/* bpfmaps_event.h — the record the kernel half of bpfmaps (bpfmaps.bpf.c)
 * sends through its ring buffer for each mmap-family call of the traced
 * process that succeeded, and the figures it keeps in its global data.
 * Declared once here, read by both halves (bpfmaps.c is the reader).
 *
 * Contract: plain integer types only (the eBPF side has no libc headers).
 * ip, sp and bp are the user instruction pointer (after the syscall),
 * stack pointer and rbp at the syscall (x86-64), and stack[0, stack_bytes)
 * a copy of the user stack from sp: what the reader unwinds by the call
 * frame information (bpfmaps.h).
 */
#ifndef VMS_BPFMAPS_EVENT_H
#define VMS_BPFMAPS_EVENT_H

/* frames of a stack kept, at most */
#define BPFMAPS_MAX_FRAMES 48
/* the copy of the user stack, read by pieces (up to the first that fails:
 * a page not present) */
#define BPFMAPS_STACK_BYTES 4096
#define BPFMAPS_STACK_PIECE 512

enum bpfmaps_op {
	BPFMAPS_MMAP = 1, /* addr = the mapping, len; arg = flags */
	BPFMAPS_MUNMAP, /* addr, len */
	BPFMAPS_MREMAP, /* addr = new, len = new length; old_addr, old_len */
	BPFMAPS_BRK, /* old_addr = the break before, addr = after */
	BPFMAPS_MADVISE, /* addr, len; arg = MADV_DONTNEED or MADV_FREE */
	BPFMAPS_MPROTECT, /* addr, len, prot */
};

struct bpfmaps_event {
	unsigned long long t_ns; /* CLOCK_MONOTONIC, at the syscall's exit */
	unsigned int tid, op;
	unsigned long long addr, len, old_addr, old_len, arg;
	unsigned long long prot; /* mmap's, mprotect's */
	unsigned long long ip, sp, bp;
	unsigned int stack_bytes, pad;
	unsigned char stack[BPFMAPS_STACK_BYTES];
};

#endif
