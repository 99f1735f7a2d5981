/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: what differs between the kernels the wrapper builds on
 * (Debian's 5.10, 6.1, 6.12, trixie-backports' 7.x and sid's, and the
 * linux-source trees of 5.10 and 6.1), in one place. Every other file is written for the newest
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

/*
 * cfg80211_ops.get_station() names the station's wireless_dev in 7.x (7.2
 * and 7.3 do; 6.12 passes its net_device; the first release between them
 * is not verified here): the type of its second argument.
 */
struct net_device;
struct wireless_dev;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 0, 0)
typedef struct wireless_dev ndis_station_dev;
#else
typedef struct net_device ndis_station_dev;
#endif

/*
 * The key operations: an MLO link id since 6.1; add_key and del_key name
 * a wireless_dev where get_station does (7.x; set_default_key keeps its
 * net_device).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define NDIS_KEY_LINK_ID	int link_id,
#define NDIS_KEY_LINK_ID_UNUSED	(void)link_id
#else
#define NDIS_KEY_LINK_ID
#define NDIS_KEY_LINK_ID_UNUSED	do { } while (0)
#endif
typedef ndis_station_dev ndis_key_dev;

/* hex_to_bin(): linux/hex.h where the kernel has one (7.x's kernel.h no
 * longer brings it) */
#if __has_include(<linux/hex.h>)
#include <linux/hex.h>
#endif

#include <linux/timer.h>

/*
 * timer_delete() and timer_delete_sync(): 6.2 (and 6.1's stable series);
 * the del_timer() names they replaced are gone since 6.16. 5.10 has only
 * timer_delete_sync().
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#define timer_delete(t)		del_timer(t)
#endif

/* timer_container_of(): from_timer() renamed in 6.16 */
#ifndef timer_container_of
#define timer_container_of(var, callback_timer, timer_fieldname) \
	from_timer(var, callback_timer, timer_fieldname)
#endif

#endif /* NDIS_COMPAT_H */
