/* anon_names.c — the table of known [anon:NAME] names. See anon_names.h.
 *
 * Only names some producer is known to give are here, each group with
 * where it comes from; a name a runtime gives to its bookkeeping (Go's
 * heap index, ART's card table) is private data, named, not the heap.
 * .NET's CoreCLR names nothing on Linux that could be found (it is told
 * by shape: step_dotnet.c).
 */
#include "analyze/anon_names.h"

#include <string.h>

#include "model/snapshot.h"

#define EXACT(n, t, rt, w)                                                     \
	{                                                                      \
		n, false, t, rt, w                                             \
	}
#define PREFIX(n, t, rt, w)                                                    \
	{                                                                      \
		n, true, t, rt, w                                              \
	}

static const struct anon_name table[] = {
	/* glibc 2.39+ with glibc.mem.decorate_maps (NEWS 2.39;
	 * malloc/arena.c, malloc/malloc.c, nptl/allocatestack.c,
	 * sysdeps/unix/sysv/linux/setvmaname.c). */
	EXACT("glibc: malloc arena", VMS_T_HEAP, "glibc",
	      "glibc malloc: a thread arena's heap"),
	EXACT("glibc: malloc", VMS_T_HEAP, "glibc",
	      "glibc malloc: an mmapped chunk, or main arena space"),
	EXACT("glibc: loader malloc", VMS_T_HEAP, "glibc",
	      "the dynamic loader's own malloc"),
	PREFIX("glibc: pthread stack: ", VMS_T_STACK, "glibc",
	       "a thread's stack"),
	PREFIX("glibc: pthread user stack: ", VMS_T_STACK, "glibc",
	       "a thread's stack the program gave"),
	EXACT("glibc: unused stack", VMS_T_PRIVATE_DATA, "glibc",
	      "a stack kept for the next thread"),
	EXACT("glibc: getrandom states", VMS_T_PRIVATE_DATA, "glibc",
	      "getrandom's per-thread states"),
	/* Android bionic and its allocators (bionic libc/bionic,
	 * scudo; frameworks/base android_os_Debug.cpp's classes). */
	PREFIX("libc_malloc", VMS_T_HEAP, "bionic", "bionic malloc (jemalloc)"),
	PREFIX("scudo:", VMS_T_HEAP, "scudo", "scudo malloc"),
	PREFIX("GWP-ASan", VMS_T_HEAP, "gwp-asan", "GWP-ASan's sampled heap"),
	PREFIX("bionic_alloc_", VMS_T_PRIVATE_DATA, "bionic",
	       "bionic's own small allocator"),
	PREFIX("stack_and_tls:", VMS_T_STACK, "bionic",
	       "a thread's stack and TLS"),
	PREFIX("thread signal stack", VMS_T_STACK, "bionic",
	       "a thread's signal stack"),
	/* ART (Android's runtime): its heap spaces are the managed heap;
	 * the rest of dalvik- is its bookkeeping and code. */
	PREFIX("dalvik-main space", VMS_T_MANAGED_HEAP, "art",
	       "ART main space"),
	PREFIX("dalvik-alloc space", VMS_T_MANAGED_HEAP, "art",
	       "ART alloc space"),
	PREFIX("dalvik-region space", VMS_T_MANAGED_HEAP, "art",
	       "ART region space"),
	PREFIX("dalvik-zygote space", VMS_T_MANAGED_HEAP, "art",
	       "ART zygote space"),
	PREFIX("dalvik-non moving space", VMS_T_MANAGED_HEAP, "art",
	       "ART non-moving space"),
	PREFIX("dalvik-free list large object space", VMS_T_MANAGED_HEAP, "art",
	       "ART large object space"),
	PREFIX("dalvik-large object space", VMS_T_MANAGED_HEAP, "art",
	       "ART large object space"),
	PREFIX("dalvik-", VMS_T_PRIVATE_DATA, "art",
	       "ART bookkeeping or code (not the heap)"),
	/* Chromium/Electron: PartitionAlloc's pools; V8 (the v8 names are
	 * classify's, kept as they were). */
	PREFIX("partition_alloc", VMS_T_HEAP, "partition_alloc",
	       "Chromium's PartitionAlloc"),
	PREFIX("v8 ", VMS_T_MANAGED_HEAP, "v8", "V8 heap"),
	/* Google TCMalloc (tcmalloc/system-alloc.cc) and Abseil. */
	EXACT("tcmalloc_region_METADATA", VMS_T_PRIVATE_DATA, "tcmalloc",
	      "TCMalloc's metadata"),
	PREFIX("tcmalloc_region_", VMS_T_HEAP, "tcmalloc", "TCMalloc's heap"),
	EXACT("absl", VMS_T_PRIVATE_DATA, "absl", "Abseil's low-level alloc"),
	/* Go 1.25+ (runtime/set_vma_name_linux.go; malloc.go, mem_linux.go):
	 * the heap and its reservation are the managed heap, the rest
	 * bookkeeping. */
	EXACT("Go: heap", VMS_T_MANAGED_HEAP, "go", "Go heap arena"),
	EXACT("Go: heap reservation", VMS_T_MANAGED_HEAP, "go",
	      "Go heap arena, reserved"),
	PREFIX("Go: ", VMS_T_PRIVATE_DATA, "go",
	       "Go runtime bookkeeping (not the heap)"),
	/* HotSpot names nothing (openjdk/jdk#16076); kept from classify's
	 * first table, no producer of it known: */
	PREFIX("Java heap", VMS_T_MANAGED_HEAP, "jvm", "Java heap"),
};

const struct anon_name *anon_names_lookup(const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const struct anon_name *a = &table[i];
		size_t k = strlen(a->name);

		if (a->prefix ? (n >= k && memcmp(name, a->name, k) == 0)
			      : (n == k && memcmp(name, a->name, k) == 0))
			return a;
	}
	return NULL;
}
