// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: NDIS.SYS's counted string helpers (NDIS_STRING is a
 * UNICODE_STRING, NDIS_ANSI_STRING an ANSI_STRING). The caller owns every
 * buffer but NdisInitializeString's. The wrapper's ANSI code page is
 * Latin-1: its 256 characters are the first 256 of Unicode, and what it
 * lacks becomes '?', as Windows' conversion does for an unmappable one.
 */

#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/types.h>

#include "ndis_core.h"
#include "winexport.h"

/* Points at a NUL-terminated string; NULL gives the empty one. */
static WIN_ABI void NdisInitUnicodeString(struct win_unicode_string *dst,
					  u16 *src)
{
	size_t n = 0;

	dst->buffer = src;
	if (!src) {
		dst->length = dst->max_length = 0;
		return;
	}
	while (src[n] && n < U16_MAX / 2 - 1)
		n++;
	dst->length = n * 2;
	dst->max_length = n * 2 + 2;
}
WIN_FUNC(NdisInitUnicodeString);

static WIN_ABI void NdisInitAnsiString(struct win_ansi_string *dst, char *src)
{
	size_t n;

	dst->buffer = src;
	if (!src) {
		dst->length = dst->max_length = 0;
		return;
	}
	n = strnlen(src, U16_MAX - 1);
	dst->length = n;
	dst->max_length = n + 1;
}
WIN_FUNC(NdisInitAnsiString);

/*
 * The destination's MaximumLength is what its buffer holds; the result is
 * NUL-terminated when there is room for it. A destination too small is
 * left as it was.
 */
static WIN_ABI ndis_status
NdisAnsiStringToUnicodeString(struct win_unicode_string *dst,
			      const struct win_ansi_string *src)
{
	unsigned int i, n = src->length;

	if (n * 2 > dst->max_length)
		return NDIS_STATUS_BUFFER_OVERFLOW;
	for (i = 0; i < n; i++)
		dst->buffer[i] = (u8)src->buffer[i];
	if (n * 2 + 2 <= dst->max_length)
		dst->buffer[n] = 0;
	dst->length = n * 2;
	return NDIS_STATUS_SUCCESS;
}
WIN_FUNC(NdisAnsiStringToUnicodeString);

static WIN_ABI ndis_status
NdisUnicodeStringToAnsiString(struct win_ansi_string *dst,
			      const struct win_unicode_string *src)
{
	unsigned int i, n = src->length / 2;

	if (n > dst->max_length)
		return NDIS_STATUS_BUFFER_OVERFLOW;
	for (i = 0; i < n; i++) {
		u16 c = src->buffer[i];

		dst->buffer[i] = c <= 0xff ? (char)c : '?';
	}
	if (n < dst->max_length)
		dst->buffer[n] = 0;
	dst->length = n;
	return NDIS_STATUS_SUCCESS;
}
WIN_FUNC(NdisUnicodeStringToAnsiString);

/* ASCII and the Latin-1 letters; others unchanged. */
static u16 ndis_upcase(u16 c)
{
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 'A';
	if (c >= 0xe0 && c <= 0xfe && c != 0xf7)
		return c - 0x20;
	return c;
}

static WIN_ABI ndis_status
NdisUpcaseUnicodeString(struct win_unicode_string *dst,
			const struct win_unicode_string *src)
{
	unsigned int i, n = src->length / 2;

	if (src->length > dst->max_length)
		return NDIS_STATUS_BUFFER_OVERFLOW;
	for (i = 0; i < n; i++)
		dst->buffer[i] = ndis_upcase(src->buffer[i]);
	dst->length = n * 2;
	return NDIS_STATUS_SUCCESS;
}
WIN_FUNC(NdisUpcaseUnicodeString);

/*
 * A Unicode copy of an ANSI string in memory of the driver's, which it
 * frees with NdisFreeString (a DDK macro for NdisFreeMemory). Out of
 * memory gives the empty string without a buffer.
 */
static WIN_ABI void NdisInitializeString(struct win_unicode_string *dst,
					 const char *src)
{
	struct ndis_driver *drv;
	size_t i, n = src ? strnlen(src, U16_MAX / 2 - 1) : 0;

	dst->buffer = NULL;
	dst->length = dst->max_length = 0;
	drv = ndis_driver_at((unsigned long)__builtin_return_address(0));
	if (drv)
		dst->buffer = win_alloc(drv, (n + 1) * 2);
	if (!dst->buffer)
		return;
	for (i = 0; i < n; i++)
		dst->buffer[i] = (u8)src[i];
	dst->buffer[n] = 0;
	dst->length = n * 2;
	dst->max_length = (n + 1) * 2;
}
WIN_FUNC(NdisInitializeString);

/*
 * The adapter's instance name in memory of the driver's (freed with
 * NdisFreeString): the wrapper names an adapter by its device (the PCI
 * address or USB path), which is what identifies it to the user.
 */
static WIN_ABI ndis_status
NdisMQueryAdapterInstanceName(struct win_unicode_string *name, void *handle)
{
	const char *dev = ndis_handle_name(handle);
	size_t i, n = strnlen(dev, U16_MAX / 2 - 1);
	struct ndis_driver *drv;

	name->buffer = NULL;
	name->length = name->max_length = 0;
	drv = ndis_driver_at((unsigned long)__builtin_return_address(0));
	if (drv)
		name->buffer = win_alloc(drv, (n + 1) * 2);
	if (!name->buffer)
		return NDIS_STATUS_RESOURCES;
	for (i = 0; i <= n; i++)
		name->buffer[i] = (u8)dev[i];
	name->length = n * 2;
	name->max_length = (n + 1) * 2;
	return NDIS_STATUS_SUCCESS;
}
WIN_FUNC(NdisMQueryAdapterInstanceName);
