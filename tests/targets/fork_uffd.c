/* fork_uffd — a target that watches its own userfaultfd, as CRIU's
 * lazy-pages and QEMU's post-copy migration do: a fork injected into it
 * would wait in the kernel for its monitor thread (dup_userfaultfd), which
 * a freeze has stopped.
 *
 * argv[1] mode:
 *   fork      a userfaultfd with UFFD_FEATURE_EVENT_FORK, one region
 *             registered for missing pages, a monitor thread that reads
 *             its events (a fork event's new descriptor is closed and
 *             counted; a page fault is answered with a zero page)
 *   nofork    the same without UFFD_FEATURE_EVENT_FORK (a fork does not
 *             wait for the monitor)
 *   elsewhere fork events asked for, the descriptor handed to a helper
 *             process (a child of this one) that monitors it, and closed
 *             here: its features cannot be read from this process
 *   twofd     "nofork" on the region, and "elsewhere" on a second one: the
 *             features this process shows say nothing of fork events,
 *             but a fork waits for the helper (the test stops it)
 * The main thread touches a page of the region every ms (a heartbeat).
 * Prints "ready helper=PID" once set up (0: no helper). stdin lines:
 *   status  -> "status forks=N faults=N beats=N"
 *   q       exit
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGES 64

static _Atomic long forks, faults, beats;
static char *region, *region2;
static long pagesz;
static pid_t helper_pid;

static int make_uffd(unsigned long long features)
{
	struct uffdio_api api = { .api = UFFD_API, .features = features };
	int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);

#ifdef UFFD_USER_MODE_ONLY
	/* unprivileged, with vm.unprivileged_userfaultfd=0: user-mode
	 * faults only (Linux 5.11), which is all this target needs */
	if (fd < 0 && errno == EPERM)
		fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK |
						   UFFD_USER_MODE_ONLY);
#endif
	if (fd < 0) {
		fd = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
		if (fd >= 0) {
			int u = ioctl(fd, USERFAULTFD_IOC_NEW,
				      O_CLOEXEC | O_NONBLOCK);

			close(fd);
			fd = u;
		}
	}
	if (fd < 0 || ioctl(fd, UFFDIO_API, &api) < 0) {
		/* not permitted to this user (fork events need
		 * CAP_SYS_PTRACE): the hazard cannot be built here; the
		 * test reads this and skips the case with the reason */
		if (errno == EPERM) {
			printf("ready unsupported: %s: %s\n",
			       fd < 0 ? "userfaultfd" : "UFFDIO_API",
			       strerror(errno));
			exit(0);
		}
		perror(fd < 0 ? "userfaultfd" : "UFFDIO_API");
		exit(2);
	}
	return fd;
}

static void register_region(int fd, char *at)
{
	struct uffdio_register reg = {
		.range = { (unsigned long)at, PAGES * pagesz },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};

	if (ioctl(fd, UFFDIO_REGISTER, &reg) < 0) {
		perror("UFFDIO_REGISTER");
		exit(2);
	}
}

/* Serves fd's events for ever. */
static void monitor(int fd)
{
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		struct uffd_msg m;

		if (poll(&p, 1, -1) < 0)
			continue;
		if (read(fd, &m, sizeof(m)) != sizeof(m))
			continue;
		if (m.event == UFFD_EVENT_FORK) {
			close((int)m.arg.fork.ufd);
			forks++;
		} else if (m.event == UFFD_EVENT_PAGEFAULT) {
			struct uffdio_zeropage z = {
				.range = { m.arg.pagefault.address &
						   ~(unsigned long long)(pagesz -
									 1),
					   pagesz },
			};

			ioctl(fd, UFFDIO_ZEROPAGE, &z);
			faults++;
		}
	}
}

static void *monitor_thread(void *a)
{
	monitor((int)(long)a);
	return NULL;
}

static void *beat_thread(void *a)
{
	long i = 0;

	(void)a;
	for (;;) {
		struct timespec ts = { 0, 1000000 };

		/* the first touch of each page is a fault the monitor
		 * answers; after that, a plain write */
		region[(i++ % PAGES) * pagesz] = 1;
		beats++;
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* Sends fd over sock (SCM_RIGHTS). */
static void send_fd(int sock, int fd)
{
	char c = 0;
	struct iovec iov = { &c, 1 };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = { 0 };
	struct cmsghdr *cm;

	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = u.buf;
	mh.msg_controllen = sizeof(u.buf);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	if (sendmsg(sock, &mh, 0) != 1) {
		perror("sendmsg");
		exit(2);
	}
}

static int recv_fd(int sock)
{
	char c;
	struct iovec iov = { &c, 1 };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = { 0 };
	int fd = -1;

	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = u.buf;
	mh.msg_controllen = sizeof(u.buf);
	if (recvmsg(sock, &mh, 0) == 1 && CMSG_FIRSTHDR(&mh))
		memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&mh)), sizeof(int));
	return fd;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "fork";
	pthread_t th;
	char line[64];
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	pagesz = sysconf(_SC_PAGESIZE);
	region = mmap(NULL, PAGES * pagesz, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	region2 = mmap(NULL, PAGES * pagesz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED || region2 == MAP_FAILED)
		return 2;
	if (strcmp(mode, "elsewhere") == 0 || strcmp(mode, "twofd") == 0) {
		int sv[2];
		pid_t helper;

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
			return 2;
		helper = fork();
		if (helper == 0) {
			close(sv[0]);
			prctl(PR_SET_PDEATHSIG, SIGKILL); /* dies with it */
			fd = recv_fd(sv[1]);
			if (fd < 0)
				_exit(2);
			monitor(fd);
		}
		close(sv[1]);
		fd = make_uffd(UFFD_FEATURE_EVENT_FORK);
		register_region(fd, mode[0] == 't' ? region2 : region);
		send_fd(sv[0], fd);
		close(fd);
		helper_pid = helper;
	}
	if (strcmp(mode, "elsewhere") != 0) {
		fd = make_uffd(strcmp(mode, "fork") == 0
				       ? UFFD_FEATURE_EVENT_FORK
				       : 0);
		register_region(fd, region);
		pthread_create(&th, NULL, monitor_thread, (void *)(long)fd);
	}
	pthread_create(&th, NULL, beat_thread, NULL);
	while (beats < PAGES) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}
	printf("ready helper=%d\n", (int)helper_pid);
	while (fgets(line, sizeof(line), stdin)) {
		if (strncmp(line, "status", 6) == 0)
			printf("status forks=%ld faults=%ld beats=%ld\n",
			       (long)forks, (long)faults, (long)beats);
		else if (line[0] == 'q')
			break;
	}
	return 0;
}
