// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: NDIS_RW_LOCK, many readers or one writer, all at
 * DISPATCH_LEVEL. NDIS keeps a reader count per processor so that a
 * reader never waits; here one count in the first slot does, kept with
 * the compiler's atomics, and the lock's spin lock only admits: a reader
 * takes it just to count itself in, a writer holds it and waits, lock
 * released, until no reader is left. So a reader may enter again while it
 * reads (recursively, as NDIS allows), and no reader ever waits on a
 * writer that waits on it.
 */

#include <linux/build_bug.h>
#include <linux/string.h>
#include <linux/types.h>
#include <asm/processor.h>

#include "ndis_core.h"
#include "ndis_spinlock.h"
#include "wdm.h"
#include "winexport.h"

/* MAXIMUM_PROCESSORS: one 16-byte reference slot each */
#define NDIS_RW_SLOTS		WIN_LAYOUT(64, 32)

struct ndis_rw_lock {			/* driver storage */
	union {
		struct ndis_spin_lock sl;	/* SpinLock, Context */
		u8 reserved[16];
	};
	u32 readers;			/* RefCount[0] */
	u8 refs[NDIS_RW_SLOTS * 16 - sizeof(u32)];
};
static_assert(sizeof(struct ndis_rw_lock) == WIN_LAYOUT(1040, 528));

#define NDIS_RW_READ		1	/* LOCK_STATE.LockState, ours */
#define NDIS_RW_WRITE		2

struct ndis_lock_state {		/* LOCK_STATE */
	u16 state;
	u8 old_irql;
};

static WIN_ABI void NdisInitializeReadWriteLock(struct ndis_rw_lock *rw)
{
	memset(rw, 0, sizeof(*rw));
}
WIN_FUNC(NdisInitializeReadWriteLock);

static WIN_ABI void NdisAcquireReadWriteLock(struct ndis_rw_lock *rw,
					     u8 write,
					     struct ndis_lock_state *st)
{
	if (!write) {
		ndis_spin_lock_acquire(&rw->sl);
		st->old_irql = rw->sl.old_irql;
		__atomic_add_fetch(&rw->readers, 1, __ATOMIC_ACQUIRE);
		/* the release lets others in and keeps DISPATCH_LEVEL */
		rw->sl.old_irql = WIN_DISPATCH_LEVEL;
		ndis_spin_lock_release(&rw->sl);
		st->state = NDIS_RW_READ;
		return;
	}
	for (;;) {
		ndis_spin_lock_acquire(&rw->sl);
		if (!__atomic_load_n(&rw->readers, __ATOMIC_ACQUIRE))
			break;
		ndis_spin_lock_release(&rw->sl);
		cpu_relax();
	}
	st->old_irql = rw->sl.old_irql;
	st->state = NDIS_RW_WRITE;
}
WIN_FUNC(NdisAcquireReadWriteLock);

static WIN_ABI void NdisReleaseReadWriteLock(struct ndis_rw_lock *rw,
					     struct ndis_lock_state *st)
{
	if (st->state == NDIS_RW_WRITE) {
		rw->sl.old_irql = st->old_irql;
		ndis_spin_lock_release(&rw->sl);
		return;
	}
	__atomic_sub_fetch(&rw->readers, 1, __ATOMIC_RELEASE);
	hal_set_irql(st->old_irql, NULL);
}
WIN_FUNC(NdisReleaseReadWriteLock);
