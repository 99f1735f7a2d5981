/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: what differs between the kernels the wrapper builds on
 * (Debian's 5.10, 6.1 and 6.12, and the linux-source trees of the same
 * versions), in one place. Every other file is written for the newest
 * API; this header maps it onto the older kernels.
 */

#ifndef NDIS_COMPAT_H
#define NDIS_COMPAT_H

#include <linux/ctype.h>	/* isdigit(): 6.1 pulls it in indirectly */
#include <linux/pci.h>
#include <linux/version.h>

/* add_taint() and TAINT_*: linux/panic.h since 5.14, linux/kernel.h before */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 14, 0)
#include <linux/panic.h>
#else
#include <linux/kernel.h>
#endif

/*
 * cfg80211_connect_resp_params: one BSS per MLO link since 6.0
 * (links[0] for a non-MLO connection), a single bss/bssid before.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 0, 0)
#define ndis_cr_bss(cr)		((cr)->links[0].bss)
#define ndis_cr_bssid(cr)	((cr)->links[0].bssid)
#else
#define ndis_cr_bss(cr)		((cr)->bss)
#define ndis_cr_bssid(cr)	((cr)->bssid)
#endif

/* The line interrupt of pci_alloc_irq_vectors(): PCI_IRQ_INTX since 6.8,
 * PCI_IRQ_LEGACY (removed in 6.10) before. */
#ifndef PCI_IRQ_INTX
#define PCI_IRQ_INTX		PCI_IRQ_LEGACY
#endif

#endif /* NDIS_COMPAT_H */
