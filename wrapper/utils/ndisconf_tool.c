// SPDX-License-Identifier: GPL-2.0
/*
 * ndisconf: the wrapper's parsers as a host tool for the bench.
 *
 *   ndisconf --describe FILE.inf|FILE.sys [--arch NTamd64|NTx86]
 *
 * prints one line of JSON (describe.h), or one line of error on stderr
 * with exit status 1 (the file is malformed or unsupported), 3 (it
 * cannot be read) or 4 (out of memory, output failed); 2 is a usage
 * error.  --arch chooses the models decoration of an .inf (NTamd64, the
 * x86_64 wrapper's, by default).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "describe.h"
#include "inf.h"

static void usage(FILE *f)
{
	fputs("usage: ndisconf --describe FILE.inf|FILE.sys [--arch NTamd64|NTx86]\n",
	      f);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "describe", required_argument, NULL, 'd' },
		{ "arch", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *file = NULL, *arch = INF_ARCH_AMD64;
	char err[1024] = "";
	int c, rc;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			file = optarg;
			break;
		case 'a':
			if (strcasecmp(optarg, INF_ARCH_AMD64) &&
			    strcasecmp(optarg, INF_ARCH_X86)) {
				fprintf(stderr, "ndisconf: --arch %s: not %s or %s\n",
					optarg, INF_ARCH_AMD64, INF_ARCH_X86);
				return 2;
			}
			arch = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!file || optind != argc) {
		usage(stderr);
		return 2;
	}
	rc = ndis_describe_file(file, arch, stdout, err, sizeof(err));
	if (rc)
		fprintf(stderr, "%s\n", err);
	return rc;
}
