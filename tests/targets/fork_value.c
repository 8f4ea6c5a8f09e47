/* fork_value — a target for the fork sampler's read test.
 *
 * Holds the value 456 in a global variable and in every int of a 1 MiB
 * buffer, plus a MADV_DONTFORK and a MADV_WIPEONFORK region filled with
 * 0xab. Prints "ready VAR BUF BUFLEN DC WF LEN" (hex addresses, decimal
 * lengths), then obeys lines on stdin:
 *   w   writes 457 to the variable and the buffer, answers "written"
 *   q   exits
 * It calls syscall() once so that the page vmscope borrows an instruction
 * from is already mapped, as it is in most programs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BUFLEN (1 << 20)
#define SPECIAL (64 * 1024)

volatile int value = 456;

int main(void)
{
	int *buf = malloc(BUFLEN);
	char *dc = mmap(NULL, SPECIAL, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *wf = mmap(NULL, SPECIAL, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char line[64];
	size_t i;

	if (!buf || dc == MAP_FAILED || wf == MAP_FAILED ||
	    madvise(dc, SPECIAL, MADV_DONTFORK) ||
	    madvise(wf, SPECIAL, MADV_WIPEONFORK))
		return 1;
	for (i = 0; i < BUFLEN / sizeof(int); i++)
		buf[i] = 456;
	memset(dc, 0xab, SPECIAL);
	memset(wf, 0xab, SPECIAL);
	syscall(SYS_getpid);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready %lx %lx %d %lx %lx %d\n", (unsigned long)&value,
	       (unsigned long)buf, BUFLEN, (unsigned long)dc,
	       (unsigned long)wf, SPECIAL);
	while (fgets(line, sizeof(line), stdin)) {
		if (line[0] == 'w') {
			value = 457;
			for (i = 0; i < BUFLEN / sizeof(int); i++)
				buf[i] = 457;
			printf("written\n");
		} else if (line[0] == 'q') {
			break;
		}
	}
	return 0;
}
