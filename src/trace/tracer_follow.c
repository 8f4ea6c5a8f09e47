/* tracer_follow.c — tracer.h's following of children (--trace-children):
 * the socket the children send their files to (base/tracewire.h), each
 * file checked and taken as a process of its own, its rings read, and let
 * go once the process has ended and its rings are read to their end.
 *
 * What a child sends is the child's: the message's length and magic, the
 * file's size and seals (no shrinking: a read of it cannot fault) and
 * header are checked; its pid is the kernel's (the message's credentials),
 * its pidfd must be of that pid, and a sender of another user (vmscope not
 * root) is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "trace/tracer_priv.h"

#define TAKE_AT_ONCE 64 /* files taken at most per drain */

int tracer_follow_start(struct tracer *tr, struct vms_error *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint64_t token = tr->run * 0x9e3779b97f4a7c15ull ^ tr->start_ns;
	int one = 1, n;
	socklen_t len;

	n = snprintf(tr->sock_name, sizeof(tr->sock_name),
		     "vmscope-trace-%d-%016llx", (int)getpid(),
		     (unsigned long long)token);
	memcpy(sa.sun_path + 1, tr->sock_name, (size_t)n); /* abstract */
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			  (size_t)n);
	tr->sock =
		socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (tr->sock < 0 ||
	    setsockopt(tr->sock, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) <
		    0 ||
	    bind(tr->sock, (struct sockaddr *)&sa, len) < 0) {
		vms_error_set(err, VMS_ERR_CAPTURE, errno,
			      "cannot make the socket children's traces come "
			      "to: %s",
			      strerror(errno));
		if (tr->sock >= 0)
			close(tr->sock);
		tr->sock = -1;
		return -1;
	}
	snprintf(tr->follow_env, sizeof(tr->follow_env), "%d:%u:%llu:%llu:%s",
		 (int)getpid(), (unsigned)tr->p.hdr->consumer_pidns,
		 (unsigned long long)tr->o.sample_bytes,
		 (unsigned long long)tr->o.seed, tr->sock_name);
	return 0;
}

/* The pid a pidfd is of (its fdinfo's "Pid:"), or -1 (a process ended
 * and reaped since: it sent its message, then ended). */
static pid_t pidfd_pid(int fd)
{
	char path[64], buf[1024], *at;
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if ((f = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	at = strstr(buf, "\nPid:");
	return at ? (pid_t)strtol(at + 5, NULL, 10) : -1;
}

/* A file not followed: set pass-through, so that its process runs on
 * untraced at once rather than wait on a ring nobody reads. */
static void refuse(int fd)
{
	struct tw_header *h = mmap(NULL, sizeof(*h), PROT_READ | PROT_WRITE,
				   MAP_SHARED, fd, 0);

	if (h == MAP_FAILED)
		return;
	__atomic_store_n(&h->passthrough, TW_PASS_REFUSED, __ATOMIC_RELEASE);
	munmap(h, sizeof(*h));
}

/* Whether fd is a file of the wire's layout that cannot shrink. */
static bool file_ok(int fd)
{
	struct stat st;
	int seals = fcntl(fd, F_GET_SEALS);

	return seals >= 0 && (seals & F_SEAL_SHRINK) && fstat(fd, &st) == 0 &&
	       S_ISREG(st.st_mode) && (uint64_t)st.st_size == TW_FILE_BYTES;
}

/* Whether pidfd (-1: none) is of pid, or of a process gone. */
static bool pidfd_of(int pidfd, pid_t pid)
{
	pid_t of = pidfd < 0 ? pid : pidfd_pid(pidfd);

	return of == pid || of == -1;
}

/* A child forked, awaited until its file comes or it ends (takes pidfd;
 * past TRACER_BIRTHS it is not awaited). */
static void born(struct tracer *tr, pid_t pid, int pidfd)
{
	unsigned i;
	bool known = false;

	for (i = 0; i < tr->nkids && !known; i++) /* its file came first */
		known = tr->kids[i]->pid == pid;
	if (known || tr->nbirths == TRACER_BIRTHS || !pidfd_of(pidfd, pid)) {
		close(pidfd);
		return;
	}
	tr->births[tr->nbirths].pid = pid;
	tr->births[tr->nbirths++].pidfd = pidfd;
}

/* Birth i resolved (its file came, or it ended). */
static void birth_done(struct tracer *tr, unsigned i)
{
	close(tr->births[i].pidfd);
	tr->births[i] = tr->births[--tr->nbirths];
}

static bool pidfd_gone(int pidfd)
{
	struct pollfd pf = { pidfd, POLLIN, 0 };

	return poll(&pf, 1, 0) > 0 && (pf.revents & (POLLIN | POLLHUP));
}

static void free_proc(struct tproc *p)
{
	if (p->hdr) /* its process may run on: its rings nobody's now */
		tracer_unmap(p->hdr, p->fd, true, p->locked);
	if (p->fd >= 0)
		close(p->fd);
	if (p->pidfd >= 0)
		close(p->pidfd);
	tracer_free_maps(p);
	tracedb_free(p->db);
	tracesym_free(p->sym);
	free(p);
}

/* A child's file received: followed, or refused (the limit; out of
 * memory), or, broken, let be. Takes fd and pidfd. */
static void follow(struct tracer *tr, const struct tw_follow_msg *m,
		   const struct ucred *cr, int fd, int pidfd)
{
	struct tproc *p = NULL;
	struct tw_header *h;

	if (!file_ok(fd) || !pidfd_of(pidfd, cr->pid))
		goto close; /* not a file of the wire's: nothing to set */
	if (tr->nkids + 1 >= TW_FOLLOW_MAX)
		goto refused;
	h = mmap(NULL, TW_FILE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 0);
	if (h == MAP_FAILED)
		goto refused;
	if (h->magic != TW_MAGIC || h->version != TW_VERSION ||
	    h->slots != TW_SLOTS || h->ring_bytes != TW_RING_BYTES) {
		munmap(h, TW_FILE_BYTES);
		goto close;
	}
	if (!(p = calloc(1, sizeof(*p))) || !(p->db = tracedb_new())) {
		munmap(h, TW_FILE_BYTES);
		free(p);
		goto refused;
	}
	if (!tr->kid_sym)
		tr->kid_sym = tracesym_new();
	p->sym = tracesym_view(tr->kid_sym); /* NULL: frames without names */
	p->hdr = h;
	/* whether vmscope lives, for a child in a pid namespace of its own
	 * too (tracewire.h: consumer_lock) */
	p->locked = tracer_lock(h);
	p->fd = fd;
	p->pidfd = pidfd;
	p->pid = cr->pid;
	p->ppid = m->ppid;
	p->how = m->how == TW_FOLLOW_FORK ? TW_FOLLOW_FORK : TW_FOLLOW_EXEC;
	memcpy(p->cmd, m->cmd, sizeof(m->cmd));
	p->cmd[sizeof(m->cmd) - 1] = '\0';
	tr->kids[tr->nkids++] = p;
	return;
refused:
	refuse(fd);
	tr->not_followed++;
close:
	close(fd);
	if (pidfd >= 0)
		close(pidfd);
}

/* Takes one message from the socket: 1 taken (followed or not), 0 none.
 * closing: every file is refused (the trace ends). */
static int receive(struct tracer *tr, bool closing)
{
	struct tw_follow_msg m;
	union {
		char buf[CMSG_SPACE(4 * sizeof(int)) +
			 CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { &m, sizeof(m) };
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	struct ucred cr = { 0 };
	struct cmsghdr *c;
	int fds[4], nfds = 0, i;
	bool have_cr = false, ok;
	ssize_t n = recvmsg(tr->sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

	if (n < 0)
		return 0;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET)
			continue;
		if (c->cmsg_type == SCM_RIGHTS) {
			size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			int got[4];

			if (k > 4)
				k = 4;
			memcpy(got, CMSG_DATA(c), k * sizeof(int));
			for (i = 0; i < (int)k; i++)
				fds[nfds++] = got[i];
		} else if (c->cmsg_type == SCM_CREDENTIALS &&
			   c->cmsg_len >= CMSG_LEN(sizeof(cr))) {
			memcpy(&cr, CMSG_DATA(c), sizeof(cr));
			have_cr = true;
		}
	}
	ok = n == (ssize_t)sizeof(m) &&
	     !(mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) && have_cr &&
	     cr.pid > 0 && (cr.uid == geteuid() || geteuid() == 0) &&
	     m.magic == TW_FOLLOW_MAGIC && m.version == TW_VERSION;
	if (ok && m.how == TW_FOLLOW_COUNT && nfds == 0) {
		tr->not_followed++; /* a child of a process refused */
		return 1;
	}
	if (ok && !closing && m.how == TW_FOLLOW_BORN && nfds == 1 &&
	    m.child > 0) {
		born(tr, m.child, fds[0]);
		return 1;
	}
	ok = ok && !closing && (nfds == 1 || nfds == 2) &&
	     m.how != TW_FOLLOW_BORN;
	if (ok) {
		for (i = 0; i < (int)tr->nbirths; i++)
			if (tr->births[i].pid == cr.pid)
				birth_done(tr, (unsigned)i--);
		follow(tr, &m, &cr, fds[0], nfds == 2 ? fds[1] : -1);
		return 1;
	}
	if (closing && nfds >= 1 && file_ok(fds[0])) {
		refuse(fds[0]);
		tr->not_followed++;
	}
	for (i = 0; i < nfds; i++)
		close(fds[i]);
	return 1;
}

/* Whether a child has ended: its pidfd readable, or (no pidfd) its pid
 * gone. */
static bool gone(const struct tproc *p)
{
	if (p->pidfd >= 0)
		return pidfd_gone(p->pidfd);
	return kill(p->pid, 0) < 0 && errno == ESRCH;
}

/* An ended child's file, read to its end, let go: what the reading held
 * besides its aggregation and names. */
static void let_go(struct tproc *p)
{
	p->dropped = __atomic_load_n(&p->hdr->dropped, __ATOMIC_ACQUIRE);
	p->dropped_bytes =
		__atomic_load_n(&p->hdr->dropped_bytes, __ATOMIC_ACQUIRE);
	p->dropped_threads =
		__atomic_load_n(&p->hdr->dropped_threads, __ATOMIC_ACQUIRE);
	/* ended: a fork child of it may map the file still, its rings
	 * nobody's */
	tracer_unmap(p->hdr, p->fd, true, p->locked);
	p->hdr = NULL;
	close(p->fd);
	p->fd = -1;
	if (p->pidfd >= 0)
		close(p->pidfd);
	p->pidfd = -1;
	tracer_free_maps(p);
}

long tracer_follow_drain(struct tracer *tr, struct vms_error *err)
{
	long got = 0, n;
	unsigned i;

	for (i = 0; i < TAKE_AT_ONCE && receive(tr, false); i++)
		;
	for (i = 0; i < tr->nbirths; i++) /* ended without a file */
		if (pidfd_gone(tr->births[i].pidfd))
			birth_done(tr, i--);
	for (i = 0; i < tr->nkids; i++) {
		struct tproc *p = tr->kids[i];
		bool ended;

		if (!p->hdr)
			continue;
		/* seen ended before its rings are read: all it wrote is
		 * there */
		ended = p->reaped || gone(p);
		if (ended && !p->reaped) {
			p->reaped = true;
			p->end_ns = tracer_now(tr);
		}
		do {
			if ((n = tracer_drain_proc(tr, p, err)) < 0)
				return -1;
			got += n;
		} while (ended && n > 0);
		if (ended)
			let_go(p);
	}
	return got;
}

void tracer_follow_free(struct tracer *tr)
{
	unsigned i;

	if (tr->sock >= 0) {
		/* files sent and not taken: their processes run on
		 * untraced, never waiting on a ring nobody reads */
		while (receive(tr, true))
			;
		close(tr->sock);
		tr->sock = -1;
	}
	while (tr->nbirths)
		birth_done(tr, 0);
	for (i = 0; i < tr->nkids; i++) {
		if (tr->kids[i]->hdr)
			__atomic_store_n(&tr->kids[i]->hdr->passthrough,
					 TW_PASS_ENDED, __ATOMIC_RELEASE);
		free_proc(tr->kids[i]);
	}
	tr->nkids = 0;
	tracesym_free(tr->kid_sym); /* after its views */
	tr->kid_sym = NULL;
}

void tracer_follow_proc(const struct tracer *tr, unsigned i,
			struct vms_trace_proc *out)
{
	const struct tproc *p = tr->kids[i - 1];

	memset(out, 0, sizeof(*out));
	out->pid = p->pid;
	out->ppid = p->ppid;
	out->how = p->how == TW_FOLLOW_FORK ? "fork" : "exec";
	out->command = p->cmd;
	out->ended = p->reaped || gone(p);
}

int tracer_follow_report(struct tracer *tr, unsigned i, struct arena *a,
			 struct vms_trace_report *out, struct vms_error *err)
{
	struct tproc *p = tr->kids[i - 1];

	memset(out, 0, sizeof(*out));
	if (tracedb_report_kept(p->db, tracedb_marks(p->db) + 1,
				p->reaped ? p->end_ns : tracer_now(tr), p->sym,
				a, out) < 0)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory for the trace report");
	tracer_report_fields(tr, p, out);
	return 0;
}

bool tracer_follow_ended(const struct tracer *tr)
{
	struct pollfd pf = { tr->sock, POLLIN, 0 };
	unsigned i;

	if (tr->sock >= 0 && poll(&pf, 1, 0) > 0)
		return false; /* a file waits to be taken */
	for (i = 0; i < tr->nbirths; i++)
		if (!pidfd_gone(tr->births[i].pidfd))
			return false; /* a child made, its file to come */
	for (i = 0; i < tr->nkids; i++)
		if (!tr->kids[i]->reaped && !gone(tr->kids[i]))
			return false;
	return true;
}
