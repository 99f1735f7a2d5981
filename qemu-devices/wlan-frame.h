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
#define WLAN_EID_RSN            48
#define WLAN_EID_EXT_RATES      50

/* capability information */
#define WLAN_CAP_PRIVACY        0x0010

/* RSN element (IEEE 802.11-2012 8.4.2.27): suite selectors OUI << 8 | type */
#define WLAN_RSN_VERSION        1
#define WLAN_RSN_OUI            0x000fac
#define WLAN_RSN_SUITE(type)    ((uint32_t)WLAN_RSN_OUI << 8 | (type))
#define WLAN_CIPHER_CCMP        WLAN_RSN_SUITE(4)
#define WLAN_AKM_8021X          WLAN_RSN_SUITE(1)
#define WLAN_AKM_PSK            WLAN_RSN_SUITE(2)
#define WLAN_RSN_MAX_SUITES     8       /* kept of each list; more counted */
#define WLAN_PMKID_LEN          16

/* EAPOL (IEEE 802.1X-2004) carrying an EAPOL-Key frame (802.11 11.6.2) */
#define WLAN_ETHERTYPE_EAPOL    0x888e
#define WLAN_EAPOL_HDR_LEN      4
#define WLAN_EAPOL_TYPE_KEY     3
#define WLAN_EAPOL_KEY_RSN      2       /* descriptor type */
#define WLAN_EAPOL_KEY_FIXED    95      /* descriptor type .. key data len */
#define WLAN_EAPOL_KEY_MIC_AT   (WLAN_EAPOL_HDR_LEN + 77)
#define WLAN_KEY_INFO_VERSION   0x0007
#define WLAN_KEY_INFO_PAIRWISE  0x0008
#define WLAN_KEY_INFO_INSTALL   0x0040
#define WLAN_KEY_INFO_ACK       0x0080
#define WLAN_KEY_INFO_MIC       0x0100
#define WLAN_KEY_INFO_SECURE    0x0200
#define WLAN_KEY_INFO_ERROR     0x0400
#define WLAN_KEY_INFO_REQUEST   0x0800
#define WLAN_KEY_INFO_ENC_DATA  0x1000

typedef enum WlanFrameError {
    WLAN_FRAME_OK = 0,
    WLAN_FRAME_ERR_SHORT,
    WLAN_FRAME_ERR_VERSION,
    WLAN_FRAME_ERR_TYPE,
    WLAN_FRAME_ERR_MGMT_DS,
    WLAN_FRAME_ERR_AUTH_SHORT,
    WLAN_FRAME_ERR_ASSOC_SHORT,
    WLAN_FRAME_ERR_PROBE_SSID,
    WLAN_FRAME_ERR_RSN_SHORT,
    WLAN_FRAME_ERR_RSN_VERSION,
    WLAN_FRAME_ERR_EAPOL_SHORT,
    WLAN_FRAME_ERR_EAPOL_TYPE,
    WLAN_FRAME_ERR_EAPOL_KEY_DATA,
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
    const uint8_t *ies;         /* their elements, after the fixed fields */
    size_t ies_len;
    const uint8_t *rsn;         /* (re)association request: the RSN */
    uint8_t rsn_len;            /* element's body, NULL without one */
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

/*
 * A station's RSN element, decoded (from an association request, or the
 * key data of EAPOL-Key message 2). Fields after the version may be left
 * off from the end; what is absent takes the default the standard gives
 * (CCMP group and pairwise, 802.1X AKM), with has_* false.
 */
typedef struct WlanRsnIe {
    uint16_t version;
    bool has_group;
    uint32_t group_cipher;
    uint16_t pairwise_count;    /* as announced; the first */
    uint32_t pairwise[WLAN_RSN_MAX_SUITES];     /* MIN(count, MAX) kept */
    uint16_t akm_count;
    uint32_t akm[WLAN_RSN_MAX_SUITES];
    bool has_capabilities;
    uint16_t capabilities;
    uint16_t pmkid_count;
    const uint8_t *pmkids;      /* pmkid_count * WLAN_PMKID_LEN bytes */
    bool has_group_mgmt;
    uint32_t group_mgmt_cipher;
} WlanRsnIe;

/* Decode the len bytes of an RSN element's body (after id and length). */
WlanFrameError wlan_rsn_ie_parse(const uint8_t *body, size_t len,
                                 WlanRsnIe *out);

/* Does the list hold this suite? (of the kept ones) */
bool wlan_rsn_ie_has(const uint32_t *suites, uint16_t count, uint32_t suite);

/* An EAPOL-Key frame (EAPOL header first), decoded; pointers into it. */
typedef struct WlanEapolKey {
    uint8_t version;            /* EAPOL protocol version */
    uint16_t body_len;          /* EAPOL body length */
    uint8_t descriptor;         /* WLAN_EAPOL_KEY_RSN */
    uint16_t key_info;
    uint16_t key_len;
    uint64_t replay_counter;
    const uint8_t *nonce;       /* 32 bytes */
    const uint8_t *iv;          /* 16 */
    const uint8_t *rsc;         /* 8 */
    const uint8_t *mic;         /* 16, at WLAN_EAPOL_KEY_MIC_AT */
    const uint8_t *key_data;
    uint16_t key_data_len;
    size_t frame_len;           /* EAPOL header + body: what the MIC covers */
} WlanEapolKey;

/*
 * Decode len bytes of an EAPOL frame holding an EAPOL-Key descriptor
 * (bytes past the EAPOL body are link padding, not part of it).
 */
WlanFrameError wlan_eapol_key_parse(const uint8_t *frame, size_t len,
                                    WlanEapolKey *out);

/* What was wrong, for a trace line. */
const char *wlan_frame_error_str(WlanFrameError err);

/* The first element with this id in [ies, ies + len), or NULL. */
const uint8_t *wlan_frame_find_ie(const uint8_t *ies, size_t len,
                                  uint8_t id, uint8_t *ie_len);

#endif /* NDISBENCH_WLAN_FRAME_H */
