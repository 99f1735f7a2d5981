/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMOCK_STRING_H
#define KMOCK_STRING_H
#include <linux/types.h>
void *memset(void *s, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strcasecmp(const char *a, const char *b);
#endif
