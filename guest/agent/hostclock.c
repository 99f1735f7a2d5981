/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ndisbench-agent: the host's clock, for the waits on the host.
 *
 * Under QEMU's icount with sleep=off the guest's clocks skip the time the
 * guest idles, so a wait for something only the host does (its sink's
 * answer, its QMP action after a console line) would run out in almost no
 * real time. QEMU keeps the CMOS RTC on the host's clock (-rtc
 * clock=host), so such a wait is bounded by the RTC, read through
 * /dev/port; where it cannot be read (no CONFIG_DEVPORT: the host then
 * runs the guest in real time), by CLOCK_MONOTONIC as before. The RTC
 * counts whole seconds, so a wait lasts between its limit and two seconds
 * more.
 */
#define _GNU_SOURCE

#include <fcntl.h>
#include <stdbool.h>
#include <unistd.h>

#include "agent.h"

#define CMOS_INDEX      0x70
#define CMOS_DATA       0x71
#define RTC_SECONDS     0x00
#define RTC_MINUTES     0x02
#define RTC_HOURS       0x04
#define RTC_REG_A       0x0a
#define RTC_REG_B       0x0b
#define RTC_UIP         0x80    /* register A: an update is under way */
#define RTC_24H         0x02    /* register B */
#define RTC_BINARY      0x04    /* register B: not BCD */
#define RTC_PM          0x80    /* hours, 12-hour mode */
#define DAY_S           86400
#define READ_TRIES      1000

static int port_fd = -2;        /* -2: not opened yet, -1: none */

/* One CMOS register through /dev/port, or -1. */
static int port_read(void *ctx, unsigned int reg)
{
    unsigned char index = (unsigned char)reg, value;

    (void)ctx;
    if (port_fd == -2)
        port_fd = open("/dev/port", O_RDWR | O_CLOEXEC);
    if (port_fd < 0)
        return -1;
    if (pwrite(port_fd, &index, 1, CMOS_INDEX) != 1 ||
        pread(port_fd, &value, 1, CMOS_DATA) != 1)
        return -1;
    return value;
}

static const struct hostclock_cmos port_cmos = { port_read, NULL };
static const struct hostclock_cmos *cmos = &port_cmos;

void hostclock_use(const struct hostclock_cmos *source)
{
    cmos = source ? source : &port_cmos;
}

static int from_bcd(int v)
{
    if ((v & 0x0f) > 9 || (v >> 4) > 9)
        return -1;
    return (v >> 4) * 10 + (v & 0x0f);
}

int hostclock_seconds(int sec, int min, int hour, int reg_b)
{
    bool pm = !(reg_b & RTC_24H) && (hour & RTC_PM);

    hour &= ~RTC_PM;
    if (!(reg_b & RTC_BINARY)) {
        sec = from_bcd(sec);
        min = from_bcd(min);
        hour = from_bcd(hour);
    }
    if (!(reg_b & RTC_24H)) {
        if (hour < 1 || hour > 12)
            return -1;
        hour = hour % 12 + (pm ? 12 : 0);
    }
    if (sec < 0 || sec > 59 || min < 0 || min > 59 || hour < 0 || hour > 23)
        return -1;
    return (hour * 60 + min) * 60 + sec;
}

int hostclock_read(void)
{
    int tries;

    for (tries = 0; tries < READ_TRIES; tries++) {
        int a = cmos->read(cmos->ctx, RTC_REG_A);
        int sec, min, hour, reg_b;

        if (a < 0)
            return -1;
        if (a & RTC_UIP)
            continue;
        sec = cmos->read(cmos->ctx, RTC_SECONDS);
        min = cmos->read(cmos->ctx, RTC_MINUTES);
        hour = cmos->read(cmos->ctx, RTC_HOURS);
        reg_b = cmos->read(cmos->ctx, RTC_REG_B);
        if (sec < 0 || min < 0 || hour < 0 || reg_b < 0)
            return -1;
        /* An update between the reads: read again. */
        if (cmos->read(cmos->ctx, RTC_SECONDS) != sec)
            continue;
        return hostclock_seconds(sec, min, hour, reg_b);
    }
    return -1;
}

bool hostclock_passed(int start_s, int now_s, int limit_ms)
{
    int elapsed = ((now_s - start_s) % DAY_S + DAY_S) % DAY_S;

    /* Both reads may be up to a second off: one tick more than asked. */
    return (long long)(elapsed - 1) * 1000 >= limit_ms;
}

void host_wait_start(struct host_wait *wait, int limit_ms)
{
    wait->start_us = monotonic_us();
    wait->start_s = hostclock_read();
    wait->limit_ms = limit_ms;
}

bool host_wait_over(const struct host_wait *wait)
{
    int now;

    if (wait->start_s >= 0 && (now = hostclock_read()) >= 0)
        return hostclock_passed(wait->start_s, now, wait->limit_ms);
    return monotonic_us() - wait->start_us >= wait->limit_ms * 1000LL;
}
