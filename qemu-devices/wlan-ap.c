/*
 * ndisbench emulated access point: an open 802.11 BSS bridged to a netdev
 *
 * Copyright (c) 2026 The ndisbench authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 *   -netdev user,id=net0
 *   -object wlan-air,id=air0
 *   -object wlan-ap,id=ap0,air=air0,netdev=net0,ssid=ndisbench,
 *           bssid=02:00:00:00:01:00,channel=6[,rssi=-40][,hidden=off]
 *           [,passphrase=WPA2-PASSPHRASE]
 *
 * The AP is a radio on the air. It beacons every 100 TU on
 * QEMU_CLOCK_VIRTUAL, answers probe requests, accepts open-system
 * authentication and association, and bridges data frames between its
 * associated stations and the netdev (802.11 + LLC/SNAP <-> Ethernet II).
 * Any netdev type works (user, socket, dgram, stream, hubport, ...); the
 * AP owns the NIC peer of that netdev, so the netdev must not be used by
 * another NIC. netdev is optional: without it the BSS has no uplink.
 *
 * A station that sends a class 2 or class 3 frame (association request,
 * data) without the required state gets a deauthentication (reason 6 or
 * 7), as a real AP does, so that a confused driver starts over.
 *
 * The AP is saved with the VM (its own vmstate section, named after its
 * id): the beacon schedule and the sequence number, so that a guest
 * restored from a snapshot hears beacons on schedule instead of a burst
 * catching up from virtual time 0. Stations are not saved: after a
 * restore they must associate again (they will, since the AP
 * deauthenticates a station it does not know when it sends data).
 *
 * With a passphrase the BSS is WPA2-PSK (RSN, CCMP pairwise and group,
 * PSK AKM; wlan-rsn.c has the crypto): beacons and probe responses carry
 * the Privacy bit and the RSN element, the PMK is derived from the
 * passphrase and SSID, and a station must offer that suite in its
 * association request. Its port stays closed (no data either way but
 * EAPOL) until the 4-way handshake, which is not written yet, opens it.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qemu/cutils.h"
#include "qemu/error-report.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "qom/object_interfaces.h"
#include "hw/qdev-core.h"
#include "hw/vmstate-if.h"
#include "migration/vmstate.h"
#include "net/eth.h"
#include "net/net.h"
#include "wlan-air.h"
#include "wlan-frame.h"
#include "wlan-rsn.h"
#include "trace.h"

#define TYPE_WLAN_AP "wlan-ap"
OBJECT_DECLARE_SIMPLE_TYPE(WlanApState, WLAN_AP)

#define WLAN_AP_MAX_STATIONS    32
/*
 * An associated station silent this long may lose its entry (hostapd's
 * ap_max_inactivity default), but only to a newcomer, when all are taken.
 */
#define WLAN_AP_INACTIVE_NS     (300 * NANOSECONDS_PER_SECOND)
#define WLAN_AP_BEACON_TU       100
#define WLAN_TU_US              1024
#define WLAN_AP_BEACON_NS       ((int64_t)WLAN_AP_BEACON_TU * WLAN_TU_US * \
                                 SCALE_US)
#define WLAN_SSID_MAX           32

#define WLAN_CAP_ESS            0x0001

#define WLAN_AUTH_OPEN          0
#define WLAN_STATUS_SUCCESS     0
#define WLAN_STATUS_FAILURE     1
#define WLAN_STATUS_AUTH_ALG    13
#define WLAN_STATUS_AP_FULL     17
#define WLAN_STATUS_INVALID_IE  40
#define WLAN_STATUS_GROUP_CIPHER 41
#define WLAN_STATUS_PAIRWISE_CIPHER 42
#define WLAN_STATUS_AKMP        43
#define WLAN_STATUS_RSN_VERSION 44
#define WLAN_REASON_INACTIVITY  4
#define WLAN_REASON_CLASS2      6
#define WLAN_REASON_CLASS3      7

#define ETH_HLEN_II             14
#define ETH_TYPE_MIN            0x0600

static const uint8_t wlan_ap_rates[] = {
    0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24,   /* 1 2 5.5 11 6-18 */
};
static const uint8_t wlan_ap_ext_rates[] = {
    0x30, 0x48, 0x60, 0x6c,                           /* 24 36 48 54 */
};
static const uint8_t wlan_llc_snap[WLAN_LLC_SNAP_LEN] = {
    0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00,
};
/*
 * The RSN element of a WPA2-PSK BSS: version 1, group cipher CCMP, one
 * pairwise cipher (CCMP), one AKM (PSK), RSN capabilities 0.
 */
static const uint8_t wlan_ap_rsn_psk_ccmp[] = {
    WLAN_EID_RSN, 20,
    0x01, 0x00,
    0x00, 0x0f, 0xac, 0x04,
    0x01, 0x00, 0x00, 0x0f, 0xac, 0x04,
    0x01, 0x00, 0x00, 0x0f, 0xac, 0x02,
    0x00, 0x00,
};
static const uint8_t wlan_broadcast[ETH_ALEN] = {
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

typedef enum WlanApStaState {
    WLAN_AP_STA_FREE = 0,
    WLAN_AP_STA_AUTH,
    WLAN_AP_STA_ASSOC,
} WlanApStaState;

typedef struct WlanApStation {
    WlanApStaState state;
    uint8_t mac[ETH_ALEN];
    uint16_t aid;
    bool rx_seq_valid;
    uint16_t rx_seq;            /* sequence control of the last data frame */
    int64_t heard_ns;           /* QEMU_CLOCK_VIRTUAL of its last frame */
    /* WPA2: the RSN element of its association request, whole */
    uint8_t rsn_ie[2 + 255];
    uint8_t rsn_ie_len;
    bool authorized;            /* WPA2: the 802.1X port is open */
} WlanApStation;

struct WlanApState {
    Object parent_obj;

    /* properties */
    char *air_id;
    char *netdev_id;
    char *ssid;
    uint8_t bssid[ETH_ALEN];
    uint8_t channel;
    int32_t rssi;
    bool hidden;
    char *passphrase;           /* WPA2-PSK when set; never read back */

    bool complete;
    bool wpa2;
    uint8_t pmk[WLAN_PMK_LEN];
    WlanRadio radio;
    QEMUTimer *beacon_timer;
    int64_t next_beacon_ns;
    uint16_t seq;

    NICConf conf;
    NICState *nic;
    MemReentrancyGuard nic_guard;

    WlanApStation sta[WLAN_AP_MAX_STATIONS];
};

/* -- helpers --------------------------------------------------------------- */

static bool wlan_ap_is_group(const uint8_t *mac)
{
    return mac[0] & 1;
}

static const char *wlan_ap_name(WlanApState *ap)
{
    return ap->radio.name;
}

static WlanApStation *wlan_ap_find_sta(WlanApState *ap, const uint8_t *mac)
{
    for (int i = 0; i < WLAN_AP_MAX_STATIONS; i++) {
        if (ap->sta[i].state != WLAN_AP_STA_FREE &&
            !memcmp(ap->sta[i].mac, mac, ETH_ALEN)) {
            return &ap->sta[i];
        }
    }
    return NULL;
}

static void wlan_ap_deauth(WlanApState *ap, const uint8_t *da,
                           uint16_t reason);

/* A frame of this station to the BSS: it is alive. */
static void wlan_ap_heard(WlanApStation *sta)
{
    sta->heard_ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

/*
 * The entry a newcomer gets when all are taken, or NULL: the station
 * heard from longest ago of those that only authenticated (forged
 * authentications from random MACs, or a station that went away before
 * associating), else of the associated ones silent for
 * WLAN_AP_INACTIVE_NS, which is told so (deauthenticated, inactivity).
 */
static WlanApStation *wlan_ap_evict(WlanApState *ap)
{
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    WlanApStation *auth = NULL, *idle = NULL, *sta;

    for (int i = 0; i < WLAN_AP_MAX_STATIONS; i++) {
        sta = &ap->sta[i];
        if (sta->state == WLAN_AP_STA_AUTH) {
            if (!auth || sta->heard_ns < auth->heard_ns) {
                auth = sta;
            }
        } else if (sta->state == WLAN_AP_STA_ASSOC &&
                   now - sta->heard_ns >= WLAN_AP_INACTIVE_NS) {
            if (!idle || sta->heard_ns < idle->heard_ns) {
                idle = sta;
            }
        }
    }
    if (auth) {
        trace_wlan_ap_sta_evict(wlan_ap_name(ap), auth->mac[0], auth->mac[1],
                                auth->mac[2], auth->mac[3], auth->mac[4],
                                auth->mac[5], "authenticated only");
        auth->state = WLAN_AP_STA_FREE;
        return auth;
    }
    if (idle) {
        trace_wlan_ap_sta_evict(wlan_ap_name(ap), idle->mac[0], idle->mac[1],
                                idle->mac[2], idle->mac[3], idle->mac[4],
                                idle->mac[5], "inactive");
        wlan_ap_deauth(ap, idle->mac, WLAN_REASON_INACTIVITY);
        return idle;
    }
    return NULL;
}

static WlanApStation *wlan_ap_new_sta(WlanApState *ap, const uint8_t *mac)
{
    WlanApStation *sta = NULL;

    for (int i = 0; i < WLAN_AP_MAX_STATIONS && !sta; i++) {
        if (ap->sta[i].state == WLAN_AP_STA_FREE) {
            sta = &ap->sta[i];
        }
    }
    if (!sta) {
        sta = wlan_ap_evict(ap);
    }
    if (!sta) {
        return NULL;
    }
    memcpy(sta->mac, mac, ETH_ALEN);
    sta->state = WLAN_AP_STA_AUTH;
    sta->aid = 0;
    sta->rx_seq_valid = false;
    sta->rsn_ie_len = 0;
    sta->authorized = false;
    wlan_ap_heard(sta);
    return sta;
}

/*
 * May data flow to and from this station? Associated, and in a WPA2 BSS
 * also through the 802.1X port the 4-way handshake opens.
 */
static bool wlan_ap_port_open(WlanApState *ap, const WlanApStation *sta)
{
    return sta->state == WLAN_AP_STA_ASSOC && (!ap->wpa2 || sta->authorized);
}

static unsigned wlan_ap_assoc_count(WlanApState *ap)
{
    unsigned n = 0;

    for (int i = 0; i < WLAN_AP_MAX_STATIONS; i++) {
        n += ap->sta[i].state == WLAN_AP_STA_ASSOC;
    }
    return n;
}

/* Stations group-addressed data goes to (or comes from and is relayed). */
static unsigned wlan_ap_open_count(WlanApState *ap)
{
    unsigned n = 0;

    for (int i = 0; i < WLAN_AP_MAX_STATIONS; i++) {
        n += wlan_ap_port_open(ap, &ap->sta[i]);
    }
    return n;
}

/* The frame builder: a header, then fixed fields and IEs appended. */
typedef struct WlanApFrame {
    uint8_t buf[WLAN_MAX_FRAME];
    size_t len;
} WlanApFrame;

static void wlan_ap_frame_hdr(WlanApState *ap, WlanApFrame *f, uint8_t type,
                              uint8_t subtype, uint8_t fc1, const uint8_t *a1,
                              const uint8_t *a2, const uint8_t *a3)
{
    f->buf[0] = (type << 2) | (subtype << 4);
    f->buf[1] = fc1;
    stw_le_p(&f->buf[2], 0);                    /* duration */
    memcpy(&f->buf[4], a1, ETH_ALEN);
    memcpy(&f->buf[10], a2, ETH_ALEN);
    memcpy(&f->buf[16], a3, ETH_ALEN);
    stw_le_p(&f->buf[22], ap->seq << 4);
    ap->seq = (ap->seq + 1) & 0xfff;
    f->len = WLAN_HDR_LEN;
}

static void wlan_ap_put(WlanApFrame *f, const void *data, size_t len)
{
    assert(f->len + len <= sizeof(f->buf));
    memcpy(&f->buf[f->len], data, len);
    f->len += len;
}

static void wlan_ap_put_le16(WlanApFrame *f, uint16_t v)
{
    assert(f->len + 2 <= sizeof(f->buf));
    stw_le_p(&f->buf[f->len], v);
    f->len += 2;
}

static void wlan_ap_put_ie(WlanApFrame *f, uint8_t id, const void *data,
                           size_t len)
{
    uint8_t hdr[2] = { id, len };

    wlan_ap_put(f, hdr, 2);
    wlan_ap_put(f, data, len);
}

static void wlan_ap_put_rates(WlanApFrame *f)
{
    wlan_ap_put_ie(f, WLAN_EID_RATES, wlan_ap_rates, sizeof(wlan_ap_rates));
    wlan_ap_put_ie(f, WLAN_EID_EXT_RATES, wlan_ap_ext_rates,
                   sizeof(wlan_ap_ext_rates));
}

static void wlan_ap_send(WlanApState *ap, WlanApFrame *f, const char *what)
{
    trace_wlan_ap_tx(wlan_ap_name(ap), what, f->len);
    wlan_air_transmit(&ap->radio, f->buf, f->len);
}

/*
 * Beacon and probe response share their body: timestamp, interval,
 * capability, SSID (empty in the beacon of a hidden BSS), rates, channel,
 * in a WPA2 BSS the RSN element (before the extended rates: elements go
 * in order of their ids), and the extended rates.
 */
static void wlan_ap_put_bss_body(WlanApState *ap, WlanApFrame *f,
                                 bool beacon)
{
    uint64_t tsf = qemu_clock_get_us(QEMU_CLOCK_VIRTUAL);
    size_t ssid_len = (beacon && ap->hidden) ? 0 : strlen(ap->ssid);
    uint8_t tim[4] = { 0, 1, 0, 0 };    /* DTIM count/period, no traffic */

    assert(f->len + 8 <= sizeof(f->buf));
    stq_le_p(&f->buf[f->len], tsf);
    f->len += 8;
    wlan_ap_put_le16(f, WLAN_AP_BEACON_TU);
    wlan_ap_put_le16(f, WLAN_CAP_ESS | (ap->wpa2 ? WLAN_CAP_PRIVACY : 0));
    wlan_ap_put_ie(f, WLAN_EID_SSID, ap->ssid, ssid_len);
    wlan_ap_put_ie(f, WLAN_EID_RATES, wlan_ap_rates, sizeof(wlan_ap_rates));
    wlan_ap_put_ie(f, WLAN_EID_DS_PARAMS, &ap->channel, 1);
    if (beacon) {
        wlan_ap_put_ie(f, WLAN_EID_TIM, tim, sizeof(tim));
    }
    if (ap->wpa2) {
        wlan_ap_put(f, wlan_ap_rsn_psk_ccmp, sizeof(wlan_ap_rsn_psk_ccmp));
    }
    wlan_ap_put_ie(f, WLAN_EID_EXT_RATES, wlan_ap_ext_rates,
                   sizeof(wlan_ap_ext_rates));
}

static void wlan_ap_send_mgmt_simple(WlanApState *ap, uint8_t subtype,
                                     const uint8_t *da, uint16_t code,
                                     const char *what)
{
    WlanApFrame f;

    wlan_ap_frame_hdr(ap, &f, WLAN_TYPE_MGMT, subtype, 0, da, ap->bssid,
                      ap->bssid);
    wlan_ap_put_le16(&f, code);
    wlan_ap_send(ap, &f, what);
}

static void wlan_ap_deauth(WlanApState *ap, const uint8_t *da,
                           uint16_t reason)
{
    WlanApStation *sta = wlan_ap_find_sta(ap, da);

    if (sta) {
        sta->state = WLAN_AP_STA_FREE;
    }
    trace_wlan_ap_sta_deauth(wlan_ap_name(ap), da[0], da[1], da[2], da[3],
                             da[4], da[5], reason);
    wlan_ap_send_mgmt_simple(ap, WLAN_MGMT_DEAUTH, da, reason, "deauth");
}

/* -- beacons --------------------------------------------------------------- */

static void wlan_ap_beacon(void *opaque)
{
    WlanApState *ap = opaque;
    WlanApFrame f;

    wlan_ap_frame_hdr(ap, &f, WLAN_TYPE_MGMT, WLAN_MGMT_BEACON, 0,
                      wlan_broadcast, ap->bssid, ap->bssid);
    wlan_ap_put_bss_body(ap, &f, true);
    wlan_ap_send(ap, &f, "beacon");

    /* Fixed schedule: no drift however late this timer fired. */
    ap->next_beacon_ns += WLAN_AP_BEACON_NS;
    timer_mod(ap->beacon_timer, ap->next_beacon_ns);
}

/* -- management frames from stations --------------------------------------- */

static bool wlan_ap_ssid_matches(WlanApState *ap, const uint8_t *ssid,
                                 uint8_t len)
{
    return len == strlen(ap->ssid) && !memcmp(ssid, ap->ssid, len);
}

static void wlan_ap_probe_req(WlanApState *ap, const WlanFrame *fr)
{
    WlanApFrame f;

    if (fr->ssid_len == 0 ? ap->hidden
                          : !wlan_ap_ssid_matches(ap, fr->ssid,
                                                  fr->ssid_len)) {
        return;     /* not for us: no answer, as a real AP */
    }
    wlan_ap_frame_hdr(ap, &f, WLAN_TYPE_MGMT, WLAN_MGMT_PROBE_RESP, 0,
                      fr->addr2, ap->bssid, ap->bssid);
    wlan_ap_put_bss_body(ap, &f, false);
    wlan_ap_send(ap, &f, "probe response");
}

static void wlan_ap_auth(WlanApState *ap, const WlanFrame *fr)
{
    const uint8_t *sa = fr->addr2;
    WlanApStation *sta;
    uint16_t status = WLAN_STATUS_SUCCESS;
    WlanApFrame f;

    if (fr->auth_seq != 1) {
        trace_wlan_ap_drop(wlan_ap_name(ap), "authentication sequence != 1",
                           fr->auth_seq);
        return;
    }
    sta = wlan_ap_find_sta(ap, sa);
    if (fr->auth_alg != WLAN_AUTH_OPEN) {
        status = WLAN_STATUS_AUTH_ALG;
    } else if (sta) {
        sta->state = WLAN_AP_STA_AUTH;  /* re-authentication drops assoc */
    } else if (!wlan_ap_new_sta(ap, sa)) {
        status = WLAN_STATUS_AP_FULL;
    }
    trace_wlan_ap_sta_auth(wlan_ap_name(ap), sa[0], sa[1], sa[2], sa[3],
                           sa[4], sa[5], fr->auth_alg, status);
    wlan_ap_frame_hdr(ap, &f, WLAN_TYPE_MGMT, WLAN_MGMT_AUTH, 0, sa,
                      ap->bssid, ap->bssid);
    wlan_ap_put_le16(&f, fr->auth_alg);
    wlan_ap_put_le16(&f, 2);
    wlan_ap_put_le16(&f, status);
    wlan_ap_send(ap, &f, "authentication");
}

/*
 * The status a WPA2 BSS answers a (re)association request with, from the
 * station's RSN element (IEEE 802.11-2012 table 8-37): it must select
 * exactly the suite the BSS offers. The element is kept for message 2.
 */
static uint16_t wlan_ap_check_rsn(WlanApState *ap, WlanApStation *sta,
                                  const WlanFrame *fr)
{
    const uint8_t *sa = fr->addr2;
    const char *why = NULL;
    uint16_t status = WLAN_STATUS_SUCCESS;
    WlanFrameError err = WLAN_FRAME_OK;
    WlanRsnIe rsn;

    sta->rsn_ie_len = 0;
    if (fr->rsn) {
        err = wlan_rsn_ie_parse(fr->rsn, fr->rsn_len, &rsn);
    }
    if (!fr->rsn) {
        why = "no RSN element";
        status = WLAN_STATUS_INVALID_IE;
    } else if (err != WLAN_FRAME_OK) {
        why = wlan_frame_error_str(err);
        status = err == WLAN_FRAME_ERR_RSN_VERSION ? WLAN_STATUS_RSN_VERSION
                                                   : WLAN_STATUS_INVALID_IE;
    } else if (rsn.group_cipher != WLAN_CIPHER_CCMP) {
        why = "group cipher not CCMP";
        status = WLAN_STATUS_GROUP_CIPHER;
    } else if (rsn.pairwise_count != 1 || rsn.pairwise[0] != WLAN_CIPHER_CCMP) {
        why = "pairwise cipher not CCMP alone";
        status = WLAN_STATUS_PAIRWISE_CIPHER;
    } else if (rsn.akm_count != 1 || rsn.akm[0] != WLAN_AKM_PSK) {
        why = "AKM not PSK alone";
        status = WLAN_STATUS_AKMP;
    }
    if (status != WLAN_STATUS_SUCCESS) {
        trace_wlan_ap_rsn_refused(wlan_ap_name(ap), sa[0], sa[1], sa[2],
                                  sa[3], sa[4], sa[5], status, why);
        return status;
    }
    sta->rsn_ie[0] = WLAN_EID_RSN;
    sta->rsn_ie[1] = fr->rsn_len;
    memcpy(sta->rsn_ie + 2, fr->rsn, fr->rsn_len);
    sta->rsn_ie_len = 2 + fr->rsn_len;
    return status;
}

static void wlan_ap_assoc(WlanApState *ap, const WlanFrame *fr)
{
    const uint8_t *sa = fr->addr2;
    bool reassoc = fr->subtype == WLAN_MGMT_REASSOC_REQ;
    WlanApStation *sta = wlan_ap_find_sta(ap, sa);
    uint16_t status = WLAN_STATUS_SUCCESS;
    WlanApFrame f;

    if (!sta) {
        wlan_ap_deauth(ap, sa, WLAN_REASON_CLASS2);
        return;
    }
    /* a new association starts with the port closed */
    sta->authorized = false;
    if (!fr->has_ssid || !wlan_ap_ssid_matches(ap, fr->ssid, fr->ssid_len)) {
        status = WLAN_STATUS_FAILURE;
    } else if (ap->wpa2) {
        status = wlan_ap_check_rsn(ap, sta, fr);
    }
    if (status == WLAN_STATUS_SUCCESS) {
        sta->state = WLAN_AP_STA_ASSOC;
        sta->aid = (sta - ap->sta) + 1;
    } else if (ap->wpa2 && sta->state == WLAN_AP_STA_ASSOC) {
        sta->state = WLAN_AP_STA_AUTH;  /* refused: no longer associated */
    }
    trace_wlan_ap_sta_assoc(wlan_ap_name(ap), sa[0], sa[1], sa[2], sa[3],
                            sa[4], sa[5], status ? 0 : sta->aid, status);
    wlan_ap_frame_hdr(ap, &f, WLAN_TYPE_MGMT,
                      reassoc ? WLAN_MGMT_REASSOC_RESP : WLAN_MGMT_ASSOC_RESP,
                      0, sa, ap->bssid, ap->bssid);
    wlan_ap_put_le16(&f, WLAN_CAP_ESS);
    wlan_ap_put_le16(&f, status);
    wlan_ap_put_le16(&f, status ? 0 : (sta->aid | 0xc000));
    wlan_ap_put_rates(&f);
    wlan_ap_send(ap, &f, reassoc ? "reassociation response" :
                 "association response");
}

static void wlan_ap_rx_mgmt(WlanApState *ap, const WlanFrame *fr)
{
    const uint8_t *da = fr->addr1, *sa = fr->addr2, *bssid = fr->addr3;
    WlanApStation *sta;

    if (wlan_ap_is_group(sa)) {
        trace_wlan_ap_drop(wlan_ap_name(ap), "group source address",
                           fr->body_len + WLAN_HDR_LEN);
        return;
    }
    if (fr->subtype == WLAN_MGMT_PROBE_REQ) {
        if ((memcmp(da, ap->bssid, ETH_ALEN) && !wlan_ap_is_group(da)) ||
            (memcmp(bssid, ap->bssid, ETH_ALEN) && !wlan_ap_is_group(bssid))) {
            return;
        }
        sta = wlan_ap_find_sta(ap, sa);
        if (sta) {
            wlan_ap_heard(sta);
        }
        wlan_ap_probe_req(ap, fr);
        return;
    }
    /* Everything else is addressed to this BSS. */
    if (memcmp(da, ap->bssid, ETH_ALEN) || memcmp(bssid, ap->bssid,
                                                  ETH_ALEN)) {
        return;
    }
    sta = wlan_ap_find_sta(ap, sa);
    if (sta) {
        wlan_ap_heard(sta);
    }
    switch (fr->subtype) {
    case WLAN_MGMT_AUTH:
        wlan_ap_auth(ap, fr);
        break;
    case WLAN_MGMT_ASSOC_REQ:
    case WLAN_MGMT_REASSOC_REQ:
        wlan_ap_assoc(ap, fr);
        break;
    case WLAN_MGMT_DISASSOC:
    case WLAN_MGMT_DEAUTH:
        sta = wlan_ap_find_sta(ap, sa);
        trace_wlan_ap_sta_leave(wlan_ap_name(ap), sa[0], sa[1], sa[2], sa[3],
                                sa[4], sa[5], fr->reason);
        if (sta) {
            sta->state = fr->subtype == WLAN_MGMT_DEAUTH ? WLAN_AP_STA_FREE :
                         WLAN_AP_STA_AUTH;
        }
        break;
    default:
        trace_wlan_ap_drop(wlan_ap_name(ap), "unhandled management subtype",
                           fr->subtype);
        break;
    }
}

/* -- data: the bridge ------------------------------------------------------ */

/*
 * One data frame on the air from the distribution system: FromDS,
 * addr1 = DA, addr2 = BSSID, addr3 = SA, LLC/SNAP + ethertype + payload.
 */
static void wlan_ap_send_data(WlanApState *ap, const uint8_t *da,
                              const uint8_t *sa, uint16_t ethertype,
                              const uint8_t *payload, size_t len)
{
    WlanApFrame f;

    if (WLAN_HDR_LEN + sizeof(wlan_llc_snap) + 2 + len > WLAN_MAX_FRAME) {
        trace_wlan_ap_drop(wlan_ap_name(ap), "frame too long for 802.11",
                           len);
        return;
    }
    wlan_ap_frame_hdr(ap, &f, WLAN_TYPE_DATA, 0, WLAN_FC1_FROMDS, da,
                      ap->bssid, sa);
    wlan_ap_put(&f, wlan_llc_snap, sizeof(wlan_llc_snap));
    f.buf[f.len++] = ethertype >> 8;
    f.buf[f.len++] = ethertype;
    wlan_ap_put(&f, payload, len);
    wlan_ap_send(ap, &f, "data");
}

static void wlan_ap_rx_data(WlanApState *ap, const WlanFrame *fr)
{
    const uint8_t *bssid = fr->addr1, *sa = fr->addr2, *da = fr->addr3;
    size_t len = WLAN_HDR_LEN + fr->body_len;
    WlanApStation *sta, *dst;
    uint8_t eth[ETH_HLEN_II + WLAN_MAX_FRAME];

    if ((fr->fc1 & (WLAN_FC1_TODS | WLAN_FC1_FROMDS)) != WLAN_FC1_TODS ||
        memcmp(bssid, ap->bssid, ETH_ALEN)) {
        return;     /* not to this AP's distribution system */
    }
    sta = wlan_ap_find_sta(ap, sa);
    if (!sta || sta->state != WLAN_AP_STA_ASSOC) {
        wlan_ap_deauth(ap, sa, sta ? WLAN_REASON_CLASS3 : WLAN_REASON_CLASS2);
        return;
    }
    wlan_ap_heard(sta);
    /*
     * Duplicate detection (802.11 10.3.2.14): a retransmission of the
     * frame just received (its ACK was lost) is dropped.
     */
    if ((fr->fc1 & WLAN_FC1_RETRY) && sta->rx_seq_valid &&
        sta->rx_seq == fr->seq_ctl) {
        trace_wlan_ap_drop(wlan_ap_name(ap), "duplicate", len);
        return;
    }
    sta->rx_seq = fr->seq_ctl;
    sta->rx_seq_valid = true;
    if (fr->nodata) {
        return;     /* (QoS) null function: power management only */
    }
    if (!wlan_ap_port_open(ap, sta)) {
        /* WPA2 before the 4-way handshake: EAPOL only (not handled yet) */
        trace_wlan_ap_drop(wlan_ap_name(ap), fr->snap &&
                           fr->ethertype == WLAN_ETHERTYPE_EAPOL ?
                           "EAPOL (no 4-way handshake yet)" :
                           "802.1X port closed", len);
        return;
    }
    if (fr->protected_frame) {
        trace_wlan_ap_drop(wlan_ap_name(ap), "protected frame in open BSS",
                           len);
        return;
    }
    if (!fr->snap) {
        trace_wlan_ap_drop(wlan_ap_name(ap), "data without LLC/SNAP", len);
        return;
    }

    /* Ethernet II: DA, SA, then the ethertype and payload as they are. */
    memcpy(eth, da, ETH_ALEN);
    memcpy(eth + ETH_ALEN, sa, ETH_ALEN);
    stw_be_p(eth + 2 * ETH_ALEN, fr->ethertype);
    memcpy(eth + ETH_HLEN_II, fr->payload, fr->payload_len);

    dst = wlan_ap_is_group(da) ? NULL : wlan_ap_find_sta(ap, da);
    if (dst && wlan_ap_port_open(ap, dst)) {
        /* station to station: relay inside the BSS */
        wlan_ap_send_data(ap, da, sa, fr->ethertype, fr->payload,
                          fr->payload_len);
        return;
    }
    if (wlan_ap_is_group(da) && wlan_ap_open_count(ap) > 1) {
        wlan_ap_send_data(ap, da, sa, fr->ethertype, fr->payload,
                          fr->payload_len);
    }
    if (!ap->nic) {
        trace_wlan_ap_drop(wlan_ap_name(ap), "no netdev", len);
        return;
    }
    trace_wlan_ap_to_netdev(wlan_ap_name(ap), ETH_HLEN_II + fr->payload_len);
    qemu_send_packet(qemu_get_queue(ap->nic), eth,
                     ETH_HLEN_II + fr->payload_len);
}

/*
 * A frame heard on the channel. wlan_frame_parse() (wlan-frame.c, a pure
 * function the libFuzzer target fuzz_wlan_frame runs too) decodes it;
 * only a frame it accepts is looked at, through what it decoded.
 */
static void wlan_ap_radio_receive(WlanRadio *radio, const uint8_t *frame,
                                  size_t len, uint32_t fcs, int rssi_dbm)
{
    WlanApState *ap = radio->opaque;
    WlanFrameError err;
    WlanFrame fr;

    if (!wlan_air_fcs_ok(frame, len, fcs)) {
        /* Bit errors on the air: the radio never hands such a frame up. */
        trace_wlan_ap_drop(wlan_ap_name(ap), "bad FCS", len);
        return;
    }
    err = wlan_frame_parse(frame, len, &fr);
    if (err != WLAN_FRAME_OK) {
        trace_wlan_ap_drop(wlan_ap_name(ap), wlan_frame_error_str(err), len);
        return;
    }
    switch (fr.type) {
    case WLAN_TYPE_MGMT:
        wlan_ap_rx_mgmt(ap, &fr);
        break;
    case WLAN_TYPE_DATA:
        wlan_ap_rx_data(ap, &fr);
        break;
    default:
        break;      /* control: no ACKs or RTS/CTS on the emulated air */
    }
}

/* -- the netdev side ------------------------------------------------------- */

static ssize_t wlan_ap_nic_receive(NetClientState *nc, const uint8_t *buf,
                                   size_t size)
{
    WlanApState *ap = qemu_get_nic_opaque(nc);
    const uint8_t *da = buf, *sa = buf + ETH_ALEN;
    WlanApStation *sta;
    uint16_t ethertype;

    if (size < ETH_HLEN_II) {
        trace_wlan_ap_drop(wlan_ap_name(ap), "short Ethernet frame", size);
        return size;
    }
    ethertype = lduw_be_p(buf + 2 * ETH_ALEN);
    if (ethertype < ETH_TYPE_MIN) {
        trace_wlan_ap_drop(wlan_ap_name(ap), "802.3 length frame", size);
        return size;
    }
    if (wlan_ap_is_group(da)) {
        if (!wlan_ap_open_count(ap)) {
            return size;
        }
    } else {
        sta = wlan_ap_find_sta(ap, da);
        if (!sta || sta->state != WLAN_AP_STA_ASSOC) {
            trace_wlan_ap_drop(wlan_ap_name(ap), "to a station not "
                               "associated", size);
            return size;
        }
        if (!wlan_ap_port_open(ap, sta)) {
            trace_wlan_ap_drop(wlan_ap_name(ap), "to a station whose 802.1X "
                               "port is closed", size);
            return size;
        }
    }
    trace_wlan_ap_from_netdev(wlan_ap_name(ap), size);
    wlan_ap_send_data(ap, da, sa, ethertype, buf + ETH_HLEN_II,
                      size - ETH_HLEN_II);
    return size;
}

/* The net layer deletes every NIC at exit, before objects are finalized. */
static void wlan_ap_nic_cleanup(NetClientState *nc)
{
    WlanApState *ap = qemu_get_nic_opaque(nc);

    ap->nic = NULL;
}

static NetClientInfo wlan_ap_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .receive = wlan_ap_nic_receive,
    .cleanup = wlan_ap_nic_cleanup,
};

static bool wlan_ap_connect(WlanApState *ap, Error **errp)
{
    NetClientState *nc = qemu_find_netdev(ap->netdev_id);

    if (!nc) {
        error_setg(errp, "wlan-ap '%s': netdev '%s' not found",
                   wlan_ap_name(ap), ap->netdev_id);
        return false;
    }
    if (nc->info->type == NET_CLIENT_DRIVER_NIC) {
        error_setg(errp, "wlan-ap '%s': '%s' is a NIC, not a netdev",
                   wlan_ap_name(ap), ap->netdev_id);
        return false;
    }
    if (nc->peer) {
        error_setg(errp, "wlan-ap '%s': netdev '%s' is already in use by "
                   "'%s'", wlan_ap_name(ap), ap->netdev_id, nc->peer->name);
        return false;
    }
    memcpy(ap->conf.macaddr.a, ap->bssid, ETH_ALEN);
    ap->conf.peers.ncs[0] = nc;
    ap->conf.peers.queues = 1;
    ap->nic = qemu_new_nic(&wlan_ap_net_info, &ap->conf, TYPE_WLAN_AP,
                           wlan_ap_name(ap), &ap->nic_guard, ap);
    qemu_format_nic_info_str(qemu_get_queue(ap->nic), ap->bssid);
    trace_wlan_ap_connect(wlan_ap_name(ap), ap->netdev_id);
    return true;
}

/* -- properties and life cycle -------------------------------------------- */

static bool wlan_ap_check_unset(WlanApState *ap, const char *name,
                                Error **errp)
{
    if (ap->complete) {
        error_setg(errp, "wlan-ap: '%s' cannot be changed once the access "
                   "point exists", name);
        return false;
    }
    return true;
}

static char *wlan_ap_get_air(Object *obj, Error **errp)
{
    return g_strdup(WLAN_AP(obj)->air_id);
}

static void wlan_ap_set_air(Object *obj, const char *value, Error **errp)
{
    WlanApState *ap = WLAN_AP(obj);

    if (wlan_ap_check_unset(ap, "air", errp)) {
        g_free(ap->air_id);
        ap->air_id = g_strdup(value);
    }
}

static char *wlan_ap_get_netdev(Object *obj, Error **errp)
{
    return g_strdup(WLAN_AP(obj)->netdev_id);
}

static void wlan_ap_set_netdev(Object *obj, const char *value, Error **errp)
{
    WlanApState *ap = WLAN_AP(obj);

    if (wlan_ap_check_unset(ap, "netdev", errp)) {
        g_free(ap->netdev_id);
        ap->netdev_id = g_strdup(value);
    }
}

static char *wlan_ap_get_ssid(Object *obj, Error **errp)
{
    return g_strdup(WLAN_AP(obj)->ssid);
}

static void wlan_ap_set_ssid(Object *obj, const char *value, Error **errp)
{
    ERRP_GUARD();
    WlanApState *ap = WLAN_AP(obj);

    if (strlen(value) < 1 || strlen(value) > WLAN_SSID_MAX) {
        error_setg(errp, "wlan-ap: ssid must be 1 to %d bytes long",
                   WLAN_SSID_MAX);
        return;
    }
    /* a WPA2 BSS's PMK is derived from its SSID too */
    if (ap->wpa2 && !wlan_rsn_pmk(ap->passphrase, (const uint8_t *)value,
                                  strlen(value), ap->pmk, errp)) {
        error_prepend(errp, "wlan-ap: ");
        return;
    }
    g_free(ap->ssid);
    ap->ssid = g_strdup(value);
}

static void wlan_ap_set_passphrase(Object *obj, const char *value,
                                   Error **errp)
{
    ERRP_GUARD();
    WlanApState *ap = WLAN_AP(obj);

    if (!wlan_ap_check_unset(ap, "passphrase", errp)) {
        return;
    }
    if (!wlan_rsn_passphrase_valid(value, errp)) {
        error_prepend(errp, "wlan-ap: ");
        return;
    }
    g_free(ap->passphrase);
    ap->passphrase = g_strdup(value);
}

static bool wlan_ap_get_wpa2(Object *obj, Error **errp)
{
    return WLAN_AP(obj)->wpa2;
}

static char *wlan_ap_get_bssid(Object *obj, Error **errp)
{
    return qemu_mac_strdup_printf(WLAN_AP(obj)->bssid);
}

static void wlan_ap_set_bssid(Object *obj, const char *value, Error **errp)
{
    WlanApState *ap = WLAN_AP(obj);
    uint8_t mac[ETH_ALEN];
    const char *p = value;

    if (!wlan_ap_check_unset(ap, "bssid", errp)) {
        return;
    }
    for (int i = 0; i < ETH_ALEN; i++) {
        if (!g_ascii_isxdigit(p[0]) || !g_ascii_isxdigit(p[1]) ||
            p[2] != (i == ETH_ALEN - 1 ? '\0' : ':')) {
            error_setg(errp, "wlan-ap: bssid '%s' is not a MAC address "
                       "(xx:xx:xx:xx:xx:xx)", value);
            return;
        }
        mac[i] = g_ascii_xdigit_value(p[0]) << 4 | g_ascii_xdigit_value(p[1]);
        p += 3;
    }
    if (wlan_ap_is_group(mac)) {
        error_setg(errp, "wlan-ap: bssid '%s' is a group address", value);
        return;
    }
    memcpy(ap->bssid, mac, ETH_ALEN);
}

static void wlan_ap_get_channel(Object *obj, Visitor *v, const char *name,
                                void *opaque, Error **errp)
{
    uint8_t value = WLAN_AP(obj)->channel;

    visit_type_uint8(v, name, &value, errp);
}

static void wlan_ap_set_channel(Object *obj, Visitor *v, const char *name,
                                void *opaque, Error **errp)
{
    WlanApState *ap = WLAN_AP(obj);
    uint8_t value;

    if (!visit_type_uint8(v, name, &value, errp)) {
        return;
    }
    if (value < 1 || value > 14) {
        error_setg(errp, "wlan-ap: channel must be 1 to 14, not %u", value);
        return;
    }
    ap->channel = value;
    ap->radio.channel = value;
}

static void wlan_ap_get_rssi(Object *obj, Visitor *v, const char *name,
                             void *opaque, Error **errp)
{
    int32_t value = WLAN_AP(obj)->rssi;

    visit_type_int32(v, name, &value, errp);
}

static void wlan_ap_set_rssi(Object *obj, Visitor *v, const char *name,
                             void *opaque, Error **errp)
{
    WlanApState *ap = WLAN_AP(obj);
    int32_t value;

    if (!visit_type_int32(v, name, &value, errp)) {
        return;
    }
    if (value < -120 || value > 0) {
        error_setg(errp, "wlan-ap: rssi must be -120 to 0 dBm, not %d",
                   value);
        return;
    }
    ap->rssi = value;
    ap->radio.rssi_dbm = value;
}

static bool wlan_ap_get_hidden(Object *obj, Error **errp)
{
    return WLAN_AP(obj)->hidden;
}

static void wlan_ap_set_hidden(Object *obj, bool value, Error **errp)
{
    WLAN_AP(obj)->hidden = value;
}

static void wlan_ap_get_stations(Object *obj, Visitor *v, const char *name,
                                 void *opaque, Error **errp)
{
    uint32_t value = wlan_ap_assoc_count(WLAN_AP(obj));

    visit_type_uint32(v, name, &value, errp);
}

/* -- migration ------------------------------------------------------------ */

/*
 * The beacon time comes from the stream. A negative one, or one too far
 * ahead for the schedule to add another interval, is no clock's reading:
 * the stream is refused. One in the past (a stream from a machine whose
 * clock ran further) is moved to now: one beacon at once, then on
 * schedule, instead of every missed beacon in a row, which for a time
 * far enough back keeps the main loop busy for ever.
 */
static int wlan_ap_post_load(void *opaque, int version_id)
{
    WlanApState *ap = opaque;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

    if (ap->next_beacon_ns < 0 ||
        ap->next_beacon_ns > INT64_MAX - WLAN_AP_BEACON_NS) {
        error_report("wlan-ap '%s': migrated beacon time %" PRId64
                     " ns is out of range", wlan_ap_name(ap),
                     ap->next_beacon_ns);
        return -EINVAL;
    }
    if (ap->next_beacon_ns < now) {
        ap->next_beacon_ns = now;
    }
    timer_mod(ap->beacon_timer, ap->next_beacon_ns);
    return 0;
}

static const VMStateDescription vmstate_wlan_ap = {
    .name = TYPE_WLAN_AP,
    .version_id = 1,
    .minimum_version_id = 1,
    .post_load = wlan_ap_post_load,
    .fields = (VMStateField[]) {
        VMSTATE_INT64(next_beacon_ns, WlanApState),
        VMSTATE_UINT16(seq, WlanApState),
        VMSTATE_END_OF_LIST()
    },
};

/* The section's name: one per AP, whatever order the APs come in. */
static char *wlan_ap_vmstate_id(VMStateIf *vmif)
{
    return g_strdup_printf("%s/%s", TYPE_WLAN_AP,
                           object_get_canonical_path_component(
                               OBJECT(vmif)));
}

/*
 * QEMU creates -object options before -netdev ones, except the "late"
 * objects object_create_early() in softmmu/vl.c lists (filter-*, for their
 * netdev property). The ndisbench build (scripts/ndisbench_lib/build/
 * qemu_build.py) adds wlan-ap to them, so the netdev exists here, and a
 * missing one is reported against the -object option itself.
 */
static void wlan_ap_complete(UserCreatable *uc, Error **errp)
{
    WlanApState *ap = WLAN_AP(uc);
    WlanAir *air;

    ap->radio.name = g_strdup(object_get_canonical_path_component(
                                  OBJECT(ap)));
    if (!ap->air_id) {
        error_setg(errp, "wlan-ap '%s': property 'air' is required (the id"
                   " of a wlan-air object)", wlan_ap_name(ap));
        return;
    }
    air = wlan_air_find(ap->air_id, errp);
    if (!air) {
        error_prepend(errp, "wlan-ap '%s': ", wlan_ap_name(ap));
        return;
    }
    if (ap->passphrase) {
        if (!wlan_rsn_pmk(ap->passphrase, (const uint8_t *)ap->ssid,
                          strlen(ap->ssid), ap->pmk, errp)) {
            error_prepend(errp, "wlan-ap '%s': ", wlan_ap_name(ap));
            return;
        }
        ap->wpa2 = true;
    }
    if (ap->netdev_id && !wlan_ap_connect(ap, errp)) {
        return;
    }
    if (vmstate_register(VMSTATE_IF(ap), VMSTATE_INSTANCE_ID_ANY,
                         &vmstate_wlan_ap, ap) < 0) {
        error_setg(errp, "wlan-ap '%s': cannot register its migration "
                   "state", wlan_ap_name(ap));
        return;
    }
    ap->complete = true;
    wlan_air_attach(air, &ap->radio);
    ap->next_beacon_ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                         WLAN_AP_BEACON_NS;
    timer_mod(ap->beacon_timer, ap->next_beacon_ns);
}

static void wlan_ap_init(Object *obj)
{
    WlanApState *ap = WLAN_AP(obj);
    static const uint8_t default_bssid[ETH_ALEN] = {
        0x02, 0x00, 0x00, 0x00, 0x01, 0x00,
    };

    ap->ssid = g_strdup("ndisbench");
    memcpy(ap->bssid, default_bssid, ETH_ALEN);
    ap->channel = 6;
    ap->rssi = -40;
    ap->radio.channel = ap->channel;
    ap->radio.rssi_dbm = ap->rssi;
    ap->radio.receive = wlan_ap_radio_receive;
    ap->radio.opaque = ap;
    ap->beacon_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, wlan_ap_beacon, ap);
}

static void wlan_ap_finalize(Object *obj)
{
    WlanApState *ap = WLAN_AP(obj);

    if (ap->complete) {
        vmstate_unregister(VMSTATE_IF(ap), &vmstate_wlan_ap, ap);
    }
    timer_free(ap->beacon_timer);
    wlan_air_detach(&ap->radio);
    if (ap->nic) {
        qemu_del_nic(ap->nic);
    }
    g_free((char *)ap->radio.name);
    g_free(ap->air_id);
    g_free(ap->netdev_id);
    g_free(ap->ssid);
    if (ap->passphrase) {
        memset(ap->passphrase, 0, strlen(ap->passphrase));
        g_free(ap->passphrase);
    }
}

static void wlan_ap_class_init(ObjectClass *oc, void *data)
{
    UserCreatableClass *ucc = USER_CREATABLE_CLASS(oc);
    VMStateIfClass *vc = VMSTATE_IF_CLASS(oc);

    ucc->complete = wlan_ap_complete;
    vc->get_id = wlan_ap_vmstate_id;

    object_class_property_add_str(oc, "air", wlan_ap_get_air,
                                  wlan_ap_set_air);
    object_class_property_set_description(oc, "air",
        "the wlan-air object the access point transmits on");
    object_class_property_add_str(oc, "netdev", wlan_ap_get_netdev,
                                  wlan_ap_set_netdev);
    object_class_property_set_description(oc, "netdev",
        "the netdev the BSS is bridged to (its uplink)");
    object_class_property_add_str(oc, "ssid", wlan_ap_get_ssid,
                                  wlan_ap_set_ssid);
    object_class_property_set_description(oc, "ssid",
        "network name, 1 to 32 bytes (default ndisbench)");
    object_class_property_add_str(oc, "bssid", wlan_ap_get_bssid,
                                  wlan_ap_set_bssid);
    object_class_property_set_description(oc, "bssid",
        "the AP's MAC address (default 02:00:00:00:01:00)");
    object_class_property_add(oc, "channel", "uint8", wlan_ap_get_channel,
                              wlan_ap_set_channel, NULL, NULL);
    object_class_property_set_description(oc, "channel",
        "2.4 GHz channel, 1 to 14 (default 6)");
    object_class_property_add(oc, "rssi", "int32", wlan_ap_get_rssi,
                              wlan_ap_set_rssi, NULL, NULL);
    object_class_property_set_description(oc, "rssi",
        "signal strength stations hear, dBm (default -40)");
    object_class_property_add_bool(oc, "hidden", wlan_ap_get_hidden,
                                   wlan_ap_set_hidden);
    object_class_property_set_description(oc, "hidden",
        "hide the SSID in beacons and ignore wildcard probes");
    object_class_property_add_str(oc, "passphrase", NULL,
                                  wlan_ap_set_passphrase);
    object_class_property_set_description(oc, "passphrase",
        "WPA2-PSK passphrase, 8 to 63 printable ASCII characters: the BSS "
        "is WPA2 (CCMP) instead of open (write only)");
    object_class_property_add_bool(oc, "wpa2", wlan_ap_get_wpa2, NULL);
    object_class_property_set_description(oc, "wpa2",
        "the BSS is WPA2-PSK (read only)");
    object_class_property_add(oc, "stations", "uint32", wlan_ap_get_stations,
                              NULL, NULL, NULL);
    object_class_property_set_description(oc, "stations",
        "number of associated stations (read only)");
}

static const TypeInfo wlan_ap_info = {
    .name = TYPE_WLAN_AP,
    .parent = TYPE_OBJECT,
    .instance_size = sizeof(WlanApState),
    .instance_init = wlan_ap_init,
    .instance_finalize = wlan_ap_finalize,
    .class_init = wlan_ap_class_init,
    .interfaces = (InterfaceInfo[]) {
        { TYPE_USER_CREATABLE },
        { TYPE_VMSTATE_IF },
        { }
    },
};

static void wlan_ap_register_types(void)
{
    type_register_static(&wlan_ap_info);
}

type_init(wlan_ap_register_types)
