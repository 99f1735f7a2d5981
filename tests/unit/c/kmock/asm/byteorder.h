/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMOCK_ASM_BYTEORDER_H
#define KMOCK_ASM_BYTEORDER_H
#include <linux/types.h>
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define le16_to_cpu(x) ((u16)(__le16)(x))
#define le32_to_cpu(x) ((u32)(__le32)(x))
#define cpu_to_le16(x) ((__le16)(u16)(x))
#define cpu_to_le32(x) ((__le32)(u32)(x))
#define le64_to_cpu(x) ((u64)(__le64)(x))
#define cpu_to_le64(x) ((__le64)(u64)(x))
#else
#define le16_to_cpu(x) __builtin_bswap16(x)
#define le32_to_cpu(x) __builtin_bswap32(x)
#define cpu_to_le16(x) __builtin_bswap16(x)
#define cpu_to_le32(x) __builtin_bswap32(x)
#define le64_to_cpu(x) __builtin_bswap64(x)
#define cpu_to_le64(x) __builtin_bswap64(x)
#endif
#endif
