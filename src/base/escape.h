/* escape.h — strings from the target, made safe to print.
 *
 * Contract: every string that came from the target or from a file (paths,
 * command lines, thread and [anon:] names, section names, theme and
 * snapshot contents quoted in messages) goes through these where it is
 * printed as text: the summary, the text export, error messages and the
 * viewer. They keep printable UTF-8 as it is and turn everything a terminal
 * would act on into visible escapes:
 *
 *   \a \b \t \n \v \f \r   as those two characters
 *   \e                     as \x1b; other C0 bytes and DEL as \xHH
 *   C1 controls (U+0080-U+009F), U+2028/U+2029, the bidirectional
 *   overrides and isolates (U+202A-U+202E, U+2066-U+2069), and every
 *   default-ignorable code point (drawn as nothing: U+200B zero-width
 *   space, U+200D joiner, U+FEFF, variation selectors, tags ...)
 *                          as \uXXXX, past U+FFFF as \UXXXXXXXX
 *   a byte that is not part of valid UTF-8 (overlong, surrogate, cut
 *                          short, above U+10FFFF)           as \xHH
 *   a backslash            as \\ (so an escape cannot be faked)
 *
 * A printed string is then free of bytes below 0x20 and of DEL, and can be
 * told apart from any other. Pure functions: no locale, no state, no
 * allocation.
 */
#ifndef VMS_ESCAPE_H
#define VMS_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest output of one unit: "\\U000e0001", 10 bytes. */
#define ESCAPE_UNIT_MAX 10

/* One unit of s (a character or a byte): writes what to print for it into
 * out (not NUL-terminated), its length into *outlen, and returns how many
 * bytes of s it took (0 at the end of s). *cp is the code point printed as
 * it is, or -1 when out holds an escape. */
size_t escape_unit(const char *s, char out[ESCAPE_UNIT_MAX], size_t *outlen,
		   int32_t *cp);

/* s escaped into dst (size bytes, always NUL-terminated when size > 0,
 * never cut inside an escape or a character). Returns the length the whole
 * escaped string has, as snprintf does. */
size_t vms_escape_str(char *dst, size_t size, const char *s);

/* True when s prints as it is (vms_escape_str would copy it unchanged). */
bool escape_clean(const char *s);

/* Length of the valid UTF-8 sequence at p (a lead byte >= 0x80), or 0 if
 * it is not one; *cp gets its code point. */
size_t escape_utf8_len(const unsigned char *p, uint32_t *cp);

#endif
