/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The agent's count of echo replies (guest/agent/net.c, ping_ledger_take):
 * every reply of this run is counted once, by its sequence number, also
 * when it comes after its own wait ended, as ping(8) counts it; what is
 * not a reply of this run is not.
 */
#define NDISBENCH_AGENT_NO_MAIN
#include "../../../guest/agent/agent.c"

#include <netinet/ip.h>
#include <netinet/ip_icmp.h>

#include "tap.h"

#define ID 0x1234

static uint8_t pkt[sizeof(struct iphdr) + sizeof(struct icmphdr) + 8];

/* An echo reply as the raw socket gives it: the IP header, then ICMP. */
static size_t reply(uint8_t type, uint16_t id, uint16_t seq, unsigned ihl)
{
    struct iphdr *ip = (struct iphdr *)pkt;
    struct icmphdr *icmp = (struct icmphdr *)(pkt + sizeof(*ip));

    memset(pkt, 0, sizeof(pkt));
    ip->ihl = ihl;
    icmp->type = type;
    icmp->un.echo.id = htons(id);
    icmp->un.echo.sequence = htons(seq);
    return sizeof(pkt);
}

static long long sent[4];
static long long rtt[4];

static struct ping_ledger ledger(void)
{
    struct ping_ledger l = { .id = ID, .count = 4, .sent = sent,
                             .rtt = rtt, .waiting = 0 };
    int i;

    for (i = 0; i < 4; i++) {
        sent[i] = 1000 * (i + 1);
        rtt[i] = -1;
    }
    return l;
}

static void in_order(void)
{
    struct ping_ledger l = ledger();

    CHECK(ping_ledger_take(&l, pkt, reply(ICMP_ECHOREPLY, ID, 0, 5),
                           1500) == 0);
    CHECK(l.received == 1 && l.late == 0);
    CHECK(rtt[0] == 500);
}

static void late_reply_counts(void)
{
    struct ping_ledger l = ledger();

    /* seq 1's wait ended; the agent waits for seq 2 when it comes */
    l.waiting = 2;
    CHECK(ping_ledger_take(&l, pkt, reply(ICMP_ECHOREPLY, ID, 1, 5),
                           9000) == 1);
    CHECK(l.received == 1 && l.late == 1);
    CHECK(rtt[1] == 7000);
    /* after the last echo, waiting for stragglers: every one is late */
    l.waiting = -1;
    CHECK(ping_ledger_take(&l, pkt, reply(ICMP_ECHOREPLY, ID, 3, 5),
                           9000) == 3);
    CHECK(l.received == 2 && l.late == 2);
}

static void counted_once(void)
{
    struct ping_ledger l = ledger();

    CHECK(ping_ledger_take(&l, pkt, reply(ICMP_ECHOREPLY, ID, 0, 5),
                           1500) == 0);
    CHECK(ping_ledger_take(&l, pkt, reply(ICMP_ECHOREPLY, ID, 0, 5),
                           1600) == -1);
    CHECK(l.received == 1);
}

static void not_ours(void)
{
    struct ping_ledger l = ledger();

    sent[2] = 0;        /* its send failed */
    CHECK(ping_ledger_take(&l, pkt, reply(ICMP_ECHOREPLY, ID + 1, 0, 5),
                           1500) == -1);
    CHECK(ping_ledger_take(&l, pkt, reply(ICMP_ECHO, ID, 0, 5),
                           1500) == -1);
    CHECK(ping_ledger_take(&l, pkt, reply(ICMP_ECHOREPLY, ID, 4, 5),
                           1500) == -1);
    CHECK(ping_ledger_take(&l, pkt, reply(ICMP_ECHOREPLY, ID, 2, 5),
                           1500) == -1);
    CHECK(l.received == 0);
}

static void malformed(void)
{
    struct ping_ledger l = ledger();
    size_t n = reply(ICMP_ECHOREPLY, ID, 0, 5);

    CHECK(ping_ledger_take(&l, pkt, sizeof(struct iphdr) - 1, 1500) == -1);
    CHECK(ping_ledger_take(&l, pkt, sizeof(struct iphdr) + 4, 1500) == -1);
    CHECK(ping_ledger_take(&l, pkt, reply(ICMP_ECHOREPLY, ID, 0, 4),
                           1500) == -1);
    /* an IP header longer than the datagram */
    CHECK(ping_ledger_take(&l, pkt, reply(ICMP_ECHOREPLY, ID, 0, 15),
                           1500) == -1);
    CHECK(l.received == 0);
    CHECK(ping_ledger_take(&l, pkt, n, 1500) == -1 || l.received == 1);
}

int main(void)
{
    TEST(in_order);
    TEST(late_reply_counts);
    TEST(counted_once);
    TEST(not_ours);
    TEST(malformed);
    return tap_done();
}
