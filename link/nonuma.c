/* nonuma.c — libproc2's NUMA hooks, for a vmscope linked with libproc2's
 * static archive (Makefile: PROC2_A), in place of the archive's numa.o.
 *
 * libproc2's numa.o looks for libnuma with dlopen("libnuma.so"), then
 * "libnuma.so.1", each time a process reader is made until one is found:
 * three path searches (some 40 failed stat and open calls each) in every
 * capture where libnuma is missing, and where it is installed a library
 * mapped from disk, not from vmscope's private copies
 * (src/linux/selfcopy.h): its pages would read Shared in a target that
 * maps it too. vmscope never asks for a process's NUMA node
 * (PIDS_PROCESSOR_NODE); a caller that did would get -1, as from libproc2
 * without libnuma. Linked before the archive, so numa.o is never pulled.
 */
void numa_init(void);
void numa_uninit(void);

static int no_max_node(void)
{
	return -1;
}

static int no_node_of_cpu(int cpu)
{
	(void)cpu;
	return -1;
}

int (*numa_max_node)(void) = no_max_node;
int (*numa_node_of_cpu)(int) = no_node_of_cpu;

void numa_init(void)
{
}

void numa_uninit(void)
{
}
