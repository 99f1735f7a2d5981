// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the wrapper's kernel code that does not need a kernel:
 * the control request setup of usb.c (wrapper/driver/usb_ctrl.h) and
 * /sys/class/net/<if>/ndis/ssid (ndis_sysfs.h), built -nostdinc against
 * kmock by kdriver.c as the kernel builds them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kdriver.h"
#include "tap.h"

#define SYSFS_PAGE	4096
#define STACK_PAINT	0xa5

int sysfs_emit(char *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

int sysfs_emit(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, SYSFS_PAGE, fmt, ap);
	va_end(ap);
	return n;
}

/* -- usb_ctrl.h ------------------------------------------------------------ */

/* bmRequestType's type and recipient for each function (USB 2.0, 9.3) */
static unsigned char expected_type(const char *name)
{
	unsigned char type = !strncmp(name, "VENDOR", 6) ? 0x40 : 0x20;
	const char *recip = strchr(name, '_') + 1;

	if (!strcmp(recip, "INTERFACE"))
		return type | 1;
	if (!strcmp(recip, "ENDPOINT"))
		return type | 2;
	if (!strcmp(recip, "OTHER"))
		return type | 3;
	return type;
}

static void test_usb_vendor_type(void)
{
	const struct kd_function *f;
	int n = 0;

	for (f = kd_vendor_functions; f->name; f++, n++) {
		unsigned char want = expected_type(f->name);
		unsigned char got;

		got = kd_usb_vendor_type(f->function, 0);
		if (got != want)
			printf("#   %s: 0x%02x, want 0x%02x\n", f->name, got, want);
		CHECK(got == want);
		/* recipient values 4..31 are the driver's to add */
		CHECK(kd_usb_vendor_type(f->function, 0x04) == (want | 0x04));
		CHECK(kd_usb_vendor_type(f->function, 0x1c) == (want | 0x1c));
		/* the direction and type bits are not */
		got = kd_usb_vendor_type(f->function, 0xe0);
		if (got != want)
			printf("#   %s with reserved bits 0xe0: 0x%02x, want 0x%02x\n",
			       f->name, got, want);
		CHECK(got == want);
		got = kd_usb_vendor_type(f->function, 0xff);
		CHECK(got == (want | 0x1f));
		CHECK(!(got & 0x80));
	}
	CHECK(n == 8);
}

static void test_usb_ctrl_pipe(void)
{
	/* IN with data: the IN pipe */
	CHECK(kd_usb_ctrl_pipe_in(0xc0, 8) == 1);
	CHECK(kd_usb_ctrl_pipe_in(0x80, 18) == 1);	/* GET_DESCRIPTOR */
	CHECK(kd_usb_ctrl_pipe_in(0xa1, 0xffff) == 1);
	/* IN without data counts as OUT to the USB core */
	if (kd_usb_ctrl_pipe_in(0xc0, 0))
		printf("#   a zero-length IN request went on the IN pipe\n");
	CHECK(kd_usb_ctrl_pipe_in(0xc0, 0) == 0);
	CHECK(kd_usb_ctrl_pipe_in(0x80, 0) == 0);
	/* OUT: the OUT pipe, with or without data */
	CHECK(kd_usb_ctrl_pipe_in(0x40, 8) == 0);
	CHECK(kd_usb_ctrl_pipe_in(0x40, 0) == 0);
	CHECK(kd_usb_ctrl_pipe_in(0x7f, 8) == 0);
}

/* -- ndis_sysfs.h ---------------------------------------------------------- */

/* A driver's OID_802_11_SSID answer: what it writes and what it claims. */
struct ndis_adapter {
	int rc;
	unsigned char reply[64];
	unsigned int nbytes;		/* bytes of reply written */
	unsigned int written;		/* what it says it wrote */
	/* seen by the query */
	unsigned int oid, len;
	int dirty;			/* the buffer was not zero on entry */
	int calls;
};

static int mock_query(struct ndis_adapter *ad, unsigned int oid, void *buf,
		      unsigned int len, unsigned int *written)
{
	unsigned char *b = buf;
	unsigned int i;

	ad->calls++;
	ad->oid = oid;
	ad->len = len;
	for (i = 0; i < len; i++)
		if (b[i])
			ad->dirty = 1;
	memcpy(buf, ad->reply, ad->nbytes < len ? ad->nbytes : len);
	*written = ad->written;
	return ad->rc;
}

static void reply(struct ndis_adapter *ad, unsigned int ssid_len,
		  const char *ssid, unsigned int nbytes, unsigned int written)
{
	memset(ad, 0, sizeof(*ad));
	ad->reply[0] = ssid_len & 0xff;
	ad->reply[1] = (ssid_len >> 8) & 0xff;
	ad->reply[2] = (ssid_len >> 16) & 0xff;
	ad->reply[3] = ssid_len >> 24;
	memcpy(ad->reply + 4, ssid, strlen(ssid));
	ad->nbytes = nbytes;
	ad->written = written;
}

/*
 * Leaves STACK_PAINT over the stack the next call from the same caller
 * will use, as an earlier syscall leaves its data there in the kernel.
 */
static __attribute__((noinline)) void paint_stack(void)
{
	volatile unsigned char pad[8192];
	size_t i;

	for (i = 0; i < sizeof(pad); i++)
		pad[i] = STACK_PAINT;
}

static __attribute__((noinline)) long show(struct ndis_adapter *ad, char *buf)
{
	memset(buf, 0, SYSFS_PAGE);
	paint_stack();
	return kd_ssid_show(ad, mock_query, buf);
}

static int painted(const char *buf)
{
	return memchr(buf, STACK_PAINT, SYSFS_PAGE) != NULL;
}

static void test_ssid_show(void)
{
	static char buf[SYSFS_PAGE];
	struct ndis_adapter ad;
	long rc;

	/* an honest driver */
	reply(&ad, 9, "ndisbench", 13, 13);
	CHECK(show(&ad, buf) == 10);
	CHECK_STR(buf, "ndisbench\n");
	CHECK(ad.oid == kd_oid_802_11_ssid && ad.len == 36 && ad.calls == 1);
	reply(&ad, 32, "0123456789abcdef0123456789abcdef", 36, 36);
	CHECK(show(&ad, buf) == 33);
	CHECK_STR(buf, "0123456789abcdef0123456789abcdef\n");
	reply(&ad, 0, "", 4, 4);
	CHECK(show(&ad, buf) == 1);
	CHECK_STR(buf, "\n");

	/* SsidLength 32, but only the length written: nothing shown */
	reply(&ad, 32, "", 4, 4);
	rc = show(&ad, buf);
	if (rc >= 0)
		printf("#   shown: %ld bytes%s\n", rc,
		       painted(buf) ? ", stack bytes among them" : "");
	CHECK(rc == -ENOTCONN);
	CHECK(!painted(buf) && !buf[0]);
	/* one byte short of the SSID it claims */
	reply(&ad, 9, "ndisbench", 12, 12);
	CHECK(show(&ad, buf) == -ENOTCONN);
	CHECK(!buf[0]);
	/* not even the length; a length past the buffer; a failed query */
	reply(&ad, 0, "", 3, 3);
	CHECK(show(&ad, buf) == -ENOTCONN);
	reply(&ad, 33, "0123456789abcdef0123456789abcdef", 36, 36);
	CHECK(show(&ad, buf) == -ENOTCONN);
	reply(&ad, 9, "ndisbench", 13, 13);
	ad.rc = -EIO;
	CHECK(show(&ad, buf) == -ENOTCONN);
	CHECK(!buf[0]);

	/*
	 * A driver that claims the whole reply but wrote only SsidLength:
	 * what it left is zero, never the stack below the reply.
	 */
	reply(&ad, 32, "", 4, 36);
	rc = show(&ad, buf);
	if (ad.dirty)
		printf("#   the reply buffer was not zeroed before the query\n");
	CHECK(!ad.dirty);
	if (painted(buf))
		printf("#   stack bytes shown\n");
	CHECK(!painted(buf));
	CHECK(rc == 1);
	CHECK_STR(buf, "\n");
}

/* -- win_crt.h: ntoskrnl.exe's C runtime, Microsoft semantics ----------- */

static void test_win_snprintf(void)
{
	/* UNICODE_STRING: Length 8 bytes, no NUL at its end */
	static const unsigned short wide[] = { 'w', 'l', 'a', 'n', 'X' };
	static const unsigned short wz[] = { 'n', 0x00e9, 0 };
	struct { unsigned short len, max; const void *buf; } us = { 8, 10, wide };
	char buf[32];
	int rc;

	/* fits: NUL-terminated, the length returned */
	memset(buf, 'x', sizeof(buf));
	rc = kd_win_snprintf(buf, sizeof(buf), "%s %u %d", "ab", 7u, -3);
	CHECK(rc == 7);
	CHECK_STR(buf, "ab 7 -3");
	/* exactly count characters: no NUL, count returned */
	memset(buf, 'x', sizeof(buf));
	rc = kd_win_snprintf(buf, 4, "abcd");
	CHECK(rc == 4);
	CHECK(!memcmp(buf, "abcdx", 5));
	/* too long: count characters, no NUL, -1 (not the C99 length) */
	memset(buf, 'x', sizeof(buf));
	rc = kd_win_snprintf(buf, 4, "abcdef");
	if (rc != -1)
		printf("#   truncated _snprintf returned %d\n", rc);
	CHECK(rc == -1);
	CHECK(!memcmp(buf, "abcdx", 5));
	/* long is 32 bits on LLP64: %lx of a 64-bit slot shows the low half */
	rc = kd_win_snprintf(buf, sizeof(buf), "%lx", 0x1234567890abcdefULL);
	CHECK_STR(buf, "90abcdef");
	rc = kd_win_snprintf(buf, sizeof(buf), "%I64x|%llu", 0x1234567890ULL,
			     18446744073709551615ULL);
	CHECK_STR(buf, "1234567890|18446744073709551615");
	rc = kd_win_snprintf(buf, sizeof(buf), "%08x|%-4d|%4s|%.2s", 0xbeefu,
			     5, "ab", "xyz");
	CHECK_STR(buf, "0000beef|5   |  ab|xy");
	/* wide strings and the counted strings of DbgPrint */
	rc = kd_win_snprintf(buf, sizeof(buf), "%ws|%S|%ls", wz, wz, wz);
	CHECK_STR(buf, "n?|n?|n?");
	rc = kd_win_snprintf(buf, sizeof(buf), "%wZ|%.*s", &us, 2, "abc");
	CHECK_STR(buf, "wlan|ab");
	rc = kd_win_snprintf(buf, sizeof(buf), "%s|%p", (char *)0, (void *)0x10);
	CHECK_STR(buf, "(null)|0000000000000010");
	rc = kd_win_snprintf(buf, sizeof(buf), "%hd|%hhu|%c|%%", 0x18000, 0x1ff,
			     'q');
	CHECK_STR(buf, "-32768|255|q|%");
}

static void test_win_strnicmp(void)
{
	CHECK(kd_win_strnicmp("NdisBench", "ndisbENCH", 9) == 0);
	CHECK(kd_win_strnicmp("abc", "ABD", 2) == 0);
	CHECK(kd_win_strnicmp("abc", "ABD", 3) < 0);
	CHECK(kd_win_strnicmp("b", "A", 1) > 0);
	CHECK(kd_win_strnicmp("ab", "abc", 5) < 0);
	/* folded to lower case, as Microsoft's: '_' (0x5f) sorts before 'a' */
	CHECK(kd_win_strnicmp("_", "A", 1) < 0);
}

/* -- ndis_sg.h: the SCATTER_GATHER_LIST of a send ------------------------- */

static void test_sg_list(void)
{
	struct kd_sg sg;

	/* no MaximumPhysicalMapping: one element per mapping */
	memset(&sg, 0xa5, sizeof(sg));
	sg.count = 0;
	CHECK(kd_sg_append(&sg, 8, 0x1000ULL, 54, 0));
	CHECK(kd_sg_append(&sg, 8, 0x123456789000ULL, 1460, 0));
	CHECK(kd_sg_append(&sg, 8, 0x5000ULL, 0, 0));	/* empty: nothing */
	CHECK(sg.count == 2);
	CHECK(sg.elements[0].address == 0x1000 && sg.elements[0].length == 54);
	CHECK(sg.elements[1].address == 0x123456789000ULL &&
	      sg.elements[1].length == 1460);
	CHECK(!sg.elements[0].reserved);

	/* a range past the limit is cut into contiguous elements */
	sg.count = 0;
	CHECK(kd_sg_append(&sg, 8, 0x10000ULL, 10000, 4096));
	if (sg.count != 3)
		printf("#   %u elements\n", sg.count);
	CHECK(sg.count == 3);
	CHECK(sg.elements[0].address == 0x10000 && sg.elements[0].length == 4096);
	CHECK(sg.elements[1].address == 0x11000 && sg.elements[1].length == 4096);
	CHECK(sg.elements[2].address == 0x12000 && sg.elements[2].length == 1808);
	CHECK(kd_sg_append(&sg, 8, 0x20000ULL, 8192, 4096));
	CHECK(sg.count == 5 && sg.elements[4].length == 4096);

	/* no room: refused, the list as it was */
	CHECK(!kd_sg_append(&sg, 8, 0x30000ULL, 4 * 4096, 4096));
	CHECK(sg.count == 5);
	CHECK(kd_sg_append(&sg, 8, 0x30000ULL, 3 * 4096, 4096));
	CHECK(sg.count == 8);
	CHECK(!kd_sg_append(&sg, 8, 0x40000ULL, 1, 0));
	CHECK(sg.count == 8);
}

/* -- ndis_offload.h: OID_TCP_TASK_OFFLOAD's task chain -------------------- */

static void put32(unsigned char *p, unsigned int v)
{
	memcpy(p, &v, 4);
}

/* An NDIS_TASK_OFFLOAD at off: task, OffsetNextTask, a buffer of len. */
static void task_at(unsigned char *buf, unsigned int off, unsigned int task,
		    unsigned int next, unsigned int len)
{
	put32(buf + off, 1);		/* Version */
	put32(buf + off + 4, 24);	/* Size */
	put32(buf + off + 8, task);
	put32(buf + off + 12, next);
	put32(buf + off + 16, len);
}

static void test_offload_chain(void)
{
	unsigned char buf[512], hdr[28];
	unsigned int v4tx = 0x1f;	/* IP/TCP options, TCP, UDP, IP */

	/* the header the wrapper asks with: version 1, 28 bytes, 802.3 */
	memset(hdr, 0xa5, sizeof(hdr));
	kd_offload_header(hdr, 14);
	CHECK(!memcmp(hdr, "\1\0\0\0\x1c\0\0\0\0\0\0\0\0\0\0\0"
			   "\2\0\0\0\1\0\0\0\x0e\0\0\0", 28));

	/* an IPsec task (1), then the checksum task (0): its V4Transmit */
	memset(buf, 0, sizeof(buf));
	put32(buf + 12, 28);			/* OffsetFirstTask */
	task_at(buf, 28, 1, 20 + 8, 8);
	task_at(buf, 56, 0, 0, 16);
	put32(buf + 76, v4tx);
	CHECK(kd_offload_offered(buf, 92) == v4tx);
	/* the answer cut inside the checksum task's buffer: not believed */
	CHECK(kd_offload_offered(buf, 91) == 0);
	/* a checksum task buffer shorter than NDIS_TASK_TCP_IP_CHECKSUM */
	put32(buf + 56 + 16, 12);
	CHECK(kd_offload_offered(buf, 92) == 0);
	put32(buf + 56 + 16, 16);

	/* no task at all, and an answer shorter than the header */
	put32(buf + 12, 0);
	CHECK(kd_offload_offered(buf, 92) == 0);
	put32(buf + 12, 28);
	CHECK(kd_offload_offered(buf, 27) == 0);

	/* a first task inside the header, misaligned, or past the answer */
	put32(buf + 12, 8);
	CHECK(kd_offload_offered(buf, 92) == 0);
	put32(buf + 12, 30);
	CHECK(kd_offload_offered(buf, 92) == 0);
	put32(buf + 12, 200);
	CHECK(kd_offload_offered(buf, 92) == 0);
	put32(buf + 12, 28);

	/* a next offset past the answer; a chain without the checksum task */
	task_at(buf, 28, 1, 200, 8);
	CHECK(kd_offload_offered(buf, 92) == 0);
	task_at(buf, 28, 1, 0, 8);
	CHECK(kd_offload_offered(buf, 92) == 0);

	/* the checksum task as the 18th: past NDIS_OFFLOAD_TASKS_MAX (16) */
	memset(buf, 0, sizeof(buf));
	put32(buf + 12, 28);
	for (unsigned int i = 0; i < 17; i++)
		task_at(buf, 28 + i * 20, 1, 20, 0);
	task_at(buf, 28 + 17 * 20, 0, 0, 16);
	put32(buf + 28 + 17 * 20 + 20, v4tx);
	CHECK(kd_offload_offered(buf, sizeof(buf)) == 0);
	/* the same chain from its third task: the checksum task is the 16th */
	put32(buf + 12, 28 + 2 * 20);
	CHECK(kd_offload_offered(buf, sizeof(buf)) == v4tx);
}

/* -- kuser.h: the amd64 time macros' reads of KUSER_SHARED_DATA ---------- */

#define KUSER	0xfffff78000000000ULL
#define PAGE	0xffff888012345000ULL

static void put64(unsigned char *p, unsigned long long v)
{
	memcpy(p, &v, 8);
}

static unsigned long long get64(const unsigned char *p)
{
	unsigned long long v;

	memcpy(&v, p, 8);
	return v;
}

static void test_kuser_redirect(void)
{
	unsigned char code[64], data[32];

	/* what gcc and MSVC emit for the DDK's macros */
	memset(code, 0x90, sizeof(code));
	code[0] = 0x48; code[1] = 0xb8;			/* movabs rax, */
	put64(code + 2, KUSER + 0x14);			/*   SystemTime */
	code[10] = 0x49; code[11] = 0xbb;		/* movabs r11, */
	put64(code + 12, KUSER + 0x8);			/*   InterruptTime */
	code[20] = 0x48; code[21] = 0xa1;		/* mov rax, moffs64 */
	put64(code + 22, KUSER + 0x320);		/*   TickCount */
	/* the same bytes after a NOP: not an operand, left alone */
	code[30] = 0x90;
	put64(code + 31, KUSER + 0x14);
	/* movabs of an address past the page: left alone */
	code[40] = 0x48; code[41] = 0xb8;
	put64(code + 42, KUSER + 0x1000);
	CHECK(kd_kuser_redirect(code, sizeof(code), 1, PAGE) == 3);
	CHECK(get64(code + 2) == PAGE + 0x14);
	CHECK(get64(code + 12) == PAGE + 0x8);
	CHECK(get64(code + 22) == PAGE + 0x320);
	CHECK(get64(code + 31) == KUSER + 0x14);
	CHECK(get64(code + 42) == KUSER + 0x1000);
	CHECK(code[0] == 0x48 && code[1] == 0xb8 && code[21] == 0xa1);
	/* idempotent: nothing left to rewrite */
	CHECK(kd_kuser_redirect(code, sizeof(code), 1, PAGE) == 0);

	/* data: an aligned pointer to SharedUserData, not an unaligned one */
	memset(data, 0, sizeof(data));
	put64(data + 8, KUSER);
	put64(data + 20, KUSER + 0x14);
	CHECK(kd_kuser_redirect(data, sizeof(data), 0, PAGE) == 1);
	CHECK(get64(data + 8) == PAGE);
	CHECK(get64(data + 20) == KUSER + 0x14);
	/* a section shorter than an address */
	CHECK(kd_kuser_redirect(data, 7, 0, PAGE) == 0);
}

int main(void)
{
	TEST(test_kuser_redirect);
	TEST(test_sg_list);
	TEST(test_offload_chain);
	TEST(test_win_snprintf);
	TEST(test_win_strnicmp);
	TEST(test_usb_vendor_type);
	TEST(test_usb_ctrl_pipe);
	TEST(test_ssid_show);
	return tap_done();
}
