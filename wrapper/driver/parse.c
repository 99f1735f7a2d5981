// SPDX-License-Identifier: GPL-2.0
/*
 * The parsers of what a driver hands back (wrapper/parse/): compiled here
 * as they are in the host's unit tests and fuzz targets.
 */
#include "../parse/bssid.c"
#include "../parse/usbcfg.c"
#include "../parse/ndiscfg.c"
