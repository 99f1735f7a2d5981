// SPDX-License-Identifier: GPL-2.0
/* Writes the synthetic test images (tests/unit/c/pe_build.c) as fuzz
 * seeds: mkseeds <dir>  ->  <dir>/tiny.sys (PE32+), <dir>/tiny32.sys (PE32) */
#include <stdio.h>

#include "pe_build.h"

static int write_seed(const char *dir, const char *name,
		      void (*build)(uint8_t *))
{
	uint8_t buf[PB_FILE_SIZE];
	char path[4096];
	FILE *f;

	build(buf);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, sizeof(buf), f) != sizeof(buf) || fclose(f)) {
		perror(path);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mkseeds DIR\n");
		return 2;
	}
	if (write_seed(argv[1], "tiny.sys", pb_build) ||
	    write_seed(argv[1], "tiny32.sys", pb_build32))
		return 1;
	return 0;
}
