#include "linux/proclist.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libproc2/pids.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux/procfs.h"
#include "linux/selfcopy.h"

/* Why a process's smaps_rollup cannot be read, or NULL if it can. */
static const char *unreadable_reason(pid_t pid, uid_t uid)
{
	char path[64];
	int fd, e;

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		char c;
		ssize_t r = read(fd, &c, 1);

		close(fd);
		if (r > 0)
			return NULL;
	}
	/* A kernel thread's smaps_rollup is ESRCH or empty, as a zombie's:
	 * the kind of process says which, not the error. */
	e = errno;
	switch (procfs_pid_kind(pid, NULL)) {
	case PROCFS_KTHREAD:
		return "kernel thread";
	case PROCFS_ZOMBIE:
		return "zombie";
	case PROCFS_GONE:
		return "exited";
	case PROCFS_USER:
		break;
	}
	if (fd >= 0 || e == ENOENT || e == ESRCH)
		return "exiting";
	if (uid != geteuid() && geteuid() != 0)
		return "other user";
	return "not permitted";
}

/* pid's name as /proc/PID/comm holds it, its bytes as they are, into
 * name (n bytes); false when it cannot be read. libproc2's (status's Name)
 * is the kernel's escaping of it (a backslash doubled, a newline "\n"),
 * which libproc2 escapes again, every byte outside printable ASCII a '?':
 * -n NAME never matched a name of UTF-8, and --list showed it mangled. */
static bool raw_comm(pid_t pid, char *name, size_t n)
{
	char *comm;
	size_t len;

	if (procfs_read_pid_one(pid, "comm", &comm, &len) < 0)
		return false;
	while (len && comm[len - 1] == '\n')
		comm[--len] = '\0';
	snprintf(name, n, "%s", comm);
	free(comm);
	return true;
}

/* pid's command line (procfs_read_cmdline: the raw bytes, for the same
 * reason as raw_comm), malloc'd, *arg0 its first argument's length; for a
 * process without one (a kernel thread, a zombie), "[NAME]", and
 * " <defunct>" for a zombie, as ps and libproc2 show it. NULL when out of
 * memory. */
static char *raw_cmdline(pid_t pid, const char *name, bool zombie, size_t *arg0)
{
	char *cl, *small;
	size_t len;

	if (procfs_read_cmdline(pid, &cl, &len, arg0) == 0) {
		if (len) {
			/* read into 4 KiB at least */
			small = realloc(cl, len + 1);
			return small ? small : cl;
		}
		free(cl);
	}
	*arg0 = 0;
	len = strlen(name) + sizeof("[] <defunct>");
	if ((cl = malloc(len)))
		snprintf(cl, len, "[%s]%s", name, zombie ? " <defunct>" : "");
	return cl;
}

int proclist_read(struct proc_list *l, struct vms_error *err)
{
	enum pids_item items[] = { PIDS_ID_PID,	 PIDS_ID_EUID, PIDS_ID_EUSER,
				   PIDS_CMD,	 PIDS_STATE,   PIDS_VM_RSS,
				   PIDS_SMAP_PSS };
	enum { I_PID, I_EUID, I_USER, I_CMD, I_STATE, I_RSS, I_PSS };
	struct pids_info *info = NULL;
	struct pids_fetch *f;
	int i;

	memset(l, 0, sizeof(*l));
	if (procps_pids_new(&info, items, sizeof(items) / sizeof(items[0])) < 0)
		return vms_error_set(err, VMS_ERR_CAPTURE, errno,
				     "libproc2: cannot read the process list");
	/* each user's name: NSS may load a module for it */
	selfcopy_loader_begin();
	f = procps_pids_reap(info, PIDS_FETCH_TASKS_ONLY);
	selfcopy_loader_end();
	if (!f) {
		procps_pids_unref(&info);
		return vms_error_set(err, VMS_ERR_CAPTURE, errno,
				     "libproc2: cannot read /proc");
	}
	l->v = calloc((size_t)f->counts->total + 1, sizeof(*l->v));
	if (!l->v) {
		procps_pids_unref(&info);
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	}
	for (i = 0; i < f->counts->total; i++) {
		struct pids_stack *st = f->stacks[i];
		struct proc_entry *e = &l->v[l->n];

		e->pid = PIDS_VAL(I_PID, s_int, st, info);
		/* a -b fork viewer's clone: vmscope's copy, not a process
		 * to pick (nor a second one of its target's name for -n) */
		if (PIDS_VAL(I_STATE, s_ch, st, info) == 't' &&
		    procfs_vmscope_clone(e->pid))
			continue;
		e->uid = PIDS_VAL(I_EUID, u_int, st, info);
		snprintf(e->user, sizeof(e->user), "%s",
			 PIDS_VAL(I_USER, str, st, info));
		/* gone since libproc2 read it: its name as it was */
		if (!raw_comm(e->pid, e->name, sizeof(e->name)))
			snprintf(e->name, sizeof(e->name), "%s",
				 PIDS_VAL(I_CMD, str, st, info));
		e->cmdline = raw_cmdline(
			e->pid, e->name,
			PIDS_VAL(I_STATE, s_ch, st, info) == 'Z', &e->arg0);
		e->rss = (uint64_t)PIDS_VAL(I_RSS, ul_int, st, info) * 1024;
		e->pss = (uint64_t)PIDS_VAL(I_PSS, ul_int, st, info) * 1024;
		e->why = unreadable_reason(e->pid, e->uid);
		e->readable = e->why == NULL;
		if (!e->cmdline) {
			procps_pids_unref(&info);
			proclist_free(l);
			return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
					     "out of memory");
		}
		l->n++;
	}
	procps_pids_unref(&info);
	proclist_sort(l, PROCLIST_BY_PID, false);
	return 0;
}

static enum proclist_sort sort_key;

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

static int cmp_entry(const void *pa, const void *pb)
{
	const struct proc_entry *a = pa, *b = pb;
	int c = 0;

	switch (sort_key) {
	case PROCLIST_BY_NAME:
		c = strcmp(a->name, b->name);
		break;
	case PROCLIST_BY_USER:
		c = strcmp(a->user, b->user);
		break;
	case PROCLIST_BY_RSS:
		c = cmp_u64(a->rss, b->rss);
		break;
	case PROCLIST_BY_PSS:
		c = cmp_u64(a->pss, b->pss);
		break;
	case PROCLIST_BY_PID:
		break;
	}
	return c ? c : (a->pid > b->pid) - (a->pid < b->pid);
}

void proclist_sort(struct proc_list *l, enum proclist_sort by, bool reverse)
{
	size_t i;

	/* qsort has no context argument in C11; the key is set just before
	 * and only read inside this call. */
	sort_key = by;
	qsort(l->v, l->n, sizeof(*l->v), cmp_entry);
	if (reverse)
		for (i = 0; i < l->n / 2; i++) {
			struct proc_entry t = l->v[i];

			l->v[i] = l->v[l->n - 1 - i];
			l->v[l->n - 1 - i] = t;
		}
}

void proclist_free(struct proc_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].cmdline);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static struct pids_info *select_one(pid_t pid, enum pids_item *items, int n,
				    struct pids_fetch **f,
				    struct vms_error *err)
{
	struct pids_info *info = NULL;
	unsigned these = (unsigned)pid;

	if (procps_pids_new(&info, items, n) < 0) {
		vms_error_set(err, VMS_ERR_CAPTURE, errno,
			      "libproc2: cannot read process %d", (int)pid);
		return NULL;
	}
	*f = procps_pids_select(info, &these, 1, PIDS_SELECT_PID);
	if (!*f || (*f)->counts->total < 1) {
		procps_pids_unref(&info);
		procfs_errno_error(err, pid, "status", ESRCH);
		return NULL;
	}
	return info;
}

/* The executable of mm's process (a live thread of it: a main thread
 * that exited has no exe left) as readlink has it, into the arena; NULL
 * when it cannot be read or is no path. libproc2's (PIDS_EXE) has each
 * byte outside printable ASCII a '?'. -1 when out of memory. */
static int raw_exe(pid_t mm, struct arena *a, const char **out)
{
	char path[64], exe[4096];
	ssize_t k;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)mm);
	k = readlink(path, exe, sizeof(exe) - 1);
	*out = k > 0 && exe[0] == '/' ? arena_strndup(a, exe, (size_t)k) : NULL;
	return k > 0 && exe[0] == '/' && !*out ? -1 : 0;
}

int proclist_identity(pid_t pid, struct arena *a, struct vms_process *p,
		      struct vms_error *err)
{
	enum pids_item items[] = { PIDS_CMD, PIDS_ID_EUID };
	enum { I_CMD, I_EUID };
	struct pids_fetch *f;
	/* A main thread that exited has no command line or exe left: those
	 * of a live thread (the process's), its name still the leader's. */
	pid_t mm = procfs_mm_pid(pid);
	struct pids_info *info = select_one(mm, items, 2, &f, err);
	struct pids_stack *st;
	char *comm = NULL, *cl = NULL;
	size_t n, arg0;
	int oom;

	if (!info)
		return -1;
	if (procfs_check_has_mm(err, pid) < 0) {
		procps_pids_unref(&info);
		return -1;
	}
	st = f->stacks[0];
	p->pid = pid;
	p->uid = PIDS_VAL(I_EUID, u_int, st, info);
	/* /proc/PID/comm as it is: status's Name (libproc2's) doubles a
	 * backslash and turns a newline into "\n". */
	if (procfs_read_pid(pid, "comm", &comm, &n) == 0) {
		while (n && comm[n - 1] == '\n')
			comm[--n] = '\0';
		p->name = arena_strdup(a, comm);
		free(comm);
	} else {
		p->name = arena_strdup(a, PIDS_VAL(I_CMD, str, st, info));
	}
	/* the command line's bytes as they are, as the name's: libproc2's
	 * has each byte outside printable ASCII a '?' and a newline a space
	 * (escape.h escapes it where it is printed) */
	if (procfs_read_cmdline(mm, &cl, &n, &arg0) < 0)
		cl = NULL;
	p->cmdline = arena_strdup(a, cl ? cl : "");
	free(cl);
	oom = raw_exe(mm, a, &p->exe);
	procps_pids_unref(&info);
	if (!p->name || !p->cmdline || oom)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	return 0;
}

int proclist_identity_lean(pid_t pid, pid_t mm, const char *comm,
			   struct arena *a, struct vms_process *p,
			   struct vms_error *err)
{
	char *read = NULL;
	size_t n;
	int oom;

	if (!comm) {
		if (procfs_check_has_mm(err, pid) < 0)
			return -1;
		if (procfs_read_pid(pid, "comm", &read, &n) < 0)
			return procfs_errno_error(err, pid, "comm", errno);
		while (n && read[n - 1] == '\n')
			read[--n] = '\0';
		comm = read;
	}
	p->pid = pid;
	p->uid = 0;
	p->name = arena_strdup(a, comm);
	free(read);
	p->cmdline = arena_strdup(a, "");
	oom = raw_exe(mm > 0 ? mm : procfs_mm_pid(pid), a, &p->exe);
	if (!p->name || !p->cmdline || oom)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	return 0;
}

/* True when the base name of argv[0], cmdline[0, arg0) (what follows
 * its last '/', trailing ones dropped, as basename(3) has it), is name. */
static bool arg0_named(const char *cmdline, size_t arg0, const char *name)
{
	size_t b;

	while (arg0 > 1 && cmdline[arg0 - 1] == '/')
		arg0--;
	for (b = arg0; b && cmdline[b - 1] != '/'; b--)
		;
	if (b == arg0 && arg0) /* "/" */
		b--;
	return arg0 && arg0 - b == strlen(name) &&
	       memcmp(cmdline + b, name, arg0 - b) == 0;
}

int proclist_find_name(const char *name, pid_t **pids, size_t *n,
		       struct vms_error *err)
{
	struct proc_list l;
	size_t i, k = 0;

	if (proclist_read(&l, err) < 0)
		return -1;
	*pids = malloc((l.n + 1) * sizeof(**pids));
	if (!*pids) {
		proclist_free(&l);
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	}
	/* bytes against bytes: the name and argv[0] as the process has
	 * them (proclist_read), NAME as the user gave it */
	for (i = 0; i < l.n; i++) {
		const struct proc_entry *e = &l.v[i];

		if (e->pid != getpid() &&
		    (strcmp(e->name, name) == 0 ||
		     arg0_named(e->cmdline, e->arg0, name)))
			(*pids)[k++] = e->pid;
	}
	*n = k;
	proclist_free(&l);
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

size_t proclist_pids(pid_t **v)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t n = 0, cap = 0;
	pid_t *m;
	char *end;
	long pid;

	*v = NULL;
	while (d && (e = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0 || pid > INT32_MAX)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 512;
			if (!(m = realloc(*v, cap * sizeof(**v)))) {
				free(*v);
				*v = NULL;
				n = 0;
				break;
			}
			*v = m;
		}
		(*v)[n++] = (pid_t)pid;
	}
	if (d)
		closedir(d);
	if (*v)
		qsort(*v, n, sizeof(**v), cmp_pid);
	return n;
}
