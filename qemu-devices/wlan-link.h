/*
 * ndisbench air link: the datagram format between two wlan-air objects
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Pure functions (bytes in, a parsed datagram or an error out; no QEMU
 * state), so that wlan-link.c builds both into QEMU (wlan-air.c uses it)
 * and into the libFuzzer target tests/fuzz/fuzz_wlan_link.c. Plain C and
 * <stdint.h> only.
 *
 * One frame (or a hello) per UDP datagram: a 32-byte header in network
 * byte order, then the 802.11 frame without FCS.
 *
 *   0  magic    "NBAL" (0x4e42414c)
 *   4  version  2
 *   5  type     0 frame, 1 hello
 *   6  channel  1..14 (0 in a hello)
 *   7  rssi     int8, dBm
 *   8  len      bytes after the header
 *  10  reserved 0
 *  12  fcs      the FCS the sender computed
 *  16  token    16 bytes, the run's link-token: a datagram without it is
 *               not from the other air of this run
 */
#ifndef NDISBENCH_WLAN_LINK_H
#define NDISBENCH_WLAN_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WLAN_LINK_MAGIC         0x4e42414cu     /* "NBAL" */
#define WLAN_LINK_VERSION       2
#define WLAN_LINK_FRAME         0
#define WLAN_LINK_HELLO         1
#define WLAN_LINK_TOKEN_LEN     16
#define WLAN_LINK_HDR_LEN       (16 + WLAN_LINK_TOKEN_LEN)
#define WLAN_LINK_FRAME_MAX     2346            /* WLAN_MAX_FRAME */
#define WLAN_LINK_DGRAM_MAX     (WLAN_LINK_HDR_LEN + WLAN_LINK_FRAME_MAX)

typedef enum WlanLinkError {
    WLAN_LINK_OK = 0,
    WLAN_LINK_ERR_SHORT,
    WLAN_LINK_ERR_MAGIC,
    WLAN_LINK_ERR_VERSION,
    WLAN_LINK_ERR_RESERVED,
    WLAN_LINK_ERR_TOKEN,
    WLAN_LINK_ERR_LENGTH,
    WLAN_LINK_ERR_HELLO_BODY,
    WLAN_LINK_ERR_FRAME_LENGTH,
    WLAN_LINK_ERR_CHANNEL,
    WLAN_LINK_ERR_TYPE,
    WLAN_LINK_ERR_COUNT,
} WlanLinkError;

typedef struct WlanLinkDatagram {
    uint8_t type;               /* WLAN_LINK_FRAME or WLAN_LINK_HELLO */
    uint8_t channel;
    int8_t rssi_dbm;
    uint32_t fcs;
    const uint8_t *frame;       /* inside the parsed buffer */
    size_t len;                 /* 1..WLAN_LINK_FRAME_MAX; 0 for a hello */
} WlanLinkDatagram;

/*
 * Parse the n bytes of one datagram. Everything is checked against n (the
 * size the socket returned), and the token against @token; on any error
 * *out is left alone.
 */
WlanLinkError wlan_link_parse(const uint8_t *buf, size_t n,
                              const uint8_t token[WLAN_LINK_TOKEN_LEN],
                              WlanLinkDatagram *out);

/* What was wrong, for a trace line. */
const char *wlan_link_error_str(WlanLinkError err);

/*
 * Write a datagram into buf (size bytes); returns its length, or 0 if it
 * does not fit or the frame is empty or too long (a hello has no frame).
 */
size_t wlan_link_build(uint8_t *buf, size_t size, uint8_t type,
                       uint8_t channel, int rssi_dbm, uint32_t fcs,
                       const uint8_t *frame, size_t len,
                       const uint8_t token[WLAN_LINK_TOKEN_LEN]);

/* link-token: exactly 2 * WLAN_LINK_TOKEN_LEN hex digits. */
bool wlan_link_parse_token(const char *hex,
                           uint8_t token[WLAN_LINK_TOKEN_LEN]);

#endif /* NDISBENCH_WLAN_LINK_H */
