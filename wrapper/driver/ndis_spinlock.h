/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: NdisAcquireSpinLock/NdisReleaseSpinLock on an NDIS_SPIN_LOCK
 * (ndis.c), for the exports that take the driver's lock themselves.
 */

#ifndef NDIS_SPINLOCK_H
#define NDIS_SPINLOCK_H

#include "wintypes.h"

/* Raises the IRQL to DISPATCH_LEVEL, remembering the old one in the lock. */
void ndis_spin_lock_acquire(struct ndis_spin_lock *sl);
void ndis_spin_lock_release(struct ndis_spin_lock *sl);

#endif /* NDIS_SPINLOCK_H */
