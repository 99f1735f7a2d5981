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
 *           [,passphrase=WPA2-PASSPHRASE][,group-rekey=SECONDS]
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
 * EAPOL) until the 4-way handshake opens it: the AP is the authenticator
 * (802.11-2012 11.6.6), sends message 1 right after the association
 * response, checks message 2's MIC and RSN element, sends message 3 with
 * the GTK wrapped with the KEK, and installs the PTK on message 4. From
 * then on every data frame of that station is CCMP: unicast under its
 * PTK, group-addressed under the GTK; frames that fail the replay or MIC
 * check, and plaintext other than EAPOL, are dropped and counted
 * (read-only properties). Timeouts and retries are hostapd's: a message
 * 1 or 3 is sent at most 4 times, 100 ms then 1 s apart, then the
 * station is deauthenticated (reason 15, 4-way handshake timeout); a
 * message 2 with a bad MIC (a wrong passphrase) is dropped, so it ends
 * the same way. With group-rekey=N a new GTK goes out every N seconds in
 * the group key handshake (500 ms, then 1 s apart, 4 times, then reason
 * 16); the AP sends group frames under the new key once every keyed
 * station has answered or left.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qemu/cutils.h"
#include "qemu/error-report.h"
#include "qemu/guest-random.h"
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
#define WLAN_REASON_4WAY_TIMEOUT 15
#define WLAN_REASON_GROUP_TIMEOUT 16
#define WLAN_REASON_IE_DIFFERS  17

/*
 * The authenticator's retries (hostapd's dot11RSNAConfigPairwiseUpdateCount
 * and GroupUpdateCount: each message at most 4 times) and timeouts.
 */
#define WLAN_AP_EAPOL_SENDS     4
#define WLAN_AP_EAPOL_FIRST_MS  100
#define WLAN_AP_GROUP_FIRST_MS  500
#define WLAN_AP_EAPOL_NEXT_MS   1000
#define WLAN_EAPOL_VERSION      2       /* 802.1X-2004, as hostapd sends */
#define WLAN_KDE_GTK_LEN        (2 + 4 + 2 + WLAN_GTK_LEN)
/* the key data of message 3: RSN element, GTK KDE, padding, wrap block */
#define WLAN_AP_KEY_DATA_MAX    64

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

/* Where a station is in the 4-way handshake (WPA2 only). */
typedef enum WlanApKeyState {
    WLAN_AP_KEY_NONE = 0,
    WLAN_AP_KEY_MSG1,           /* message 1 sent: waiting for 2 */
    WLAN_AP_KEY_MSG3,           /* message 3 sent: waiting for 4 */
    WLAN_AP_KEY_DONE,           /* PTK installed, port open */
} WlanApKeyState;

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
    WlanApKeyState key_state;
    uint8_t anonce[WLAN_NONCE_LEN];
    WlanPtk ptk;                /* from message 2, installed on message 4 */
    WlanCcmpKey ptk_key;        /* valid in WLAN_AP_KEY_DONE */
    uint64_t replay;            /* the replay counter last sent */
    uint64_t replay_first;      /* the first of the outstanding message */
    unsigned sends;             /* times the outstanding message went out */
    bool group_pending;         /* group message 1 sent: waiting for 2 */
    int64_t eapol_deadline_ns;  /* its timeout, 0 when nothing is due */
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
    uint32_t group_rekey_s;     /* 0: the GTK never changes */
    uint8_t gtk[WLAN_GTK_LEN];  /* the group key frames go out under */
    WlanCcmpKey gtk_key;
    bool rekeying;              /* gtk_next is being handed out */
    uint8_t gtk_next[WLAN_GTK_LEN];
    uint8_t gtk_next_id;
    QEMUTimer *eapol_timer;     /* the earliest station deadline */
    QEMUTimer *rekey_timer;

    /* counters (read-only properties) */
    uint64_t rx_ccmp_mic_errors;
    uint64_t rx_ccmp_replays;
    uint64_t rx_unprotected_dropped;
    uint64_t rx_eapol_mic_errors;
    uint64_t handshakes_completed;
    uint64_t handshake_failures;
    uint64_t group_rekeys;

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
static void wlan_ap_rekey_check(WlanApState *ap);
static void wlan_ap_4way_start(WlanApState *ap, WlanApStation *sta);

/*
 * Forget a station's keys and handshake (it left, or starts over): its
 * port closes; a group key handshake waiting for it waits no more.
 */
static void wlan_ap_sta_keys_reset(WlanApState *ap, WlanApStation *sta)
{
    bool group_pending = sta->group_pending;

    wlan_ccmp_key_clear(&sta->ptk_key);
    memset(&sta->ptk, 0, sizeof(sta->ptk));
    memset(sta->anonce, 0, sizeof(sta->anonce));
    sta->key_state = WLAN_AP_KEY_NONE;
    sta->authorized = false;
    sta->group_pending = false;
    sta->sends = 0;
    sta->eapol_deadline_ns = 0;
    if (group_pending) {
        wlan_ap_rekey_check(ap);
    }
}

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
        wlan_ap_sta_keys_reset(ap, auth);
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
    wlan_ap_sta_keys_reset(ap, sta);
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
        wlan_ap_sta_keys_reset(ap, sta);
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
        wlan_ap_sta_keys_reset(ap, sta);
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
    wlan_ap_sta_keys_reset(ap, sta);
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
    if (ap->wpa2 && status == WLAN_STATUS_SUCCESS) {
        wlan_ap_4way_start(ap, sta);
    }
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
            wlan_ap_sta_keys_reset(ap, sta);
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
 * In a WPA2 BSS it goes out CCMP-protected: group-addressed under the
 * GTK, to a station under its PTK once that is installed (before, only
 * the handshake's EAPOL frames are sent to it, in the clear).
 */
static void wlan_ap_send_data(WlanApState *ap, const uint8_t *da,
                              const uint8_t *sa, uint16_t ethertype,
                              const uint8_t *payload, size_t len)
{
    WlanApFrame f, sealed;
    WlanCcmpKey *key = NULL;
    WlanCcmpError err;
    WlanApStation *sta;
    size_t room = ap->wpa2 ? WLAN_CCMP_OVERHEAD : 0;

    if (WLAN_HDR_LEN + sizeof(wlan_llc_snap) + 2 + len + room >
        WLAN_MAX_FRAME) {
        trace_wlan_ap_drop(wlan_ap_name(ap), "frame too long for 802.11",
                           len);
        return;
    }
    if (ap->wpa2) {
        if (wlan_ap_is_group(da)) {
            key = &ap->gtk_key;
        } else {
            sta = wlan_ap_find_sta(ap, da);
            if (sta && sta->key_state == WLAN_AP_KEY_DONE) {
                key = &sta->ptk_key;
            } else if (ethertype != WLAN_ETHERTYPE_EAPOL) {
                trace_wlan_ap_drop(wlan_ap_name(ap), "to a station without "
                                   "a PTK", len);
                return;
            }
        }
    }
    wlan_ap_frame_hdr(ap, &f, WLAN_TYPE_DATA, 0, WLAN_FC1_FROMDS, da,
                      ap->bssid, sa);
    wlan_ap_put(&f, wlan_llc_snap, sizeof(wlan_llc_snap));
    f.buf[f.len++] = ethertype >> 8;
    f.buf[f.len++] = ethertype;
    wlan_ap_put(&f, payload, len);
    if (!key) {
        wlan_ap_send(ap, &f, "data");
        return;
    }
    err = wlan_ccmp_encap(key, f.buf, f.len, sealed.buf, sizeof(sealed.buf),
                          &sealed.len);
    if (err != WLAN_CCMP_OK) {
        trace_wlan_ap_drop(wlan_ap_name(ap), wlan_ccmp_error_str(err), len);
        return;
    }
    wlan_ap_send(ap, &sealed, "protected data");
}

/* -- WPA2: the authenticator ---------------------------------------------- */

static void wlan_ap_trace_eapol(WlanApState *ap, const WlanApStation *sta,
                                const char *what)
{
    const uint8_t *m = sta->mac;

    trace_wlan_ap_eapol(wlan_ap_name(ap), m[0], m[1], m[2], m[3], m[4], m[5],
                        what);
}

static void wlan_ap_eapol_drop(WlanApState *ap, const WlanApStation *sta,
                               const char *why)
{
    const uint8_t *m = sta->mac;

    trace_wlan_ap_eapol_drop(wlan_ap_name(ap), m[0], m[1], m[2], m[3], m[4],
                             m[5], why);
}

/* Arm the AP's EAPOL timer for the earliest deadline of any station. */
static void wlan_ap_eapol_rearm(WlanApState *ap)
{
    int64_t next = INT64_MAX;

    for (int i = 0; i < WLAN_AP_MAX_STATIONS; i++) {
        if (ap->sta[i].eapol_deadline_ns) {
            next = MIN(next, ap->sta[i].eapol_deadline_ns);
        }
    }
    if (next == INT64_MAX) {
        timer_del(ap->eapol_timer);
    } else {
        timer_mod(ap->eapol_timer, next);
    }
}

static void wlan_ap_eapol_wait(WlanApState *ap, WlanApStation *sta,
                               unsigned first_ms)
{
    unsigned ms = sta->sends == 1 ? first_ms : WLAN_AP_EAPOL_NEXT_MS;

    sta->eapol_deadline_ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                             (int64_t)ms * SCALE_MS;
    wlan_ap_eapol_rearm(ap);
}

/* The GTK KDE (802.11-2012 table 11-6): key id, Tx bit clear, the GTK. */
static size_t wlan_ap_put_gtk_kde(uint8_t *p, uint8_t key_id,
                                  const uint8_t *gtk)
{
    p[0] = 0xdd;
    p[1] = WLAN_KDE_GTK_LEN - 2;
    p[2] = 0x00;
    p[3] = 0x0f;
    p[4] = 0xac;
    p[5] = 1;                   /* GTK KDE */
    p[6] = key_id & 3;
    p[7] = 0;
    memcpy(p + 8, gtk, WLAN_GTK_LEN);
    return WLAN_KDE_GTK_LEN;
}

/*
 * Send an EAPOL-Key frame to a station (key descriptor version 2): the
 * next replay counter, nonce and RSC as given, key data wrapped with the
 * KEK (padded first as 802.11-2012 11.6.2 says: 0xdd then zeros to a
 * multiple of 8, at least 16), the MIC when key_info asks for it.
 */
static void wlan_ap_send_eapol(WlanApState *ap, WlanApStation *sta,
                               uint16_t key_info, const uint8_t *nonce,
                               uint64_t rsc, const uint8_t *key_data,
                               size_t key_data_len, const char *what)
{
    uint8_t e[WLAN_EAPOL_HDR_LEN + WLAN_EAPOL_KEY_FIXED +
              WLAN_AP_KEY_DATA_MAX + WLAN_KEYWRAP_BLOCK] = { 0 };
    uint8_t plain[WLAN_AP_KEY_DATA_MAX] = { 0 };
    uint8_t mic[WLAN_EAPOL_MIC_LEN];
    uint8_t *k = e + WLAN_EAPOL_HDR_LEN;
    size_t padded = 0, len;

    if (key_data_len) {
        assert(key_data_len <= sizeof(plain));
        memcpy(plain, key_data, key_data_len);
        padded = QEMU_ALIGN_UP(MAX(key_data_len, 16), WLAN_KEYWRAP_BLOCK);
        if (padded > key_data_len) {
            plain[key_data_len] = 0xdd;
        }
        assert(padded <= sizeof(plain));
        if (!wlan_rsn_aes_wrap(sta->ptk.kek, plain, padded,
                               k + WLAN_EAPOL_KEY_FIXED, NULL)) {
            wlan_ap_eapol_drop(ap, sta, "key wrap failed");
            return;
        }
        padded += WLAN_KEYWRAP_BLOCK;
    }
    len = WLAN_EAPOL_HDR_LEN + WLAN_EAPOL_KEY_FIXED + padded;
    sta->replay++;
    e[0] = WLAN_EAPOL_VERSION;
    e[1] = WLAN_EAPOL_TYPE_KEY;
    stw_be_p(e + 2, len - WLAN_EAPOL_HDR_LEN);
    k[0] = WLAN_EAPOL_KEY_RSN;
    stw_be_p(k + 1, key_info);
    stw_be_p(k + 3, key_info & WLAN_KEY_INFO_PAIRWISE ? WLAN_TK_LEN : 0);
    stq_be_p(k + 5, sta->replay);
    if (nonce) {
        memcpy(k + 13, nonce, WLAN_NONCE_LEN);
    }
    stq_le_p(k + 61, rsc);
    stw_be_p(k + 93, padded);
    if (key_info & WLAN_KEY_INFO_MIC) {
        if (!wlan_rsn_eapol_mic(sta->ptk.kck, e, len, mic, NULL)) {
            wlan_ap_eapol_drop(ap, sta, "MIC computation failed");
            return;
        }
        memcpy(e + WLAN_EAPOL_KEY_MIC_AT, mic, sizeof(mic));
    }
    wlan_ap_trace_eapol(ap, sta, what);
    wlan_ap_send_data(ap, sta->mac, ap->bssid, WLAN_ETHERTYPE_EAPOL, e, len);
}

static void wlan_ap_send_msg1(WlanApState *ap, WlanApStation *sta)
{
    sta->sends++;
    wlan_ap_send_eapol(ap, sta, 2 | WLAN_KEY_INFO_PAIRWISE |
                       WLAN_KEY_INFO_ACK, sta->anonce, 0, NULL, 0,
                       "4-way message 1 sent");
    if (sta->sends == 1) {
        sta->replay_first = sta->replay;
    }
    wlan_ap_eapol_wait(ap, sta, WLAN_AP_EAPOL_FIRST_MS);
}

/* Message 3: install, the AP's RSN element and the GTK in use, wrapped. */
static void wlan_ap_send_msg3(WlanApState *ap, WlanApStation *sta)
{
    uint8_t kd[sizeof(wlan_ap_rsn_psk_ccmp) + WLAN_KDE_GTK_LEN];

    memcpy(kd, wlan_ap_rsn_psk_ccmp, sizeof(wlan_ap_rsn_psk_ccmp));
    wlan_ap_put_gtk_kde(kd + sizeof(wlan_ap_rsn_psk_ccmp),
                        ap->gtk_key.key_id, ap->gtk);
    sta->sends++;
    wlan_ap_send_eapol(ap, sta, 2 | WLAN_KEY_INFO_PAIRWISE |
                       WLAN_KEY_INFO_INSTALL | WLAN_KEY_INFO_ACK |
                       WLAN_KEY_INFO_MIC | WLAN_KEY_INFO_SECURE |
                       WLAN_KEY_INFO_ENC_DATA, sta->anonce,
                       ap->gtk_key.tx_pn, kd, sizeof(kd),
                       "4-way message 3 sent");
    if (sta->sends == 1) {
        sta->replay_first = sta->replay;
    }
    wlan_ap_eapol_wait(ap, sta, WLAN_AP_EAPOL_FIRST_MS);
}

/* Group message 1: the next GTK, under the station's PTK. */
static void wlan_ap_send_group1(WlanApState *ap, WlanApStation *sta)
{
    uint8_t kd[WLAN_KDE_GTK_LEN];

    wlan_ap_put_gtk_kde(kd, ap->gtk_next_id, ap->gtk_next);
    sta->sends++;
    wlan_ap_send_eapol(ap, sta, 2 | WLAN_KEY_INFO_ACK | WLAN_KEY_INFO_MIC |
                       WLAN_KEY_INFO_SECURE | WLAN_KEY_INFO_ENC_DATA, NULL,
                       0, kd, sizeof(kd), "group message 1 sent");
    if (sta->sends == 1) {
        sta->replay_first = sta->replay;
    }
    wlan_ap_eapol_wait(ap, sta, WLAN_AP_GROUP_FIRST_MS);
}

/* Just associated: a fresh ANonce, message 1. */
static void wlan_ap_4way_start(WlanApState *ap, WlanApStation *sta)
{
    wlan_ap_sta_keys_reset(ap, sta);
    qemu_guest_getrandom_nofail(sta->anonce, sizeof(sta->anonce));
    sta->key_state = WLAN_AP_KEY_MSG1;
    wlan_ap_send_msg1(ap, sta);
}

static void wlan_ap_group_start(WlanApState *ap, WlanApStation *sta)
{
    sta->group_pending = true;
    sta->sends = 0;
    wlan_ap_send_group1(ap, sta);
}

/*
 * A rekey is over when no keyed station still has to answer: from now on
 * group frames go out under the new GTK.
 */
static void wlan_ap_rekey_check(WlanApState *ap)
{
    WlanCcmpKey key;

    if (!ap->rekeying) {
        return;
    }
    for (int i = 0; i < WLAN_AP_MAX_STATIONS; i++) {
        if (ap->sta[i].group_pending) {
            return;
        }
    }
    if (!wlan_ccmp_key_init(&key, ap->gtk_next, ap->gtk_next_id, NULL)) {
        return;     /* the cipher exists for the old key: cannot happen */
    }
    wlan_ccmp_key_clear(&ap->gtk_key);
    ap->gtk_key = key;
    memcpy(ap->gtk, ap->gtk_next, WLAN_GTK_LEN);
    ap->rekeying = false;
    trace_wlan_ap_gtk(wlan_ap_name(ap), ap->gtk_key.key_id, "in use");
}

/* Every group-rekey seconds: a new GTK, the other key id, to every keyed
 * station. */
static void wlan_ap_rekey(void *opaque)
{
    WlanApState *ap = opaque;

    timer_mod(ap->rekey_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
              (int64_t)ap->group_rekey_s * NANOSECONDS_PER_SECOND);
    if (ap->rekeying) {
        return;     /* the last one is still going out */
    }
    qemu_guest_getrandom_nofail(ap->gtk_next, sizeof(ap->gtk_next));
    ap->gtk_next_id = ap->gtk_key.key_id == 1 ? 2 : 1;
    ap->rekeying = true;
    ap->group_rekeys++;
    trace_wlan_ap_gtk(wlan_ap_name(ap), ap->gtk_next_id, "handed out");
    for (int i = 0; i < WLAN_AP_MAX_STATIONS; i++) {
        if (ap->sta[i].state == WLAN_AP_STA_ASSOC &&
            ap->sta[i].key_state == WLAN_AP_KEY_DONE) {
            wlan_ap_group_start(ap, &ap->sta[i]);
        }
    }
    wlan_ap_rekey_check(ap);
}

/* A station's deadline passed: send again, or give up on it. */
static void wlan_ap_sta_timeout(WlanApState *ap, WlanApStation *sta)
{
    const uint8_t *m = sta->mac;
    bool pairwise = sta->key_state == WLAN_AP_KEY_MSG1 ||
                    sta->key_state == WLAN_AP_KEY_MSG3;

    if (!pairwise && !sta->group_pending) {
        return;
    }
    if (sta->sends >= WLAN_AP_EAPOL_SENDS) {
        trace_wlan_ap_handshake_failed(wlan_ap_name(ap), m[0], m[1], m[2],
                                       m[3], m[4], m[5], pairwise ?
                                       "4-way handshake timeout" :
                                       "group key handshake timeout");
        if (pairwise) {
            ap->handshake_failures++;
        }
        wlan_ap_deauth(ap, sta->mac, pairwise ? WLAN_REASON_4WAY_TIMEOUT
                                              : WLAN_REASON_GROUP_TIMEOUT);
        return;
    }
    if (sta->key_state == WLAN_AP_KEY_MSG1) {
        wlan_ap_send_msg1(ap, sta);
    } else if (sta->key_state == WLAN_AP_KEY_MSG3) {
        wlan_ap_send_msg3(ap, sta);
    } else {
        wlan_ap_send_group1(ap, sta);
    }
}

static void wlan_ap_eapol_timeout(void *opaque)
{
    WlanApState *ap = opaque;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

    for (int i = 0; i < WLAN_AP_MAX_STATIONS; i++) {
        WlanApStation *sta = &ap->sta[i];

        if (sta->eapol_deadline_ns && sta->eapol_deadline_ns <= now) {
            sta->eapol_deadline_ns = 0;
            wlan_ap_sta_timeout(ap, sta);
        }
    }
    wlan_ap_eapol_rearm(ap);
}

/*
 * Does the frame's MIC check with this KCK? Computed over a copy with the
 * MIC field zero; every byte compared.
 */
static bool wlan_ap_eapol_mic_ok(const uint8_t kck[WLAN_KCK_LEN],
                                 const uint8_t *frame,
                                 const WlanEapolKey *key)
{
    uint8_t copy[WLAN_MAX_FRAME], mic[WLAN_EAPOL_MIC_LEN], diff = 0;

    if (key->frame_len > sizeof(copy)) {
        return false;
    }
    memcpy(copy, frame, key->frame_len);
    memset(copy + WLAN_EAPOL_KEY_MIC_AT, 0, WLAN_EAPOL_MIC_LEN);
    if (!wlan_rsn_eapol_mic(kck, copy, key->frame_len, mic, NULL)) {
        return false;
    }
    for (int i = 0; i < WLAN_EAPOL_MIC_LEN; i++) {
        diff |= mic[i] ^ key->mic[i];
    }
    return !diff;
}

/* A message 2 in reply to message 1: the PTK from its SNonce, checked. */
static void wlan_ap_rx_msg2(WlanApState *ap, WlanApStation *sta,
                            const uint8_t *frame, const WlanEapolKey *key)
{
    const uint8_t *ie;
    uint8_t ie_len;
    WlanPtk ptk;

    if (!wlan_rsn_ptk(ap->pmk, ap->bssid, sta->mac, sta->anonce, key->nonce,
                      &ptk, NULL)) {
        wlan_ap_eapol_drop(ap, sta, "PTK derivation failed");
        return;
    }
    if (!wlan_ap_eapol_mic_ok(ptk.kck, frame, key)) {
        /* a wrong passphrase: the retries run out, as in hostapd */
        ap->rx_eapol_mic_errors++;
        wlan_ap_eapol_drop(ap, sta, "message 2 MIC mismatch");
        memset(&ptk, 0, sizeof(ptk));
        return;
    }
    ie = wlan_frame_find_ie(key->key_data, key->key_data_len, WLAN_EID_RSN,
                            &ie_len);
    if (!ie || 2 + ie_len != sta->rsn_ie_len ||
        memcmp(ie - 2, sta->rsn_ie, sta->rsn_ie_len)) {
        /* a downgrade attempt, or a station confused about the BSS */
        wlan_ap_eapol_drop(ap, sta, "message 2 RSN element differs from "
                           "the association request's");
        ap->handshake_failures++;
        wlan_ap_deauth(ap, sta->mac, WLAN_REASON_IE_DIFFERS);
        return;
    }
    wlan_ap_trace_eapol(ap, sta, "4-way message 2 received");
    sta->ptk = ptk;
    sta->key_state = WLAN_AP_KEY_MSG3;
    sta->sends = 0;
    wlan_ap_send_msg3(ap, sta);
}

static void wlan_ap_rx_msg4(WlanApState *ap, WlanApStation *sta,
                            const uint8_t *frame, const WlanEapolKey *key)
{
    const uint8_t *m = sta->mac;

    if (!wlan_ap_eapol_mic_ok(sta->ptk.kck, frame, key)) {
        ap->rx_eapol_mic_errors++;
        wlan_ap_eapol_drop(ap, sta, "message 4 MIC mismatch");
        return;
    }
    if (!wlan_ccmp_key_init(&sta->ptk_key, sta->ptk.tk, 0, NULL)) {
        wlan_ap_eapol_drop(ap, sta, "cannot install the PTK");
        return;
    }
    sta->key_state = WLAN_AP_KEY_DONE;
    sta->authorized = true;
    sta->sends = 0;
    sta->eapol_deadline_ns = 0;
    ap->handshakes_completed++;
    trace_wlan_ap_handshake_done(wlan_ap_name(ap), m[0], m[1], m[2], m[3],
                                 m[4], m[5]);
    if (ap->rekeying) {
        /* message 3 carried the old GTK: hand it the new one too */
        wlan_ap_group_start(ap, sta);
    }
}

static void wlan_ap_rx_group2(WlanApState *ap, WlanApStation *sta,
                              const uint8_t *frame, const WlanEapolKey *key)
{
    if (!wlan_ap_eapol_mic_ok(sta->ptk.kck, frame, key)) {
        ap->rx_eapol_mic_errors++;
        wlan_ap_eapol_drop(ap, sta, "group message 2 MIC mismatch");
        return;
    }
    wlan_ap_trace_eapol(ap, sta, "group message 2 received");
    sta->group_pending = false;
    sta->sends = 0;
    sta->eapol_deadline_ns = 0;
    wlan_ap_rekey_check(ap);
}

/*
 * An EAPOL frame from an associated station of a WPA2 BSS (in the clear
 * before its PTK is installed, or opened from CCMP after). Only the
 * supplicant's answers the authenticator waits for are taken: a key
 * descriptor version 2 EAPOL-Key frame with a MIC, no Ack, a replay
 * counter of one of the outstanding message's copies.
 */
static void wlan_ap_rx_eapol(WlanApState *ap, WlanApStation *sta,
                             const uint8_t *frame, size_t len)
{
    WlanFrameError err;
    WlanEapolKey key;
    uint16_t ki;

    err = wlan_eapol_key_parse(frame, len, &key);
    if (err != WLAN_FRAME_OK) {
        wlan_ap_eapol_drop(ap, sta, wlan_frame_error_str(err));
        return;
    }
    ki = key.key_info;
    if ((ki & WLAN_KEY_INFO_VERSION) != 2) {
        wlan_ap_eapol_drop(ap, sta, "key descriptor version not 2");
        return;
    }
    if (ki & (WLAN_KEY_INFO_REQUEST | WLAN_KEY_INFO_ERROR)) {
        wlan_ap_eapol_drop(ap, sta, "EAPOL-Key request (not served)");
        return;
    }
    if (!(ki & WLAN_KEY_INFO_MIC) || (ki & (WLAN_KEY_INFO_ACK |
                                             WLAN_KEY_INFO_INSTALL))) {
        wlan_ap_eapol_drop(ap, sta, "not a supplicant's answer");
        return;
    }
    if (key.replay_counter < sta->replay_first ||
        key.replay_counter > sta->replay) {
        wlan_ap_eapol_drop(ap, sta, "replay counter of no message sent");
        return;
    }
    if (ki & WLAN_KEY_INFO_PAIRWISE) {
        /* message 4 has Secure set, message 2 not (802.11-2012 11.6.6) */
        if (sta->key_state == WLAN_AP_KEY_MSG1 &&
            !(ki & WLAN_KEY_INFO_SECURE)) {
            wlan_ap_rx_msg2(ap, sta, frame, &key);
        } else if (sta->key_state == WLAN_AP_KEY_MSG3 &&
                   (ki & WLAN_KEY_INFO_SECURE)) {
            wlan_ap_rx_msg4(ap, sta, frame, &key);
        } else {
            wlan_ap_eapol_drop(ap, sta, "pairwise message out of turn");
        }
    } else if (sta->group_pending && (ki & WLAN_KEY_INFO_SECURE)) {
        wlan_ap_rx_group2(ap, sta, frame, &key);
    } else {
        wlan_ap_eapol_drop(ap, sta, "group message out of turn");
    }
}

/*
 * A data frame of a station in a WPA2 BSS: a protected one is opened with
 * its PTK and decoded again into *plain_fr (the plaintext in plain);
 * EAPOL goes to the authenticator. True when the (opened) frame is data
 * for the bridge.
 */
static bool wlan_ap_rx_wpa2(WlanApState *ap, WlanApStation *sta,
                            const uint8_t *frame, size_t len,
                            const WlanFrame *fr, uint8_t *plain,
                            WlanFrame *plain_fr)
{
    const uint8_t *m = sta->mac;
    WlanCcmpError err;
    WlanFrameError perr;
    size_t plain_len;

    if (!fr->protected_frame) {
        if (fr->snap && fr->ethertype == WLAN_ETHERTYPE_EAPOL) {
            /* as mac80211 does, EAPOL in the clear is taken at any time */
            wlan_ap_rx_eapol(ap, sta, fr->payload, fr->payload_len);
            return false;
        }
        ap->rx_unprotected_dropped++;
        trace_wlan_ap_ccmp_drop(wlan_ap_name(ap), m[0], m[1], m[2], m[3],
                                m[4], m[5], sta->key_state ==
                                WLAN_AP_KEY_DONE ? "unprotected data" :
                                "data before the 802.1X port opened");
        return false;
    }
    if (sta->key_state != WLAN_AP_KEY_DONE) {
        ap->rx_unprotected_dropped++;
        trace_wlan_ap_ccmp_drop(wlan_ap_name(ap), m[0], m[1], m[2], m[3],
                                m[4], m[5], "protected before the PTK");
        return false;
    }
    err = wlan_ccmp_decap(&sta->ptk_key, frame, len, plain, &plain_len);
    if (err != WLAN_CCMP_OK) {
        if (err == WLAN_CCMP_ERR_REPLAY) {
            ap->rx_ccmp_replays++;
        } else if (err == WLAN_CCMP_ERR_MIC) {
            ap->rx_ccmp_mic_errors++;
        }
        trace_wlan_ap_ccmp_drop(wlan_ap_name(ap), m[0], m[1], m[2], m[3],
                                m[4], m[5], wlan_ccmp_error_str(err));
        return false;
    }
    perr = wlan_frame_parse(plain, plain_len, plain_fr);
    if (perr != WLAN_FRAME_OK) {
        trace_wlan_ap_drop(wlan_ap_name(ap), wlan_frame_error_str(perr),
                           plain_len);
        return false;
    }
    if (plain_fr->snap && plain_fr->ethertype == WLAN_ETHERTYPE_EAPOL) {
        wlan_ap_rx_eapol(ap, sta, plain_fr->payload, plain_fr->payload_len);
        return false;
    }
    return true;
}

static void wlan_ap_rx_data(WlanApState *ap, const uint8_t *frame,
                            size_t frame_len, const WlanFrame *fr)
{
    const uint8_t *bssid = fr->addr1, *sa = fr->addr2, *da = fr->addr3;
    size_t len = WLAN_HDR_LEN + fr->body_len;
    WlanApStation *sta, *dst;
    uint8_t eth[ETH_HLEN_II + WLAN_MAX_FRAME];
    uint8_t plain[WLAN_MAX_FRAME];
    WlanFrame plain_fr;

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
    if (ap->wpa2) {
        if (!wlan_ap_rx_wpa2(ap, sta, frame, frame_len, fr, plain,
                             &plain_fr)) {
            return;
        }
        fr = &plain_fr;
        len = WLAN_HDR_LEN + fr->body_len;
    }
    if (!wlan_ap_port_open(ap, sta)) {
        trace_wlan_ap_drop(wlan_ap_name(ap), "802.1X port closed", len);
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
        wlan_ap_rx_data(ap, frame, len, &fr);
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

static void wlan_ap_get_group_rekey(Object *obj, Visitor *v,
                                    const char *name, void *opaque,
                                    Error **errp)
{
    uint32_t value = WLAN_AP(obj)->group_rekey_s;

    visit_type_uint32(v, name, &value, errp);
}

static void wlan_ap_set_group_rekey(Object *obj, Visitor *v,
                                    const char *name, void *opaque,
                                    Error **errp)
{
    WlanApState *ap = WLAN_AP(obj);
    uint32_t value;

    if (!wlan_ap_check_unset(ap, "group-rekey", errp) ||
        !visit_type_uint32(v, name, &value, errp)) {
        return;
    }
    if (value > 86400 * 365) {
        error_setg(errp, "wlan-ap: group-rekey must be 0 to %u seconds, "
                   "not %u", 86400 * 365, value);
        return;
    }
    ap->group_rekey_s = value;
}

/* A counter: opaque is its offset in WlanApState. */
static void wlan_ap_get_counter(Object *obj, Visitor *v, const char *name,
                                void *opaque, Error **errp)
{
    uint64_t value = *(uint64_t *)((uint8_t *)WLAN_AP(obj) +
                                   (uintptr_t)opaque);

    visit_type_uint64(v, name, &value, errp);
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
        qemu_guest_getrandom_nofail(ap->gtk, sizeof(ap->gtk));
        if (!wlan_ccmp_key_init(&ap->gtk_key, ap->gtk, 1, errp)) {
            error_prepend(errp, "wlan-ap '%s': ", wlan_ap_name(ap));
            return;
        }
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
    if (ap->wpa2 && ap->group_rekey_s) {
        timer_mod(ap->rekey_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                  (int64_t)ap->group_rekey_s * NANOSECONDS_PER_SECOND);
    }
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
    ap->eapol_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, wlan_ap_eapol_timeout,
                                   ap);
    ap->rekey_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, wlan_ap_rekey, ap);
}

static void wlan_ap_finalize(Object *obj)
{
    WlanApState *ap = WLAN_AP(obj);

    if (ap->complete) {
        vmstate_unregister(VMSTATE_IF(ap), &vmstate_wlan_ap, ap);
    }
    timer_free(ap->beacon_timer);
    timer_free(ap->eapol_timer);
    timer_free(ap->rekey_timer);
    for (int i = 0; i < WLAN_AP_MAX_STATIONS; i++) {
        wlan_ccmp_key_clear(&ap->sta[i].ptk_key);
    }
    memset(ap->sta, 0, sizeof(ap->sta));
    wlan_ccmp_key_clear(&ap->gtk_key);
    memset(ap->gtk, 0, sizeof(ap->gtk));
    memset(ap->gtk_next, 0, sizeof(ap->gtk_next));
    memset(ap->pmk, 0, sizeof(ap->pmk));
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

/* The WPA2 counters, read-only properties (0 on an open AP). */
static const struct {
    const char *name;
    uintptr_t offset;
    const char *desc;
} wlan_ap_counters[] = {
    { "rx-ccmp-mic-errors", offsetof(WlanApState, rx_ccmp_mic_errors),
      "protected frames dropped: CCMP MIC mismatch (read only)" },
    { "rx-ccmp-replays", offsetof(WlanApState, rx_ccmp_replays),
      "protected frames dropped: PN not above the last (read only)" },
    { "rx-unprotected-dropped", offsetof(WlanApState, rx_unprotected_dropped),
      "data frames dropped: in the clear and not EAPOL, or before the "
      "PTK (read only)" },
    { "rx-eapol-mic-errors", offsetof(WlanApState, rx_eapol_mic_errors),
      "EAPOL-Key frames dropped: MIC mismatch, e.g. a wrong passphrase "
      "(read only)" },
    { "handshakes-completed", offsetof(WlanApState, handshakes_completed),
      "4-way handshakes completed (read only)" },
    { "handshake-failures", offsetof(WlanApState, handshake_failures),
      "4-way handshakes given up, the station deauthenticated (read only)" },
    { "group-rekeys", offsetof(WlanApState, group_rekeys),
      "group keys handed out after the first (read only)" },
};

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
    object_class_property_add(oc, "group-rekey", "uint32",
                              wlan_ap_get_group_rekey,
                              wlan_ap_set_group_rekey, NULL, NULL);
    object_class_property_set_description(oc, "group-rekey",
        "WPA2: seconds between group key changes, 0 never (default 0)");
    for (size_t i = 0; i < ARRAY_SIZE(wlan_ap_counters); i++) {
        object_class_property_add(oc, wlan_ap_counters[i].name, "uint64",
                                  wlan_ap_get_counter, NULL, NULL,
                                  (void *)wlan_ap_counters[i].offset);
        object_class_property_set_description(oc, wlan_ap_counters[i].name,
                                              wlan_ap_counters[i].desc);
    }
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
