/* export.c — the exporter registry: a format is a file and a row here.
 * See export.h.
 */
#include "export/export.h"

#include <string.h>

/* The formats in --help order, one row each: X(NAME) is the row
 * const struct vms_exporter vms_export_NAME that export_NAME.c defines. */
#define VMS_EXPORTERS(X)                                                       \
	X(text)                                                                \
	X(csv)                                                                 \
	X(json)                                                                \
	X(openmetrics)                                                         \
	X(summary)

#define EXPORTER_DECL(name) extern const struct vms_exporter vms_export_##name;
#define EXPORTER_ROW(name) &vms_export_##name,
VMS_EXPORTERS(EXPORTER_DECL)

const struct vms_exporter *const vms_exporters[] = {
	VMS_EXPORTERS(EXPORTER_ROW) NULL,
};

const struct vms_exporter *export_find(const char *name)
{
	size_t i;

	for (i = 0; vms_exporters[i]; i++)
		if (strcmp(vms_exporters[i]->name, name) == 0)
			return vms_exporters[i];
	return NULL;
}

char *export_names(char *buf, size_t n, const char *sep)
{
	size_t i, len = 0;

	if (n)
		buf[0] = '\0';
	for (i = 0; vms_exporters[i]; i++) {
		const char *name = vms_exporters[i]->name;

		if (!vms_exporters[i]->listed)
			continue;
		if (len && len + strlen(sep) < n) {
			strcpy(buf + len, sep);
			len += strlen(sep);
		}
		if (len + strlen(name) < n) {
			strcpy(buf + len, name);
			len += strlen(name);
		}
	}
	return buf;
}
