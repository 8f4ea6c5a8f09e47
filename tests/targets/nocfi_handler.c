/* nocfi_handler.c — a thread inside the program's own malloc, interrupted
 * by a signal whose handler has no CFI and blocks in read(): the one case
 * where libdw's unwinder, going on by the frame pointer where no CFI
 * covers a frame, skips the frame that matters (the handler's saved rbp
 * is malloc's caller's): tests/live/test_trace_attach_plain.py asserts
 * that vmscope --trace PID does not borrow that thread
 * (src/capture/ptrace/inject_unwind.h: such frames are not told, and the
 * stack is scanned, which finds malloc's return address).
 *
 * Prints "ready", then calls malloc, which faults on purpose (SIGSEGV);
 * the handler reads stdin a byte, and blocks there until the test kills
 * it. Until "ready", malloc is glibc's (__libc_malloc).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *__libc_malloc(size_t);
void nocfi_handler(int sig);

static volatile int armed;

/* x86-64: a read(0, buf, 1) that leaves rbp as malloc set it, no CFI
 * directive (so no FDE: nothing tells libdw how to unwind it, and its
 * frame-pointer step goes from malloc's rbp to malloc's caller). */
#if defined(__x86_64__)
__asm__(".text\n"
	".globl nocfi_handler\n"
	".type nocfi_handler, @function\n"
	"nocfi_handler:\n"
	"	sub $24, %rsp\n"
	"	xor %edi, %edi\n"
	"	lea 8(%rsp), %rsi\n"
	"	mov $1, %edx\n"
	"	xor %eax, %eax\n"
	"	syscall\n"
	"	add $24, %rsp\n"
	"	ret\n"
	".size nocfi_handler, .-nocfi_handler\n");
#endif

__attribute__((noinline, optimize("no-omit-frame-pointer"))) void *
malloc(size_t n)
{
	if (armed)
		*(volatile int *)0 = 0; /* into the handler, inside malloc */
	return __libc_malloc(n);
}

int main(void)
{
#if defined(__x86_64__)
	struct sigaction sa;
	void *volatile p;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nocfi_handler;
	sigaction(SIGSEGV, &sa, NULL);
	printf("ready\n");
	fflush(stdout);
	armed = 1;
	p = malloc(40);
	(void)p;
#else
	printf("ready unsupported\n");
	fflush(stdout);
	pause();
#endif
	return 0;
}
