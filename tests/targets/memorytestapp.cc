// memorytestapp — Linux's MemoryTestApp (shared/seeds: the WPR heap and
// VirtualAlloc exercise), built without frame pointers: main commits a
// 10 MB buffer (mmap, written) and never frees it; Operation1 calls
// ManipulateTemporaryBuffer, which maps, writes and unmaps a 10 MB buffer,
// four times; Operation2 calls InnerLoopOperation 319 times, each leaking
// a 40-byte new. It prints what it did and exits with status 3, so a test
// can hold a traced run's output and status against an untraced one's.
// "memorytestapp churn" does the same and, before it prints, 100,000 times
// a new long and a new char[8], each deleted (NewDeleteLoop): 200,000
// news and deletes, nothing left (sampling's test). "memorytestapp wait
// FIFO" first opens FIFO and reads a byte (a viewer's test lets it go
// once vmscope shows it), then does the same.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

static const size_t MB10 = 10u << 20;

__attribute__((noinline)) static void ManipulateTemporaryBuffer()
{
	void *p = mmap(nullptr, MB10, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	memset(p, 0x5a, MB10);
	munmap(p, MB10);
}

static volatile int done_ops;

__attribute__((noinline)) static void Operation1()
{
	for (int i = 0; i < 4; i++)
		ManipulateTemporaryBuffer();
	done_ops = done_ops + 1; // no tail call: Operation1 stays a frame
}

__attribute__((noinline)) static char *InnerLoopOperation(int i)
{
	char *p = new char[40];

	memset(p, i, 40);
	return p; // leaked
}

__attribute__((noinline)) static unsigned Operation2()
{
	unsigned sum = 0;

	for (int i = 0; i < 319; i++)
		sum += (unsigned char)InnerLoopOperation(i)[7];
	return sum;
}

static void *volatile sink; // each block used: no new elided

__attribute__((noinline)) static void NewDeleteLoop(int n)
{
	for (int i = 0; i < n; i++) {
		long *q = new long(i);
		char *a = new char[8];

		sink = q;
		sink = a;
		delete q;
		delete[] a;
	}
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "wait") == 0) {
		int fd = open(argv[2], O_RDONLY);
		char c;

		if (fd < 0 || read(fd, &c, 1) != 1)
			return 1;
		close(fd);
	}
	void *keep = mmap(nullptr, MB10, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (keep == MAP_FAILED)
		return 1;
	memset(keep, 1, MB10); // committed, and never freed
	Operation1();
	unsigned sum = Operation2();
	if (argc > 1 && strcmp(argv[1], "churn") == 0)
		NewDeleteLoop(100000);
	printf("memorytestapp: 10 MB kept, 4 x 10 MB transient, 319 x 40 B "
	       "leaked (%u)\n",
	       sum);
	return 3;
}
