// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: URB_FUNCTION_SELECT_CONFIGURATION's interface list
 * (wrapper/parse/usbcfg.c, what usb.c runs on a driver's URB).
 *
 * Input: 6 bytes of device (the configuration value the driver asks for,
 * the active one, the interface's number, its alternate setting, its
 * number of pipes (mod 33: the module drives up to 32), its class), then
 * the list up to the URB's end (a copy of exactly that size). Oracle: the
 * rules of usbcfg.h restated on a copy of the list, giving the expected
 * result and the expected bytes after the call, compared byte for byte:
 * another interface's entry loses its handle and pipes, the device's
 * interface gets its handle, class and pipes (a driver's own maximum
 * transfer size stands), nothing else changes, and a refused list is
 * changed only in the entries before the refusal.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "usbcfg.h"

#define MAX_PIPES 32

static int expect(uint8_t *list, size_t size, uint8_t asked,
		  const struct ndis_usbcfg_dev *dev)
{
	size_t off = 0;
	uint32_t i;

	if (size < USBD_INTERFACE_SIZE(0) || asked != dev->config_value)
		return -EINVAL;
	while (size - off >= sizeof(struct usbd_interface_information)) {
		struct usbd_interface_information h;
		uint8_t *p = list + off;

		memcpy(&h, p, sizeof(h));
		if (h.length < sizeof(h) || h.length > size - off ||
		    h.length % _Alignof(struct usbd_interface_information))
			return -EINVAL;
		off += h.length;
		if (h.interface_number != dev->interface_number) {
			h.interface_handle = NULL;
			h.number_of_pipes = 0;
			memcpy(p, &h, sizeof(h));
			continue;
		}
		if (h.alternate_setting != dev->alternate_setting ||
		    h.length < USBD_INTERFACE_SIZE(dev->num_pipes))
			return -EINVAL;
		h.class = dev->class;
		h.subclass = dev->subclass;
		h.protocol = dev->protocol;
		h.interface_handle = dev->handle;
		h.number_of_pipes = dev->num_pipes;
		memcpy(p, &h, sizeof(h));
		for (i = 0; i < dev->num_pipes; i++) {
			struct usbd_pipe_information pi;
			uint8_t *q = p + sizeof(h) + i * sizeof(pi);

			memcpy(&pi, q, sizeof(pi));
			pi.maximum_packet_size = dev->pipes[i].max_packet;
			pi.endpoint_address = dev->pipes[i].address;
			pi.interval = dev->pipes[i].interval;
			pi.pipe_type = dev->pipes[i].type;
			pi.pipe_handle = dev->pipes[i].handle;
			if (!pi.maximum_transfer_size)
				pi.maximum_transfer_size =
					USBD_DEFAULT_MAXIMUM_TRANSFER_SIZE;
			memcpy(q, &pi, sizeof(pi));
		}
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ndis_usbcfg_pipe pipes[MAX_PIPES];
	struct ndis_usbcfg_dev dev;
	uint8_t *list, *want;
	size_t len;
	uint32_t i;
	int rc;

	if (size < 6 || size - 6 > 65535)	/* the URB's Length is a u16 */
		return 0;
	memset(&dev, 0, sizeof(dev));
	dev.config_value = data[1];
	dev.interface_number = data[2];
	dev.alternate_setting = data[3];
	dev.num_pipes = data[4] % (MAX_PIPES + 1);
	dev.class = data[5];
	dev.subclass = data[5] ^ 0x55;
	dev.protocol = data[5] ^ 0xaa;
	dev.pipes = pipes;
	dev.handle = (void *)(uintptr_t)0xfeed0000;
	for (i = 0; i < MAX_PIPES; i++) {
		pipes[i].max_packet = 64 << (i % 4);
		pipes[i].address = (i & 1 ? 0x80 : 0) | (i + 1);
		pipes[i].interval = i;
		pipes[i].type = 2 + (i & 1);
		pipes[i].handle = (void *)(uintptr_t)(0xbeef0000 + i);
	}
	len = size - 6;
	list = malloc(len ? len : 1);
	want = malloc(len ? len : 1);
	if (!list || !want)
		abort();
	memcpy(list, data + 6, len);
	memcpy(want, data + 6, len);
	rc = ndis_usbcfg_select(list, len, data[0], &dev);
	if (rc != expect(want, len, data[0], &dev) ||
	    memcmp(list, want, len))
		abort();
	free(list);
	free(want);
	return 0;
}
