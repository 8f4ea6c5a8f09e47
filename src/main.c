/* main.c — the command line: parse options, pick a sampler, run the viewer
 * or a batch export. The one file that knows both the engine and the UI, and
 * the only one that prints errors and decides the exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../ui/ui.h"
#include "diff.h"
#include "escape.h"
#include "export.h"
#include "outbuf.h"
#include "pipeline.h"
#include "procfs.h"
#include "proclist.h"
#include "sampler.h"
#include "selfcopy.h"

#ifndef VMSCOPE_VERSION
#define VMSCOPE_VERSION "0.1.0"
#endif

/* The -e line and one line per format, from the exporter registry. */
static void export_usage(FILE *f)
{
	char names[128];
	size_t i;

	fprintf(f,
		"  -e, --export=%s\n"
		"                             print a full export and exit:\n",
		export_names(names, sizeof(names), "|"));
	for (i = 0; vms_exporters[i]; i++)
		if (vms_exporters[i]->listed)
			fprintf(f, "                               %-6s %s\n",
				vms_exporters[i]->name, vms_exporters[i]->help);
}

static void usage(FILE *f)
{
	fputs("usage: vmscope [OPTIONS] [PID]\n"
	      "       vmscope [OPTIONS] -n NAME\n"
	      "       vmscope [OPTIONS] -- CMD [ARGS...]\n"
	      "\n"
	      "A virtual-memory map of a Linux process, in the style of VMMap.\n"
	      "Without a PID, NAME or CMD it opens the process picker.\n"
	      "\n"
	      "  -b, --backend=pss|fork     sampler (default pss: reads smaps,\n"
	      "                             never stops the target unless\n"
	      "                             --freeze; fork: a copy-on-write\n"
	      "                             clone, frozen for milliseconds)\n"
	      "  -F, --freeze               pss: stop the target while its\n"
	      "                             counters are read (consistent,\n"
	      "                             exact figures)\n"
	      "  -s, --summary              print the text summary and exit\n",
	      f);
	export_usage(f);
	fputs("  -o, --output=FILE          write the summary/export to FILE\n"
	      "                             (- is standard output; a regular\n"
	      "                             file is replaced atomically and\n"
	      "                             keeps its mode; a FIFO or device\n"
	      "                             is written into; a symlink kept)\n"
	      "  -n, --name=NAME            the process named NAME\n"
	      "      --bytes                sizes in exact bytes in the text\n"
	      "                             summary and export (default: K,\n"
	      "                             M, G, T, each 1024 of the one\n"
	      "                             before)\n"
	      "      --delay=SECONDS        with -- CMD: wait this long after\n"
	      "                             starting CMD before the capture\n"
	      "                             (default 0.5)\n"
	      "  -t, --theme=NAME|PATH      colour theme of the viewer\n"
	      "      --list                 list processes (PID, user, name,\n"
	      "                             RSS, PSS) and exit\n"
	      "      --sort=pid|name|user|rss|pss\n"
	      "                             order of --list (default pss,\n"
	      "                             largest first)\n"
	      "  -w, --save=FILE            save the snapshot to FILE (written\n"
	      "                             as -o writes); with -s or -e also\n"
	      "                             print what was saved\n"
	      "  -l, --load=FILE            open a saved snapshot (with -s or\n"
	      "                             -e: print it)\n"
	      "  -d, --diff A B             compare two snapshots, each a PID\n"
	      "                             (captured now) or a saved file\n"
	      "                             (./123 for a file named 123):\n"
	      "                             side by side in the viewer, or\n"
	      "                             printed with -s or -e\n"
	      "      --watch=SECONDS        a snapshot every SECONDS: in the\n"
	      "                             viewer each joins the timeline\n"
	      "                             (T); with -w DIR each is saved\n"
	      "                             in DIR (TIME-pidPID.vms, names\n"
	      "                             that sort by time); with -s or -e\n"
	      "                             each is printed (-o: the file is\n"
	      "                             replaced each time)\n"
	      "      --count=N              with --watch: N snapshots, then\n"
	      "                             exit (default: until interrupted)\n"
	      "  -h, --help                 this help\n"
	      "  -V, --version              the version\n"
	      "\n"
	      "Exit status: 0 ok, 1 usage, 2 no such process or not permitted,\n"
	      "3 capture failed, 4 bad snapshot file or output file.\n",
	      f);
}

struct args {
	const char *backend, *export, *output, *name, *theme, *sort;
	const char *save, *load; /* -w FILE, -l FILE */
	const char *diff_a, *diff_b; /* -d A B */
	bool diff;
	bool summary, freeze, list, bytes;
	double delay;
	double watch; /* --watch SECONDS, 0: none */
	long count; /* --count N, 0: no end */
	pid_t pid;
	char **cmd; /* after "--" */
};

/* s on f with everything a terminal would act on escaped (escape.h): the
 * strings printed here come from processes and files. */
static void put_safe(FILE *f, const char *s)
{
	char u[ESCAPE_UNIT_MAX];
	size_t ulen, in;
	int32_t cp;

	while ((in = escape_unit(s, u, &ulen, &cp)) != 0) {
		fwrite(u, 1, ulen, f);
		s += in;
	}
}

static int fail(const struct vms_error *e)
{
	fputs("vmscope: ", stderr);
	put_safe(stderr, e->msg);
	fputc('\n', stderr);
	return vms_error_exit_status(e);
}

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt,
							     ...)
{
	va_list ap;
	char msg[512];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fputs("vmscope: ", stderr);
	put_safe(stderr, msg);
	fputs("\nTry 'vmscope --help'.\n", stderr);
	return 1;
}

static int parse_pid(const char *s, pid_t *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v <= 0 || v > 0x3fffffff)
		return -1;
	*pid = (pid_t)v;
	return 0;
}

/* Returns -1 to continue, or an exit status. */
static int parse_args(int argc, char **argv, struct args *a)
{
	enum {
		OPT_LIST = 256,
		OPT_SORT,
		OPT_DELAY,
		OPT_BYTES,
		OPT_WATCH,
		OPT_COUNT
	};
	static const struct option opts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "freeze", no_argument, NULL, 'F' },
		{ "summary", no_argument, NULL, 's' },
		{ "export", required_argument, NULL, 'e' },
		{ "output", required_argument, NULL, 'o' },
		{ "name", required_argument, NULL, 'n' },
		{ "save", required_argument, NULL, 'w' },
		{ "load", required_argument, NULL, 'l' },
		{ "diff", no_argument, NULL, 'd' },
		{ "theme", required_argument, NULL, 't' },
		{ "list", no_argument, NULL, OPT_LIST },
		{ "sort", required_argument, NULL, OPT_SORT },
		{ "delay", required_argument, NULL, OPT_DELAY },
		{ "bytes", no_argument, NULL, OPT_BYTES },
		{ "watch", required_argument, NULL, OPT_WATCH },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(a, 0, sizeof(*a));
	a->backend = "pss";
	a->delay = 0.5;
	while ((c = getopt_long(argc, argv, "+b:Fse:o:n:w:l:dt:hV", opts,
				NULL)) != -1) {
		switch (c) {
		case 'b':
			a->backend = optarg;
			break;
		case 'F':
			a->freeze = true;
			break;
		case 's':
			a->summary = true;
			break;
		case 'e':
			a->export = optarg;
			break;
		case 'o':
			a->output = optarg;
			break;
		case 'n':
			a->name = optarg;
			break;
		case 't':
			a->theme = optarg;
			break;
		case OPT_LIST:
			a->list = true;
			break;
		case OPT_SORT:
			a->sort = optarg;
			break;
		case OPT_BYTES:
			a->bytes = true;
			break;
		case OPT_DELAY: {
			char *end;

			a->delay = strtod(optarg, &end);
			if (*end || a->delay < 0 || a->delay > 3600)
				return usage_error("bad --delay: %s", optarg);
			break;
		}
		case OPT_WATCH: {
			char *end;

			a->watch = strtod(optarg, &end);
			if (*end || !(a->watch >= 0.05 && a->watch <= 86400))
				return usage_error("bad --watch: %s (seconds, "
						   "0.05 to 86400)",
						   optarg);
			break;
		}
		case OPT_COUNT: {
			char *end;

			errno = 0;
			a->count = strtol(optarg, &end, 10);
			if (errno || *end || a->count < 1)
				return usage_error("bad --count: %s", optarg);
			break;
		}
		case 'w':
			a->save = optarg;
			break;
		case 'l':
			a->load = optarg;
			break;
		case 'd':
			/* its two operands follow it, options may come after
			 * them: -d A B -s */
			a->diff = true;
			if (argc - optind < 2)
				return usage_error("%s",
						   "-d takes two snapshots: "
						   "-d A B, each a PID or a "
						   "file");
			a->diff_a = argv[optind];
			a->diff_b = argv[optind + 1];
			optind += 2;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("vmscope %s\n", VMSCOPE_VERSION);
			return 0;
		default:
			fputs("Try 'vmscope --help'.\n", stderr);
			return 1;
		}
	}
	if (a->diff) {
		if (optind < argc)
			return usage_error("unexpected argument: %s",
					   argv[optind]);
		if (a->name || a->save || a->load || a->watch)
			return usage_error("%s",
					   "-d A B takes no -n, -w, -l or "
					   "--watch");
	} else if (optind < argc && strcmp(argv[optind - 1], "--") == 0) {
		a->cmd = &argv[optind];
	} else if (optind < argc) {
		if (parse_pid(argv[optind], &a->pid) < 0)
			return usage_error("not a process id: %s",
					   argv[optind]);
		if (optind + 1 < argc)
			return usage_error("unexpected argument: %s",
					   argv[optind + 1]);
	}
	if (a->summary && a->export)
		return usage_error("%s", "-s and -e exclude each other");
	if ((a->pid != 0) + (a->name != NULL) + (a->cmd != NULL) > 1)
		return usage_error("%s", "give one of PID, -n NAME or -- CMD");
	if (a->export &&
	    (!export_find(a->export) || !export_find(a->export)->listed)) {
		char names[128];

		return usage_error("unknown export format '%s' (%s)", a->export,
				   export_names(names, sizeof(names), ", "));
	}
	if (a->output && !a->summary && !a->export)
		return usage_error("%s", "-o goes with -s or -e");
	if (a->bytes && !a->summary && !a->export)
		return usage_error("%s", "--bytes goes with -s or -e text");
	if (!vms_sampler_by_name(a->backend))
		return usage_error("unknown backend '%s' (pss, fork)",
				   a->backend);
	if (a->load && (a->pid || a->name || a->cmd || a->save))
		return usage_error("%s", "-l FILE opens a saved snapshot: no "
					 "PID, -n NAME, -- CMD or -w with it");
	if (a->save && !a->pid && !a->name && !a->cmd)
		return usage_error("%s", "-w FILE needs a PID, -n NAME or -- "
					 "CMD to capture");
	if (a->count && !a->watch)
		return usage_error("%s", "--count goes with --watch");
	if (a->watch && a->load)
		return usage_error("%s", "--watch takes snapshots of a live "
					 "process: not with -l");
	if (a->freeze && strcmp(a->backend, "pss") != 0)
		return usage_error("%s", "--freeze goes with -b pss (the fork "
					 "sampler always freezes)");
	return -1;
}

static int list_processes(const struct args *a)
{
	static const struct {
		const char *name;
		enum proclist_sort key;
		bool reverse;
	} sorts[] = {
		{ "pid", PROCLIST_BY_PID, false },
		{ "name", PROCLIST_BY_NAME, false },
		{ "user", PROCLIST_BY_USER, false },
		{ "rss", PROCLIST_BY_RSS, true },
		{ "pss", PROCLIST_BY_PSS, true },
	};
	struct proc_list l;
	struct vms_error err = { 0 };
	size_t i, k = 4;

	if (a->sort) {
		for (k = 0; k < sizeof(sorts) / sizeof(sorts[0]); k++)
			if (strcmp(sorts[k].name, a->sort) == 0)
				break;
		if (k == sizeof(sorts) / sizeof(sorts[0]))
			return usage_error(
				"unknown --sort key '%s' (pid, name, "
				"user, rss, pss)",
				a->sort);
	}
	if (proclist_read(&l, &err) < 0)
		return fail(&err);
	proclist_sort(&l, sorts[k].key, sorts[k].reverse);
	printf("%8s %-12s %-16s %12s %12s  %s\n", "PID", "USER", "NAME",
	       "RSS K", "PSS K", "COMMAND");
	for (i = 0; i < l.n; i++) {
		const struct proc_entry *e = &l.v[i];

		char user[64], name[64];

		escape_str(user, sizeof(user), e->user);
		escape_str(name, sizeof(name), e->name);
		printf("%8d %-12.12s %-16.16s %12llu ", (int)e->pid, user, name,
		       (unsigned long long)(e->rss >> 10));
		if (e->readable)
			printf("%12llu", (unsigned long long)(e->pss >> 10));
		else
			printf("%12s", "-");
		fputs("  ", stdout);
		put_safe(stdout, e->cmdline);
		printf("%s%s%s\n", e->readable ? "" : " (",
		       e->readable ? "" : e->why, e->readable ? "" : ")");
	}
	proclist_free(&l);
	return 0;
}

static int find_by_name(const char *name, pid_t *pid)
{
	struct vms_error err = { 0 };
	pid_t *pids;
	size_t n, i;

	if (proclist_find_name(name, &pids, &n, &err) < 0)
		return fail(&err);
	if (n == 1) {
		*pid = pids[0];
		free(pids);
		return -1;
	}
	if (n == 0) {
		fputs("vmscope: no process named ", stderr);
		put_safe(stderr, name);
		fputc('\n', stderr);
	} else {
		fprintf(stderr, "vmscope: %zu processes are named ", n);
		put_safe(stderr, name);
		fputc(':', stderr);
		for (i = 0; i < n; i++)
			fprintf(stderr, " %d", (int)pids[i]);
		fputs("; give one PID\n", stderr);
	}
	free(pids);
	return n == 0 ? 2 : 1;
}

/* Where a launched command's output goes. */
enum launch_out {
	LAUNCH_OUT_KEEP, /* vmscope's own (an export written to a file) */
	LAUNCH_OUT_STDERR, /* its stdout to vmscope's stderr, so that it
			    * cannot mix into an export on standard output */
	LAUNCH_OUT_NULL, /* nowhere: the viewer owns the terminal, and a
			  * line printed there would land on its screen */
};

/* Starts cmd as a child; returns its pid, or -1 with *err. */
static pid_t launch(char **cmd, double delay, enum launch_out out,
		    struct vms_error *err)
{
	int pfd[2];
	pid_t pid;
	int e = 0;
	ssize_t r;
	pid_t parent = getpid();

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return vms_error_set(err, VMS_ERR_CAPTURE, errno, "pipe: %s",
				     strerror(errno));
	pid = fork();
	if (pid < 0)
		return vms_error_set(err, VMS_ERR_CAPTURE, errno, "fork: %s",
				     strerror(errno));
	if (pid == 0) {
		close(pfd[0]);
		/* Dies with vmscope, however vmscope ends (SIGPIPE from
		 * `vmscope -e json -- CMD | head`, SIGKILL...): never left
		 * behind. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(127);
		if (out == LAUNCH_OUT_STDERR) {
			dup2(STDERR_FILENO, STDOUT_FILENO);
		} else if (out == LAUNCH_OUT_NULL) {
			int nul = open("/dev/null", O_RDWR | O_CLOEXEC);

			if (nul >= 0) {
				dup2(nul, STDOUT_FILENO);
				dup2(nul, STDERR_FILENO);
			}
		}
		execvp(cmd[0], cmd);
		e = errno;
		if (write(pfd[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pfd[1]);
	/* The pipe closes on exec (CLOEXEC) or carries exec's errno. */
	do
		r = read(pfd[0], &e, sizeof(e));
	while (r < 0 && errno == EINTR);
	close(pfd[0]);
	if (r == sizeof(e)) {
		waitpid(pid, NULL, 0);
		return vms_error_set(err, VMS_ERR_USAGE, e, "cannot run %s: %s",
				     cmd[0], strerror(e));
	}
	if (delay > 0) {
		struct timespec ts = { (time_t)delay,
				       (long)((delay - (time_t)delay) * 1e9) };

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
	return pid;
}

/* A launched command that has already ended is reported as such, with its
 * status (not as a zombie the capture met), and reaped: returns 1 with
 * *err, or 0 while it runs. */
static int launched_ended(pid_t pid, const char *cmd, struct vms_error *err)
{
	int st;

	if (waitpid(pid, &st, WNOHANG) != pid)
		return 0;
	if (WIFSIGNALED(st))
		vms_error_set(err, VMS_ERR_CAPTURE, 0,
			      "%s was killed by signal %d (%s) before the "
			      "capture",
			      cmd, WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		vms_error_set(err, VMS_ERR_CAPTURE, 0,
			      "%s exited before the capture (exit status %d); "
			      "a shorter --delay, or a command that runs "
			      "longer",
			      cmd, WEXITSTATUS(st));
	return 1;
}

static void stop_launched(pid_t pid)
{
	int i;

	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	for (i = 0; i < 200; i++) {
		struct timespec ts = { 0, 10000000 };

		if (waitpid(pid, NULL, WNOHANG) == pid)
			return;
		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Prints the summary (-s) or the export (-e) of s to -o or stdout. */
/* Closes an output: 0, or the exit status of its failure. */
static int close_output(struct outbuf *o)
{
	struct vms_error err = { 0 };

	switch (outbuf_close(o, &err)) {
	case 0:
		return 0;
	case 1: /* written, but in place: worth knowing */
		fail(&err);
		return 0;
	default:
		return fail(&err);
	}
}

static int print_snapshot(const struct args *a, const struct vms_snapshot *s)
{
	struct vms_error err = { 0 };
	struct outbuf o;
	const struct vms_exporter *ex =
		a->summary ? &vms_export_summary : export_find(a->export);

	if ((a->output ? outbuf_open_file(&o, a->output, &err)
		       : outbuf_open_fd(&o, STDOUT_FILENO, &err)) < 0)
		return fail(&err);
	o.exact = a->bytes;
	ex->write(s, &o);
	return close_output(&o);
}

/* Saves s to -w FILE, written as -o writes; with -s or -e, prints what
 * was saved: the file's bytes loaded again, as -l prints them. */
static int save_snapshot(const struct args *a, const struct vms_snapshot *s,
			 const char *path)
{
	struct vms_error err = { 0 };
	struct vms_snapshot *back;
	struct outbuf o;
	void *buf;
	size_t len;
	int rc;

	if (vms_snapshot_save(s, &buf, &len, &err) < 0)
		return fail(&err);
	if (outbuf_open_file(&o, path, &err) < 0) {
		free(buf);
		return fail(&err);
	}
	ob_write(&o, buf, len);
	rc = close_output(&o);
	if (rc == 0 && (a->summary || a->export)) {
		back = vms_load_buffer(buf, len, path, &err);
		rc = back ? print_snapshot(a, back) : fail(&err);
		vms_snapshot_free(back);
	}
	free(buf);
	return rc;
}

static int batch(const struct args *a, const struct vms_sampler *smp,
		 const struct vms_capture_opts *co)
{
	struct vms_error err = { 0 };
	struct vms_snapshot *s = vms_capture(smp, co, &err);
	int rc;

	if (!s)
		return fail(&err);
	rc = a->save ? save_snapshot(a, s, a->save) : print_snapshot(a, s);
	vms_snapshot_free(s);
	return rc;
}

/* --watch's file in dir for s: its time (UTC, to the millisecond) first,
 * so that names sort by time: 20261123T132524.123Z-pid5320.vms */
static void watch_name(const char *dir, const struct vms_snapshot *s, char *buf,
		       size_t n)
{
	time_t t = (time_t)s->cap.taken_at_sec;
	struct tm tm;
	char when[32];

	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y%m%dT%H%M%S", &tm);
	snprintf(buf, n, "%s/%s.%03ldZ-pid%d.vms", dir, when,
		 s->cap.taken_at_nsec / 1000000, (int)s->proc.pid);
}

/* Moves a CLOCK_MONOTONIC time one period on. */
static void watch_advance(struct timespec *t, double period)
{
	t->tv_sec += (time_t)period;
	t->tv_nsec += (long)((period - (double)(time_t)period) * 1e9);
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

/* --watch without the viewer: a snapshot every a->watch seconds, a->count
 * of them (0: until interrupted), each saved into the directory -w names
 * and/or printed as -s or -e asks. A capture that fails ends it. */
static int watch_batch(const struct args *a, const struct vms_sampler *smp,
		       const struct vms_capture_opts *co)
{
	struct timespec next;
	struct stat st;
	long i;
	int rc = 0;

	if (a->save && (stat(a->save, &st) < 0 || !S_ISDIR(st.st_mode))) {
		fputs("vmscope: --watch -w needs a directory: ", stderr);
		put_safe(stderr, a->save);
		fputs(" is not one\n", stderr);
		return 4;
	}
	/* ticks keep their rhythm however long a capture takes */
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (i = 0; rc == 0 && (!a->count || i < a->count); i++) {
		struct vms_error err = { 0 };
		struct vms_snapshot *s;
		char path[4096];

		if (i) {
			watch_advance(&next, a->watch);
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
					       &next, NULL) == EINTR)
				;
		}
		s = vms_capture(smp, co, &err);
		if (!s)
			return fail(&err);
		if (a->save) {
			watch_name(a->save, s, path, sizeof(path));
			rc = save_snapshot(a, s, path);
		} else {
			rc = print_snapshot(a, s);
		}
		vms_snapshot_free(s);
	}
	return rc;
}

/* -l FILE: printed with -s or -e, else in the viewer. */
static int load(const struct args *a)
{
	struct vms_error err = { 0 };
	struct vms_snapshot *s = vms_load_file(a->load, &err);
	int rc;

	if (!s)
		return fail(&err);
	if (a->summary || a->export) {
		rc = print_snapshot(a, s);
	} else {
		struct ui_opts uo = { .sampler =
					      vms_sampler_by_name(a->backend),
				      .theme = a->theme,
				      .snap = s };

		setlocale(LC_CTYPE, "");
		rc = ui_run(&uo, &err) < 0 ? fail(&err) : 0;
	}
	vms_snapshot_free(s);
	return rc;
}

/* One side of -d: a PID, captured now, or a saved file. */
static struct vms_snapshot *diff_side(const struct args *a, const char *what,
				      struct vms_error *err)
{
	struct vms_capture_opts co = { 0 };
	pid_t pid;

	if (!strchr(what, '/') && parse_pid(what, &pid) == 0) {
		co.pid = pid;
		co.freeze = a->freeze;
		return vms_capture(vms_sampler_by_name(a->backend), &co, err);
	}
	return vms_load_file(what, err);
}

/* -d A B: the diff printed as -s or -e asks. */
static int diff(const struct args *a)
{
	struct vms_error err = { 0 };
	struct vms_snapshot *sa = diff_side(a, a->diff_a, &err), *sb = NULL;
	const struct vms_diff_exporter *ex =
		a->summary || a->export
			? export_diff_find(a->summary ? "summary" : a->export)
			: NULL;
	struct vms_diff d;
	struct outbuf o;
	int rc;

	if (!ex && (a->summary || a->export)) {
		vms_snapshot_free(sa);
		return usage_error("a diff has no '%s' export", a->export);
	}
	if (!sa || !(sb = diff_side(a, a->diff_b, &err))) {
		rc = fail(&err);
		goto out;
	}
	if (!ex) { /* the diff screen */
		struct ui_opts uo = { .sampler =
					      vms_sampler_by_name(a->backend),
				      .copts = { .freeze = a->freeze },
				      .theme = a->theme,
				      .snap = sa,
				      .snap_b = sb };

		setlocale(LC_CTYPE, "");
		rc = ui_run(&uo, &err) < 0 ? fail(&err) : 0;
		goto out;
	}
	if (vms_diff_make(sa, sb, &d, &err) < 0) {
		rc = fail(&err);
		goto out;
	}
	if ((a->output ? outbuf_open_file(&o, a->output, &err)
		       : outbuf_open_fd(&o, STDOUT_FILENO, &err)) < 0) {
		rc = fail(&err);
	} else {
		o.exact = a->bytes;
		ex->write(&d, &o);
		rc = close_output(&o);
	}
	vms_diff_fini(&d);
out:
	vms_snapshot_free(sa);
	vms_snapshot_free(sb);
	return rc;
}

int main(int argc, char **argv)
{
	struct args a;
	struct vms_capture_opts co = { 0 };
	const struct vms_sampler *smp;
	struct vms_error err = { 0 };
	pid_t launched = 0;
	int rc;

	selfcopy_run(argv); /* first: looking must change nothing */
	rc = parse_args(argc, argv, &a);

	if (rc >= 0)
		return rc;
	if (a.list)
		return list_processes(&a);
	if (a.load)
		return load(&a);
	if (a.diff)
		return diff(&a);
	if (a.name && (rc = find_by_name(a.name, &a.pid)) >= 0)
		return rc;
	smp = vms_sampler_by_name(a.backend);
	if (a.cmd) {
		launched = launch(a.cmd, a.delay,
				  !(a.summary || a.export) ? LAUNCH_OUT_NULL
				  : a.output		   ? LAUNCH_OUT_KEEP
							   : LAUNCH_OUT_STDERR,
				  &err);
		if (launched < 0)
			return fail(&err);
		if (launched_ended(launched, a.cmd[0], &err))
			return fail(&err);
		a.pid = launched;
	}
	co.pid = a.pid;
	co.freeze = a.freeze;
	co.keep_raw = a.save != NULL;
	if (a.watch && (a.summary || a.export || a.save)) {
		rc = a.pid ? watch_batch(&a, smp, &co)
			   : usage_error("%s", "--watch needs a PID, -n NAME "
					       "or -- CMD");
	} else if (a.summary || a.export || a.save) {
		if (!a.pid) {
			stop_launched(launched);
			return usage_error("%s",
					   "-s and -e need a PID, -n NAME, "
					   "-- CMD or -l FILE");
		}
		rc = batch(&a, smp, &co);
	} else {
		struct ui_opts uo = { .sampler = smp,
				      .copts = co,
				      .theme = a.theme,
				      .watch_s = a.watch,
				      .count = a.count };

		setlocale(LC_CTYPE, ""); /* the viewer shows UTF-8 names */
		rc = ui_run(&uo, &err) < 0 ? fail(&err) : 0;
	}
	stop_launched(launched);
	return rc;
}
