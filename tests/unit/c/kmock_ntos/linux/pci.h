/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for <linux/pci.h>: compat.h includes it; the files kmock
 * builds use nothing of it. */
#ifndef KMOCK_NTOS_PCI_H
#define KMOCK_NTOS_PCI_H
#endif
