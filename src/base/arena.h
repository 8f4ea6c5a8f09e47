/* arena.h — one bump allocator per snapshot, and string interning.
 *
 * Contract: everything a snapshot points to (paths, details, children, names)
 * lives in its arena and is freed at once by arena_fini(). Allocation failure
 * returns NULL; callers turn that into VMS_ERR_NOMEM. Interned strings are
 * stored once per distinct value, so 65,000 regions of one library cost one
 * copy of its path.
 */
#ifndef VMS_ARENA_H
#define VMS_ARENA_H

#include <stddef.h>
#include <stdint.h>

struct arena_block;
struct arena_istr;

struct arena {
	struct arena_block *head;
	/* intern table: open addressing over arena-owned entries */
	struct arena_istr **itab;
	size_t icap, icount;
};

void arena_init(struct arena *a);
void arena_fini(struct arena *a);
/* The bytes the arena holds from malloc (its blocks and intern table). */
size_t arena_bytes(const struct arena *a);
/* Zeroed memory, aligned for any scalar. */
void *arena_alloc(struct arena *a, size_t size);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_strdup(struct arena *a, const char *s);
char *arena_printf(struct arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same pointer for equal strings within one arena. */
const char *arena_intern(struct arena *a, const char *s, size_t n);
/* A string arena_intern() returned from another arena, interned in a
 * (its length and hash are the other arena's: not computed again). The
 * other arena may then go: what a thread parsed into an arena of its own
 * joins the snapshot's. */
const char *arena_intern_again(struct arena *a, const char *interned);
/* Everything from's blocks hold joins a (freed by a's arena_fini); from
 * is left empty, as arena_init() makes it. Strings from interned stay
 * where they are, but a interns equal ones anew. */
void arena_adopt(struct arena *a, struct arena *from);

#endif
