/* outfile.h — the file an outbuf writes (outbuf_open_file, outbuf.h),
 * opened as a shell's `> FILE` would open it, and put in place by
 * outbuf_close.
 *
 * Contract:
 * outbuf_open_file() writes where a shell redirection would, and destroys
 * nothing else:
 *  - "-" is standard output;
 *  - a FIFO, a terminal or another device is opened and written into (a
 *    FIFO waits for its reader, as with `>`);
 *  - a symbolic link stays a link: the file at the end of it is written.
 *    The directories on the way are resolved by the kernel; the last name's
 *    links are followed by hand only where the kernel would follow them
 *    (fs.protected_symlinks, as this machine sets it: not another user's
 *    link in a sticky world-writable directory unless it is the
 *    directory owner's), and the file at the end is opened by the kernel
 *    with no link followed (openat2 RESOLVE_NO_SYMLINKS) and O_CREAT, so
 *    that fs.protected_regular and fs.protected_fifos and the file's own
 *    permissions answer as they would for `> FILE`; a refusal names the
 *    rule. A link to a FIFO or device (or /dev/stdout's magic link) is
 *    opened through, the kernel following it;
 *  - a regular file is written to an unnamed O_TMPFILE in its directory,
 *    given the old file's mode (and, as root, its owner and group) or, for
 *    a new file, 0666 less the umask, and linked in and renamed over the
 *    target only by a successful outbuf_close(): a failure or a SIGKILL at
 *    any moment leaves the old file whole and no temporary file (a file
 *    system without O_TMPFILE gets a named ".NAME.tmpXXXXXX" instead),
 *    but for one instant: replacing a file takes a name first (linkat to
 *    ".NAME.tmpXXXXXX", then renameat over it: the kernel has no rename
 *    of an unnamed file over a name), and a SIGKILL between the two
 *    leaves the complete new file under that hidden name;
 *  - an existing file is written in place, not atomically, where renaming
 *    over it would lose something: its directory cannot take a temporary
 *    file (but the file is writable), it has other hard links, or it
 *    belongs to another user and vmscope is not root. outbuf_close() then
 *    returns 1 and says so in err->msg (err->kind VMS_ERR_NONE).
 * Nothing here formats or buffers (outbuf.c); outfile.c uses outbuf.c,
 * never the other way.
 */
#ifndef VMS_OUTFILE_H
#define VMS_OUTFILE_H

#include "base/error.h"

struct outbuf;

/* Writes to path as described above. -1 with *err (VMS_ERR_FILE) when it
 * cannot be created or opened; nothing is left behind then. */
int outbuf_open_file(struct outbuf *o, const char *path, struct vms_error *err);
/* Flushes and puts the file in place (any outbuf: one on a descriptor,
 * outbuf_open_fd, is flushed and freed, the descriptor left open).
 * Returns 0; 1 when written in place (err->msg says so and why,
 * err->kind VMS_ERR_NONE); or -1 with *err (VMS_ERR_FILE) and the old
 * file untouched (in place: partly written). */
int outbuf_close(struct outbuf *o, struct vms_error *err);
/* Drops everything: a temporary file is removed, the old file kept. */
void outbuf_abort(struct outbuf *o);

#endif
