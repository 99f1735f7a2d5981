/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndisbench stand-in for an NDIS wrapper: declarations shared by the
 * module's parts.
 */

#ifndef NDISBENCH_NDISWRAPPER_H
#define NDISBENCH_NDISWRAPPER_H

int ndisbench_pci_init(void);
void ndisbench_pci_exit(void);

int ndisbench_usb_init(void);
void ndisbench_usb_exit(void);

#endif /* NDISBENCH_NDISWRAPPER_H */
