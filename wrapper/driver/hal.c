// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: HAL.dll.
 */

#include <linux/delay.h>

#include "winexport.h"

/* A busy wait, as on Windows; drivers use it for microseconds. */
static WIN_ABI void KeStallExecutionProcessor(u32 usecs)
{
	while (usecs > 1000) {
		udelay(1000);
		usecs -= 1000;
	}
	udelay(usecs);
}
WIN_FUNC(KeStallExecutionProcessor);
