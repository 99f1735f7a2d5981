/* SPDX-License-Identifier: GPL-2.0 */
/* kmock's <linux/string.h> and the rest of the kernel's that crt.c uses. */
#ifndef KMOCK_NTOS_STRING_H
#define KMOCK_NTOS_STRING_H
#include_next <linux/string.h>
void *memmove(void *d, const void *s, size_t n);
void *memchr(const void *s, int c, size_t n);
size_t strnlen(const char *s, size_t max);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
char *strstr(const char *h, const char *n);
#endif
