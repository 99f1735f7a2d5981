/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The agent's host clock (guest/agent/hostclock.c): the RTC registers
 * decoded, reads during an update retried, and a wait on the host that
 * ends by the RTC however far the guest's own clock jumps (icount skips
 * idle time), or by the guest's clock where the RTC cannot be read.
 */
#include "../../../guest/agent/hostclock.c"

#include "tap.h"

static long long fake_now_us;
long long monotonic_us(void) { return fake_now_us; }

/* A CMOS: registers, an update flag for the next `uip` reads, and a
 * seconds register that ticks after `tick_after` reads of it. */
struct fake_cmos {
    int reg[16];
    int uip;
    int tick_after;
    int reads;
    bool dead;
};

static int fake_read(void *ctx, unsigned int r)
{
    struct fake_cmos *c = ctx;

    if (c->dead)
        return -1;
    if (r == RTC_REG_A) {
        if (c->uip > 0) {
            c->uip--;
            return RTC_UIP | 0x26;
        }
        return 0x26;
    }
    if (r == RTC_SECONDS && c->tick_after && ++c->reads == c->tick_after)
        c->reg[RTC_SECONDS]++;
    return c->reg[r & 15];
}

static struct fake_cmos cmos_state;
static const struct hostclock_cmos fake = { fake_read, &cmos_state };

/* hh:mm:ss in QEMU's default mode: BCD, 24 hours. */
static void set_bcd(int h, int m, int s)
{
    cmos_state.reg[RTC_HOURS] = (h / 10) << 4 | h % 10;
    cmos_state.reg[RTC_MINUTES] = (m / 10) << 4 | m % 10;
    cmos_state.reg[RTC_SECONDS] = (s / 10) << 4 | s % 10;
    cmos_state.reg[RTC_REG_B] = RTC_24H;
}

static void decode(void)
{
    CHECK(hostclock_seconds(0x59, 0x59, 0x23, RTC_24H) == DAY_S - 1);
    CHECK(hostclock_seconds(59, 59, 23, RTC_24H | RTC_BINARY) ==
          DAY_S - 1);
    /* 12-hour mode: 12 AM is midnight, 12 PM noon, 1 PM 13:00. */
    CHECK(hostclock_seconds(0, 0, 0x12, 0) == 0);
    CHECK(hostclock_seconds(0, 0, 0x12 | RTC_PM, 0) == 12 * 3600);
    CHECK(hostclock_seconds(0, 0, 0x01 | RTC_PM, 0) == 13 * 3600);
    CHECK(hostclock_seconds(0x5a, 0, 0, RTC_24H) == -1);   /* not BCD */
    CHECK(hostclock_seconds(60, 0, 0, RTC_24H | RTC_BINARY) == -1);
    CHECK(hostclock_seconds(0, 0, 0x24, RTC_24H) == -1);
}

static void read_retries_an_update(void)
{
    memset(&cmos_state, 0, sizeof(cmos_state));
    hostclock_use(&fake);
    set_bcd(10, 20, 30);
    CHECK(hostclock_read() == (10 * 60 + 20) * 60 + 30);
    cmos_state.uip = 5;
    CHECK(hostclock_read() == (10 * 60 + 20) * 60 + 30);
    /* the seconds changed between the first and the check read */
    cmos_state.tick_after = 2;
    cmos_state.reads = 0;
    CHECK(hostclock_read() == (10 * 60 + 20) * 60 + 31);
    cmos_state.tick_after = 0;
    cmos_state.uip = READ_TRIES + 1;   /* never settles */
    CHECK(hostclock_read() == -1);
    cmos_state.uip = 0;
    cmos_state.dead = true;
    CHECK(hostclock_read() == -1);
    hostclock_use(NULL);
}

static void passed(void)
{
    CHECK(!hostclock_passed(100, 100, 1000));
    CHECK(!hostclock_passed(100, 101, 1000));  /* maybe 0.01 s */
    CHECK(hostclock_passed(100, 102, 1000));
    CHECK(!hostclock_passed(100, 110, 10000));
    CHECK(hostclock_passed(100, 111, 10000));
    CHECK(hostclock_passed(DAY_S - 5, 6, 10000));     /* past midnight */
    CHECK(!hostclock_passed(DAY_S - 5, 4, 10000));
    CHECK(hostclock_passed(7, 7, 0) == false);
}

/* icount: the guest's clock jumps a minute while the host's stands. */
static void wait_follows_the_host(void)
{
    struct host_wait w;

    memset(&cmos_state, 0, sizeof(cmos_state));
    hostclock_use(&fake);
    set_bcd(23, 59, 58);
    fake_now_us = 0;
    host_wait_start(&w, 2000);
    fake_now_us = 60 * 1000000LL;
    CHECK(!host_wait_over(&w));
    set_bcd(0, 0, 0);
    CHECK(!host_wait_over(&w));
    set_bcd(0, 0, 1);
    CHECK(host_wait_over(&w));
    hostclock_use(NULL);
}

/* No RTC (no /dev/port): the guest's clock bounds the wait. */
static void wait_without_rtc_uses_the_guest_clock(void)
{
    struct host_wait w;

    memset(&cmos_state, 0, sizeof(cmos_state));
    cmos_state.dead = true;
    hostclock_use(&fake);
    fake_now_us = 5000000;
    host_wait_start(&w, 2000);
    CHECK(w.start_s == -1);
    fake_now_us += 1999000;
    CHECK(!host_wait_over(&w));
    fake_now_us += 1000;
    CHECK(host_wait_over(&w));
    hostclock_use(NULL);
}

int main(void)
{
    TEST(decode);
    TEST(read_retries_an_update);
    TEST(passed);
    TEST(wait_follows_the_host);
    TEST(wait_without_rtc_uses_the_guest_clock);
    return tap_done();
}
