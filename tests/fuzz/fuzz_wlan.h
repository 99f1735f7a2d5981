/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The link token of fuzz_wlan_link and of its seeds (mkseeds_wlan.c). */
#ifndef NDISBENCH_FUZZ_WLAN_H
#define NDISBENCH_FUZZ_WLAN_H

#include <stdint.h>

#include "wlan-link.h"

static const uint8_t fuzz_link_token[WLAN_LINK_TOKEN_LEN] = {
	0x6e, 0x64, 0x69, 0x73, 0x62, 0x65, 0x6e, 0x63,
	0x68, 0x2d, 0x66, 0x75, 0x7a, 0x7a, 0x00, 0xff,
};

#endif
