/* export.c — the exporter registry: a format is a file and a line here.
 * See export.h.
 */
#include "export/export.h"

#include <string.h>

const struct vms_exporter *const vms_exporters[] = {
	&vms_export_text,	 &vms_export_csv,     &vms_export_json,
	&vms_export_openmetrics, &vms_export_summary, NULL,
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
