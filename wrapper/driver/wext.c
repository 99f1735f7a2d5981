// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: the wireless extensions of an adapter that has no cfg80211
 * wiphy (the module parameter wiphy=0), as ndiswrapper always offered
 * them: iwconfig, iwlist and wpa_supplicant -Dwext drive the net device
 * through these handlers, each mapped onto the NDIS 5.1 802.11 OIDs the
 * cfg80211 side (wireless.c) uses:
 *
 *   SIOCSIWSCAN	OID_802_11_BSSID_LIST_SCAN; SIOCGIWSCAN answers -EAGAIN
 *			until the driver had NDIS_SCAN_WAIT_MS to survey the
 *			channels, then OID_802_11_BSSID_LIST as scan events
 *			(BSSID, SSID as the driver gives it, mode, frequency
 *			from DSConfig, Rssi as a dBm level, privacy, the
 *			BSS's elements as IWEVGENIE).
 *   SIOCSIWESSID	an infrastructure setup (authentication mode and
 *			encryption status from the SIOCSIWAUTH settings:
 *			open, or WPA2-PSK with CCMP; ndis_80211_keys.h),
 *			then OID_802_11_SSID (the join; "essid any" is the
 *			empty SSID).
 *   SIOCSIWAUTH	the settings above, kept for the next join; the
 *			ones NDIS 5.1 has no OID for are the driver's own.
 *   SIOCSIWENCODEEXT	OID_802_11_ADD_KEY (CCMP) / _REMOVE_KEY.
 *   SIOCSIWGENIE	taken: an NDIS 5.1 driver writes its own RSN
 *			element from the two modes.
 *   SIOCSIWMLME	OID_802_11_DISASSOCIATE.
 *   NDIS_STATUS_MEDIA_SPECIFIC_INDICATION: MIC failures and PMKID
 *			candidates as IWEVMICHAELMICFAILURE and IWEVPMKIDCAND.
 *   SIOCSIWAP		OID_802_11_BSSID (that BSS of the driver's list);
 *			"any" and "off" leave the choice to the driver.
 *   SIOCGIWAP, SIOCGIWESSID	OID_802_11_BSSID and _SSID while
 *			OID_GEN_MEDIA_CONNECT_STATUS says connected.
 *   SIOCGIWFREQ	OID_802_11_CONFIGURATION; SIOCG/SIOCSIWMODE
 *			OID_802_11_INFRASTRUCTURE_MODE; SIOCGIWRATE
 *			OID_GEN_LINK_SPEED; SIOCGIWNAME, SIOCGIWRANGE: what
 *			an 802.11b/g NDIS 5.1 driver covers (channels 1-14).
 *
 * A media indication sends SIOCGIWAP (the new AP, or none) to user space,
 * from a work item: the OIDs need process context; an association's IEs
 * (OID_802_11_ASSOCIATION_INFORMATION) go first, as IWEVASSOCREQIE and
 * IWEVASSOCRESPIE, which wpa_supplicant -Dwext needs for WPA2. The carrier follows
 * the driver as for every adapter (netdev.c). Built where the kernel has
 * CONFIG_WIRELESS_EXT (the net device's wireless_handlers exist only
 * there).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <net/iw_handler.h>

#include "ndis.h"
#include "ndis_80211.h"

#define NDIS_WEXT_CHANNELS		14
#define NDIS_802_11_IBSS		0
#define NDIS_802_11_AUTO_UNKNOWN	2
/* What iwlist shows as the quality out of its maximum: dBm above -110. */
#define NDIS_WEXT_QUAL_MAX		70
#define NDIS_WEXT_QUAL_FLOOR_DBM	(-110)

static struct ndis_adapter *ndis_wext_adapter(struct net_device *net)
{
	return *(struct ndis_adapter **)netdev_priv(net);
}

static u32 ndis_wext_channel_mhz(int channel)
{
	return channel == 14 ? 2484 : 2407 + 5 * channel;
}

/* DSConfig is in kHz as documented; some drivers are known to give MHz. */
static u32 ndis_wext_ds_mhz(u32 ds_config)
{
	return ds_config < 100000 ? ds_config : ds_config / 1000;
}

/* The driver's current association: false when there is none. */
static bool ndis_wext_associated(struct ndis_adapter *ad, u8 *bssid)
{
	__le32 state;
	u32 written;

	if (ndis_query_oid(ad, OID_GEN_MEDIA_CONNECT_STATUS, &state,
			   sizeof(state), &written) || written < sizeof(state) ||
	    le32_to_cpu(state) != NDIS_MEDIA_STATE_CONNECTED)
		return false;
	return !ndis_query_oid(ad, OID_802_11_BSSID, bssid, ETH_ALEN,
			       &written) && written == ETH_ALEN &&
	       is_valid_ether_addr(bssid);
}

/* -- identity and capabilities --------------------------------------------- */

static int ndis_wext_get_name(struct net_device *net,
			      struct iw_request_info *info,
			      union iwreq_data *wrqu, char *extra)
{
	strscpy(wrqu->name, "IEEE 802.11bg", sizeof(wrqu->name));
	return 0;
}

static int ndis_wext_get_range(struct net_device *net,
			       struct iw_request_info *info,
			       union iwreq_data *wrqu, char *extra)
{
	static const u32 rates_100kbps[] = {
		10, 20, 55, 110, 60, 90, 120, 180, 240, 360, 480, 540
	};
	struct iw_range *range = (struct iw_range *)extra;
	int i;

	wrqu->data.length = sizeof(*range);
	memset(range, 0, sizeof(*range));
	range->we_version_compiled = WIRELESS_EXT;
	range->we_version_source = 22;
	range->max_qual.qual = NDIS_WEXT_QUAL_MAX;
	range->max_qual.updated = IW_QUAL_DBM | IW_QUAL_NOISE_INVALID;
	range->num_channels = NDIS_WEXT_CHANNELS;
	range->num_frequency = NDIS_WEXT_CHANNELS;
	for (i = 0; i < NDIS_WEXT_CHANNELS; i++) {
		range->freq[i].i = i + 1;
		range->freq[i].m = ndis_wext_channel_mhz(i + 1) * 100000;
		range->freq[i].e = 1;
	}
	range->num_bitrates = ARRAY_SIZE(rates_100kbps);
	for (i = 0; i < ARRAY_SIZE(rates_100kbps); i++)
		range->bitrate[i] = rates_100kbps[i] * 100000;
	IW_EVENT_CAPA_SET_KERNEL(range->event_capa);
	IW_EVENT_CAPA_SET(range->event_capa, SIOCGIWAP);
	IW_EVENT_CAPA_SET(range->event_capa, IWEVASSOCREQIE);
	IW_EVENT_CAPA_SET(range->event_capa, IWEVASSOCRESPIE);
	IW_EVENT_CAPA_SET(range->event_capa, IWEVMICHAELMICFAILURE);
	IW_EVENT_CAPA_SET(range->event_capa, IWEVPMKIDCAND);
	/* what ndis_80211_keys.h maps */
	range->enc_capa = IW_ENC_CAPA_WPA2 | IW_ENC_CAPA_CIPHER_CCMP;
	return 0;
}

/* -- mode, frequency, rate ------------------------------------------------- */

static int ndis_wext_get_mode(struct net_device *net,
			      struct iw_request_info *info,
			      union iwreq_data *wrqu, char *extra)
{
	__le32 mode;
	u32 written;
	int err;

	err = ndis_query_oid(ndis_wext_adapter(net),
			     OID_802_11_INFRASTRUCTURE_MODE, &mode,
			     sizeof(mode), &written);
	if (err)
		return err;
	if (written < sizeof(mode))
		return -EIO;
	switch (le32_to_cpu(mode)) {
	case NDIS_802_11_IBSS:
		wrqu->mode = IW_MODE_ADHOC;
		break;
	case NDIS_802_11_INFRASTRUCTURE:
		wrqu->mode = IW_MODE_INFRA;
		break;
	default:
		wrqu->mode = IW_MODE_AUTO;
		break;
	}
	return 0;
}

static int ndis_wext_set_mode(struct net_device *net,
			      struct iw_request_info *info,
			      union iwreq_data *wrqu, char *extra)
{
	__le32 mode;

	switch (wrqu->mode) {
	case IW_MODE_ADHOC:
		mode = cpu_to_le32(NDIS_802_11_IBSS);
		break;
	case IW_MODE_INFRA:
		mode = cpu_to_le32(NDIS_802_11_INFRASTRUCTURE);
		break;
	case IW_MODE_AUTO:
		mode = cpu_to_le32(NDIS_802_11_AUTO_UNKNOWN);
		break;
	default:
		return -EOPNOTSUPP;
	}
	return ndis_set_oid(ndis_wext_adapter(net),
			    OID_802_11_INFRASTRUCTURE_MODE, &mode, sizeof(mode));
}

static int ndis_wext_get_freq(struct net_device *net,
			      struct iw_request_info *info,
			      union iwreq_data *wrqu, char *extra)
{
	struct ndis_config config = {};
	u32 written;
	int err;

	err = ndis_query_oid(ndis_wext_adapter(net), OID_802_11_CONFIGURATION,
			     &config, sizeof(config), &written);
	if (err)
		return err;
	if (written < sizeof(config))
		return -EIO;
	/* m x 10^e Hz */
	wrqu->freq.m = ndis_wext_ds_mhz(le32_to_cpu(config.ds_config));
	wrqu->freq.e = 6;
	return 0;
}

static int ndis_wext_get_rate(struct net_device *net,
			      struct iw_request_info *info,
			      union iwreq_data *wrqu, char *extra)
{
	__le32 speed;
	u32 written;
	int err;

	err = ndis_query_oid(ndis_wext_adapter(net), OID_GEN_LINK_SPEED,
			     &speed, sizeof(speed), &written);
	if (err)
		return err;
	if (written < sizeof(speed))
		return -EIO;
	/* NDIS counts in 100 bit/s */
	wrqu->bitrate.value = le32_to_cpu(speed) * 100;
	wrqu->bitrate.fixed = 0;
	return 0;
}

/* -- the join -------------------------------------------------------------- */

static int ndis_wext_set_essid(struct net_device *net,
			       struct iw_request_info *info,
			       union iwreq_data *wrqu, char *extra)
{
	struct ndis_adapter *ad = ndis_wext_adapter(net);
	struct ndis_ssid ssid = {};
	u32 len = wrqu->essid.flags ? wrqu->essid.length : 0;
	u32 auth_mode, encryption;
	int err;

	if (len > NDIS_SSID_MAX)
		return -E2BIG;
	/* tools older than WE 21 count the terminating NUL */
	if (len && extra[len - 1] == '\0')
		len--;
	mutex_lock(&ad->wext.lock);
	err = ndis_wext_crypto_modes(&ad->wext.auth, &auth_mode, &encryption);
	mutex_unlock(&ad->wext.lock);
	if (err) {
		netdev_info(net, "only open networks and WPA2-PSK with CCMP are supported\n");
		return err;
	}
	err = ndis_80211_infra(ad, auth_mode, encryption);
	if (err) {
		netdev_err(net, "the driver refused the infrastructure setup (authentication mode %u, encryption %u)\n",
			   auth_mode, encryption);
		return err;
	}
	ssid.len = cpu_to_le32(len);
	memcpy(ssid.ssid, extra, len);
	return ndis_set_oid(ad, OID_802_11_SSID, &ssid, sizeof(ssid));
}

static int ndis_wext_get_essid(struct net_device *net,
			       struct iw_request_info *info,
			       union iwreq_data *wrqu, char *extra)
{
	struct ndis_adapter *ad = ndis_wext_adapter(net);
	struct ndis_ssid ssid = {};
	u8 bssid[ETH_ALEN];
	u32 written, len;

	wrqu->essid.flags = 0;
	wrqu->essid.length = 0;
	if (!ndis_wext_associated(ad, bssid))
		return 0;
	if (ndis_query_oid(ad, OID_802_11_SSID, &ssid, sizeof(ssid),
			   &written) || written < sizeof(ssid.len))
		return 0;
	len = le32_to_cpu(ssid.len);
	if (len > NDIS_SSID_MAX)
		return -EIO;
	memcpy(extra, ssid.ssid, len);
	wrqu->essid.length = len;
	wrqu->essid.flags = 1;
	return 0;
}

static int ndis_wext_set_ap(struct net_device *net,
			    struct iw_request_info *info,
			    union iwreq_data *wrqu, char *extra)
{
	u8 bssid[ETH_ALEN];

	memcpy(bssid, wrqu->ap_addr.sa_data, ETH_ALEN);
	if (is_zero_ether_addr(bssid) || is_broadcast_ether_addr(bssid))
		return 0;
	return ndis_set_oid(ndis_wext_adapter(net), OID_802_11_BSSID, bssid,
			    ETH_ALEN);
}

static int ndis_wext_get_ap(struct net_device *net,
			    struct iw_request_info *info,
			    union iwreq_data *wrqu, char *extra)
{
	u8 bssid[ETH_ALEN];

	wrqu->ap_addr.sa_family = ARPHRD_ETHER;
	if (!ndis_wext_associated(ndis_wext_adapter(net), bssid))
		eth_zero_addr(bssid);
	memcpy(wrqu->ap_addr.sa_data, bssid, ETH_ALEN);
	return 0;
}

/* -- WPA2-PSK: wpa_supplicant -Dwext --------------------------------------- */

static_assert(IW_AUTH_WPA_VERSION_WPA == NDIS_IW_WPA_VERSION_WPA);
static_assert(IW_AUTH_WPA_VERSION_WPA2 == NDIS_IW_WPA_VERSION_WPA2);
static_assert(IW_AUTH_CIPHER_NONE == NDIS_IW_CIPHER_NONE);
static_assert(IW_AUTH_CIPHER_CCMP == NDIS_IW_CIPHER_CCMP);
static_assert(IW_AUTH_KEY_MGMT_802_1X == NDIS_IW_KEY_MGMT_802_1X);
static_assert(IW_AUTH_KEY_MGMT_PSK == NDIS_IW_KEY_MGMT_PSK);
static_assert(IW_AUTH_ALG_OPEN_SYSTEM == NDIS_IW_AUTH_ALG_OPEN);

static int ndis_wext_set_auth(struct net_device *net,
			      struct iw_request_info *info,
			      union iwreq_data *wrqu, char *extra)
{
	struct ndis_wext *wx = &ndis_wext_adapter(net)->wext;
	u32 value = wrqu->param.value;
	int err = 0;

	mutex_lock(&wx->lock);
	switch (wrqu->param.flags & IW_AUTH_INDEX) {
	case IW_AUTH_WPA_VERSION:
		wx->auth.wpa_version = value;
		break;
	case IW_AUTH_CIPHER_PAIRWISE:
		wx->auth.pairwise = value;
		break;
	case IW_AUTH_CIPHER_GROUP:
		wx->auth.group = value;
		break;
	case IW_AUTH_KEY_MGMT:
		wx->auth.key_mgmt = value;
		break;
	case IW_AUTH_80211_AUTH_ALG:
		wx->auth.auth_alg = value;
		break;
	case IW_AUTH_PRIVACY_INVOKED:
		wx->auth.privacy = value;
		break;
	/*
	 * No OID for these: a WPA2 driver takes only EAPOL in the clear and
	 * nothing else unprotected by itself, and roams by itself.
	 */
	case IW_AUTH_WPA_ENABLED:
	case IW_AUTH_TKIP_COUNTERMEASURES:
	case IW_AUTH_DROP_UNENCRYPTED:
	case IW_AUTH_RX_UNENCRYPTED_EAPOL:
	case IW_AUTH_ROAMING_CONTROL:
		break;
	case IW_AUTH_MFP:
		if (value != IW_AUTH_MFP_DISABLED)
			err = -EOPNOTSUPP;
		break;
	default:
		err = -EOPNOTSUPP;
		break;
	}
	mutex_unlock(&wx->lock);
	return err;
}

/* NDIS 5.1 cannot be given an IE: the driver writes its own. */
static int ndis_wext_set_genie(struct net_device *net,
			       struct iw_request_info *info,
			       union iwreq_data *wrqu, char *extra)
{
	return wrqu->data.length > IW_GENERIC_IE_MAX ? -E2BIG : 0;
}

static int ndis_wext_set_encodeext(struct net_device *net,
				   struct iw_request_info *info,
				   union iwreq_data *wrqu, char *extra)
{
	struct ndis_adapter *ad = ndis_wext_adapter(net);
	struct iw_encode_ext *ext = (struct iw_encode_ext *)extra;
	u32 idx = wrqu->encoding.flags & IW_ENCODE_INDEX;
	const u8 *mac = (const u8 *)ext->addr.sa_data;
	struct ndis_80211_remove_key rkey;
	struct ndis_80211_key key;
	bool pairwise;
	int len, err;

	if (wrqu->encoding.length < sizeof(*ext) || idx > 4)
		return -EINVAL;
	idx = idx ? idx - 1 : 0;	/* 0: the current key, index 0 here */
	pairwise = !(ext->ext_flags & IW_ENCODE_EXT_GROUP_KEY) &&
		   !is_broadcast_ether_addr(mac);
	if ((wrqu->encoding.flags & IW_ENCODE_DISABLED) ||
	    ext->alg == IW_ENCODE_ALG_NONE) {
		len = ndis_key_remove(&rkey, idx, pairwise, mac);
		return len < 0 ? len : ndis_set_oid(ad, OID_802_11_REMOVE_KEY,
						    &rkey, len);
	}
	if (ext->alg != IW_ENCODE_ALG_CCMP)
		return -EOPNOTSUPP;
	if (ext->key_len > wrqu->encoding.length - sizeof(*ext))
		return -EINVAL;
	len = ndis_key_add(&key, idx, pairwise, mac, NDIS_SUITE_CCMP, ext->key,
			   ext->key_len,
			   ext->ext_flags & IW_ENCODE_EXT_RX_SEQ_VALID ?
			   ext->rx_seq : NULL, NDIS_KEY_RSC_LEN);
	if (len < 0)
		return len;
	err = ndis_set_oid(ad, OID_802_11_ADD_KEY, &key, len);
	memzero_explicit(&key, sizeof(key));
	return err;
}

static int ndis_wext_set_mlme(struct net_device *net,
			      struct iw_request_info *info,
			      union iwreq_data *wrqu, char *extra)
{
	struct iw_mlme *mlme = (struct iw_mlme *)extra;

	if (mlme->cmd != IW_MLME_DEAUTH && mlme->cmd != IW_MLME_DISASSOC)
		return -EOPNOTSUPP;
	return ndis_set_oid(ndis_wext_adapter(net), OID_802_11_DISASSOCIATE,
			    NULL, 0);
}

/* -- scanning -------------------------------------------------------------- */

static int ndis_wext_set_scan(struct net_device *net,
			      struct iw_request_info *info,
			      union iwreq_data *wrqu, char *extra)
{
	struct ndis_adapter *ad = ndis_wext_adapter(net);
	struct ndis_wext *wx = &ad->wext;

	if (!netif_running(net))
		return -ENETDOWN;
	mutex_lock(&wx->lock);
	/*
	 * A driver may refuse to leave its channel while associated; its
	 * list (from its last survey and the beacons since) is still the
	 * answer.
	 */
	if (ndis_set_oid(ad, OID_802_11_BSSID_LIST_SCAN, NULL, 0))
		netdev_dbg(net, "the driver did not start a scan\n");
	wx->scan_due = jiffies + msecs_to_jiffies(NDIS_SCAN_WAIT_MS);
	wx->scanning = true;
	mutex_unlock(&wx->lock);
	return 0;
}

/* One BSS as scan events; the next free byte, or ERR_PTR(-E2BIG). */
static char *ndis_wext_bss_events(struct iw_request_info *info, char *ev,
				  char *end, const struct ndis_bssid_entry *b)
{
	const struct ndis_bssid_ex *e = b->e;
	u32 ssid_len = b->ssid_len;
	s32 rssi = clamp_t(s32, (s32)le32_to_cpu(e->rssi), -128, 0);
	struct iw_event iwe;

	memset(&iwe, 0, sizeof(iwe));
	iwe.cmd = SIOCGIWAP;
	iwe.u.ap_addr.sa_family = ARPHRD_ETHER;
	memcpy(iwe.u.ap_addr.sa_data, e->mac, ETH_ALEN);
	ev = iwe_stream_add_event_check(info, ev, end, &iwe, IW_EV_ADDR_LEN);
	if (IS_ERR(ev))
		return ev;

	memset(&iwe, 0, sizeof(iwe));
	iwe.cmd = SIOCGIWESSID;
	iwe.u.essid.length = ssid_len;
	iwe.u.essid.flags = 1;
	ev = iwe_stream_add_point_check(info, ev, end, &iwe,
					(char *)e->ssid.ssid);
	if (IS_ERR(ev))
		return ev;

	memset(&iwe, 0, sizeof(iwe));
	iwe.cmd = SIOCGIWMODE;
	iwe.u.mode = le32_to_cpu(e->infrastructure_mode) ==
		     NDIS_802_11_INFRASTRUCTURE ? IW_MODE_MASTER : IW_MODE_ADHOC;
	ev = iwe_stream_add_event_check(info, ev, end, &iwe, IW_EV_UINT_LEN);
	if (IS_ERR(ev))
		return ev;

	memset(&iwe, 0, sizeof(iwe));
	iwe.cmd = SIOCGIWFREQ;
	iwe.u.freq.m = ndis_wext_ds_mhz(le32_to_cpu(e->config.ds_config));
	iwe.u.freq.e = 6;
	ev = iwe_stream_add_event_check(info, ev, end, &iwe, IW_EV_FREQ_LEN);
	if (IS_ERR(ev))
		return ev;

	memset(&iwe, 0, sizeof(iwe));
	iwe.cmd = IWEVQUAL;
	/* a dBm level travels as its low byte */
	iwe.u.qual.level = (u8)rssi;
	iwe.u.qual.qual = clamp_t(s32, rssi - NDIS_WEXT_QUAL_FLOOR_DBM, 0,
				  NDIS_WEXT_QUAL_MAX);
	iwe.u.qual.updated = IW_QUAL_QUAL_UPDATED | IW_QUAL_LEVEL_UPDATED |
			     IW_QUAL_NOISE_INVALID | IW_QUAL_DBM;
	ev = iwe_stream_add_event_check(info, ev, end, &iwe, IW_EV_QUAL_LEN);
	if (IS_ERR(ev))
		return ev;

	memset(&iwe, 0, sizeof(iwe));
	iwe.cmd = SIOCGIWENCODE;
	iwe.u.data.flags = le32_to_cpu(e->privacy) ?
			   IW_ENCODE_ENABLED | IW_ENCODE_NOKEY :
			   IW_ENCODE_DISABLED;
	ev = iwe_stream_add_point_check(info, ev, end, &iwe,
					(char *)e->ssid.ssid);
	if (IS_ERR(ev) || !b->ie_len || b->ie_len > IW_GENERIC_IE_MAX)
		return ev;

	/* the BSS's elements: wpa_supplicant finds its RSN element here */
	memset(&iwe, 0, sizeof(iwe));
	iwe.cmd = IWEVGENIE;
	iwe.u.data.length = b->ie_len;
	return iwe_stream_add_point_check(info, ev, end, &iwe,
					  (char *)b->ies);
}

static int ndis_wext_get_scan(struct net_device *net,
			      struct iw_request_info *info,
			      union iwreq_data *wrqu, char *extra)
{
	struct ndis_adapter *ad = ndis_wext_adapter(net);
	struct ndis_wext *wx = &ad->wext;
	char *ev = extra, *end = extra + wrqu->data.length;
	struct ndis_bssid_walk walk;
	struct ndis_bssid_entry b;
	u32 written;
	u8 *buf;
	int err;

	mutex_lock(&wx->lock);
	if (wx->scanning && time_before(jiffies, wx->scan_due)) {
		mutex_unlock(&wx->lock);
		return -EAGAIN;
	}
	wx->scanning = false;
	mutex_unlock(&wx->lock);

	buf = kvmalloc(NDIS_BSSID_LIST_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	err = ndis_query_oid(ad, OID_802_11_BSSID_LIST, buf,
			     NDIS_BSSID_LIST_SIZE, &written);
	if (err)
		goto out;
	if (ndis_bssid_walk_start(&walk, buf, written, NDIS_BSSID_LIST_SIZE)) {
		err = -EIO;
		goto out;
	}
	while (ndis_bssid_walk_next(&walk, &b)) {
		ev = ndis_wext_bss_events(info, ev, end, &b);
		if (IS_ERR(ev)) {
			err = PTR_ERR(ev);	/* iwlist asks again, larger */
			goto out;
		}
	}
	wrqu->data.length = ev - extra;
	wrqu->data.flags = 0;
out:
	kvfree(buf);
	return err;
}

/* -- the table ------------------------------------------------------------- */

static const iw_handler ndis_wext_handlers[] = {
	IW_HANDLER(SIOCGIWNAME, ndis_wext_get_name),
	IW_HANDLER(SIOCGIWFREQ, ndis_wext_get_freq),
	IW_HANDLER(SIOCSIWMODE, ndis_wext_set_mode),
	IW_HANDLER(SIOCGIWMODE, ndis_wext_get_mode),
	IW_HANDLER(SIOCGIWRANGE, ndis_wext_get_range),
	IW_HANDLER(SIOCSIWAP, ndis_wext_set_ap),
	IW_HANDLER(SIOCGIWAP, ndis_wext_get_ap),
	IW_HANDLER(SIOCSIWSCAN, ndis_wext_set_scan),
	IW_HANDLER(SIOCGIWSCAN, ndis_wext_get_scan),
	IW_HANDLER(SIOCSIWESSID, ndis_wext_set_essid),
	IW_HANDLER(SIOCGIWESSID, ndis_wext_get_essid),
	IW_HANDLER(SIOCGIWRATE, ndis_wext_get_rate),
	IW_HANDLER(SIOCSIWAUTH, ndis_wext_set_auth),
	IW_HANDLER(SIOCSIWGENIE, ndis_wext_set_genie),
	IW_HANDLER(SIOCSIWENCODEEXT, ndis_wext_set_encodeext),
	IW_HANDLER(SIOCSIWMLME, ndis_wext_set_mlme),
};

static const struct iw_handler_def ndis_wext_handler_def = {
	.standard	= ndis_wext_handlers,
	.num_standard	= ARRAY_SIZE(ndis_wext_handlers),
};

/* -- link events and the adapter's life ------------------------------------ */

/* The association's request and response IEs, where the driver has them. */
static void ndis_wext_assoc_events(struct ndis_adapter *ad)
{
	struct ndis_assoc_ies ies;
	union iwreq_data wrqu = {};
	u32 written;
	u8 *buf;

	buf = kzalloc(NDIS_ASSOC_INFO_SIZE, GFP_KERNEL);
	if (!buf ||
	    ndis_query_oid(ad, OID_802_11_ASSOCIATION_INFORMATION, buf,
			   NDIS_ASSOC_INFO_SIZE, &written) ||
	    ndis_assoc_ies(buf, min_t(u32, written, NDIS_ASSOC_INFO_SIZE),
			   &ies))
		goto out;
	if (ies.req_len) {
		wrqu.data.length = ies.req_len;
		wireless_send_event(ad->net, IWEVASSOCREQIE, &wrqu,
				    (const char *)ies.req);
	}
	if (ies.resp_len) {
		wrqu.data.length = ies.resp_len;
		wireless_send_event(ad->net, IWEVASSOCRESPIE, &wrqu,
				    (const char *)ies.resp);
	}
out:
	kfree(buf);
}

/* What the driver is associated to now, as SIOCGIWAP (zeros: none). */
static void ndis_wext_event_work(struct work_struct *work)
{
	struct ndis_adapter *ad = container_of(work, struct ndis_adapter,
					       wext.event_work);
	union iwreq_data wrqu = {};
	u8 bssid[ETH_ALEN];

	if (ndis_wext_associated(ad, bssid))
		ndis_wext_assoc_events(ad);
	else
		eth_zero_addr(bssid);
	wrqu.ap_addr.sa_family = ARPHRD_ETHER;
	memcpy(wrqu.ap_addr.sa_data, bssid, ETH_ALEN);
	wireless_send_event(ad->net, SIOCGIWAP, &wrqu, NULL);
}

/*
 * With the net device, before it is registered. The state lives in the
 * adapter (ad->wext): an indication racing the adapter's end never finds
 * it freed, only switched off.
 */
int ndis_wext_alloc(struct ndis_adapter *ad)
{
	struct ndis_wext *wx = &ad->wext;

	mutex_init(&wx->lock);
	spin_lock_init(&wx->queue_lock);
	INIT_WORK(&wx->event_work, ndis_wext_event_work);
	wx->dead = false;
	memset(&wx->auth, 0, sizeof(wx->auth));	/* open until told */
	ad->net->wireless_handlers = &ndis_wext_handler_def;
	/* the fields above before an indication looks at them */
	smp_store_release(&wx->on, true);
	return 0;
}

/* No event_work from here on, none running. */
void ndis_wext_quiesce(struct ndis_adapter *ad)
{
	struct ndis_wext *wx = &ad->wext;
	unsigned long flags;

	if (!smp_load_acquire(&wx->on))
		return;
	spin_lock_irqsave(&wx->queue_lock, flags);
	wx->dead = true;
	spin_unlock_irqrestore(&wx->queue_lock, flags);
	cancel_work_sync(&wx->event_work);
}

/* Before free_netdev(), or when the adapter turns out to be wired. */
void ndis_wext_free(struct ndis_adapter *ad)
{
	if (!smp_load_acquire(&ad->wext.on))
		return;
	ndis_wext_quiesce(ad);
	ad->net->wireless_handlers = NULL;
}

/* MIC failures and PMKID candidates as their wireless events. */
static void ndis_wext_media_specific(struct ndis_adapter *ad,
				     const void *buf, u32 len)
{
	struct ndis_80211_event ev[8];
	union iwreq_data wrqu = {};
	int i, n;

	n = ndis_80211_indication(buf, buf ? len : 0, ev, ARRAY_SIZE(ev));
	for (i = 0; i < n; i++) {
		if (ev[i].kind == NDIS_EV_MIC_FAILURE) {
			struct iw_michaelmicfailure mic = {};

			mic.flags = ev[i].group ? IW_MICFAILURE_GROUP :
						  IW_MICFAILURE_PAIRWISE;
			mic.src_addr.sa_family = ARPHRD_ETHER;
			memcpy(mic.src_addr.sa_data, ev[i].bssid, ETH_ALEN);
			wrqu.data.length = sizeof(mic);
			wireless_send_event(ad->net, IWEVMICHAELMICFAILURE,
					    &wrqu, (const char *)&mic);
		} else {
			struct iw_pmkid_cand cand = {};

			cand.flags = ev[i].preauth ? IW_PMKID_CAND_PREAUTH : 0;
			cand.index = ev[i].index;
			cand.bssid.sa_family = ARPHRD_ETHER;
			memcpy(cand.bssid.sa_data, ev[i].bssid, ETH_ALEN);
			wrqu.data.length = sizeof(cand);
			wireless_send_event(ad->net, IWEVPMKIDCAND, &wrqu,
					    (const char *)&cand);
		}
	}
}

/* NdisMIndicateStatus, any context: event_work asks the driver. */
void ndis_wext_status(struct ndis_adapter *ad, ndis_status status,
		      const void *buf, u32 len)
{
	struct ndis_wext *wx = &ad->wext;
	unsigned long flags;

	if (!smp_load_acquire(&wx->on) ||
	    (status != NDIS_STATUS_MEDIA_CONNECT &&
	     status != NDIS_STATUS_MEDIA_DISCONNECT &&
	     status != NDIS_STATUS_MEDIA_SPECIFIC_INDICATION))
		return;
	spin_lock_irqsave(&wx->queue_lock, flags);
	if (!wx->dead && status == NDIS_STATUS_MEDIA_SPECIFIC_INDICATION)
		ndis_wext_media_specific(ad, buf, len);
	else if (!wx->dead)
		queue_work(ndis_work_wq, &wx->event_work);
	spin_unlock_irqrestore(&wx->queue_lock, flags);
}
