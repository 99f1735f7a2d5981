/*
 * ndisbench 802.11 frames as the access point (wlan-ap.c) reads them
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * wlan_frame_parse() is a pure function (bytes in, a decoded frame or an
 * error out; no QEMU state), so that wlan-frame.c builds both into QEMU
 * and into the libFuzzer target tests/fuzz/fuzz_wlan_frame.c. Plain C and
 * <stdint.h> only. It decodes the structure of a frame (header, the fixed
 * fields of the management subtypes the AP answers, the SSID element, a
 * data frame's LLC/SNAP header); what the frame means for the BSS (is it
 * addressed to it, is its sender associated) is the AP's business.
 */
#ifndef NDISBENCH_WLAN_FRAME_H
#define NDISBENCH_WLAN_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* frame control */
#define WLAN_FC_TYPE(fc0)       (((fc0) >> 2) & 3)
#define WLAN_FC_SUBTYPE(fc0)    (((fc0) >> 4) & 0xf)
#define WLAN_TYPE_MGMT          0
#define WLAN_TYPE_CTRL          1
#define WLAN_TYPE_DATA          2
#define WLAN_FC1_TODS           0x01
#define WLAN_FC1_FROMDS         0x02
#define WLAN_FC1_RETRY          0x08
#define WLAN_FC1_PROTECTED      0x40
#define WLAN_FC1_ORDER          0x80

/* management subtypes */
#define WLAN_MGMT_ASSOC_REQ     0
#define WLAN_MGMT_ASSOC_RESP    1
#define WLAN_MGMT_REASSOC_REQ   2
#define WLAN_MGMT_REASSOC_RESP  3
#define WLAN_MGMT_PROBE_REQ     4
#define WLAN_MGMT_PROBE_RESP    5
#define WLAN_MGMT_BEACON        8
#define WLAN_MGMT_DISASSOC      10
#define WLAN_MGMT_AUTH          11
#define WLAN_MGMT_DEAUTH        12

/* data subtypes: bit 2 = no data, bit 3 = QoS */
#define WLAN_DATA_NODATA        0x4
#define WLAN_DATA_QOS           0x8

#define WLAN_HDR_LEN            24
#define WLAN_ADDR4_LEN          6
#define WLAN_QOS_LEN            2
#define WLAN_HTC_LEN            4
#define WLAN_LLC_SNAP_LEN       6

/* information elements */
#define WLAN_EID_SSID           0
#define WLAN_EID_RATES          1
#define WLAN_EID_DS_PARAMS      3
#define WLAN_EID_TIM            5
#define WLAN_EID_EXT_RATES      50

typedef enum WlanFrameError {
    WLAN_FRAME_OK = 0,
    WLAN_FRAME_ERR_SHORT,
    WLAN_FRAME_ERR_VERSION,
    WLAN_FRAME_ERR_TYPE,
    WLAN_FRAME_ERR_MGMT_DS,
    WLAN_FRAME_ERR_AUTH_SHORT,
    WLAN_FRAME_ERR_ASSOC_SHORT,
    WLAN_FRAME_ERR_PROBE_SSID,
    WLAN_FRAME_ERR_COUNT,
} WlanFrameError;

/* Every pointer points into the parsed buffer. */
typedef struct WlanFrame {
    uint8_t type;               /* WLAN_TYPE_* */
    uint8_t subtype;
    uint8_t fc1;
    /* NULL in a control frame shorter than WLAN_HDR_LEN */
    const uint8_t *addr1, *addr2, *addr3;
    uint16_t seq_ctl;
    const uint8_t *body;        /* after the MAC header */
    size_t body_len;

    /* management */
    uint16_t auth_alg, auth_seq, auth_status;   /* authentication */
    bool has_ssid;              /* probe and (re)association requests */
    const uint8_t *ssid;
    uint8_t ssid_len;
    uint16_t reason;            /* deauth / disassoc; 0 without one */

    /* data */
    bool nodata;                /* (QoS) null function */
    bool protected_frame;
    bool snap;                  /* LLC/SNAP and an ethertype follow */
    uint16_t ethertype;
    const uint8_t *payload;     /* after the ethertype */
    size_t payload_len;
} WlanFrame;

/*
 * Decode the len bytes of a frame (without FCS). A control frame is only
 * typed (the AP ignores them; one shorter than a MAC header is no error);
 * on an error *out is in an unspecified state.
 */
WlanFrameError wlan_frame_parse(const uint8_t *frame, size_t len,
                                WlanFrame *out);

/* What was wrong, for a trace line. */
const char *wlan_frame_error_str(WlanFrameError err);

/* The first element with this id in [ies, ies + len), or NULL. */
const uint8_t *wlan_frame_find_ie(const uint8_t *ies, size_t len,
                                  uint8_t id, uint8_t *ie_len);

#endif /* NDISBENCH_WLAN_FRAME_H */
