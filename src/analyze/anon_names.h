/* anon_names.h — the [anon:NAME] names allocators and runtimes give their
 * anonymous memory (prctl PR_SET_VMA_ANON_NAME, Linux 5.17, where the
 * kernel has CONFIG_ANON_VMA_NAME), and what each means to vmscope: a
 * region type, the allocator or runtime that named it, and what it is.
 *
 * Contract: anon_names_lookup() takes NAME as the kernel shows it between
 * "[anon:" and "]" (one leading blank already dropped: glibc and Go begin
 * their names with one), n bytes, not NUL-terminated, and returns the
 * table's entry, or NULL for a name no known producer gives. The table is
 * const and static; classify (step_classify.c) types the region by it.
 * Where the names come from is said by each group of the table
 * (anon_names.c); none could be seen live here (Debian's kernels have no
 * CONFIG_ANON_VMA_NAME): tests/fixtures/v_anon_names.smaps holds them.
 */
#ifndef VMS_ANON_NAMES_H
#define VMS_ANON_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct anon_name {
	const char *name; /* the name, or its start when prefix */
	bool prefix; /* "glibc: pthread stack: " then a thread id */
	uint8_t type; /* enum vms_type */
	const char *runtime; /* "glibc", "go", "art", ... */
	const char *what; /* what it is, for people */
};

const struct anon_name *anon_names_lookup(const char *name, size_t n);

#endif
