/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMOCK_DMA_MAPPING_H
#define KMOCK_DMA_MAPPING_H
/* the test program's cache line */
int dma_get_cache_alignment(void);
#endif
