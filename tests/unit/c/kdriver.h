/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The wrapper's host-testable kernel code (wrapper/driver/usb_ctrl.h,
 * ndis_sysfs.h) as kdriver.c builds it: -nostdinc against kmock, like the
 * kernel. Plain C types only, so test programs built against libc can
 * call it.
 */
#ifndef NDIS_KDRIVER_H
#define NDIS_KDRIVER_H

struct ndis_adapter;

/* ndis_oid_query_t (u32 is unsigned int in the kernel and kmock) */
typedef int (*kd_oid_query_t)(struct ndis_adapter *ad, unsigned int oid,
			      void *buf, unsigned int len,
			      unsigned int *written);

struct kd_function {
	const char *name;
	unsigned short function;
};

/* URB_FUNCTION_VENDOR_* and URB_FUNCTION_CLASS_*, as usbd.h numbers them */
extern const struct kd_function kd_vendor_functions[];
extern const unsigned int kd_oid_802_11_ssid;

unsigned char kd_usb_vendor_type(unsigned short function,
				 unsigned char reserved_bits);
int kd_usb_ctrl_pipe_in(unsigned char request_type, unsigned short length);
long kd_ssid_show(struct ndis_adapter *ad, kd_oid_query_t query, char *buf);

/* win_crt.h: Microsoft _snprintf (ms_abi, as drivers call it), _strnicmp */
__attribute__((ms_abi)) int kd_win_snprintf(char *buf, unsigned long count,
					    const char *fmt, ...);
int kd_win_strnicmp(const char *a, const char *b, unsigned long n);

/* ndis_sg.h: a SCATTER_GATHER_LIST as the driver sees it (amd64) */
struct kd_sg_element {
	unsigned long long address;
	unsigned int length, pad;
	unsigned long long reserved;
};

struct kd_sg {
	unsigned int count, pad;
	unsigned long long reserved;
	struct kd_sg_element elements[8];
};

int kd_sg_append(struct kd_sg *sg, unsigned int max_elements,
		 unsigned long long addr, unsigned int len, unsigned int max_len);

/* ndis_offload.h: a query answer's checksum task (V4Transmit bits) and
 * the header the wrapper asks with */
unsigned int kd_offload_offered(const unsigned char *buf,
				unsigned int written);
void kd_offload_header(void *header28, unsigned int eth_hlen);

/* wrapper/loader/kuser.h: KUSER_SHARED_DATA references redirected */
unsigned int kd_kuser_redirect(unsigned char *sec, unsigned long len, int code,
			       unsigned long long page);

/* kmock's cond_resched(): calls counted here */
extern unsigned long kd_resched_calls;

#endif
