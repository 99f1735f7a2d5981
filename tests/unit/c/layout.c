// SPDX-License-Identifier: GPL-2.0
/*
 * The wrapper's Windows layouts for both architectures: compiling this
 * file -m64 and -m32 (tests/unit/c/meson.build) evaluates every
 * static_assert of wintypes.h, wdm.h and usbd.h with that architecture's
 * numbers (WIN_LAYOUT), so a wrong amd64 or i386 offset fails the build
 * without a kernel of either. It has no code.
 */
#include "wdm.h"
#include "usbd.h"
#include "win_crt.h"
