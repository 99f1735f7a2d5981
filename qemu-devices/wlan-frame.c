/*
 * ndisbench 802.11 frames as the access point reads them
 *
 * Copyright (c) 2026 The ndisbench authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Pure functions, built into QEMU (wlan-ap.c) and into the libFuzzer
 * target tests/fuzz/fuzz_wlan_frame.c: no QEMU header (so no qemu/osdep.h
 * first, unlike the other files here), no state. See wlan-frame.h.
 */
#include <string.h>

#include "wlan-frame.h"

static const char *const wlan_frame_errors[WLAN_FRAME_ERR_COUNT] = {
    [WLAN_FRAME_OK] = "ok",
    [WLAN_FRAME_ERR_SHORT] = "short frame",
    [WLAN_FRAME_ERR_VERSION] = "protocol version != 0",
    [WLAN_FRAME_ERR_TYPE] = "reserved frame type",
    [WLAN_FRAME_ERR_MGMT_DS] = "management frame with DS bits",
    [WLAN_FRAME_ERR_AUTH_SHORT] = "short authentication",
    [WLAN_FRAME_ERR_ASSOC_SHORT] = "short association request",
    [WLAN_FRAME_ERR_PROBE_SSID] = "probe request without SSID",
    [WLAN_FRAME_ERR_RSN_SHORT] = "RSN element cut inside a field",
    [WLAN_FRAME_ERR_RSN_VERSION] = "RSN element version != 1",
    [WLAN_FRAME_ERR_EAPOL_SHORT] = "short EAPOL-Key frame",
    [WLAN_FRAME_ERR_EAPOL_TYPE] = "not an RSN EAPOL-Key frame",
    [WLAN_FRAME_ERR_EAPOL_KEY_DATA] = "EAPOL-Key data past its body",
};

static const uint8_t wlan_frame_llc_snap[WLAN_LLC_SNAP_LEN] = {
    0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00,
};

static uint16_t wlan_frame_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

const uint8_t *wlan_frame_find_ie(const uint8_t *ies, size_t len,
                                  uint8_t id, uint8_t *ie_len)
{
    while (len >= 2) {
        uint8_t l = ies[1];

        if ((size_t)l + 2 > len) {
            return NULL;
        }
        if (ies[0] == id) {
            *ie_len = l;
            return ies + 2;
        }
        ies += l + 2;
        len -= l + 2;
    }
    return NULL;
}

static void wlan_frame_ssid(WlanFrame *f, size_t fixed)
{
    f->ies = f->body + fixed;
    f->ies_len = f->body_len - fixed;
    f->ssid = wlan_frame_find_ie(f->body + fixed, f->body_len - fixed,
                                 WLAN_EID_SSID, &f->ssid_len);
    f->has_ssid = f->ssid != NULL;
    if (!f->has_ssid) {
        f->ssid_len = 0;
    }
}

static WlanFrameError wlan_frame_mgmt(WlanFrame *f)
{
    size_t fixed;

    if (f->fc1 & (WLAN_FC1_TODS | WLAN_FC1_FROMDS)) {
        return WLAN_FRAME_ERR_MGMT_DS;
    }
    switch (f->subtype) {
    case WLAN_MGMT_AUTH:
        if (f->body_len < 6) {
            return WLAN_FRAME_ERR_AUTH_SHORT;
        }
        f->auth_alg = wlan_frame_le16(f->body);
        f->auth_seq = wlan_frame_le16(f->body + 2);
        f->auth_status = wlan_frame_le16(f->body + 4);
        break;
    case WLAN_MGMT_ASSOC_REQ:
    case WLAN_MGMT_REASSOC_REQ:
        /* capability, listen interval, [current AP] */
        fixed = f->subtype == WLAN_MGMT_REASSOC_REQ ? 10 : 4;
        if (f->body_len < fixed) {
            return WLAN_FRAME_ERR_ASSOC_SHORT;
        }
        wlan_frame_ssid(f, fixed);
        f->rsn = wlan_frame_find_ie(f->ies, f->ies_len, WLAN_EID_RSN,
                                    &f->rsn_len);
        if (!f->rsn) {
            f->rsn_len = 0;
        }
        break;
    case WLAN_MGMT_PROBE_REQ:
        wlan_frame_ssid(f, 0);
        if (!f->has_ssid) {
            return WLAN_FRAME_ERR_PROBE_SSID;
        }
        break;
    case WLAN_MGMT_DISASSOC:
    case WLAN_MGMT_DEAUTH:
        f->reason = f->body_len >= 2 ? wlan_frame_le16(f->body) : 0;
        break;
    default:
        break;
    }
    return WLAN_FRAME_OK;
}

static void wlan_frame_data(WlanFrame *f, const uint8_t *frame, size_t len)
{
    size_t hdr = WLAN_HDR_LEN;

    f->nodata = f->subtype & WLAN_DATA_NODATA;
    f->protected_frame = f->fc1 & WLAN_FC1_PROTECTED;
    if ((f->fc1 & (WLAN_FC1_TODS | WLAN_FC1_FROMDS)) ==
        (WLAN_FC1_TODS | WLAN_FC1_FROMDS)) {
        hdr += WLAN_ADDR4_LEN;
    }
    if (f->subtype & WLAN_DATA_QOS) {
        hdr += WLAN_QOS_LEN + ((f->fc1 & WLAN_FC1_ORDER) ? WLAN_HTC_LEN : 0);
    }
    if (len < hdr + WLAN_LLC_SNAP_LEN + 2 ||
        memcmp(frame + hdr, wlan_frame_llc_snap, WLAN_LLC_SNAP_LEN)) {
        return;
    }
    hdr += WLAN_LLC_SNAP_LEN;
    f->snap = true;
    f->ethertype = (uint16_t)(frame[hdr] << 8 | frame[hdr + 1]);
    f->payload = frame + hdr + 2;
    f->payload_len = len - hdr - 2;
}

WlanFrameError wlan_frame_parse(const uint8_t *frame, size_t len,
                                WlanFrame *out)
{
    memset(out, 0, sizeof(*out));
    if (len < 2) {
        return WLAN_FRAME_ERR_SHORT;
    }
    out->type = WLAN_FC_TYPE(frame[0]);
    out->subtype = WLAN_FC_SUBTYPE(frame[0]);
    out->fc1 = frame[1];
    if (len < WLAN_HDR_LEN) {
        /* ACK, RTS, CTS...: shorter than a MAC header, and no error */
        return out->type == WLAN_TYPE_CTRL ? WLAN_FRAME_OK
                                           : WLAN_FRAME_ERR_SHORT;
    }
    if (frame[0] & 3) {
        return WLAN_FRAME_ERR_VERSION;
    }
    out->addr1 = frame + 4;
    out->addr2 = frame + 10;
    out->addr3 = frame + 16;
    out->seq_ctl = wlan_frame_le16(frame + 22);
    out->body = frame + WLAN_HDR_LEN;
    out->body_len = len - WLAN_HDR_LEN;
    switch (out->type) {
    case WLAN_TYPE_MGMT:
        return wlan_frame_mgmt(out);
    case WLAN_TYPE_DATA:
        wlan_frame_data(out, frame, len);
        return WLAN_FRAME_OK;
    case WLAN_TYPE_CTRL:
        return WLAN_FRAME_OK;
    default:
        return WLAN_FRAME_ERR_TYPE;
    }
}

/* -- RSN element ---------------------------------------------------------- */

static uint32_t wlan_frame_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
           (uint32_t)p[2] << 8 | p[3];
}

/* a suite selector: OUI (3 bytes) then type, as one number */
static uint32_t wlan_rsn_suite(const uint8_t *p)
{
    return wlan_frame_be32(p);
}

/* A suite list at *p (count, then count selectors); false if cut. */
static bool wlan_rsn_list(const uint8_t **p, size_t *left, uint16_t *count,
                          uint32_t *suites)
{
    size_t bytes;

    if (*left < 2) {
        return false;
    }
    *count = wlan_frame_le16(*p);
    bytes = (size_t)*count * 4;
    if (bytes > *left - 2) {
        return false;
    }
    for (uint16_t i = 0; i < *count && i < WLAN_RSN_MAX_SUITES; i++) {
        suites[i] = wlan_rsn_suite(*p + 2 + 4 * i);
    }
    *p += 2 + bytes;
    *left -= 2 + bytes;
    return true;
}

WlanFrameError wlan_rsn_ie_parse(const uint8_t *body, size_t len,
                                 WlanRsnIe *out)
{
    const uint8_t *p = body;
    size_t left = len;

    memset(out, 0, sizeof(*out));
    out->group_cipher = WLAN_CIPHER_CCMP;
    out->pairwise_count = 1;
    out->pairwise[0] = WLAN_CIPHER_CCMP;
    out->akm_count = 1;
    out->akm[0] = WLAN_AKM_8021X;
    if (left < 2) {
        return WLAN_FRAME_ERR_RSN_SHORT;
    }
    out->version = wlan_frame_le16(p);
    if (out->version != WLAN_RSN_VERSION) {
        return WLAN_FRAME_ERR_RSN_VERSION;
    }
    p += 2;
    left -= 2;
    /* each optional field is either whole or absent with all after it */
    if (left == 0) {
        return WLAN_FRAME_OK;
    }
    if (left < 4) {
        return WLAN_FRAME_ERR_RSN_SHORT;
    }
    out->has_group = true;
    out->group_cipher = wlan_rsn_suite(p);
    p += 4;
    left -= 4;
    if (left == 0) {
        return WLAN_FRAME_OK;
    }
    if (!wlan_rsn_list(&p, &left, &out->pairwise_count, out->pairwise)) {
        return WLAN_FRAME_ERR_RSN_SHORT;
    }
    if (left == 0) {
        return WLAN_FRAME_OK;
    }
    if (!wlan_rsn_list(&p, &left, &out->akm_count, out->akm)) {
        return WLAN_FRAME_ERR_RSN_SHORT;
    }
    if (left == 0) {
        return WLAN_FRAME_OK;
    }
    if (left < 2) {
        return WLAN_FRAME_ERR_RSN_SHORT;
    }
    out->has_capabilities = true;
    out->capabilities = wlan_frame_le16(p);
    p += 2;
    left -= 2;
    if (left == 0) {
        return WLAN_FRAME_OK;
    }
    if (left < 2) {
        return WLAN_FRAME_ERR_RSN_SHORT;
    }
    out->pmkid_count = wlan_frame_le16(p);
    if ((size_t)out->pmkid_count * WLAN_PMKID_LEN > left - 2) {
        out->pmkid_count = 0;
        return WLAN_FRAME_ERR_RSN_SHORT;
    }
    out->pmkids = p + 2;
    p += 2 + (size_t)out->pmkid_count * WLAN_PMKID_LEN;
    left -= 2 + (size_t)out->pmkid_count * WLAN_PMKID_LEN;
    if (left == 0) {
        return WLAN_FRAME_OK;
    }
    if (left < 4) {
        return WLAN_FRAME_ERR_RSN_SHORT;
    }
    out->has_group_mgmt = true;
    out->group_mgmt_cipher = wlan_rsn_suite(p);
    /* anything after it belongs to later amendments: ignored */
    return WLAN_FRAME_OK;
}

bool wlan_rsn_ie_has(const uint32_t *suites, uint16_t count, uint32_t suite)
{
    for (uint16_t i = 0; i < count && i < WLAN_RSN_MAX_SUITES; i++) {
        if (suites[i] == suite) {
            return true;
        }
    }
    return false;
}

/* -- EAPOL-Key ------------------------------------------------------------- */

static uint16_t wlan_frame_be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

WlanFrameError wlan_eapol_key_parse(const uint8_t *frame, size_t len,
                                    WlanEapolKey *out)
{
    const uint8_t *k = frame + WLAN_EAPOL_HDR_LEN;

    memset(out, 0, sizeof(*out));
    if (len < WLAN_EAPOL_HDR_LEN) {
        return WLAN_FRAME_ERR_EAPOL_SHORT;
    }
    out->version = frame[0];
    out->body_len = wlan_frame_be16(frame + 2);
    if (frame[1] != WLAN_EAPOL_TYPE_KEY) {
        return WLAN_FRAME_ERR_EAPOL_TYPE;
    }
    if (out->body_len > len - WLAN_EAPOL_HDR_LEN ||
        out->body_len < WLAN_EAPOL_KEY_FIXED) {
        return WLAN_FRAME_ERR_EAPOL_SHORT;
    }
    out->descriptor = k[0];
    if (out->descriptor != WLAN_EAPOL_KEY_RSN) {
        return WLAN_FRAME_ERR_EAPOL_TYPE;
    }
    out->key_info = wlan_frame_be16(k + 1);
    out->key_len = wlan_frame_be16(k + 3);
    for (int i = 0; i < 8; i++) {
        out->replay_counter = out->replay_counter << 8 | k[5 + i];
    }
    out->nonce = k + 13;
    out->iv = k + 45;
    out->rsc = k + 61;
    /* 8 reserved bytes at k + 69 */
    out->mic = k + 77;
    out->key_data_len = wlan_frame_be16(k + 93);
    if (out->key_data_len > out->body_len - WLAN_EAPOL_KEY_FIXED) {
        out->key_data_len = 0;
        return WLAN_FRAME_ERR_EAPOL_KEY_DATA;
    }
    out->key_data = k + WLAN_EAPOL_KEY_FIXED;
    out->frame_len = WLAN_EAPOL_HDR_LEN + out->body_len;
    return WLAN_FRAME_OK;
}

const char *wlan_frame_error_str(WlanFrameError err)
{
    if ((unsigned)err >= WLAN_FRAME_ERR_COUNT) {
        return "?";
    }
    return wlan_frame_errors[err];
}
