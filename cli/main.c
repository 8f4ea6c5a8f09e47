/* main.c — the command line: parse options, start a command (-- CMD),
 * pick a sampler, and hand over to the viewer or to run.c (batch exports,
 * --watch, -l, -d). The command line (cli/) is the one place that knows
 * both the engine and the UI, and the only one that prints errors and
 * decides the exit status.
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../ui/ui.h"
#include "base/escape.h"
#include "base/outbuf.h"
#include "capture/sampler.h"
#include "cli.h"
#include "export/export.h"
#include "linux/procfs.h"
#include "linux/proclist.h"
#include "linux/selfcopy.h"
#include "linux/spawn.h"
#include "model/diff.h"
#include "pipeline.h"

#ifndef VMSCOPE_VERSION
#error "VMSCOPE_VERSION: the Makefile defines it from the file VERSION"
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
	      "       vmscope --all -e openmetrics [-n NAME | PID... | CGROUP]\n"
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
	      "      --exact                fork: read every counter inside\n"
	      "                             the freeze (smaps), as -w does;\n"
	      "                             by default only Rss and Swap are\n"
	      "                             (PAGEMAP_SCAN, Linux 6.7), the\n"
	      "                             rest just before, and a region\n"
	      "                             that changed meanwhile is marked\n"
	      "                             approx\n"
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
	      "      --trace                with -- CMD: run CMD with its\n"
	      "                             allocations and maps traced (call\n"
	      "                             stacks); the viewer, its call\n"
	      "                             sites on C; with -s or -e\n"
	      "                             text|json, print the call sites by\n"
	      "                             impacting size (CMD runs on\n"
	      "                             untraced if the trace ends first);\n"
	      "                             with -w FILE, CMD's snapshot at the\n"
	      "                             trace's end saved with the trace;\n"
	      "                             with a PID or -n NAME: that running\n"
	      "                             process, its malloc and mmap\n"
	      "                             families (the tracer injected; the\n"
	      "                             viewer, or -s/-e), else (-s/-e) its\n"
	      "                             maps from the kernel (eBPF: root\n"
	      "                             or CAP_BPF and CAP_PERFMON);\n"
	      "                             -w FILE saves its snapshot at\n"
	      "                             the trace's end\n"
	      "      --trace-children       with --trace -- CMD and -s or -e:\n"
	      "                             the children CMD forks and execs\n"
	      "                             are traced too, each its own\n"
	      "                             process and report (at most 64\n"
	      "                             processes; the rest run untraced,\n"
	      "                             counted); the trace ends when\n"
	      "                             they all have\n"
	      "      --duration=SECONDS     with --trace: trace this long\n"
	      "      --trace-sample=BYTES   with --trace: record allocations\n"
	      "                             under 64 KiB by sampling, one\n"
	      "                             every BYTES on average (counts\n"
	      "                             and sizes scaled); larger ones\n"
	      "                             and every map always\n"
	      "      --all                  with -e openmetrics: every process\n"
	      "                             it may read (or those of -n NAME,\n"
	      "                             of PIDs, or under a cgroup path)\n"
	      "                             in one exposition; those it may\n"
	      "                             not read counted by reason\n"
	      "      --top=N                with --all: the N largest by PSS,\n"
	      "                             the rest summed per comm\n"
	      "  -h, --help                 this help\n"
	      "  -V, --version              the version\n"
	      "\n"
	      "Exit status: 0 ok, 1 usage, 2 no such process or not permitted,\n"
	      "3 capture failed, 4 bad snapshot file or output file.\n",
	      f);
}

/* Where path's directory really is, and its last name: x/../f and ./f
 * are one file before it exists. NULL if the directory is not there. */
static char *where_named(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir, *real, *out = NULL;

	if (!slash)
		dir = strdup(".");
	else
		dir = strndup(path, slash == path ? 1 : (size_t)(slash - path));
	real = dir ? realpath(dir, NULL) : NULL;
	if (real && asprintf(&out, "%s/%s", real, slash ? slash + 1 : path) < 0)
		out = NULL;
	free(real);
	free(dir);
	return out;
}

/* Whether paths x and y name one file: the same inode where both exist,
 * else the same name in the same directory. */
static bool same_file(const char *x, const char *y)
{
	struct stat sx, sy;
	char *wx, *wy;
	bool same;

	if (!strcmp(x, y))
		return true;
	if (stat(x, &sx) == 0 && stat(y, &sy) == 0)
		return sx.st_dev == sy.st_dev && sx.st_ino == sy.st_ino;
	wx = where_named(x);
	wy = where_named(y);
	same = wx && wy && !strcmp(wx, wy);
	free(wx);
	free(wy);
	return same;
}

/* Whether path is this run's standard output: "-", or the very file (a
 * regular file, a pipe, a terminal) descriptor 1 is, as /dev/stdout. */
static bool is_stdout(const char *path)
{
	struct stat sp, so;

	if (!strcmp(path, "-"))
		return true;
	return stat(path, &sp) == 0 && fstat(STDOUT_FILENO, &so) == 0 &&
	       sp.st_dev == so.st_dev && sp.st_ino == so.st_ino;
}

/* The file -o would replace that this run reads (-l FILE, a file side of
 * -d A B), or NULL: a regular file only, the one thing the export's
 * rename would destroy (a FIFO or terminal read and written is not). */
static const char *output_read(const struct args *a)
{
	const char *in[2] = { a->load, NULL };
	struct stat st;
	int i;

	if (a->diff) {
		in[0] = cli_diff_file(a->diff_a);
		in[1] = cli_diff_file(a->diff_b);
	}
	for (i = 0; i < 2; i++)
		if (in[i] && stat(in[i], &st) == 0 && S_ISREG(st.st_mode) &&
		    same_file(in[i], a->output))
			return in[i];
	return NULL;
}

/* getopt_long's '?' said our way: what was given (arg, argv's word) is
 * an unknown short option (opt), an unknown or ambiguous long one, or a
 * long one that takes no value given one. */
static int bad_option(const struct option *opts, const char *arg, int opt)
{
	const char *eq;
	size_t n;

	if (strncmp(arg, "--", 2) != 0)
		return cli_usage_error("unknown option -%c", opt);
	eq = strchr(arg, '=');
	n = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
	for (; eq && opts->name; opts++)
		if (strlen(opts->name) == n && !strncmp(opts->name, arg + 2, n))
			return cli_usage_error("--%s takes no value: %s",
					       opts->name, arg);
	return cli_usage_error("unknown or ambiguous option %s", arg);
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
		OPT_COUNT,
		OPT_EXACT,
		OPT_TRACE,
		OPT_DURATION,
		OPT_TRACE_SAMPLE,
		OPT_TRACE_CHILDREN,
		OPT_ALL,
		OPT_TOP
	};
	static const struct option opts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "freeze", no_argument, NULL, 'F' },
		{ "exact", no_argument, NULL, OPT_EXACT },
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
		{ "trace", no_argument, NULL, OPT_TRACE },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "trace-sample", required_argument, NULL, OPT_TRACE_SAMPLE },
		{ "trace-children", no_argument, NULL, OPT_TRACE_CHILDREN },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *word;
	int c;

	memset(a, 0, sizeof(*a));
	a->backend = "pss";
	a->delay = 0.5;
	/* getopt's own messages would print the option as given, control
	 * bytes and all: ours go through cli_usage_error's escaping */
	opterr = 0;
	for (;;) {
		/* the word getopt looks at: optind moves past it only once
		 * done with it (a cluster's last letter, a long option) */
		int at = optind;

		if ((c = getopt_long(argc, argv, "+:b:Fse:o:n:w:l:dt:hV", opts,
				     NULL)) == -1)
			break;
		word = optind > at ? argv[optind - 1] : argv[at];
		switch (c) {
		case 'b':
			a->backend = optarg;
			break;
		case 'F':
			a->freeze = true;
			break;
		case OPT_EXACT:
			a->exact = true;
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
				return cli_usage_error("bad --delay: %s",
						       optarg);
			break;
		}
		case OPT_WATCH: {
			char *end;

			a->watch = strtod(optarg, &end);
			if (*end || !(a->watch >= 0.05 && a->watch <= 86400))
				return cli_usage_error(
					"bad --watch: %s (seconds, "
					"0.05 to 86400)",
					optarg);
			break;
		}
		case OPT_COUNT: {
			char *end;

			errno = 0;
			a->count = strtol(optarg, &end, 10);
			if (errno || *end || a->count < 1)
				return cli_usage_error("bad --count: %s",
						       optarg);
			break;
		}
		case OPT_TRACE:
			a->trace = true;
			break;
		case OPT_TRACE_CHILDREN:
			a->trace_children = true;
			break;
		case OPT_DURATION: {
			char *end;

			errno = 0;
			a->duration = strtod(optarg, &end);
			if (errno || *end || !(a->duration > 0) ||
			    a->duration > 1e7)
				return cli_usage_error("bad --duration: %s",
						       optarg);
			break;
		}
		case OPT_TRACE_SAMPLE: {
			char *end;

			errno = 0;
			a->trace_sample = strtoull(optarg, &end, 10);
			if (errno || *end || optarg[0] == '-' ||
			    a->trace_sample < 1 || a->trace_sample > 1 << 30)
				return cli_usage_error(
					"bad --trace-sample: %s (bytes, 1 to "
					"1073741824)",
					optarg);
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
			/* An operand that starts with '-' is an option the
			 * user meant (-d A.vms -s): a file of that name is
			 * ./-s, as for rm. */
			if (argc - optind < 2 || argv[optind][0] == '-' ||
			    argv[optind + 1][0] == '-')
				return cli_usage_error(
					"%s", "-d takes two snapshots: "
					      "-d A B, each a PID or a "
					      "file (./-x for a file named "
					      "-x)");
			a->diff_a = argv[optind];
			a->diff_b = argv[optind + 1];
			optind += 2;
			break;
		case OPT_ALL:
			a->all = true;
			break;
		case OPT_TOP: {
			char *end;

			errno = 0;
			a->top = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || a->top < 1)
				return cli_usage_error("--top takes a count "
						       "of processes, 1 or "
						       "more: %s",
						       optarg);
			break;
		}
		case 'h':
			usage(stdout);
			return cli_stdout_done();
		case 'V':
			printf("vmscope %s\n", VMSCOPE_VERSION);
			return cli_stdout_done();
		case ':':
			if (strncmp(word, "--", 2) == 0)
				return cli_usage_error("%s needs a value",
						       word);
			return cli_usage_error("-%c needs a value", optopt);
		case '?':
			return bad_option(opts, word, optopt);
		default:
			fputs("Try 'vmscope --help'.\n", stderr);
			return 1;
		}
	}
	if (a->diff) {
		if (optind < argc)
			return cli_usage_error("unexpected argument: %s",
					       argv[optind]);
		if (a->name || a->save || a->load || a->watch)
			return cli_usage_error("%s",
					       "-d A B takes no -n, -w, -l or "
					       "--watch");
	} else if (optind < argc && strcmp(argv[optind - 1], "--") == 0) {
		a->cmd = &argv[optind];
	} else if (optind < argc && a->all) {
		a->operands = &argv[optind];
		a->noperands = argc - optind;
	} else if (optind < argc) {
		if (cli_parse_pid(argv[optind], &a->pid) < 0)
			return cli_usage_error("not a process id: %s",
					       argv[optind]);
		if (optind + 1 < argc)
			return cli_usage_error("unexpected argument: %s",
					       argv[optind + 1]);
	}
	if (a->all || a->top) {
		int rc = cli_all_check(a);

		if (rc >= 0)
			return rc;
	}
	if (a->summary && a->export)
		return cli_usage_error("%s", "-s and -e exclude each other");
	if ((a->pid != 0) + (a->name != NULL) + (a->cmd != NULL) > 1)
		return cli_usage_error("%s",
				       "give one of PID, -n NAME or -- CMD");
	if (a->export &&
	    (!export_find(a->export) || !export_find(a->export)->listed)) {
		char names[128];

		return cli_usage_error(
			"unknown export format '%s' (%s)", a->export,
			export_names(names, sizeof(names), ", "));
	}
	if (a->output && !a->summary && !a->export)
		return cli_usage_error("%s", "-o goes with -s or -e");
	if (a->bytes && !a->summary && !a->export)
		return cli_usage_error("%s", "--bytes goes with -s or -e text");
	if (!vms_sampler_by_name(a->backend))
		return cli_usage_error("unknown backend '%s' (pss, fork)",
				       a->backend);
	if (a->load && (a->pid || a->name || a->cmd || a->save))
		return cli_usage_error("%s",
				       "-l FILE opens a saved snapshot: no "
				       "PID, -n NAME, -- CMD or -w with it");
	if (a->save && !a->pid && !a->name && !a->cmd)
		return cli_usage_error("%s",
				       "-w FILE needs a PID, -n NAME or -- "
				       "CMD to capture");
	if (a->save && a->output && strcmp(a->output, "-") != 0 &&
	    same_file(a->save, a->output))
		return cli_usage_error("-w and -o both name %s: the one would "
				       "overwrite the other",
				       a->output);
	/* -s or -e print to standard output, and -w would write the
	 * snapshot there too (-w -, -w /dev/stdout, the file the shell
	 * redirected to: replaced under the shell's descriptor, the
	 * printout then went to the old file, unlinked) */
	if (a->save && (a->summary || a->export) &&
	    (!a->output || !strcmp(a->output, "-")) && is_stdout(a->save))
		return cli_usage_error("-w %s is the standard output -s or -e "
				       "print to: the snapshot and the "
				       "printout would be one file (give -o "
				       "FILE)",
				       a->save);
	if (a->output && strcmp(a->output, "-") != 0 && output_read(a))
		return cli_usage_error("-o names %s, which this run reads: "
				       "the export would replace it",
				       output_read(a));
	if (a->count && !a->watch)
		return cli_usage_error("%s", "--count goes with --watch");
	if ((a->duration || a->trace_sample || a->trace_children) && !a->trace)
		return cli_usage_error("%s",
				       "--duration, --trace-sample and "
				       "--trace-children go with --trace");
	if (a->trace) {
		int rc = cli_trace_check(a);

		if (rc >= 0)
			return rc;
	}
	if (a->watch && a->load)
		return cli_usage_error("%s",
				       "--watch takes snapshots of a live "
				       "process: not with -l");
	if (a->exact && strcmp(a->backend, "fork") != 0)
		return cli_usage_error("%s",
				       "--exact goes with -b fork (the pss "
				       "sampler reads every counter as it "
				       "is; -F stops the target meanwhile)");
	if (a->freeze && strcmp(a->backend, "pss") != 0)
		return cli_usage_error("%s",
				       "--freeze goes with -b pss (the fork "
				       "sampler always freezes)");
	return -1;
}

/* Starts cmd as a child that dies with vmscope; returns its pid, or -1
 * with *err. */
static pid_t launch(char **cmd, double delay, enum spawn_out out,
		    struct vms_error *err)
{
	struct spawn_opts so = { .die_with_parent = true, .out = out };
	pid_t pid;

	if (spawn(cmd, &so, &pid, err) < 0)
		return -1;
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

/* Whether this run may look at a live process: all but printing saved
 * files (-l FILE -s/-e, -d FILE FILE -s/-e). The viewer may, whatever it
 * opened with (its picker reaches every process). */
static bool looks_at_a_process(const struct args *a)
{
	bool batch = a->summary || a->export;

	if (a->list) /* --list comes first in main(), whatever else is given */
		return true;
	if (a->load)
		return !batch;
	if (a->diff)
		return !batch || !cli_diff_file(a->diff_a) ||
		       !cli_diff_file(a->diff_b);
	return true;
}

/* Standard input, output and error, when the caller closed them (`>&-`),
 * held by /dev/null opened read-only: the first file vmscope opened took
 * the number, and what was written to the closed one went there (with
 * --trace -s -- CMD 2>&-, CMD's standard output, which it writes to
 * vmscope's error, was the trace's shared memory: CMD's text corrupted
 * the trace). Read-only, a write there still fails with EBADF, as on a
 * closed descriptor: `vmscope -s PID >&-` is an error (exit 4), CMD's
 * writes are lost as the caller asked. */
static void hold_std_fds(void)
{
	int fd;

	for (fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", O_RDONLY) != fd)
			return; /* no /dev/null: nothing better to hold it */
}

int main(int argc, char **argv)
{
	struct args a;
	struct vms_capture_opts co = { 0 };
	const struct vms_sampler *smp;
	struct vms_error err = { 0 };
	pid_t launched = 0;
	int rc;

	/* Before anything is read: looking must change nothing. Not for a run
	 * that only prints saved files (nothing to change; the copies cost
	 * some 2 ms a start), nor for --help, --version and usage errors
	 * (parse_args reads nothing). No thread exists yet. */
	hold_std_fds();
	rc = parse_args(argc, argv, &a);
	if (rc >= 0)
		return rc;
	if (looks_at_a_process(&a))
		selfcopy_run();
	if (a.list)
		return cli_list(&a);
	if (a.load)
		return cli_load(&a);
	if (a.diff)
		return cli_diff(&a);
	/* a thread's id stands for its process (each of --all's and -d's
	 * PIDs likewise, where they are read) */
	if (a.pid)
		a.pid = cli_process_of(a.pid, a.trace ? "tracing" : "showing");
	if (a.trace)
		return cli_trace(&a);
	if (a.all)
		return cli_all(&a);
	if (a.name && (rc = cli_find_by_name(a.name, &a.pid)) >= 0)
		return rc;
	smp = vms_sampler_by_name(a.backend);
	if (a.cmd) {
		launched = launch(a.cmd, a.delay,
				  !(a.summary || a.export) ? SPAWN_OUT_NULL
				  : a.output		   ? SPAWN_OUT_KEEP
							   : SPAWN_OUT_STDERR,
				  &err);
		if (launched < 0)
			return cli_fail(&err);
		if (launched_ended(launched, a.cmd[0], &err))
			return cli_fail(&err);
		a.pid = launched;
	}
	co.pid = a.pid;
	co.freeze = a.freeze;
	co.exact = a.exact;
	co.keep_raw = a.save != NULL;
	if (a.watch && (a.summary || a.export || a.save)) {
		rc = a.pid ? cli_watch(&a, smp, &co)
			   : cli_usage_error("%s",
					     "--watch needs a PID, -n NAME "
					     "or -- CMD");
	} else if (a.summary || a.export || a.save) {
		if (!a.pid) {
			stop_launched(launched);
			return cli_usage_error("%s",
					       "-s and -e need a PID, -n NAME, "
					       "-- CMD or -l FILE");
		}
		rc = cli_batch(&a, smp, &co);
	} else {
		struct ui_opts uo = { .sampler = smp,
				      .copts = co,
				      .theme = a.theme,
				      .watch_s = a.watch,
				      .count = a.count };

		selfcopy_setlocale(LC_CTYPE,
				   ""); /* the viewer shows UTF-8 names */
		rc = ui_run(&uo, &err) < 0 ? cli_fail(&err) : 0;
	}
	stop_launched(launched);
	return rc;
}
