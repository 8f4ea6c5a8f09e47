/* heap_forked — a brk heap that grew in the parent before fork() and in the
 * child after it: the child's maps then show two adjacent [heap] lines (the
 * kernel does not merge the part it shares copy-on-write with the parent's
 * anon_vma and the part the child grew), as in every postgres backend.
 *
 * The parent mallocs 100 x 1000 B, forks and waits; the child mallocs 2000 x
 * 1000 B, frees every third, and prints "ready pid=N" and its mallinfo2
 * fields, then waits on stdin ('q' ends it). The child dies with its parent
 * (PR_SET_PDEATHSIG), so killing the parent by pid cleans up both. */
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static void *keep[2100];

int main(void)
{
	struct mallinfo2 m;
	char line[16];
	pid_t child;
	int i;

	printf("starting\n");
	fflush(stdout);
	for (i = 0; i < 100; i++)
		memset(keep[i] = malloc(1000), 1, 1000);
	child = fork();
	if (child < 0)
		return 1;
	if (child > 0) {
		int st;

		waitpid(child, &st, 0);
		return 0;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		return 0;
	for (i = 100; i < 2100; i++)
		memset(keep[i] = malloc(1000), 2, 1000);
	for (i = 100; i < 2100; i += 3)
		free(keep[i]);
	m = mallinfo2();
	printf("ready pid=%d arena=%zu ordblks=%zu smblks=%zu hblks=%zu "
	       "hblkhd=%zu usmblks=%zu fsmblks=%zu uordblks=%zu fordblks=%zu "
	       "keepcost=%zu\n",
	       (int)getpid(), m.arena, m.ordblks, m.smblks, m.hblks, m.hblkhd,
	       m.usmblks, m.fsmblks, m.uordblks, m.fordblks, m.keepcost);
	fflush(stdout);
	while (read(0, line, sizeof(line)) > 0)
		if (line[0] == 'q')
			break;
	return 0;
}
