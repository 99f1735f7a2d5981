// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of i386 HAL.dll's string port I/O and IRQL exports
 * (wrapper/driver/hal_port.c), built -m32 -DCONFIG_X86_32 against kmock
 * as an i386 kernel builds them and run under qemu-i386. Each export is
 * reached through its win_export_<name> entry and called with the
 * convention an i386 driver uses (stdcall, or fastcall for Kf*): a
 * missing export fails the link, a wrong convention the stack or the
 * arguments.
 *
 * The port functions and the wrapper's IRQL (hal.c) are this program's.
 */
#include <stdint.h>
#include <string.h>

#include "kx_export.h"
#include "tap.h"

#define STDCALL __attribute__((stdcall))
#define FASTCALL __attribute__((fastcall))

/* -- kmock's asm/io.h: a port that records what was done to it ------------ */

static struct {
	unsigned long port, count;
	int width;			/* bytes per item */
	int in;				/* 1: ins, 0: outs */
	unsigned char data[64];
} io;

static void port_in(unsigned long port, void *addr, unsigned long count,
		    int width)
{
	unsigned long i;

	io.port = port;
	io.count = count;
	io.width = width;
	io.in = 1;
	/* the device's bytes: 0x10, 0x11, ... */
	for (i = 0; i < count * width && i < sizeof(io.data); i++)
		((unsigned char *)addr)[i] = 0x10 + i;
}

static void port_out(unsigned long port, const void *addr,
		     unsigned long count, int width)
{
	io.port = port;
	io.count = count;
	io.width = width;
	io.in = 0;
	memcpy(io.data, addr, count * width);
}

void insb(unsigned long port, void *addr, unsigned long count);
void insw(unsigned long port, void *addr, unsigned long count);
void insl(unsigned long port, void *addr, unsigned long count);
void outsb(unsigned long port, const void *addr, unsigned long count);
void outsw(unsigned long port, const void *addr, unsigned long count);
void outsl(unsigned long port, const void *addr, unsigned long count);

void insb(unsigned long port, void *addr, unsigned long count)
{
	port_in(port, addr, count, 1);
}

void insw(unsigned long port, void *addr, unsigned long count)
{
	port_in(port, addr, count, 2);
}

void insl(unsigned long port, void *addr, unsigned long count)
{
	port_in(port, addr, count, 4);
}

void outsb(unsigned long port, const void *addr, unsigned long count)
{
	port_out(port, addr, count, 1);
}

void outsw(unsigned long port, const void *addr, unsigned long count)
{
	port_out(port, addr, count, 2);
}

void outsl(unsigned long port, const void *addr, unsigned long count)
{
	port_out(port, addr, count, 4);
}

/* -- hal.c's IRQL ---------------------------------------------------------- */

static uint8_t irql;
static const char *wrong_way;
static int wrong_calls;

uint8_t hal_irql(void);
void hal_set_irql(uint8_t level, const char *wrong);

uint8_t hal_irql(void)
{
	return irql;
}

void hal_set_irql(uint8_t level, const char *wrong)
{
	irql = level;
	wrong_way = wrong;
	wrong_calls += wrong != NULL;
}

/* ndis_core.h's other services: hal_port.c calls none of them */

/* -- the tests ------------------------------------------------------------- */

EXPORT(READ_PORT_BUFFER_UCHAR)
EXPORT(READ_PORT_BUFFER_USHORT)
EXPORT(READ_PORT_BUFFER_ULONG)
EXPORT(WRITE_PORT_BUFFER_UCHAR)
EXPORT(WRITE_PORT_BUFFER_USHORT)
EXPORT(WRITE_PORT_BUFFER_ULONG)
EXPORT(KeGetCurrentIrql)
EXPORT(KfRaiseIrql)
EXPORT(KfLowerIrql)

typedef STDCALL void (*port_buffer_fn)(void *port, void *buffer,
				       uint32_t count);

static void test_port_buffers(void)
{
	static const struct {
		void *(*get)(void);
		int width, in;
	} cases[] = {
		{ export_READ_PORT_BUFFER_UCHAR, 1, 1 },
		{ export_READ_PORT_BUFFER_USHORT, 2, 1 },
		{ export_READ_PORT_BUFFER_ULONG, 4, 1 },
		{ export_WRITE_PORT_BUFFER_UCHAR, 1, 0 },
		{ export_WRITE_PORT_BUFFER_USHORT, 2, 0 },
		{ export_WRITE_PORT_BUFFER_ULONG, 4, 0 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		port_buffer_fn fn = cases[i].get();
		unsigned char buf[32];
		unsigned int j;

		for (j = 0; j < sizeof(buf); j++)
			buf[j] = 0xa0 + j;
		memset(&io, 0, sizeof(io));
		fn((void *)0xc010, buf, 3);
		CHECK(io.port == 0xc010 && io.count == 3);
		CHECK(io.width == cases[i].width && io.in == cases[i].in);
		if (cases[i].in) {
			/* the items land in the buffer, nothing past them */
			CHECK(buf[0] == 0x10 &&
			      buf[3 * cases[i].width - 1] ==
				0x10 + 3 * cases[i].width - 1);
			CHECK(buf[3 * cases[i].width] ==
			      0xa0 + 3 * cases[i].width);
		} else {
			CHECK(io.data[0] == 0xa0 &&
			      io.data[3 * cases[i].width - 1] ==
				0xa0 + 3 * cases[i].width - 1);
		}
	}
}

static void test_irql(void)
{
	STDCALL uint8_t (*get)(void) = export_KeGetCurrentIrql();
	FASTCALL uint8_t (*raise)(uint8_t) = export_KfRaiseIrql();
	FASTCALL void (*lower)(uint8_t) = export_KfLowerIrql();

	irql = 0;
	wrong_calls = 0;
	CHECK(get() == 0);
	CHECK(raise(2) == 0 && irql == 2 && get() == 2);
	CHECK(raise(2) == 2 && irql == 2);	/* to the same level is fine */
	lower(0);
	CHECK(irql == 0 && get() == 0 && wrong_calls == 0);

	/* the wrong way: named, and the level set all the same */
	irql = 2;
	CHECK(raise(1) == 2 && irql == 1);
	CHECK(wrong_calls == 1 && wrong_way && !strcmp(wrong_way, "KfRaiseIrql"));
	lower(2);
	CHECK(irql == 2 && wrong_calls == 2 &&
	      !strcmp(wrong_way, "KfLowerIrql"));
}

int main(void)
{
	TEST(test_port_buffers);
	TEST(test_irql);
	return tap_done();
}
