/* follow.c — the tracer library's following of children (--trace-children,
 * tracewire.h says the protocol): a process the library starts in with
 * TW_FOLLOW_ENV and no file of vmscope's (a child exec'd), and a child
 * fork() makes of a followed process, make a shared file of their own and
 * send it to vmscope's socket, then record into it.
 *
 * Everything here is system calls on memory of the library's own (no
 * malloc, no stdio, no lock): it runs in the library's start and in a
 * forked child's pthread_atfork handler. errno is left as it was; every
 * descriptor taken is closed before it returns.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "vmstrace.h"

#define SEND_TRIES 200 /* ms at most a message waits for room */

static struct {
	bool on;
	int32_t consumer;
	uint32_t consumer_pidns;
	uint64_t sample_bytes, seed;
	struct sockaddr_un addr;
	socklen_t addr_len;
} fw;

static bool parse_u64(const char **s, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = *s;

	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (*p != ':')
		return false;
	*s = p + 1;
	*out = v;
	return true;
}

int vt_follow_parse(const char *e)
{
	uint64_t consumer, pidns, sample, seed;
	size_t n;

	if (!e || !parse_u64(&e, &consumer) || !parse_u64(&e, &pidns) ||
	    !parse_u64(&e, &sample) || !parse_u64(&e, &seed) || consumer == 0 ||
	    consumer > INT32_MAX || pidns > UINT32_MAX)
		return -1;
	n = strlen(e);
	if (n == 0 || n + 1 > sizeof(fw.addr.sun_path))
		return -1;
	memset(&fw.addr, 0, sizeof(fw.addr));
	fw.addr.sun_family = AF_UNIX;
	memcpy(fw.addr.sun_path + 1, e, n); /* abstract: a NUL first */
	fw.addr_len =
		(socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	fw.consumer = (int32_t)consumer;
	fw.consumer_pidns = (uint32_t)pidns;
	fw.sample_bytes = sample;
	fw.seed = seed;
	fw.on = true;
	return 0;
}

bool vt_following(void)
{
	return fw.on;
}

/* The command line, its arguments joined by spaces, cut to fit. */
static void cmdline(char *out, size_t n)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t got = 0, r;
	ssize_t i;

	out[0] = '\0';
	if (fd < 0)
		return;
	while ((size_t)got < n - 1 &&
	       (r = read(fd, out + got, n - 1 - (size_t)got)) > 0)
		got += r;
	close(fd);
	if (got < 0)
		got = 0;
	while (got > 0 && out[got - 1] == '\0')
		got--;
	for (i = 0; i < got; i++)
		if (out[i] == '\0')
			out[i] = ' ';
	out[got] = '\0';
}

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Sends the message with the file's descriptor and the process's pidfd
 * (when the kernel has pidfd_open); fd -1: without a file (the pidfd
 * alone for TW_FOLLOW_BORN, nothing for TW_FOLLOW_COUNT). */
static bool send_file(int fd, unsigned how, pid_t child)
{
	struct tw_follow_msg m;
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { &m, sizeof(m) };
	struct msghdr mh = { .msg_name = &fw.addr,
			     .msg_namelen = fw.addr_len,
			     .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = u.buf };
	struct cmsghdr *c;
	int fds[2] = { fd, -1 }, nfds = 0, s, pidfd = -1, tries;
	ssize_t sent;

	memset(&m, 0, sizeof(m));
	m.magic = TW_FOLLOW_MAGIC;
	m.version = TW_VERSION;
	m.how = how;
	m.ppid = (int32_t)getppid();
	m.child = (int32_t)child;
	cmdline(m.cmd, sizeof(m.cmd));
	if (fd >= 0 || how == TW_FOLLOW_BORN)
		pidfd = (int)syscall(SYS_pidfd_open, child ? child : getpid(),
				     0);
	if (how == TW_FOLLOW_BORN && pidfd < 0)
		return false; /* no pidfd: vmscope could not see its end */
	if (fd >= 0)
		fds[nfds++] = fd;
	if (pidfd >= 0)
		fds[nfds++] = pidfd;
	memset(u.buf, 0, sizeof(u.buf));
	if (nfds) {
		mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, (size_t)nfds * sizeof(int));
	} else {
		mh.msg_control = NULL;
	}
	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	sent = s < 0 ? -1 : sendmsg(s, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	/* vmscope's queue full (net.unix.max_dgram_qlen, 10 by default: a
	 * vmscope slow to read, many processes at once): tried again for
	 * SEND_TRIES ms at most, never longer (a message lost is a process
	 * neither followed nor counted) */
	for (tries = 0; sent < 0 && errno == EAGAIN && tries < SEND_TRIES;
	     tries++) {
		struct timespec ms = { 0, 1000000 };

		nanosleep(&ms, NULL);
		sent = sendmsg(s, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	}
	if (s >= 0)
		close(s);
	if (pidfd >= 0)
		close(pidfd);
	return sent == (ssize_t)sizeof(m);
}

struct tw_header *vt_follow_file(unsigned how)
{
	int saved = errno, fd;
	struct tw_header *h = NULL;

	if (!fw.on)
		return NULL;
	if (how == TW_FOLLOW_COUNT) {
		send_file(-1, how, 0);
		errno = saved;
		return NULL;
	}
	fd = memfd_create("vmscope-trace", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		goto out;
	if (ftruncate(fd, (off_t)TW_FILE_BYTES) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0)
		goto out;
	h = next_mmap(NULL, TW_FILE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED,
		      fd, 0);
	if (h == MAP_FAILED) {
		h = NULL;
		goto out;
	}
	h->magic = TW_MAGIC;
	h->version = TW_VERSION;
	h->slots = TW_SLOTS;
	h->ring_bytes = TW_RING_BYTES;
	h->max_frames = TW_MAX_FRAMES;
	h->consumer_pid = fw.consumer;
	h->consumer_pidns = fw.consumer_pidns;
	h->sample_bytes = fw.sample_bytes;
	h->seed = fw.seed;
	h->start_ns = mono_ns();
	h->follow_children = 1;
	if (!send_file(fd, how, 0)) {
		next_munmap(h, TW_FILE_BYTES);
		h = NULL;
	}
out:
	if (fd >= 0)
		close(fd);
	errno = saved;
	return h;
}

/* pthread_atfork's child handler: a forked child of a followed process
 * follows with a file of its own, made at its first call (record.c:
 * most children that exec call nothing before, and are followed as the
 * program they exec), else records nothing (as without --trace-children:
 * `here` wiped, or vt_forked). */
static void follow_forked(void)
{
	if (vt_parent_traced()) /* else the child records nothing */
		vt_fork_pending(false);
	else if (vt_parent_refused()) /* past the limit: counted */
		vt_fork_pending(true);
}

void vt_follow_born(pid_t child, char *const *envp)
{
	int saved = errno;
	size_t n = strlen(TW_FOLLOW_ENV);
	bool follows = envp == NULL;

	if (!fw.on || child <= 0 || !vt_parent_traced())
		return;
	for (; envp && *envp && !follows; envp++)
		follows = strncmp(*envp, TW_FOLLOW_ENV, n) == 0 &&
			  (*envp)[n] == '=';
	if (follows)
		send_file(-1, TW_FOLLOW_BORN, child);
	errno = saved;
}

void vt_follow_atfork(void)
{
	if (fw.on)
		pthread_atfork(NULL, NULL, follow_forked);
}
