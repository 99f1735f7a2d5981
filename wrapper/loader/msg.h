/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Validation of the messages /sbin/loadndisdriver sends over
 * /dev/ndiswrapper (wrapper/include/loader_abi.h).
 *
 * Pure functions on structures that are already copied in: no user memory,
 * no allocation, no state. They compile in the module (loader.c includes
 * "../loader/msg.c") and on the host (unit tests, tests/fuzz/fuzz_ioctl),
 * so what the fuzzer checks is what the kernel runs.
 *
 * Each check returns 0 or a negative errno (the ioctl's result) and, on
 * failure, sets *why to a constant NUL-terminated reason:
 *   -EPROTO  wrong abi_version
 *   -EINVAL  a bad bus, name or setting
 *   -EFBIG   sys_size 0 or above NDIS_MAX_SYS_SIZE
 *   -E2BIG   num_settings above NDIS_MAX_SETTINGS
 */
#ifndef NDIS_MSG_H
#define NDIS_MSG_H

#include "pe_compat.h"
#include "../include/loader_abi.h"

#ifndef __KERNEL__
#include <stdbool.h>
#endif

/*
 * A driver or .sys name is a path component for the helper: 1 to size-1
 * characters of [A-Za-z0-9._-] (ASCII only), NUL-terminated within size,
 * not starting with '.' (so never "." or "..").
 */
bool ndis_msg_valid_name(const char *name, size_t size);

/* NDIS_IOCTL_ADD_DEVICE, and the id inside NDIS_IOCTL_LOAD_DRIVER. */
int ndis_msg_check_id(const struct ndis_device_id *id, const char **why);

/*
 * The fixed part of NDIS_IOCTL_LOAD_DRIVER: versions, id, sys_name,
 * sys_size and num_settings (the pointers are the copy's business).
 */
int ndis_msg_check_load(const struct ndis_load_driver *ld, const char **why);

/* The n settings copied in for a request that passed ndis_msg_check_load. */
int ndis_msg_check_settings(const struct ndis_setting *settings, __u32 n,
			    const char **why);

#endif /* NDIS_MSG_H */
