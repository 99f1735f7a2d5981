// SPDX-License-Identifier: GPL-2.0
/*
 * The kind of driver a user brought: NDIS 6 imports and imports the
 * wrapper lacks (driverkind.h).
 */
#include "driverkind.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*
 * NDIS.SYS functions that exist from NDIS 6.0 on and that an NDIS 6
 * miniport calls where an NDIS 5.x one calls others (Microsoft's NDIS
 * reference and its "porting NDIS 5.x drivers to NDIS 6.0" pages):
 * registration and attributes (NdisMRegisterMiniport and NdisMSetAttributesEx
 * in 5.x), NET_BUFFER_LIST and NET_BUFFER pools, send completion and
 * receive indication (NDIS_PACKETs in 5.x), OID request completion,
 * status indication, interrupts and timer objects.  Sorted (strcmp).
 */
static const char *const ndis6_functions[] = {
	"NdisAdvanceNetBufferDataStart",
	"NdisAdvanceNetBufferListDataStart",
	"NdisAllocateNetBuffer",
	"NdisAllocateNetBufferAndNetBufferList",
	"NdisAllocateNetBufferList",
	"NdisAllocateNetBufferListPool",
	"NdisAllocateNetBufferPool",
	"NdisAllocateTimerObject",
	"NdisCancelTimerObject",
	"NdisFreeNetBuffer",
	"NdisFreeNetBufferList",
	"NdisFreeNetBufferListPool",
	"NdisFreeNetBufferPool",
	"NdisFreeTimerObject",
	"NdisGetDataBuffer",
	"NdisMAllocateNetBufferSGList",
	"NdisMDeregisterInterruptEx",
	"NdisMDeregisterMiniportDriver",
	"NdisMDeregisterScatterGatherDma",
	"NdisMFreeNetBufferSGList",
	"NdisMIndicateReceiveNetBufferLists",
	"NdisMIndicateStatusEx",
	"NdisMOidRequestComplete",
	"NdisMRegisterInterruptEx",
	"NdisMRegisterMiniportDriver",
	"NdisMRegisterScatterGatherDma",
	"NdisMSendNetBufferListsComplete",
	"NdisMSetMiniportAttributes",
	"NdisRetreatNetBufferDataStart",
	"NdisRetreatNetBufferListDataStart",
	"NdisSetTimerObject",
};

int ndis_is_ndis6_import(const char *dll, const char *name)
{
	size_t i;

	if (strcasecmp(dll, "NDIS.SYS"))
		return 0;
	for (i = 0; i < sizeof(ndis6_functions) / sizeof(ndis6_functions[0]);
	     i++)
		if (!strcmp(ndis6_functions[i], name))
			return 1;
	return 0;
}

int ndis_wrapper_exports(uint16_t machine, const char *dll, const char *name)
{
	unsigned int i, j;

	for (i = 0; i < ndis_export_num_tables; i++) {
		const struct ndis_export_table *t = &ndis_export_tables[i];

		if (strcasecmp(t->dll, dll))
			continue;
		for (j = 0; j < t->count; j++)
			if (!strcmp(t->names[j].name, name) &&
			    (!t->names[j].i386_only ||
			     machine == PE_MACHINE_I386))
				return 1;
	}
	return 0;
}

struct find_ctx {
	uint16_t machine;
	struct ndis_findings *out;
};

static int add_import(struct ndis_import **list, unsigned int *n,
		      const char *dll, const char *name)
{
	struct ndis_import *grown;

	grown = realloc(*list, sizeof(**list) * (*n + 1));
	if (!grown)
		return -ENOMEM;
	*list = grown;
	grown[*n].dll = strdup(dll);
	grown[*n].name = strdup(name);
	if (!grown[*n].dll || !grown[*n].name) {
		free(grown[*n].dll);
		free(grown[*n].name);
		return -ENOMEM;
	}
	(*n)++;
	return 0;
}

static int find_one(void *ctx, const char *dll, const char *name)
{
	struct find_ctx *c = ctx;
	int rc = 0;

	if (ndis_is_ndis6_import(dll, name))
		rc = add_import(&c->out->ndis6, &c->out->n_ndis6, dll, name);
	if (!rc && !ndis_wrapper_exports(c->machine, dll, name))
		rc = add_import(&c->out->unknown, &c->out->n_unknown, dll,
				name);
	return rc;
}

int ndis_find(const void *image, const struct pe_info *info,
	      uint16_t machine, struct ndis_findings *out,
	      char *err, size_t errlen)
{
	struct find_ctx c = { .machine = machine, .out = out };
	int rc;

	memset(out, 0, sizeof(*out));
	rc = pe_for_each_import(image, info, find_one, &c, err, errlen);
	if (rc == -ENOMEM && err && errlen)
		snprintf(err, errlen, "out of memory listing the imports");
	if (rc)
		ndis_findings_free(out);
	return rc;
}

static void free_list(struct ndis_import *list, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		free(list[i].dll);
		free(list[i].name);
	}
	free(list);
}

void ndis_findings_free(struct ndis_findings *f)
{
	free_list(f->ndis6, f->n_ndis6);
	free_list(f->unknown, f->n_unknown);
	memset(f, 0, sizeof(*f));
}

/* head, then each import (with its DLL or not) joined by ", ", then tail */
static int join(const char *head, const struct ndis_import *list,
		unsigned int n, int with_dll, const char *tail, char **line)
{
	size_t len = strlen(head) + strlen(tail) + 1;
	unsigned int i;
	char *s, *p;

	for (i = 0; i < n; i++)
		len += strlen(list[i].dll) + strlen(list[i].name) + 3;
	s = malloc(len);
	if (!s)
		return -ENOMEM;
	p = s + sprintf(s, "%s", head);
	for (i = 0; i < n; i++) {
		if (i)
			p += sprintf(p, ", ");
		if (with_dll)
			p += sprintf(p, "%s!", list[i].dll);
		p += sprintf(p, "%s", list[i].name);
	}
	sprintf(p, "%s", tail);
	*line = s;
	return 0;
}

int ndis_ndis6_line(const struct ndis_findings *f, char **line)
{
	*line = NULL;
	if (!f->n_ndis6)
		return 0;
	return join("an NDIS 6 miniport (imports ", f->ndis6, f->n_ndis6, 0,
		    "); NDIS wrappers load NDIS 5.x miniports", line);
}

int ndis_unknown_line(const struct ndis_findings *f, char **line)
{
	char head[96];

	*line = NULL;
	if (!f->n_unknown)
		return 0;
	snprintf(head, sizeof(head),
		 "imports %u function%s this wrapper does not provide: ",
		 f->n_unknown, f->n_unknown == 1 ? "" : "s");
	return join(head, f->unknown, f->n_unknown, 1, "", line);
}
