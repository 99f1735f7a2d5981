// SPDX-License-Identifier: GPL-2.0
/* Writes the synthetic PE32+ test image (tests/unit/c/pe_build.c) as a fuzz
 * seed: mkseeds <dir>  ->  <dir>/tiny.sys */
#include <stdio.h>

#include "pe_build.h"

int main(int argc, char **argv)
{
	uint8_t buf[PB_FILE_SIZE];
	char path[4096];
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: mkseeds DIR\n");
		return 2;
	}
	pb_build(buf);
	snprintf(path, sizeof(path), "%s/tiny.sys", argv[1]);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, sizeof(buf), f) != sizeof(buf) || fclose(f)) {
		perror(path);
		return 1;
	}
	return 0;
}
