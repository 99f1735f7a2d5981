// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: wireless glue. The adapter's net device as a cfg80211
 * station, its operations mapped onto the NDIS 5.1 802.11 OIDs:
 *
 *   scan        OID_802_11_BSSID_LIST_SCAN, then, once the driver had time
 *		 to survey every channel, OID_802_11_BSSID_LIST: each
 *		 NDIS_WLAN_BSSID_EX becomes a cfg80211 BSS (channel from
 *		 Configuration.DSConfig, signal from Rssi in dBm, the IEs as
 *		 the driver kept them, so a hidden network stays nameless).
 *   connect     OID_802_11_INFRASTRUCTURE_MODE, _AUTHENTICATION_MODE,
 *		 _ENCRYPTION_STATUS (open and disabled, or WPA2PSK and
 *		 Encryption3Enabled: ndis_80211_keys.h), then
 *		 OID_802_11_SSID; the result is the driver's
 *		 NDIS_STATUS_MEDIA_CONNECT, with the BSS from
 *		 OID_802_11_BSSID and the IEs of the association from
 *		 OID_802_11_ASSOCIATION_INFORMATION (the supplicant checks
 *		 the RSN element the driver sent). Open networks and
 *		 WPA2-PSK with CCMP only: anything else is refused with
 *		 -EOPNOTSUPP. The driver writes its own RSN element from
 *		 the two modes (NDIS 5.1 cannot be given sme->ie).
 *   add_key     OID_802_11_ADD_KEY (pairwise: the AP's address, transmit
 *		 key; group: ff:ff:ff:ff:ff:ff, with its receive sequence
 *		 counter); del_key OID_802_11_REMOVE_KEY. The supplicant
 *		 runs the 4-way handshake over ordinary data frames.
 *   set/del/flush_pmksa  OID_802_11_PMKID, the whole list each time, as
 *		 many as OID_802_11_CAPABILITY's NoOfPMKIDs (none: refused).
 *   NDIS_STATUS_MEDIA_SPECIFIC_INDICATION: MIC failures and PMKID
 *		 candidates (ndis_80211_indication()) as cfg80211's
 *		 michael_mic_failure and pmksa_candidate_notify events.
 *   disconnect  OID_802_11_DISASSOCIATE.
 *   get_station OID_802_11_RSSI (signal) and OID_GEN_LINK_SPEED (rate).
 *
 * NDIS 5.1 drivers join by themselves too (the SSID of their INF settings)
 * and lose their AP without being asked. A connection cfg80211 asked for
 * is cfg80211's: its result and its loss are reported, and once lost the
 * driver is told to stop trying (as a mac80211 station would); the next
 * join is user space's. A connection the driver made on its own is not
 * reported (state DRIVER): cfg80211 (6.1, 6.12) learns the SSID of a
 * connection it did not start only from a BSS that carries a Country
 * element, and without the SSID cfg80211_disconnect() never calls
 * .disconnect, so `iw disconnect` would silently do nothing and every
 * `iw connect` fail with EALREADY. The carrier still follows the driver
 * (netdev.c), so a setup without iw works as before, and `iw connect` to
 * the SSID the driver is on adopts that association at once.
 *
 * Indications arrive at any level (the driver's DPCs, an OID request in
 * progress): they only queue link_work, which asks the driver (OIDs need
 * process context) and tells cfg80211. wl->lock orders that work, the
 * scan result, the connect timeout and the cfg80211 operations (which come
 * with the wiphy lock held: wl->lock nests inside it, and the oid_lock
 * inside wl->lock; nothing here waits for the wiphy lock).
 *
 * Wireless extensions (iwconfig) are cfg80211's compatibility layer where
 * the kernel has CONFIG_CFG80211_WEXT. With wiphy=0 the adapter gets no
 * wiphy and the wrapper's own wireless extensions instead (wext.c), as
 * ndiswrapper always had: every hook here then finds no ndis_wireless.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/ieee80211.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <net/cfg80211.h>

#include "ndis.h"
#include "ndis_80211.h"

/* A connect the driver has not completed by then failed. */
#define NDIS_CONNECT_TIMEOUT_MS		20000

enum ndis_wl_state {
	NDIS_WL_IDLE,			/* cfg80211 knows no connection */
	NDIS_WL_CONNECTING,		/* cfg80211 waits for our result */
	NDIS_WL_CONNECTED,		/* reported to cfg80211 */
	NDIS_WL_DRIVER,			/* the driver's own: not reported */
};

#define NDIS_NUM_CHANNELS	14
#define NDIS_NUM_RATES		12

/* wiphy_priv(): one per adapter, freed with the wiphy. */
struct ndis_wireless {
	struct wireless_dev wdev;	/* net->ieee80211_ptr */
	struct ndis_adapter *ad;
	struct ieee80211_supported_band band;
	struct ieee80211_channel channels[NDIS_NUM_CHANNELS];
	struct ieee80211_rate rates[NDIS_NUM_RATES];

	spinlock_t queue_lock;		/* dead against the indications */
	bool dead;			/* link_work is not queued any more */

	struct mutex lock;		/* everything below */
	struct work_struct link_work;	/* a media indication to follow */
	struct delayed_work scan_work;	/* the scan's results are due */
	struct delayed_work connect_work; /* a connect timed out */
	struct cfg80211_scan_request *scan_req;
	enum ndis_wl_state state;
	u8 bssid[ETH_ALEN];		/* CONNECTED, DRIVER: the AP */
	bool up;			/* between ndo_open and ndo_stop */
	bool gone;			/* unregistering: no more reports */
	bool user;			/* cfg80211 asked for the connection */
	struct ndis_pmkid_cache pmkids;	/* OID_802_11_PMKID's list */
};

static struct ndis_wireless *ndis_wl(struct ndis_adapter *ad)
{
	struct wireless_dev *wdev = ad->net ? ad->net->ieee80211_ptr : NULL;

	return wdev ? wiphy_priv(wdev->wiphy) : NULL;
}

/* The driver's current association: false when there is none. */
static bool ndis_wl_associated(struct ndis_wireless *wl, u8 *bssid)
{
	__le32 state;
	u32 written;

	if (ndis_query_oid(wl->ad, OID_GEN_MEDIA_CONNECT_STATUS, &state,
			   sizeof(state), &written) || written < sizeof(state) ||
	    le32_to_cpu(state) != NDIS_MEDIA_STATE_CONNECTED)
		return false;
	return !ndis_query_oid(wl->ad, OID_802_11_BSSID, bssid, ETH_ALEN,
			       &written) && written == ETH_ALEN &&
	       is_valid_ether_addr(bssid);
}

static int ndis_wl_query_ssid(struct ndis_wireless *wl, u8 *ssid)
{
	struct ndis_ssid s = {};
	u32 written;

	if (ndis_query_oid(wl->ad, OID_802_11_SSID, &s, sizeof(s),
			   &written) || written < sizeof(s.len) ||
	    le32_to_cpu(s.len) > NDIS_SSID_MAX)
		return -ENOTCONN;
	memcpy(ssid, s.ssid, le32_to_cpu(s.len));
	return le32_to_cpu(s.len);
}

static struct ieee80211_channel *ndis_wl_channel(struct ndis_wireless *wl,
						 u32 ds_config)
{
	/* kHz as documented; some drivers are known to give MHz. */
	if (ds_config < 100000)
		ds_config *= 1000;
	return ieee80211_get_channel_khz(wl->wdev.wiphy, ds_config);
}

/*
 * One BSS to cfg80211. The IEs go as the driver kept them (a hidden
 * network's beacon has an empty SSID element), with an SSID element put
 * first only when the driver gave none at all. Returns a reference.
 */
static struct cfg80211_bss *ndis_wl_inform(struct ndis_wireless *wl,
					   const u8 *bssid,
					   const struct ndis_ssid *ssid,
					   s32 rssi, u32 ds_config,
					   const struct ndis_fixed_ies *fixed,
					   const u8 *ies, size_t ies_len)
{
	struct cfg80211_inform_bss data = {};
	struct cfg80211_bss *bss;
	u32 ssid_len = min_t(u32, le32_to_cpu(ssid->len), NDIS_SSID_MAX);
	u8 *buf = NULL;

	data.chan = ndis_wl_channel(wl, ds_config);
	if (!data.chan || data.chan->flags & IEEE80211_CHAN_DISABLED)
		return NULL;
	data.signal = rssi * 100;	/* mBm */
	if (!cfg80211_find_ie(WLAN_EID_SSID, ies, ies_len)) {
		buf = kmalloc(2 + ssid_len + ies_len, GFP_KERNEL);
		if (!buf)
			return NULL;
		buf[0] = WLAN_EID_SSID;
		buf[1] = ssid_len;
		memcpy(buf + 2, ssid->ssid, ssid_len);
		if (ies_len)
			memcpy(buf + 2 + ssid_len, ies, ies_len);
		ies = buf;
		ies_len += 2 + ssid_len;
	}
	bss = cfg80211_inform_bss_data(wl->wdev.wiphy, &data,
				       CFG80211_BSS_FTYPE_UNKNOWN, bssid,
				       fixed ? le64_to_cpu(fixed->timestamp) : 0,
				       fixed ? le16_to_cpu(fixed->capabilities) :
					       WLAN_CAPABILITY_ESS,
				       fixed ? le16_to_cpu(fixed->beacon_interval) :
					       100,
				       ies, ies_len, GFP_KERNEL);
	kfree(buf);
	return bss;
}

/*
 * OID_802_11_BSSID_LIST to cfg80211, every entry checked against the
 * buffer. want: the BSSID whose BSS reference the caller keeps (NULL for
 * none); returned through *found.
 */
static int ndis_wl_inform_list(struct ndis_wireless *wl, const u8 *want,
			       struct cfg80211_bss **found)
{
	struct ndis_bssid_walk walk;
	struct ndis_bssid_entry b;
	u32 written;
	u8 *buf;
	int err;

	buf = kvmalloc(NDIS_BSSID_LIST_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	err = ndis_query_oid(wl->ad, OID_802_11_BSSID_LIST, buf,
			     NDIS_BSSID_LIST_SIZE, &written);
	if (err || ndis_bssid_walk_start(&walk, buf, written,
					 NDIS_BSSID_LIST_SIZE))
		goto out;
	while (ndis_bssid_walk_next(&walk, &b)) {
		struct cfg80211_bss *bss;

		if (le32_to_cpu(b.e->infrastructure_mode) !=
		    NDIS_802_11_INFRASTRUCTURE)
			continue;
		bss = ndis_wl_inform(wl, b.e->mac, &b.e->ssid,
				     (s32)le32_to_cpu(b.e->rssi),
				     le32_to_cpu(b.e->config.ds_config),
				     b.fixed, b.ies, b.ie_len);
		if (bss && want && found && !*found &&
		    ether_addr_equal(b.e->mac, want))
			*found = bss;
		else if (bss)
			cfg80211_put_bss(wl->wdev.wiphy, bss);
	}
out:
	kvfree(buf);
	return err;
}

/*
 * The BSS the driver is associated to, as a cfg80211 BSS (a reference):
 * from the BSSID list, or else from what the driver says of the current
 * association.
 */
static struct cfg80211_bss *ndis_wl_current_bss(struct ndis_wireless *wl,
						const u8 *bssid)
{
	struct cfg80211_bss *bss = NULL;
	struct ndis_config config = {};
	struct ndis_ssid ssid = {};
	__le32 rssi = 0;
	u32 written;
	int len;

	ndis_wl_inform_list(wl, bssid, &bss);
	if (bss)
		return bss;
	len = ndis_wl_query_ssid(wl, ssid.ssid);
	if (len < 0 ||
	    ndis_query_oid(wl->ad, OID_802_11_CONFIGURATION, &config,
			   sizeof(config), &written) ||
	    written < sizeof(config))
		return NULL;
	ssid.len = cpu_to_le32(len);
	ndis_query_oid(wl->ad, OID_802_11_RSSI, &rssi, sizeof(rssi),
		       &written);
	return ndis_wl_inform(wl, bssid, &ssid, (s32)le32_to_cpu(rssi),
			      le32_to_cpu(config.ds_config), NULL, NULL, 0);
}

/*
 * The request and response IEs of the association, from the driver;
 * none when it keeps no such record (an open network needs none). *buf
 * is the caller's to free.
 */
static void ndis_wl_assoc_ies(struct ndis_wireless *wl,
			      struct cfg80211_connect_resp_params *cr,
			      u8 **buf)
{
	struct ndis_assoc_ies ies;
	u32 written;

	*buf = kzalloc(NDIS_ASSOC_INFO_SIZE, GFP_KERNEL);
	if (!*buf ||
	    ndis_query_oid(wl->ad, OID_802_11_ASSOCIATION_INFORMATION, *buf,
			   NDIS_ASSOC_INFO_SIZE, &written))
		return;
	if (ndis_assoc_ies(*buf, min_t(u32, written, NDIS_ASSOC_INFO_SIZE),
			   &ies)) {
		netdev_warn(wl->ad->net, "the driver's association information has IEs outside its %u bytes\n",
			    written);
		return;
	}
	cr->req_ie = ies.req;
	cr->req_ie_len = ies.req_len;
	cr->resp_ie = ies.resp;
	cr->resp_ie_len = ies.resp_len;
}

/* Lock held: the driver is associated to bssid; cfg80211 hears of it. */
static void ndis_wl_report_connect(struct ndis_wireless *wl, const u8 *bssid)
{
	struct cfg80211_connect_resp_params cr = {};
	struct net_device *net = wl->ad->net;
	u8 *ies;

	ndis_cr_bss(&cr) = ndis_wl_current_bss(wl, bssid);
	if (!ndis_cr_bss(&cr)) {
		/* cfg80211 would not know the BSS; wait for the next event */
		netdev_warn(net, "associated to %pM, but the driver does not describe it\n",
			    bssid);
		return;
	}
	ndis_cr_bssid(&cr) = bssid;
	cr.status = WLAN_STATUS_SUCCESS;
	ndis_wl_assoc_ies(wl, &cr, &ies);
	cancel_delayed_work(&wl->connect_work);
	cfg80211_connect_done(net, &cr, GFP_KERNEL);
	kfree(ies);
	ether_addr_copy(wl->bssid, bssid);
	wl->state = NDIS_WL_CONNECTED;
}

/* Lock held: the driver is no longer associated to wl->bssid. */
static void ndis_wl_report_lost(struct ndis_wireless *wl, bool associated)
{
	cfg80211_disconnected(wl->ad->net, WLAN_REASON_UNSPECIFIED, NULL, 0,
			      false, GFP_KERNEL);
	wl->state = NDIS_WL_IDLE;
	/*
	 * cfg80211's connection: user space decides what comes next, the
	 * driver must not keep rejoining behind its back.
	 */
	if (wl->user && !associated)
		ndis_set_oid(wl->ad, OID_802_11_DISASSOCIATE, NULL, 0);
}

/* What the driver says now, to cfg80211, whatever indications led here. */
static void ndis_wl_link_work(struct work_struct *work)
{
	struct ndis_wireless *wl = container_of(work, struct ndis_wireless,
						link_work);
	u8 bssid[ETH_ALEN];
	bool associated;

	mutex_lock(&wl->lock);
	if (wl->gone || !wl->up)
		goto out;
	associated = ndis_wl_associated(wl, bssid);
	if (wl->state == NDIS_WL_CONNECTED &&
	    (!associated || !ether_addr_equal(bssid, wl->bssid)))
		ndis_wl_report_lost(wl, associated);
	if (wl->state == NDIS_WL_DRIVER)
		wl->state = NDIS_WL_IDLE;	/* looked at afresh below */
	if (associated && wl->state == NDIS_WL_CONNECTING) {
		ndis_wl_report_connect(wl, bssid);
	} else if (associated && wl->state == NDIS_WL_IDLE) {
		ether_addr_copy(wl->bssid, bssid);
		wl->state = NDIS_WL_DRIVER;
	}
out:
	mutex_unlock(&wl->lock);
}

static void ndis_wl_connect_work(struct work_struct *work)
{
	struct ndis_wireless *wl = container_of(to_delayed_work(work),
						struct ndis_wireless,
						connect_work);

	mutex_lock(&wl->lock);
	if (!wl->gone && wl->state == NDIS_WL_CONNECTING) {
		netdev_info(wl->ad->net, "connect timed out\n");
		ndis_set_oid(wl->ad, OID_802_11_DISASSOCIATE, NULL, 0);
		wl->state = NDIS_WL_IDLE;
		cfg80211_connect_timeout(wl->ad->net, NULL, NULL, 0,
					 GFP_KERNEL,
					 NL80211_TIMEOUT_UNSPECIFIED);
	}
	mutex_unlock(&wl->lock);
}

static void ndis_wl_scan_work(struct work_struct *work)
{
	struct ndis_wireless *wl = container_of(to_delayed_work(work),
						struct ndis_wireless,
						scan_work);
	struct cfg80211_scan_info info = {};
	struct cfg80211_scan_request *req;

	mutex_lock(&wl->lock);
	req = wl->scan_req;
	wl->scan_req = NULL;
	if (req) {
		info.aborted = ndis_wl_inform_list(wl, NULL, NULL) != 0;
		cfg80211_scan_done(req, &info);
	}
	mutex_unlock(&wl->lock);
}

/* -- cfg80211 operations (wiphy lock held) ---------------------------------- */

static int ndis_wl_scan(struct wiphy *wiphy, struct cfg80211_scan_request *req)
{
	struct ndis_wireless *wl = wiphy_priv(wiphy);
	int err = 0;

	mutex_lock(&wl->lock);
	if (!wl->up || wl->gone) {
		err = -ENETDOWN;
		goto out;
	}
	if (wl->scan_req) {
		err = -EBUSY;
		goto out;
	}
	/*
	 * A driver may refuse to leave its channel while associated; its
	 * list (from its last survey and the beacons since) is still the
	 * answer.
	 */
	if (ndis_set_oid(wl->ad, OID_802_11_BSSID_LIST_SCAN, NULL, 0))
		netdev_dbg(wl->ad->net, "the driver did not start a scan\n");
	wl->scan_req = req;
	queue_delayed_work(ndis_work_wq, &wl->scan_work,
			   msecs_to_jiffies(NDIS_SCAN_WAIT_MS));
out:
	mutex_unlock(&wl->lock);
	return err;
}

static int ndis_wl_connect(struct wiphy *wiphy, struct net_device *net,
			   struct cfg80211_connect_params *sme)
{
	struct ndis_wireless *wl = wiphy_priv(wiphy);
	struct ndis_crypto_req req = {
		.wpa_versions = sme->crypto.wpa_versions,
		.akm = sme->crypto.akm_suites,
		.n_akm = sme->crypto.n_akm_suites,
		.pairwise = sme->crypto.ciphers_pairwise,
		.n_pairwise = sme->crypto.n_ciphers_pairwise,
		.group = sme->crypto.cipher_group,
		.privacy = sme->privacy,
		.wep_key_len = sme->key_len,
		.auth_open = sme->auth_type == NL80211_AUTHTYPE_OPEN_SYSTEM ||
			     sme->auth_type == NL80211_AUTHTYPE_AUTOMATIC,
	};
	struct ndis_ssid ssid = {};
	u32 auth_mode, encryption;
	u8 cur[NDIS_SSID_MAX];
	int err, len;

	if (ndis_crypto_modes(&req, &auth_mode, &encryption)) {
		netdev_info(net, "only open networks and WPA2-PSK with CCMP are supported\n");
		return -EOPNOTSUPP;
	}
	if (!sme->ssid_len || sme->ssid_len > NDIS_SSID_MAX)
		return -EINVAL;

	mutex_lock(&wl->lock);
	wl->user = true;
	/*
	 * Already there (the driver joined this open SSID by itself): this
	 * is the result, no need to leave and rejoin. A protected network
	 * is always joined afresh, the keys of this connection with it.
	 */
	if (wl->state == NDIS_WL_DRIVER &&
	    auth_mode == NDIS_802_11_AUTH_MODE_OPEN &&
	    (!sme->bssid || ether_addr_equal(sme->bssid, wl->bssid))) {
		len = ndis_wl_query_ssid(wl, cur);
		if (len == sme->ssid_len && !memcmp(cur, sme->ssid, len)) {
			u8 bssid[ETH_ALEN];

			ether_addr_copy(bssid, wl->bssid);
			ndis_wl_report_connect(wl, bssid);
			err = 0;
			goto out;
		}
	}
	err = ndis_80211_infra(wl->ad, auth_mode, encryption);
	if (err) {
		netdev_err(net, "the driver refused the infrastructure setup (authentication mode %u, encryption %u)\n",
			   auth_mode, encryption);
		goto out;
	}
	ssid.len = cpu_to_le32(sme->ssid_len);
	memcpy(ssid.ssid, sme->ssid, sme->ssid_len);
	/* From here, a connection reported is this one's result. */
	wl->state = NDIS_WL_CONNECTING;
	err = ndis_set_oid(wl->ad, OID_802_11_SSID, &ssid, sizeof(ssid));
	if (err) {
		wl->state = NDIS_WL_IDLE;
		goto out;
	}
	queue_delayed_work(ndis_work_wq, &wl->connect_work,
			   msecs_to_jiffies(NDIS_CONNECT_TIMEOUT_MS));
out:
	mutex_unlock(&wl->lock);
	return err;
}

static int ndis_wl_disconnect(struct wiphy *wiphy, struct net_device *net,
			      u16 reason)
{
	struct ndis_wireless *wl = wiphy_priv(wiphy);
	enum ndis_wl_state was;

	mutex_lock(&wl->lock);
	ndis_set_oid(wl->ad, OID_802_11_DISASSOCIATE, NULL, 0);
	cancel_delayed_work(&wl->connect_work);
	was = wl->state;
	wl->state = NDIS_WL_IDLE;
	/* A connect in progress is cfg80211's to abandon; a connection ours. */
	if (was == NDIS_WL_CONNECTED)
		cfg80211_disconnected(net, reason, NULL, 0, true, GFP_KERNEL);
	mutex_unlock(&wl->lock);
	return 0;
}

static int ndis_wl_get_station(struct wiphy *wiphy, ndis_station_dev *dev,
			       const u8 *mac, struct station_info *sinfo)
{
	struct ndis_wireless *wl = wiphy_priv(wiphy);
	__le32 rssi, speed;
	u32 written;
	int err = 0;

	mutex_lock(&wl->lock);
	if (wl->state != NDIS_WL_CONNECTED ||
	    !ether_addr_equal(mac, wl->bssid)) {
		err = -ENOENT;
		goto out;
	}
	if (!ndis_query_oid(wl->ad, OID_802_11_RSSI, &rssi, sizeof(rssi),
			    &written) && written == sizeof(rssi)) {
		sinfo->signal = clamp_t(s32, (s32)le32_to_cpu(rssi), -128, 0);
		sinfo->filled |= BIT_ULL(NL80211_STA_INFO_SIGNAL);
	}
	/* in 100 bit/s; cfg80211 counts legacy rates in 100 kbit/s */
	if (!ndis_query_oid(wl->ad, OID_GEN_LINK_SPEED, &speed, sizeof(speed),
			    &written) && written == sizeof(speed)) {
		sinfo->txrate.legacy = min_t(u32, le32_to_cpu(speed) / 1000,
					     U16_MAX);
		sinfo->filled |= BIT_ULL(NL80211_STA_INFO_TX_BITRATE);
	}
out:
	mutex_unlock(&wl->lock);
	return err;
}

/* Lock held: the PMKID cache to the driver, whole. */
static int ndis_wl_set_pmkids(struct ndis_wireless *wl)
{
	u8 *buf = kmalloc(NDIS_PMKID_OID_SIZE, GFP_KERNEL);
	int err;

	if (!buf)
		return -ENOMEM;
	err = ndis_set_oid(wl->ad, OID_802_11_PMKID, buf,
			   ndis_pmkid_oid(&wl->pmkids, buf));
	kfree_sensitive(buf);
	return err;
}

static int ndis_wl_set_pmksa(struct wiphy *wiphy, struct net_device *net,
			     struct cfg80211_pmksa *pmksa)
{
	struct ndis_wireless *wl = wiphy_priv(wiphy);
	int err;

	if (!pmksa->bssid || !pmksa->pmkid)
		return -EINVAL;
	mutex_lock(&wl->lock);
	err = ndis_pmkid_set(&wl->pmkids, pmksa->bssid, pmksa->pmkid);
	if (!err)
		err = ndis_wl_set_pmkids(wl);
	mutex_unlock(&wl->lock);
	return err;
}

static int ndis_wl_del_pmksa(struct wiphy *wiphy, struct net_device *net,
			     struct cfg80211_pmksa *pmksa)
{
	struct ndis_wireless *wl = wiphy_priv(wiphy);
	int err;

	if (!pmksa->bssid)
		return -EINVAL;
	mutex_lock(&wl->lock);
	err = ndis_pmkid_del(&wl->pmkids, pmksa->bssid);
	if (!err)
		err = ndis_wl_set_pmkids(wl);
	mutex_unlock(&wl->lock);
	return err;
}

static int ndis_wl_flush_pmksa(struct wiphy *wiphy, struct net_device *net)
{
	struct ndis_wireless *wl = wiphy_priv(wiphy);
	int err = -EOPNOTSUPP;

	mutex_lock(&wl->lock);
	if (wl->pmkids.max) {
		wl->pmkids.n = 0;
		err = ndis_wl_set_pmkids(wl);
	}
	mutex_unlock(&wl->lock);
	return err;
}

static_assert(WLAN_CIPHER_SUITE_CCMP == NDIS_SUITE_CCMP);
static_assert(WLAN_AKM_SUITE_PSK == NDIS_SUITE_PSK);
static_assert(NL80211_WPA_VERSION_2 == NDIS_WPA_VERSION_2);

static int ndis_wl_add_key(struct wiphy *wiphy, ndis_key_dev *dev,
			   NDIS_KEY_LINK_ID u8 idx, bool pairwise,
			   const u8 *mac, struct key_params *params)
{
	struct ndis_wireless *wl = wiphy_priv(wiphy);
	struct ndis_80211_key key;
	int len, err;

	NDIS_KEY_LINK_ID_UNUSED;
	len = ndis_key_add(&key, idx, pairwise, mac, params->cipher,
			   params->key, params->key_len, params->seq,
			   params->seq_len);
	if (len < 0)
		return len;
	mutex_lock(&wl->lock);
	err = ndis_set_oid(wl->ad, OID_802_11_ADD_KEY, &key, len);
	mutex_unlock(&wl->lock);
	memzero_explicit(&key, sizeof(key));
	return err;
}

static int ndis_wl_del_key(struct wiphy *wiphy, ndis_key_dev *dev,
			   NDIS_KEY_LINK_ID u8 idx, bool pairwise,
			   const u8 *mac)
{
	struct ndis_wireless *wl = wiphy_priv(wiphy);
	struct ndis_80211_remove_key rkey;
	int len, err;

	NDIS_KEY_LINK_ID_UNUSED;
	/* management frame keys (4, 5) are never given to the driver */
	len = ndis_key_remove(&rkey, idx, pairwise, mac);
	if (len < 0)
		return idx > 3 ? -ENOENT : len;
	mutex_lock(&wl->lock);
	err = ndis_set_oid(wl->ad, OID_802_11_REMOVE_KEY, &rkey, len);
	mutex_unlock(&wl->lock);
	return err;
}

/*
 * NDIS 5.1 has no separate default key: the pairwise key came with its
 * transmit bit, and a station's group key only receives.
 */
static int ndis_wl_set_default_key(struct wiphy *wiphy,
				   struct net_device *net,
				   NDIS_KEY_LINK_ID u8 idx, bool unicast,
				   bool multicast)
{
	NDIS_KEY_LINK_ID_UNUSED;
	return idx > 3 ? -EINVAL : 0;
}

static const struct cfg80211_ops ndis_wl_ops = {
	.scan		= ndis_wl_scan,
	.connect	= ndis_wl_connect,
	.disconnect	= ndis_wl_disconnect,
	.get_station	= ndis_wl_get_station,
	.add_key	= ndis_wl_add_key,
	.del_key	= ndis_wl_del_key,
	.set_default_key = ndis_wl_set_default_key,
	.set_pmksa	= ndis_wl_set_pmksa,
	.del_pmksa	= ndis_wl_del_pmksa,
	.flush_pmksa	= ndis_wl_flush_pmksa,
};

/* What add_key maps (ndis_80211_keys.h). */
static const u32 ndis_wl_ciphers[] = { WLAN_CIPHER_SUITE_CCMP };

/* -- hooks from netdev.c ---------------------------------------------------- */

/* 2.4 GHz, channels 1 to 14: what an NDIS 5.1 802.11b/g driver covers. */
static void ndis_wl_init_band(struct ndis_wireless *wl)
{
	static const u16 rates[NDIS_NUM_RATES] = {
		10, 20, 55, 110, 60, 90, 120, 180, 240, 360, 480, 540
	};
	int i;

	for (i = 0; i < NDIS_NUM_CHANNELS; i++) {
		struct ieee80211_channel *ch = &wl->channels[i];

		ch->band = NL80211_BAND_2GHZ;
		ch->hw_value = i + 1;
		ch->center_freq = i == 13 ? 2484 : 2412 + 5 * i;
		ch->max_power = 20;
	}
	for (i = 0; i < NDIS_NUM_RATES; i++) {
		wl->rates[i].bitrate = rates[i];
		if (i >= 1 && i <= 3)
			wl->rates[i].flags = IEEE80211_RATE_SHORT_PREAMBLE;
	}
	wl->band.band = NL80211_BAND_2GHZ;
	wl->band.channels = wl->channels;
	wl->band.n_channels = NDIS_NUM_CHANNELS;
	wl->band.bitrates = wl->rates;
	wl->band.n_bitrates = NDIS_NUM_RATES;
}

static bool use_wiphy = true;
module_param_named(wiphy, use_wiphy, bool, 0444);
MODULE_PARM_DESC(wiphy, "register a cfg80211 wiphy per wireless adapter (default); 0: the wrapper's own wireless extensions instead (kernels with CONFIG_WIRELESS_EXT)");

/* With the net device: cfg80211 must know it before it is registered. */
int ndis_wireless_alloc(struct ndis_adapter *ad)
{
	struct ndis_wireless *wl;
	struct wiphy *wiphy;

	if (!use_wiphy)
		return ndis_wext_alloc(ad);
	wiphy = wiphy_new(&ndis_wl_ops, sizeof(*wl));
	if (!wiphy)
		return -ENOMEM;
	wl = wiphy_priv(wiphy);
	wl->ad = ad;
	spin_lock_init(&wl->queue_lock);
	mutex_init(&wl->lock);
	INIT_WORK(&wl->link_work, ndis_wl_link_work);
	INIT_DELAYED_WORK(&wl->scan_work, ndis_wl_scan_work);
	INIT_DELAYED_WORK(&wl->connect_work, ndis_wl_connect_work);
	ndis_wl_init_band(wl);

	set_wiphy_dev(wiphy, ad->dev);
	wiphy->interface_modes = BIT(NL80211_IFTYPE_STATION);
	wiphy->bands[NL80211_BAND_2GHZ] = &wl->band;
	wiphy->signal_type = CFG80211_SIGNAL_TYPE_MBM;
	/* iw asks for the wildcard SSID; NDIS 5.1 scans only that way */
	wiphy->max_scan_ssids = 1;
	wiphy->cipher_suites = ndis_wl_ciphers;
	wiphy->n_cipher_suites = ARRAY_SIZE(ndis_wl_ciphers);

	wl->wdev.wiphy = wiphy;
	wl->wdev.iftype = NL80211_IFTYPE_STATION;
	wl->wdev.netdev = ad->net;
	ad->net->ieee80211_ptr = &wl->wdev;
	return 0;
}

/* How many PMKIDs the driver keeps (OID_802_11_CAPABILITY); 0: none. */
static u32 ndis_wl_max_pmkids(struct ndis_wireless *wl)
{
	__le32 cap[32] = {};	/* the header and a dozen auth/cipher pairs */
	u32 written;

	if (ndis_query_oid(wl->ad, OID_802_11_CAPABILITY, cap, sizeof(cap),
			   &written) ||
	    written < NDIS_CAPABILITY_NO_OF_PMKIDS + sizeof(cap[0]))
		return 0;
	return min_t(u32, le32_to_cpu(cap[NDIS_CAPABILITY_NO_OF_PMKIDS / 4]),
		     NDIS_PMKID_MAX);
}

/* Before register_netdev(), once the driver gave its MAC address. */
int ndis_wireless_register(struct ndis_adapter *ad)
{
	struct ndis_wireless *wl = ndis_wl(ad);
	int err;

	if (!wl)
		return 0;		/* a wired adapter */
	memcpy(wl->wdev.wiphy->perm_addr, ad->net->dev_addr, ETH_ALEN);
	wl->pmkids.max = ndis_wl_max_pmkids(wl);
	wl->wdev.wiphy->max_num_pmkids = wl->pmkids.max;
	err = wiphy_register(wl->wdev.wiphy);
	if (err)
		netdev_err(ad->net, "wiphy_register: %d\n", err);
	return err;
}

/* No link_work from here on, none running. */
static void ndis_wl_kill_link_work(struct ndis_wireless *wl)
{
	unsigned long flags;

	spin_lock_irqsave(&wl->queue_lock, flags);
	wl->dead = true;
	spin_unlock_irqrestore(&wl->queue_lock, flags);
	cancel_work_sync(&wl->link_work);
}

/*
 * Before unregister_netdev(): nothing more is reported from the driver's
 * side (cfg80211 still calls .disconnect while the interface goes down).
 */
void ndis_wireless_quiesce(struct ndis_adapter *ad)
{
	struct ndis_wireless *wl = ndis_wl(ad);

	ndis_wext_quiesce(ad);
	if (!wl)
		return;			/* a wired adapter */
	mutex_lock(&wl->lock);
	wl->gone = true;
	mutex_unlock(&wl->lock);
	ndis_wl_kill_link_work(wl);
	cancel_delayed_work_sync(&wl->connect_work);
}

/* After unregister_netdev(), or when register_netdev() failed. */
void ndis_wireless_unregister(struct ndis_adapter *ad)
{
	if (!ndis_wl(ad))
		return;
	ndis_wireless_quiesce(ad);
	cancel_delayed_work_sync(&ndis_wl(ad)->scan_work);
	wiphy_unregister(ad->net->ieee80211_ptr->wiphy);
}

/*
 * Before free_netdev(), also after a failed MiniportInitialize (whose
 * indications may have queued link_work): the wireless_dev goes with the
 * wiphy.
 */
void ndis_wireless_free(struct ndis_adapter *ad)
{
	struct ndis_wireless *wl = ndis_wl(ad);

	ndis_wext_free(ad);
	if (!wl)
		return;
	ndis_wl_kill_link_work(wl);
	ad->net->ieee80211_ptr = NULL;
	wiphy_free(wl->wdev.wiphy);
}

/* ndo_open: tell cfg80211 about an association the driver already has. */
void ndis_wireless_open(struct ndis_adapter *ad)
{
	struct ndis_wireless *wl = ndis_wl(ad);

	if (!wl)
		return;
	mutex_lock(&wl->lock);
	wl->up = true;
	mutex_unlock(&wl->lock);
	ndis_wireless_status(ad, NDIS_STATUS_MEDIA_CONNECT, NULL, 0);
}

/*
 * ndo_stop, after NETDEV_GOING_DOWN: a scan still running ends aborted
 * now, as cfg80211 requires before NETDEV_DOWN. cfg80211 has normally
 * left its connection through .disconnect on the way down already; one it
 * still has is reported lost here. The driver's own association (DRIVER)
 * stays the driver's, and ndo_open looks at the link again.
 */
void ndis_wireless_stop(struct ndis_adapter *ad)
{
	struct ndis_wireless *wl = ndis_wl(ad);
	struct cfg80211_scan_info info = { .aborted = true };
	struct cfg80211_scan_request *req;

	if (!wl)
		return;
	mutex_lock(&wl->lock);
	wl->up = false;
	req = wl->scan_req;
	wl->scan_req = NULL;
	if (wl->state == NDIS_WL_CONNECTED)
		cfg80211_disconnected(ad->net, WLAN_REASON_DEAUTH_LEAVING,
				      NULL, 0, true, GFP_KERNEL);
	wl->state = NDIS_WL_IDLE;
	mutex_unlock(&wl->lock);
	cancel_delayed_work_sync(&wl->scan_work);
	cancel_delayed_work_sync(&wl->connect_work);
	if (req)
		cfg80211_scan_done(req, &info);
}

/*
 * NDIS_STATUS_MEDIA_SPECIFIC_INDICATION, any context (queue_lock held):
 * MIC failures and PMKID candidates to cfg80211, which sends them to the
 * supplicant.
 */
static void ndis_wl_media_specific(struct ndis_wireless *wl, const void *buf,
				   u32 len)
{
	struct ndis_80211_event ev[8];
	int i, n;

	n = ndis_80211_indication(buf, buf ? len : 0, ev, ARRAY_SIZE(ev));
	for (i = 0; i < n; i++) {
		if (ev[i].kind == NDIS_EV_MIC_FAILURE)
			cfg80211_michael_mic_failure(wl->ad->net, ev[i].bssid,
						     ev[i].group ?
						     NL80211_KEYTYPE_GROUP :
						     NL80211_KEYTYPE_PAIRWISE,
						     -1, NULL, GFP_ATOMIC);
		else
			cfg80211_pmksa_candidate_notify(wl->ad->net,
							ev[i].index,
							ev[i].bssid,
							ev[i].preauth,
							GFP_ATOMIC);
	}
}

/* NdisMIndicateStatus, any context: link_work asks the driver. */
void ndis_wireless_status(struct ndis_adapter *ad, ndis_status status,
			  const void *buf, u32 len)
{
	struct ndis_wireless *wl = ndis_wl(ad);
	unsigned long flags;

	ndis_wext_status(ad, status, buf, len);
	if (!wl || (status != NDIS_STATUS_MEDIA_CONNECT &&
		    status != NDIS_STATUS_MEDIA_DISCONNECT &&
		    status != NDIS_STATUS_MEDIA_SPECIFIC_INDICATION))
		return;
	spin_lock_irqsave(&wl->queue_lock, flags);
	if (!wl->dead && status == NDIS_STATUS_MEDIA_SPECIFIC_INDICATION)
		ndis_wl_media_specific(wl, buf, len);
	else if (!wl->dead)
		queue_work(ndis_work_wq, &wl->link_work);
	spin_unlock_irqrestore(&wl->queue_lock, flags);
}
