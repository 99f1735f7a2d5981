/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMOCK_NTOS_PROCESSOR_H
#define KMOCK_NTOS_PROCESSOR_H
#include <asm/processor.h>
#endif
