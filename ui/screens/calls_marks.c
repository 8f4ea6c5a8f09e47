/* calls_marks.c — the marks of a live trace by snapshot (calls_marks.h).
 */
#include <string.h>

#include "screens/calls_marks.h"

unsigned calls_mark_of(const struct calls_marks *m,
		       const struct vms_snapshot *s)
{
	size_t i;

	for (i = 0; s && i < m->n; i++)
		if (m->snap[i] == s && m->taken[i] == s->cap.monotonic_ns)
			return m->mark[i];
	return 0;
}

void calls_mark_add(struct calls_marks *m, const struct vms_snapshot *s,
		    unsigned mark)
{
	if (m->n == CALLS_MARKS_MAX) {
		memmove(m->snap, m->snap + 1,
			(CALLS_MARKS_MAX - 1) * sizeof(*m->snap));
		memmove(m->taken, m->taken + 1,
			(CALLS_MARKS_MAX - 1) * sizeof(*m->taken));
		memmove(m->mark, m->mark + 1,
			(CALLS_MARKS_MAX - 1) * sizeof(*m->mark));
		m->n--;
	}
	m->snap[m->n] = s;
	m->taken[m->n] = s->cap.monotonic_ns;
	m->mark[m->n++] = mark;
}

void calls_marks_forget(struct calls_marks *m, const struct ui *u)
{
	size_t i, j, k = 0;

	for (i = 0; i < m->n; i++) {
		bool held = m->snap[i] == u->snap;

		for (j = 0; !held && j < u->hist.n; j++)
			held = m->snap[i] == u->hist.s[j];
		if (held && calls_mark_of(m, m->snap[i]) == m->mark[i]) {
			m->snap[k] = m->snap[i];
			m->taken[k] = m->taken[i];
			m->mark[k++] = m->mark[i];
		}
	}
	m->n = k;
}
