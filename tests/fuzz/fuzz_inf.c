// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: the INF parser and the ndiswrapper-level queries. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "inf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct inf_file *inf;
	struct inf_hwid *ids;
	char err[256];
	int n, i;

	if (inf_parse_buffer("fuzz.inf", data, size, &inf, err, sizeof(err)))
		return 0;
	if (!inf_hwids(inf, &ids, &n, err, sizeof(err))) {
		for (i = 0; i < n; i++) {
			struct inf_param *p;
			char *sys;
			int np;

			if (!inf_params(inf, ids[i].install, &p, &np, err,
					sizeof(err)))
				inf_params_free(p, np);
			if (!inf_sys_file(inf, ids[i].install, &sys, err,
					  sizeof(err)))
				free(sys);
		}
		inf_hwids_free(ids, n);
	}
	inf_free(inf);
	return 0;
}
