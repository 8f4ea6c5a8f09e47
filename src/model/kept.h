/* kept.h — what a snapshot file keeps of a step's result: the step's own
 * declaration, read by the file's writer and reader.
 *
 * A step that finds something with what a file does not hold (memory,
 * the mapped files) declares it here, in its row (analyze/steps.h: .kept);
 * the pipeline hands the declarations of its steps to the snapshot file's
 * writer and reader (capture/file/snapfile.h), which sit below the steps
 * and know none of them by name. The writer keeps, under the key step in
 * the meta's "steps_kept" (capture/file/snapfile_kept.c): the managed heaps
 * of runtime, the regions typed managed heap inside them, the regions whose
 * detail starts with named, the notes made under step's name and, with
 * allocator, s->allocator. The reader reads back the records of the steps
 * declared and ignores any other (a step of a later vmscope); a step whose
 * record is there is put back in place of running (source.h, restore).
 *
 * Contract: a declaration is a static const of the step's file; its
 * strings are literals. A step keeps nothing when its row has none.
 */
#ifndef VMS_KEPT_H
#define VMS_KEPT_H

#include <stdbool.h>

struct vms_kept {
	const char *step; /* the step's name: the record's key in the file */
	const char *runtime; /* its managed heaps' runtime ("jvm"), NULL */
	const char *named; /* the prefix of the details it gives regions
			    * outside its heaps ("JVM "), NULL */
	bool allocator; /* it finds s->allocator */
};

#endif
