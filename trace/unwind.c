/* unwind.c — the tracer's own stack walk over .eh_frame (unwind.h). Why
 * its own: libunwind's unw_backtrace, per-thread caching on, was half of
 * what exact tracing cost a malloc/free pair (docs/internals.md,
 * "Allocation tracing": the figures). The rules it caches are the ones
 * libunwind's fast path (x86_64/Gtrace.c) caches, and what it cannot
 * cache it leaves to libunwind.
 */
#define _GNU_SOURCE
#include "unwind.h"

#if defined(__x86_64__)

#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Bumped when modules may have been unloaded; a thread's rules of an
 * older generation are dropped. Starts at 1: a zeroed vt_uw is stale. */
static unsigned long modules_gen = 1;
static unsigned long subs_seen; /* dl_iterate_phdr's dlpi_subs, last seen */

void vt_unwind_modules_changed(void)
{
	__atomic_add_fetch(&modules_gen, 1, __ATOMIC_RELEASE);
}

void vt_uw_note_subs(unsigned long long subs)
{
	unsigned long was = __atomic_load_n(&subs_seen, __ATOMIC_RELAXED);

	if (was != (unsigned long)subs &&
	    __atomic_compare_exchange_n(&subs_seen, &was, (unsigned long)subs,
					false, __ATOMIC_RELAXED,
					__ATOMIC_RELAXED))
		vt_unwind_modules_changed();
}

/* ---- the main thread's stack: its [stack] mapping, from /proc/self/maps
 * read once at the start by system calls (no stdio: no malloc, no lock);
 * a thread's: from its start (vt_unwind_thread). Nothing is looked up
 * while the program runs: a sandbox may forbid the open by then. ---- */

struct maps_line {
	uintptr_t lo, hi, inode;
	unsigned field; /* 0 lo, 1 hi, 2 perms, 3 offset, 4 dev, 5 inode,
			 * 6 path */
	bool sep; /* the last character was a space */
	char path0; /* the path's first character */
	char tail[8]; /* the path's last 7 characters */
};

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static void maps_char(struct maps_line *m, char c)
{
	int h = hexval(c);

	if (c == ' ' && m->field < 6) { /* the path may hold spaces */
		m->sep = true;
		return;
	}
	if (m->sep) {
		m->sep = false;
		m->field++;
		if (m->field == 6)
			m->path0 = c;
	}
	if (m->field == 0 && c == '-')
		m->field = 1;
	else if (m->field == 0 && h >= 0)
		m->lo = m->lo * 16 + (uintptr_t)h;
	else if (m->field == 1 && h >= 0)
		m->hi = m->hi * 16 + (uintptr_t)h;
	else if (m->field == 5 && c >= '0' && c <= '9')
		m->inode = m->inode * 10 + (uintptr_t)(c - '0');
	if (m->field == 6) {
		memmove(m->tail, m->tail + 1, 6);
		m->tail[6] = c;
	}
}

/* A system call made here, not through libc's syscall(): a program may
 * have rewritten that function's instruction (tests/targets/
 * hostile_target.c's ud2 and jmp modes), and then calling it killed the
 * program that vmscope traced. */
static long raw_syscall3(long nr, long a, long b, long c)
{
	long r;

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return r;
}

static long raw_openat(const char *path, int flags)
{
	long r;
	register long r10 __asm__("r10") = 0;

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"((long)SYS_openat), "D"((long)AT_FDCWD),
			   "S"(path), "d"((long)flags), "r"(r10)
			 : "rcx", "r11", "memory");
	return r;
}

/* The main thread's stack: [main_lo, main_hi), main_hi its [stack]
 * mapping's top; main_lo where it may grow down to: the end of the mapping
 * below it at the start (nothing lies between), and no further than
 * RLIMIT_STACK from the top (the kernel keeps that much free of the
 * mmap area; the stack never grows past it). */
static uintptr_t main_lo, main_hi;

void vt_unwind_start(void)
{
	struct maps_line m;
	uintptr_t below = 0, lo = 0, hi = 0;
	struct rlimit rl;
	char buf[512];
	long fd, n, i;

	fd = raw_openat("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	memset(&m, 0, sizeof(m));
	while (!hi && (n = raw_syscall3(SYS_read, fd, (long)buf,
					(long)sizeof(buf))) > 0)
		for (i = 0; i < n && !hi; i++) {
			if (buf[i] != '\n') {
				maps_char(&m, buf[i]);
				continue;
			}
			if (m.inode == 0 && m.path0 == '[' &&
			    memcmp(m.tail, "[stack]", 7) == 0) {
				lo = below;
				hi = m.hi;
			}
			below = m.hi;
			memset(&m, 0, sizeof(m));
		}
	raw_syscall3(SYS_close, fd, 0, 0);
	if (!hi)
		return;
	if (raw_syscall3(SYS_getrlimit, RLIMIT_STACK, (long)&rl, 0) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < hi - lo)
		lo = hi - (uintptr_t)rl.rlim_cur;
	main_lo = lo;
	main_hi = hi;
}

/* This thread's stack, from its start (0, 0: not known). */
static __thread uintptr_t thread_lo, thread_hi;

/* The top of a stack glibc allocated lies within this much above the
 * thread's descriptor (its struct pthread, some 2.3 KiB, aligned to the
 * static TLS's alignment), and its usable part is the size asked for
 * (rounded down to that alignment, above the guard): [descriptor - size +
 * VT_UW_SLACK, descriptor) is always inside it. */
#define VT_UW_SLACK ((uintptr_t)32 << 10)

void vt_unwind_thread(uintptr_t addr, size_t size)
{
	uintptr_t self = (uintptr_t)pthread_self(), lo, hi;
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);

	if (addr) { /* the program's own: all of it usable */
		lo = addr;
		hi = addr + size;
		if (hi < lo)
			return;
		if (self > lo && self < hi)
			hi = self; /* its descriptor at the top */
	} else {
		if (size < 2 * VT_UW_SLACK || self < size)
			return; /* too small to say */
		lo = self - size + VT_UW_SLACK;
		hi = self;
	}
	if (sp < lo || sp >= hi)
		return; /* not on it: glibc's layout is not this one */
	thread_lo = lo;
	thread_hi = hi;
}

/* The stack sp is on, into u->lo/hi. False: not a stack known to be the
 * thread's own. */
static bool find_stack(struct vt_uw *u, uintptr_t sp)
{
	if (sp >= main_lo && sp < main_hi) {
		u->lo = main_lo;
		u->hi = main_hi;
		return true;
	}
	if (sp >= thread_lo && sp < thread_hi) {
		u->lo = thread_lo;
		u->hi = thread_hi;
		return true;
	}
	return false;
}

/* The rule at pc, from the cache or the module's .eh_frame. */
static const struct vt_uw_rule *rule_at(struct vt_uw *u, uintptr_t pc)
{
	struct vt_uw_rule *e =
		&u->rules[(pc * 0x9e3779b97f4a7c15ull) >> (64 - 12)];

	if (__builtin_expect(e->pc == pc, 1))
		return e;
	vt_uw_eh_rule(pc, e);
	e->pc = pc;
	return e;
}

static int check_subs(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)arg;
	if (size >=
	    offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
		vt_uw_note_subs(info->dlpi_subs);
	return 1;
}

_Static_assert(VT_UW_CACHE == 1u << 12, "rule_at's hash takes 12 bits");

/* Whether the words walk w read from step j up are still what it read
 * (each at or above step j's sp, below the stack's top: readable). */
static bool same_reads(const struct vt_uw_walk *w, unsigned j)
{
	unsigned k;

	for (k = j; k < w->steps; k++) {
		const struct vt_uw_step *s = &w->s[k];
		uintptr_t v;

		memcpy(&v, (const void *)(s->cfa - 8), sizeof(v));
		if (v != s->ra)
			return false;
		/* an rbp restored that nothing further up uses may differ
		 * (a caller's loop counter kept in rbp) */
		if (s->bp_at && k + 1 < w->steps && w->s[k + 1].need_bp) {
			memcpy(&v, (const void *)s->bp_at, sizeof(v));
			if (v != s->bp_val)
				return false;
		}
	}
	return true;
}

/* Where rbp's value matters, from step `from` down (need_bp). */
static void mark_need(struct vt_uw_walk *w, unsigned from, bool need)
{
	while (from-- > 0) {
		struct vt_uw_step *s = &w->s[from];

		need = s->uses_bp || (!s->sets_bp && need);
		s->need_bp = need;
	}
}

/* The walk from here is the last one's from its step j: its addresses,
 * and the new walk (steps [0, i) in nw, then the old's from j) kept. */
static int take_old(struct vt_uw *u, struct vt_uw_walk *old,
		    struct vt_uw_walk *nw, unsigned i, unsigned j, void **ip,
		    int n, int max)
{
	int k, c = old->n - (int)j;

	for (k = 0; k < c && n < max; k++)
		ip[n++] = (void *)old->s[j + k].ra;
	if (i == 0 && j == 0) { /* the same walk again */
		u->again = u->kept = 1;
		return n;
	}
	if (i + old->steps - j > VT_UW_FRAMES)
		return n; /* too long to keep: the last one stays */
	u->kept = 1;
	memcpy(&nw->s[i], &old->s[j], (old->steps - j) * sizeof(nw->s[0]));
	nw->steps = i + old->steps - j;
	nw->n = (int)i + c;
	nw->cut = old->cut;
	mark_need(nw, i, old->s[j].need_bp);
	u->last ^= 1;
	return n;
}

__attribute__((noinline)) int vt_unwind(struct vt_uw *u, void **ip, int max)
{
	uintptr_t pc, sp, bp, hi, cfa, ra;
	struct vt_uw_walk *old, *nw;
	unsigned long gen;
	unsigned i = 0, j = 0;
	bool join;
	int n = 0, cut = 1;

	__asm__ volatile("lea 0f(%%rip), %0\n0:\n\t"
			 "mov %%rsp, %1\n\t"
			 "mov %%rbp, %2"
			 : "=r"(pc), "=r"(sp), "=r"(bp));
	u->again = u->kept = 0;
	u->partial = 0;
	if (sp < u->lo || sp >= u->hi) {
		u->walk[0].steps = u->walk[1].steps = 0;
		if (!find_stack(u, sp))
			return -1;
	}
	hi = u->hi;
	if (++u->walks % VT_UW_CHECK == 0)
		dl_iterate_phdr(check_subs, NULL);
	gen = __atomic_load_n(&modules_gen, __ATOMIC_ACQUIRE);
	if (u->gen != gen) {
		if (u->gen) /* else: zeroed, and its pages not touched yet */
			memset(u->rules, 0, sizeof(u->rules));
		u->walk[0].steps = u->walk[1].steps = 0;
		u->gen = gen;
	}
	old = &u->walk[u->last];
	nw = &u->walk[u->last ^ 1];
	join = old->steps > 0;
	/* as libunwind's fast path: the first frame (this function's) is
	 * not recorded, each caller's return address is; its rule is the
	 * call's (the address before it: a call may end a function) */
	while (n < max) {
		const struct vt_uw_rule *r;
		uintptr_t at = 0, was = bp;

		if (join) { /* a frame of the last walk's? sp grows in both */
			while (j < old->steps && old->s[j].sp < sp)
				j++;
			if (j == old->steps) {
				join = false;
			} else if (old->s[j].sp == sp && old->s[j].pc == pc &&
				   (!old->s[j].need_bp || old->s[j].bp == bp) &&
				   (!old->cut || n + old->n - (int)j >= max)) {
				if (same_reads(old, j))
					return take_old(u, old, nw, i, j, ip, n,
							max);
				join = false;
			}
		}
		r = rule_at(u, pc);
		if (r->kind == VT_UW_LAST) {
			cut = 0;
			break;
		}
		if (r->kind != VT_UW_SIMPLE)
			goto failed;
		cfa = (r->cfa_rbp ? bp : sp) + (uintptr_t)(intptr_t)r->cfa_off;
		if (cfa < sp + 8 || cfa > hi)
			goto failed;
		memcpy(&ra, (const void *)(cfa - 8), sizeof(ra));
		if (r->bp_off) {
			at = cfa + (uintptr_t)(intptr_t)r->bp_off;
			if (at < sp || at > hi - 8)
				goto failed;
			memcpy(&bp, (const void *)at, sizeof(bp));
		}
		if (i < VT_UW_FRAMES) {
			struct vt_uw_step *s = &nw->s[i];

			s->pc = pc;
			s->sp = sp;
			s->bp = was;
			s->cfa = cfa;
			s->ra = ra;
			s->bp_at = at;
			s->bp_val = bp;
			s->uses_bp = r->cfa_rbp;
			s->sets_bp = r->bp_off != 0;
		}
		i++;
		sp = cfa;
		if (ra < 0x4000) { /* libunwind stops there too */
			cut = 0;
			break;
		}
		ip[n++] = (void *)ra;
		pc = ra - 1;
	}
	if (i <= VT_UW_FRAMES && i > 0) {
		nw->steps = i;
		nw->n = n;
		nw->cut = cut;
		mark_need(nw, i, false);
		u->last ^= 1;
		u->kept = 1;
	}
	return n;
failed:
	u->partial = n; /* ip[0..n): the frames up to the one not walked */
	return -1;
}

#else /* not x86-64: libunwind walks */

void vt_unwind_start(void)
{
}

void vt_unwind_thread(uintptr_t addr, size_t size)
{
	(void)addr;
	(void)size;
}

void vt_unwind_modules_changed(void)
{
}

int vt_unwind(struct vt_uw *u, void **ip, int max)
{
	(void)u;
	(void)ip;
	(void)max;
	return -1;
}

#endif
