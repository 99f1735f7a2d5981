/*
 * ndisbench air link: the datagram format between two wlan-air objects
 *
 * Copyright (c) 2026 The ndisbench authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Pure functions, built into QEMU and into the libFuzzer target
 * tests/fuzz/fuzz_wlan_link.c: no QEMU header (so no qemu/osdep.h first,
 * unlike the other files here), no state. See wlan-link.h.
 */
#include <string.h>

#include "wlan-link.h"

static const char *const wlan_link_errors[WLAN_LINK_ERR_COUNT] = {
    [WLAN_LINK_OK] = "ok",
    [WLAN_LINK_ERR_SHORT] = "shorter than the header",
    [WLAN_LINK_ERR_MAGIC] = "bad magic",
    [WLAN_LINK_ERR_VERSION] = "unknown version",
    [WLAN_LINK_ERR_RESERVED] = "reserved field set",
    [WLAN_LINK_ERR_TOKEN] = "wrong link token",
    [WLAN_LINK_ERR_LENGTH] = "length does not match the datagram",
    [WLAN_LINK_ERR_HELLO_BODY] = "hello with a body",
    [WLAN_LINK_ERR_FRAME_LENGTH] = "bad frame length",
    [WLAN_LINK_ERR_CHANNEL] = "bad channel",
    [WLAN_LINK_ERR_TYPE] = "unknown type",
};

static uint16_t wlan_link_be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t wlan_link_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
           (uint32_t)p[2] << 8 | p[3];
}

static void wlan_link_put16(uint8_t *p, uint16_t v)
{
    p[0] = v >> 8;
    p[1] = v;
}

static void wlan_link_put32(uint8_t *p, uint32_t v)
{
    p[0] = v >> 24;
    p[1] = v >> 16;
    p[2] = v >> 8;
    p[3] = v;
}

/* Compares every byte whatever differs first: no timing hint. */
static bool wlan_link_token_eq(const uint8_t *a, const uint8_t *b)
{
    uint8_t diff = 0;
    size_t i;

    for (i = 0; i < WLAN_LINK_TOKEN_LEN; i++) {
        diff |= a[i] ^ b[i];
    }
    return diff == 0;
}

WlanLinkError wlan_link_parse(const uint8_t *buf, size_t n,
                              const uint8_t token[WLAN_LINK_TOKEN_LEN],
                              WlanLinkDatagram *out)
{
    uint8_t type, channel;
    size_t len;

    if (n < WLAN_LINK_HDR_LEN) {
        return WLAN_LINK_ERR_SHORT;
    }
    if (wlan_link_be32(buf) != WLAN_LINK_MAGIC) {
        return WLAN_LINK_ERR_MAGIC;
    }
    if (buf[4] != WLAN_LINK_VERSION) {
        return WLAN_LINK_ERR_VERSION;
    }
    if (wlan_link_be16(buf + 10) != 0) {
        return WLAN_LINK_ERR_RESERVED;
    }
    if (!wlan_link_token_eq(buf + 16, token)) {
        return WLAN_LINK_ERR_TOKEN;
    }
    len = wlan_link_be16(buf + 8);
    if (len != n - WLAN_LINK_HDR_LEN) {
        return WLAN_LINK_ERR_LENGTH;
    }
    type = buf[5];
    channel = buf[6];
    switch (type) {
    case WLAN_LINK_HELLO:
        if (len != 0) {
            return WLAN_LINK_ERR_HELLO_BODY;
        }
        break;
    case WLAN_LINK_FRAME:
        if (len == 0 || len > WLAN_LINK_FRAME_MAX) {
            return WLAN_LINK_ERR_FRAME_LENGTH;
        }
        if (channel < 1 || channel > 14) {
            return WLAN_LINK_ERR_CHANNEL;
        }
        break;
    default:
        return WLAN_LINK_ERR_TYPE;
    }
    out->type = type;
    out->channel = channel;
    out->rssi_dbm = (int8_t)buf[7];
    out->fcs = wlan_link_be32(buf + 12);
    out->frame = buf + WLAN_LINK_HDR_LEN;
    out->len = len;
    return WLAN_LINK_OK;
}

const char *wlan_link_error_str(WlanLinkError err)
{
    if ((unsigned)err >= WLAN_LINK_ERR_COUNT) {
        return "?";
    }
    return wlan_link_errors[err];
}

size_t wlan_link_build(uint8_t *buf, size_t size, uint8_t type,
                       uint8_t channel, int rssi_dbm, uint32_t fcs,
                       const uint8_t *frame, size_t len,
                       const uint8_t token[WLAN_LINK_TOKEN_LEN])
{
    if ((type == WLAN_LINK_HELLO && len != 0) ||
        (type == WLAN_LINK_FRAME && (len == 0 ||
                                     len > WLAN_LINK_FRAME_MAX)) ||
        (type != WLAN_LINK_HELLO && type != WLAN_LINK_FRAME) ||
        size < WLAN_LINK_HDR_LEN || len > size - WLAN_LINK_HDR_LEN) {
        return 0;
    }
    wlan_link_put32(buf, WLAN_LINK_MAGIC);
    buf[4] = WLAN_LINK_VERSION;
    buf[5] = type;
    buf[6] = channel;
    buf[7] = (uint8_t)(rssi_dbm < -128 ? -128 : rssi_dbm > 127 ? 127
                                                             : rssi_dbm);
    wlan_link_put16(buf + 8, len);
    wlan_link_put16(buf + 10, 0);
    wlan_link_put32(buf + 12, fcs);
    memcpy(buf + 16, token, WLAN_LINK_TOKEN_LEN);
    if (len) {
        memcpy(buf + WLAN_LINK_HDR_LEN, frame, len);
    }
    return WLAN_LINK_HDR_LEN + len;
}

static int wlan_link_hexdigit(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

bool wlan_link_parse_token(const char *hex,
                           uint8_t token[WLAN_LINK_TOKEN_LEN])
{
    uint8_t t[WLAN_LINK_TOKEN_LEN];
    size_t i;

    for (i = 0; i < WLAN_LINK_TOKEN_LEN; i++) {
        int hi = wlan_link_hexdigit(hex[2 * i]), lo;

        /* stops at the first non-hex digit: never reads past the NUL */
        if (hi < 0) {
            return false;
        }
        lo = wlan_link_hexdigit(hex[2 * i + 1]);
        if (lo < 0) {
            return false;
        }
        t[i] = hi << 4 | lo;
    }
    if (hex[2 * WLAN_LINK_TOKEN_LEN] != '\0') {
        return false;
    }
    memcpy(token, t, sizeof(t));
    return true;
}
