/*
 * ndisbench WPA2-PSK (RSN) key derivation, key wrap and CCMP
 *
 * Copyright (c) 2026 The ndisbench authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The access point's crypto core, on QEMU's crypto API (crypto/: PBKDF2,
 * HMAC-SHA1 and AES-128 ECB; the bench's QEMU is configured with nettle).
 * CCM is not a mode of that API, so it is built here on AES ECB from its
 * definition (RFC 3610), with M = 8 and L = 2 as CCMP uses it.
 *
 * Nothing here keeps QEMU state or traces: the AP (wlan-ap.c) traces and
 * counts, and the qtest ndisbench-rsn-test links this file alone with
 * QEMU's crypto library to check it against the published vectors
 * (IEEE 802.11 annex J, RFC 3610, RFC 3394).
 *
 * What each piece is, after IEEE 802.11-2012 clause 11.6 (keys) and
 * 11.4.3 (CCMP):
 *   PMK  = PBKDF2-HMAC-SHA1(passphrase, SSID, 4096 iterations, 32 bytes)
 *   PTK  = PRF-384(PMK, "Pairwise key expansion", min(AA, SPA) ||
 *          max(AA, SPA) || min(ANonce, SNonce) || max(ANonce, SNonce)),
 *          split into KCK (EAPOL-Key MIC key), KEK (key wrap key), TK
 *   MIC  = HMAC-SHA1 of the EAPOL frame (MIC field zero) with the KCK,
 *          first 16 bytes (key descriptor version 2)
 *   GTK  = sent in message 3, wrapped with the KEK (RFC 3394)
 *   CCMP = AES-CCM over the MPDU body with the TK, a 48-bit packet
 *          number (PN) per key in an 8-byte header, an 8-byte MIC
 */
#ifndef NDISBENCH_WLAN_RSN_H
#define NDISBENCH_WLAN_RSN_H

#include "crypto/cipher.h"

#define WLAN_PMK_LEN            32
#define WLAN_NONCE_LEN          32
#define WLAN_KCK_LEN            16
#define WLAN_KEK_LEN            16
#define WLAN_TK_LEN             16
#define WLAN_GTK_LEN            16
#define WLAN_EAPOL_MIC_LEN      16
#define WLAN_PASSPHRASE_MIN     8
#define WLAN_PASSPHRASE_MAX     63
#define WLAN_SSID_LEN_MAX       32

#define WLAN_KEYWRAP_BLOCK      8
#define WLAN_CCM_NONCE_LEN      13      /* 15 - L, L = 2 */
#define WLAN_CCM_MIC_LEN        8       /* M */
#define WLAN_CCM_MAX_LEN        0xffff  /* 2^(8L) - 1 */
#define WLAN_CCMP_HDR_LEN       8
#define WLAN_CCMP_OVERHEAD      (WLAN_CCMP_HDR_LEN + WLAN_CCM_MIC_LEN)
#define WLAN_CCMP_PN_MAX        0xffffffffffffULL
/* The CCMP header's fourth byte: Ext IV, and the key id in bits 6..7. */
#define WLAN_CCMP_EXT_IV        0x20
#define WLAN_CCMP_KEY_ID_SHIFT  6
/* One receive replay counter per TID (a non-QoS frame counts as TID 0). */
#define WLAN_CCMP_TIDS          16

typedef struct WlanPtk {
    uint8_t kck[WLAN_KCK_LEN];
    uint8_t kek[WLAN_KEK_LEN];
    uint8_t tk[WLAN_TK_LEN];
} WlanPtk;

/*
 * PMK from a passphrase of 8 to 63 printable ASCII characters (802.11
 * annex J.4's mapping) and an SSID of up to 32 bytes.
 */
bool wlan_rsn_pmk(const char *passphrase, const uint8_t *ssid,
                  size_t ssid_len, uint8_t pmk[WLAN_PMK_LEN], Error **errp);

/* Is this a passphrase wlan_rsn_pmk() takes? (the reason in errp if not) */
bool wlan_rsn_passphrase_valid(const char *passphrase, Error **errp);

/*
 * 802.11's PRF (HMAC-SHA1 of key over label || 0 || data || counter,
 * counter 0, 1, ...), out_len bytes of it.
 */
bool wlan_rsn_prf(const uint8_t *key, size_t key_len, const char *label,
                  const uint8_t *data, size_t data_len,
                  uint8_t *out, size_t out_len, Error **errp);

/* The CCMP PTK of a handshake: AA is the authenticator's (AP's) address. */
bool wlan_rsn_ptk(const uint8_t pmk[WLAN_PMK_LEN], const uint8_t aa[6],
                  const uint8_t spa[6], const uint8_t anonce[WLAN_NONCE_LEN],
                  const uint8_t snonce[WLAN_NONCE_LEN], WlanPtk *ptk,
                  Error **errp);

/*
 * The Key MIC of an EAPOL-Key frame (key descriptor version 2:
 * HMAC-SHA1-128), computed over frame as given: its MIC field must be
 * zero.
 */
bool wlan_rsn_eapol_mic(const uint8_t kck[WLAN_KCK_LEN],
                        const uint8_t *frame, size_t len,
                        uint8_t mic[WLAN_EAPOL_MIC_LEN], Error **errp);

/*
 * AES key wrap (RFC 3394, default IV, 128-bit KEK): len is a multiple of
 * 8, at least 16; out gets len + 8 bytes. Unwrap takes len bytes (a
 * multiple of 8, at least 24), gives len - 8, and fails when the
 * integrity check value does not come out (a wrong KEK or a changed
 * byte).
 */
bool wlan_rsn_aes_wrap(const uint8_t kek[WLAN_KEK_LEN], const uint8_t *in,
                       size_t len, uint8_t *out, Error **errp);
bool wlan_rsn_aes_unwrap(const uint8_t kek[WLAN_KEK_LEN], const uint8_t *in,
                         size_t len, uint8_t *out, Error **errp);

/*
 * AES-128-CCM, M = 8, L = 2 (RFC 3610): aes is an AES-128 ECB cipher
 * with the key. Encrypt writes len bytes of ciphertext and the 8-byte
 * encrypted MIC after them (len + 8); decrypt takes the len bytes of
 * ciphertext followed by the MIC and writes len plaintext bytes, or
 * fails (and clears out) when the MIC does not match. aad_len < 0xff00.
 */
bool wlan_ccm_encrypt(QCryptoCipher *aes,
                      const uint8_t nonce[WLAN_CCM_NONCE_LEN],
                      const uint8_t *aad, size_t aad_len,
                      const uint8_t *in, size_t len, uint8_t *out,
                      Error **errp);
bool wlan_ccm_decrypt(QCryptoCipher *aes,
                      const uint8_t nonce[WLAN_CCM_NONCE_LEN],
                      const uint8_t *aad, size_t aad_len,
                      const uint8_t *in, size_t len,
                      const uint8_t mic[WLAN_CCM_MIC_LEN], uint8_t *out,
                      Error **errp);

/* A CCMP key (a station's pairwise key, or the group key) and its PNs. */
typedef struct WlanCcmpKey {
    QCryptoCipher *aes;         /* AES-128 ECB with the TK */
    uint8_t key_id;             /* 0 pairwise, 1..3 group */
    uint64_t tx_pn;             /* the last PN sent (the next is +1) */
    uint64_t rx_pn[WLAN_CCMP_TIDS];     /* the highest PN accepted */
} WlanCcmpKey;

bool wlan_ccmp_key_init(WlanCcmpKey *key, const uint8_t tk[WLAN_TK_LEN],
                        uint8_t key_id, Error **errp);
void wlan_ccmp_key_clear(WlanCcmpKey *key);

typedef enum WlanCcmpError {
    WLAN_CCMP_OK = 0,
    WLAN_CCMP_ERR_SHORT,        /* no room for header, CCMP header, MIC */
    WLAN_CCMP_ERR_NOT_DATA,     /* only data frames are protected here */
    WLAN_CCMP_ERR_UNPROTECTED,  /* Protected bit clear */
    WLAN_CCMP_ERR_EXT_IV,       /* Ext IV bit clear: not CCMP */
    WLAN_CCMP_ERR_KEY_ID,       /* another key's frame */
    WLAN_CCMP_ERR_REPLAY,       /* PN not above the TID's counter */
    WLAN_CCMP_ERR_MIC,          /* MIC mismatch: forged or wrong key */
    WLAN_CCMP_ERR_TOO_LONG,     /* longer than CCM's L = 2 allows */
    WLAN_CCMP_ERR_PN_EXHAUSTED, /* the sender's PN would wrap */
    WLAN_CCMP_ERR_CIPHER,       /* the crypto backend failed */
    WLAN_CCMP_ERR_COUNT,
} WlanCcmpError;

const char *wlan_ccmp_error_str(WlanCcmpError err);

/*
 * Protect a data frame (MAC header, then the plaintext body; no FCS):
 * out gets the header with the Protected bit set, the CCMP header with
 * the key's next PN, the encrypted body and the MIC (len + 16 bytes,
 * out_size at least that; out does not overlap frame). key->tx_pn
 * advances.
 */
WlanCcmpError wlan_ccmp_encap(WlanCcmpKey *key, const uint8_t *frame,
                              size_t len, uint8_t *out, size_t out_size,
                              size_t *out_len);

/*
 * Check and open a protected data frame: out (len - 16 bytes at most)
 * gets its MAC header with the Protected bit clear and the plaintext
 * body (out does not overlap frame). The PN must be above the counter of the frame's TID, which it
 * becomes once the MIC matched; a frame that fails leaves the counters
 * as they were.
 */
WlanCcmpError wlan_ccmp_decap(WlanCcmpKey *key, const uint8_t *frame,
                              size_t len, uint8_t *out, size_t *out_len);

/* The MAC header length of a data frame (0 if too short or not data). */
size_t wlan_ccmp_data_hdr_len(const uint8_t *frame, size_t len);

#endif /* NDISBENCH_WLAN_RSN_H */
