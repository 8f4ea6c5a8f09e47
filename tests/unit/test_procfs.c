/* test_procfs.c — the pure parsers of procfs.c: status values, the sp
 * of /proc/PID/task/TID/syscall and the joining of /proc/PID/cmdline, on
 * crafted buffers and on this process's own files; a thread's process
 * (procfs_tgid). */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "linux/procfs.h"
#include "tap.h"

static long long sv(const char *buf, const char *key)
{
	return procfs_status_value(buf, strlen(buf), key);
}

static void test_status(void)
{
	static const char st[] = "Name:\tcat\n"
				 "VmPeak:\t    8 kB\n"
				 "VmRSSx:\t   99 kB\n"
				 "VmRSS:\t  1234 kB\n"
				 "Threads:\t3\n"
				 "Empty:\t\n"
				 "NoUnit:    77\n"
				 " VmLck:\t5 kB\n"
				 "Last:\t12 kB";

	ok(sv(st, "VmRSS") == 1234 * 1024, "status: kB value in bytes");
	ok(sv(st, "VmPeak") == 8 * 1024, "status: first line");
	ok(sv(st, "Threads") == 3 && sv(st, "NoUnit") == 77,
	   "status: values without a unit as they are");
	ok(sv(st, "Last") == 12 * 1024, "status: last line without newline");
	ok(sv(st, "Vm") == -1 && sv(st, "VmRSSxx") == -1,
	   "status: a key is matched whole, not as a prefix");
	ok(sv(st, "Missing") == -1, "status: missing key is -1");
	ok(sv(st, "Empty") == -1 && sv(st, "Name") == -1,
	   "status: a value that is not a number is -1");
	ok(sv(st, "VmLck") == -1, "status: keys only at the start of a line");
	ok(procfs_status_value(st, 10, "VmPeak") == -1,
	   "status: nothing past len is read");
	ok(procfs_status_value("", 0, "VmRSS") == -1, "status: empty buffer");
	ok(sv("Big: 99999999999999999999999 kB\n", "Big") == -1 &&
		   sv("Big: 9223372036854775807 kB\n", "Big") == -1,
	   "status: values that overflow are -1, not wrapped");
	ok(sv("Max: 9007199254740991 kB\n", "Max") ==
		   9007199254740991LL * 1024,
	   "status: the largest kB value that fits in bytes");
}

static int sp(const char *s, uint64_t *v)
{
	return procfs_syscall_sp_parse(s, strlen(s), v);
}

static int pfd[2];
static volatile pid_t blocked_tid;

static void *blocked(void *arg)
{
	char c;

	(void)arg;
	blocked_tid = gettid();
	return read(pfd[0], &c, 1) == 1 ? NULL : arg;
}

/* A thread blocked in read(): its syscall file has a sp inside its own
 * stack (we know that stack: it holds a local of that thread). */
static void test_syscall_live(void)
{
	pthread_t t;
	pthread_attr_t at;
	size_t ssize = 0;
	void *saddr = NULL;
	char name[64], *buf = NULL;
	size_t len = 0;
	uint64_t v = 0;
	int i, got = -1;

	if (pipe(pfd) < 0 || pthread_create(&t, NULL, blocked, NULL) != 0) {
		ok(0, "syscall: start a blocked thread");
		return;
	}
	pthread_getattr_np(t, &at);
	pthread_attr_getstack(&at, &saddr, &ssize);
	pthread_attr_destroy(&at);
	/* Wait until it is in read() (the file says "running" or another
	 * call before that). */
	for (i = 0; i < 400 && got != 0; i++) {
		usleep(5000);
		free(buf);
		buf = NULL;
		snprintf(name, sizeof(name), "task/%d/syscall",
			 (int)blocked_tid);
		if (procfs_read_pid(getpid(), name, &buf, &len) == 0 &&
		    strncmp(buf, "0 ", 2) == 0)
			got = procfs_syscall_sp_parse(buf, len, &v);
	}
	ok(got == 0 && v >= (uint64_t)(uintptr_t)saddr &&
		   v < (uint64_t)(uintptr_t)saddr + ssize,
	   "syscall: sp of a thread blocked in read() lies in its stack "
	   "(%s)",
	   buf ? strtok(buf, "\n") : "unreadable");
	free(buf);
	if (write(pfd[1], "x", 1) != 1)
		ok(0, "syscall: wake the thread");
	pthread_join(t, NULL);
	close(pfd[0]);
	close(pfd[1]);
}

static void test_syscall(void)
{
	uint64_t v = 1;
	char big[600];

	ok(sp("0 0x3 0x7ffd0000 0x1 0x0 0x0 0x0 0x7ffc12345678 0x7f00aabb\n",
	      &v) == 0 && v == 0x7ffc12345678ull,
	   "syscall: blocked form, sp is the 8th field");
	ok(sp("-1 0x7ffc00001000 0x55550000abcd\n", &v) == 0 &&
		   v == 0x7ffc00001000ull,
	   "syscall: not-in-a-call form, sp is the 2nd field");
	v = 1;
	ok(sp("running\n", &v) == -1 && v == 1, "syscall: running is -1");
	ok(sp("", &v) == -1, "syscall: empty is -1");
	ok(sp("-1 7ffc00001000 0x1\n", &v) == -1,
	   "syscall: sp without 0x is -1");
	ok(sp("-1 0xzz 0x1\n", &v) == -1 && sp("-1 0x 0x1", &v) == -1,
	   "syscall: sp that is not hex is -1");
	ok(sp("-1 0x1 0x2 0x3\n", &v) == -1,
	   "syscall: a wrong number of fields is -1");
	ok(sp("-1 0x1ffffffffffffffff 0x1\n", &v) == -1,
	   "syscall: sp wider than 64 bits is -1");
	memset(big, ' ', sizeof(big));
	memcpy(big, "-1 0x1000 0x2", 13);
	ok(procfs_syscall_sp_parse(big, sizeof(big), &v) == -1,
	   "syscall: an over-long buffer is -1");
	ok(procfs_syscall_sp_parse("-1 0x1000 0x2 trailing", 13, &v) == 0 &&
		   v == 0x1000,
	   "syscall: only len bytes are read");
}

/* The mapping covering an address, by PROCMAP_QUERY, against the text of
 * /proc/self/maps read here. The data page is kept its own mapping whatever
 * the kernel merges: five pages reserved PROT_NONE, the second made
 * read-write between PROT_NONE pages of our own (a mapping merges only
 * with neighbours of the same protection), the fourth unmapped inside the
 * reservation (nothing else maps there: no other thread runs). */
static void test_vma_at(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *res = mmap(NULL, 5 * (size_t)pg, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *page = res + pg, *hole = res + 3 * pg;
	uint64_t start, end, code = (uint64_t)(uintptr_t)&test_vma_at;
	uint64_t lo = 0, hi = 0;
	bool exec = false;
	char line[512];
	FILE *f;
	int got;

	if (res == MAP_FAILED ||
	    mprotect(page, (size_t)pg, PROT_READ | PROT_WRITE) != 0 ||
	    munmap(hole, (size_t)pg) != 0) {
		ok(0, "vma_at: a mapping to look at");
		return;
	}
	page[0] = 1; /* touched: a page of its own, not only reserved */
	got = procfs_vma_at(getpid(), code, &start, &end, &exec);
	if (got < 0) {
		printf("ok - vma_at # SKIP no PROCMAP_QUERY in this kernel\n");
		munmap(res, 5 * (size_t)pg);
		return;
	}
	f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long a, b;

		if (sscanf(line, "%llx-%llx", &a, &b) == 2 && a <= code &&
		    code < b) {
			lo = a;
			hi = b;
		}
	}
	if (f)
		fclose(f);
	ok(got == 1 && exec && start == lo && end == hi,
	   "vma_at: this function's mapping, executable, as maps has it");
	got = procfs_vma_at(getpid(), (uint64_t)(uintptr_t)page, &start, &end,
			    &exec);
	ok(got == 1 && !exec && start == (uint64_t)(uintptr_t)page &&
		   end == start + (uint64_t)pg,
	   "vma_at: a data page between guard pages, not executable, its "
	   "own bounds");
	got = procfs_vma_at(getpid(), (uint64_t)(uintptr_t)(page + pg - 1),
			    &start, &end, &exec);
	ok(got == 1 && start == (uint64_t)(uintptr_t)page,
	   "vma_at: the page's last byte is in the same mapping");
	ok(procfs_vma_at(getpid(), (uint64_t)(uintptr_t)hole, &start, &end,
			 &exec) == 0,
	   "vma_at: an address nothing maps: 0");
	ok(procfs_vma_at(0x7ffffffe, code, &start, &end, &exec) < 0,
	   "vma_at: no such process: -1");
	munmap(res, 5 * (size_t)pg);
}

/* procfs_read_one reads what procfs_read_file does: a record of the
 * kernel's (a short read ends it), and a regular file past the first
 * read's room (full reads go on). */
static void test_read_one(void)
{
	char path[] = "/tmp/vmstest-procfs-XXXXXX", *a = NULL, *b = NULL;
	size_t na = 0, nb = 0, i;
	int fd = mkstemp(path);
	bool same;

	ok(procfs_read_one("/proc/self/status", &a, &na) == 0 &&
		   procfs_read_file("/proc/self/status", &b, &nb) == 0 &&
		   na > 100 && memmem(a, na, "\nVmRSS:", 7) &&
		   memmem(a, na, "\nThreads:", 9),
	   "read_one: this process's status, whole (%zu and %zu bytes)", na,
	   nb);
	free(a);
	free(b);
	a = b = NULL;
	ok(fd >= 0, "read_one: a file to read");
	if (fd < 0)
		return;
	for (i = 0; i < 10000; i++)
		if (write(fd, &"0123456789abcdef"[i % 16], 1) != 1)
			break;
	close(fd);
	same = procfs_read_one(path, &a, &na) == 0 &&
	       procfs_read_file(path, &b, &nb) == 0 && na == 10000 &&
	       nb == 10000 && memcmp(a, b, na) == 0 && a[na] == '\0';
	ok(same, "read_one: a file past one read's room, whole (%zu bytes)",
	   na);
	free(a);
	free(b);
	unlink(path);
	ok(procfs_read_one("/proc/self/no-such-file", &a, &na) < 0,
	   "read_one: no such file: -1");
}

static size_t join(char *buf, size_t len, size_t *arg0)
{
	return procfs_cmdline_join(buf, len, arg0);
}

/* /proc/PID/cmdline's arguments as one string: its bytes as they are
 * (UTF-8, controls, a byte that is not UTF-8: escaped where printed),
 * NUL-separated arguments joined by a space, an empty one kept. */
static void test_cmdline(void)
{
	char a[] = "/bin/x y\0h\xc3\xa9llo\0\0a\nb\x1b[31m\xff\0";
	char b[] = "only";
	char c[] = "\0\0";
	char d[] = "cut\0at the b";
	char raw[4096], *buf = NULL;
	size_t n, arg0, len, i, a0;
	FILE *f;

	n = join(a, sizeof(a) - 1, &arg0);
	ok(n == sizeof(a) - 2 && arg0 == 8 &&
		   strcmp(a, "/bin/x y h\xc3\xa9llo  a\nb\x1b[31m\xff") == 0,
	   "cmdline: joined by spaces, bytes kept, argv[0] 8 bytes (%zu)",
	   arg0);
	ok(join(b, 4, &arg0) == 4 && arg0 == 4 && strcmp(b, "only") == 0,
	   "cmdline: no NUL at its end (a process that rewrote it)");
	ok(join(c, 2, &arg0) == 0 && arg0 == 0 && c[0] == '\0',
	   "cmdline: NULs only: empty");
	ok(join(d, sizeof(d) - 1, &arg0) == sizeof(d) - 1 && arg0 == 3 &&
		   strcmp(d, "cut at the b") == 0,
	   "cmdline: an argument cut short (the bound) kept as far as read");

	/* this process's own: as /proc/self/cmdline, NULs made spaces */
	f = fopen("/proc/self/cmdline", "rb");
	ok(f && procfs_read_cmdline(getpid(), &buf, &n, &arg0) == 0,
	   "cmdline: this process's read");
	if (f && buf) {
		len = fread(raw, 1, sizeof(raw) - 1, f);
		raw[len] = '\0';
		a0 = strlen(raw);
		while (len && raw[len - 1] == '\0')
			len--;
		for (i = 0; i < len; i++)
			if (!raw[i])
				raw[i] = ' ';
		ok(n == len && memcmp(buf, raw, len) == 0 && buf[n] == '\0' &&
			   arg0 == a0,
		   "cmdline: this process's, joined (%zu bytes)", n);
	}
	if (f)
		fclose(f);
	free(buf);
}

static pthread_barrier_t tgid_seen;

static void *tgid_thread(void *arg)
{
	*(pid_t *)arg = gettid();
	pthread_barrier_wait(&tgid_seen);
	pthread_barrier_wait(&tgid_seen);
	return NULL;
}

/* A thread's id (which /proc/TID reads as if it were a process) and the
 * process it belongs to. */
static void test_tgid(void)
{
	pthread_t t;
	pid_t tid = 0, gone = 4194304;

	pthread_barrier_init(&tgid_seen, NULL, 2);
	if (pthread_create(&t, NULL, tgid_thread, &tid) != 0) {
		ok(0, "tgid: a thread to ask about");
		return;
	}
	pthread_barrier_wait(&tgid_seen);
	ok(tid != getpid() && procfs_tgid(tid) == getpid(),
	   "tgid: a thread's id gives its process (%d of %d)", (int)tid,
	   (int)getpid());
	pthread_barrier_wait(&tgid_seen);
	pthread_join(t, NULL);
	pthread_barrier_destroy(&tgid_seen);
	ok(procfs_tgid(getpid()) == getpid(), "tgid: a process's is itself");
	while (gone > 1 && procfs_pid_exists(gone))
		gone--;
	ok(procfs_tgid(gone) == 0, "tgid: no such task: 0");
}

int main(void)
{
	test_cmdline();
	test_tgid();
	test_read_one();
	test_vma_at();
	test_status();
	test_syscall();
	test_syscall_live();
	return tap_done();
}
