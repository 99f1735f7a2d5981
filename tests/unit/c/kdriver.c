// SPDX-License-Identifier: GPL-2.0
/*
 * wrapper/driver/usb_ctrl.h and ndis_sysfs.h built as the kernel builds
 * them (-nostdinc, kmock's headers), behind kdriver.h's plain entry
 * points.
 */
#include "../loader/kuser.h"
#include "ndis_offload.h"
#include "ndis_sg.h"
#include "ndis_sysfs.h"
#include "usb_ctrl.h"
#include "win_crt.h"
#include "kdriver.h"

const struct kd_function kd_vendor_functions[] = {
	{ "VENDOR_DEVICE", URB_FUNCTION_VENDOR_DEVICE },
	{ "VENDOR_INTERFACE", URB_FUNCTION_VENDOR_INTERFACE },
	{ "VENDOR_ENDPOINT", URB_FUNCTION_VENDOR_ENDPOINT },
	{ "VENDOR_OTHER", URB_FUNCTION_VENDOR_OTHER },
	{ "CLASS_DEVICE", URB_FUNCTION_CLASS_DEVICE },
	{ "CLASS_INTERFACE", URB_FUNCTION_CLASS_INTERFACE },
	{ "CLASS_ENDPOINT", URB_FUNCTION_CLASS_ENDPOINT },
	{ "CLASS_OTHER", URB_FUNCTION_CLASS_OTHER },
	{ NULL, 0 }
};

const unsigned int kd_oid_802_11_ssid = OID_802_11_SSID;

unsigned char kd_usb_vendor_type(unsigned short function,
				 unsigned char reserved_bits)
{
	return ndis_usb_vendor_type(function, reserved_bits);
}

int kd_usb_ctrl_pipe_in(unsigned char request_type, unsigned short length)
{
	return ndis_usb_ctrl_pipe_in(request_type, length);
}

long kd_ssid_show(struct ndis_adapter *ad, kd_oid_query_t query, char *buf)
{
	return ndis_ssid_show(ad, query, buf);
}

__attribute__((ms_abi)) int kd_win_snprintf(char *buf, unsigned long count,
					    const char *fmt, ...)
{
	win_va_list ap;
	int n;

	win_va_start(ap, fmt);
	n = win_vsnprintf(buf, count, fmt, &ap);
	win_va_end(ap);
	return n;
}

int kd_win_strnicmp(const char *a, const char *b, unsigned long n)
{
	return win_strnicmp(a, b, n);
}

int kd_sg_append(struct kd_sg *sg, unsigned int max_elements,
		 unsigned long long addr, unsigned int len, unsigned int max_len)
{
	static_assert(sizeof(struct kd_sg_element) ==
		      sizeof(struct win_sg_element));
	static_assert(offsetof(struct kd_sg, elements) ==
		      offsetof(struct win_sg_list, elements));
	return ndis_sg_append((struct win_sg_list *)sg, max_elements, addr,
			      len, max_len);
}

unsigned int kd_kuser_redirect(unsigned char *sec, unsigned long len, int code,
			       unsigned long long page)
{
	return kuser_redirect(sec, len, code, page);
}

unsigned int kd_offload_offered(const unsigned char *buf, unsigned int written)
{
	return ndis_offload_offered(buf, written);
}

void kd_offload_header(void *header28, unsigned int eth_hlen)
{
	ndis_offload_header(header28, eth_hlen);
}
