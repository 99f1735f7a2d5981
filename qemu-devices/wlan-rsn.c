/*
 * ndisbench WPA2-PSK (RSN) key derivation, key wrap and CCMP
 *
 * Copyright (c) 2026 The ndisbench authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * See wlan-rsn.h. The primitives (PBKDF2, HMAC-SHA1, AES) are QEMU's
 * crypto API; the constructions on top (802.11's PRF, RFC 3394 key wrap,
 * RFC 3610 CCM, CCMP's nonce and AAD) are written here from their
 * definitions.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/bswap.h"
#include "crypto/cipher.h"
#include "crypto/hmac.h"
#include "crypto/pbkdf.h"
#include "wlan-frame.h"
#include "wlan-rsn.h"

#define WLAN_RSN_PBKDF2_ITERATIONS      4096
#define WLAN_SHA1_LEN                   20
#define AES_BLOCK                       16

/* -- keys ------------------------------------------------------------------ */

bool wlan_rsn_passphrase_valid(const char *passphrase, Error **errp)
{
    size_t len = strlen(passphrase);

    if (len < WLAN_PASSPHRASE_MIN || len > WLAN_PASSPHRASE_MAX) {
        error_setg(errp, "a WPA2 passphrase is %d to %d characters long, "
                   "not %zu", WLAN_PASSPHRASE_MIN, WLAN_PASSPHRASE_MAX, len);
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        if (passphrase[i] < 0x20 || passphrase[i] > 0x7e) {
            error_setg(errp, "a WPA2 passphrase is printable ASCII "
                       "(character %zu is 0x%02x)", i + 1,
                       (uint8_t)passphrase[i]);
            return false;
        }
    }
    return true;
}

bool wlan_rsn_pmk(const char *passphrase, const uint8_t *ssid,
                  size_t ssid_len, uint8_t pmk[WLAN_PMK_LEN], Error **errp)
{
    if (!wlan_rsn_passphrase_valid(passphrase, errp)) {
        return false;
    }
    if (ssid_len < 1 || ssid_len > WLAN_SSID_LEN_MAX) {
        error_setg(errp, "an SSID is 1 to %d bytes long, not %zu",
                   WLAN_SSID_LEN_MAX, ssid_len);
        return false;
    }
    return qcrypto_pbkdf2(QCRYPTO_HASH_ALG_SHA1,
                          (const uint8_t *)passphrase, strlen(passphrase),
                          ssid, ssid_len, WLAN_RSN_PBKDF2_ITERATIONS,
                          pmk, WLAN_PMK_LEN, errp) == 0;
}

bool wlan_rsn_prf(const uint8_t *key, size_t key_len, const char *label,
                  const uint8_t *data, size_t data_len,
                  uint8_t *out, size_t out_len, Error **errp)
{
    g_autoptr(QCryptoHmac) hmac = NULL;
    uint8_t zero = 0, counter, block[WLAN_SHA1_LEN];
    uint8_t *result = block;
    size_t done = 0, result_len;
    struct iovec iov[] = {
        { .iov_base = (void *)label, .iov_len = strlen(label) },
        { .iov_base = &zero, .iov_len = 1 },
        { .iov_base = (void *)data, .iov_len = data_len },
        { .iov_base = &counter, .iov_len = 1 },
    };

    if (out_len > 255 * WLAN_SHA1_LEN) {
        error_setg(errp, "PRF output of %zu bytes is past its one-byte "
                   "counter", out_len);
        return false;
    }
    hmac = qcrypto_hmac_new(QCRYPTO_HASH_ALG_SHA1, key, key_len, errp);
    if (!hmac) {
        return false;
    }
    for (counter = 0; done < out_len; counter++) {
        size_t n = MIN(out_len - done, WLAN_SHA1_LEN);

        result_len = sizeof(block);
        if (qcrypto_hmac_bytesv(hmac, iov, ARRAY_SIZE(iov), &result,
                                &result_len, errp) < 0) {
            return false;
        }
        memcpy(out + done, block, n);
        done += n;
    }
    return true;
}

static const uint8_t *wlan_rsn_min(const uint8_t *a, const uint8_t *b,
                                   size_t len)
{
    return memcmp(a, b, len) < 0 ? a : b;
}

static const uint8_t *wlan_rsn_max(const uint8_t *a, const uint8_t *b,
                                   size_t len)
{
    return memcmp(a, b, len) < 0 ? b : a;
}

bool wlan_rsn_ptk(const uint8_t pmk[WLAN_PMK_LEN], const uint8_t aa[6],
                  const uint8_t spa[6], const uint8_t anonce[WLAN_NONCE_LEN],
                  const uint8_t snonce[WLAN_NONCE_LEN], WlanPtk *ptk,
                  Error **errp)
{
    uint8_t data[2 * 6 + 2 * WLAN_NONCE_LEN];
    uint8_t out[sizeof(WlanPtk)];

    memcpy(data, wlan_rsn_min(aa, spa, 6), 6);
    memcpy(data + 6, wlan_rsn_max(aa, spa, 6), 6);
    memcpy(data + 12, wlan_rsn_min(anonce, snonce, WLAN_NONCE_LEN),
           WLAN_NONCE_LEN);
    memcpy(data + 12 + WLAN_NONCE_LEN,
           wlan_rsn_max(anonce, snonce, WLAN_NONCE_LEN), WLAN_NONCE_LEN);
    if (!wlan_rsn_prf(pmk, WLAN_PMK_LEN, "Pairwise key expansion",
                      data, sizeof(data), out, sizeof(out), errp)) {
        return false;
    }
    memcpy(ptk->kck, out, WLAN_KCK_LEN);
    memcpy(ptk->kek, out + WLAN_KCK_LEN, WLAN_KEK_LEN);
    memcpy(ptk->tk, out + WLAN_KCK_LEN + WLAN_KEK_LEN, WLAN_TK_LEN);
    return true;
}

bool wlan_rsn_eapol_mic(const uint8_t kck[WLAN_KCK_LEN],
                        const uint8_t *frame, size_t len,
                        uint8_t mic[WLAN_EAPOL_MIC_LEN], Error **errp)
{
    g_autoptr(QCryptoHmac) hmac = NULL;
    uint8_t digest[WLAN_SHA1_LEN];
    uint8_t *result = digest;
    size_t result_len = sizeof(digest);

    hmac = qcrypto_hmac_new(QCRYPTO_HASH_ALG_SHA1, kck, WLAN_KCK_LEN, errp);
    if (!hmac || qcrypto_hmac_bytes(hmac, (const char *)frame, len, &result,
                                    &result_len, errp) < 0) {
        return false;
    }
    memcpy(mic, digest, WLAN_EAPOL_MIC_LEN);
    return true;
}

/* -- AES key wrap (RFC 3394 section 2.2) ----------------------------------- */

static const uint8_t wlan_keywrap_iv[WLAN_KEYWRAP_BLOCK] = {
    0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6,
};

/* A ^= t, t as a 64-bit big-endian number */
static void wlan_keywrap_xor_t(uint8_t *a, uint64_t t)
{
    for (int i = WLAN_KEYWRAP_BLOCK - 1; i >= 0 && t; i--, t >>= 8) {
        a[i] ^= t & 0xff;
    }
}

bool wlan_rsn_aes_wrap(const uint8_t kek[WLAN_KEK_LEN], const uint8_t *in,
                       size_t len, uint8_t *out, Error **errp)
{
    g_autoptr(QCryptoCipher) aes = NULL;
    size_t n = len / WLAN_KEYWRAP_BLOCK;
    uint8_t b[AES_BLOCK];

    if (len % WLAN_KEYWRAP_BLOCK || n < 2) {
        error_setg(errp, "key wrap takes a multiple of 8 bytes, at least "
                   "16, not %zu", len);
        return false;
    }
    aes = qcrypto_cipher_new(QCRYPTO_CIPHER_ALG_AES_128,
                             QCRYPTO_CIPHER_MODE_ECB, kek, WLAN_KEK_LEN, errp);
    if (!aes) {
        return false;
    }
    /* A = out[0..7], R[i] = out[8i..8i+7] */
    memmove(out + WLAN_KEYWRAP_BLOCK, in, len);
    memcpy(out, wlan_keywrap_iv, WLAN_KEYWRAP_BLOCK);
    for (uint64_t j = 0; j <= 5; j++) {
        for (size_t i = 1; i <= n; i++) {
            uint8_t *r = out + i * WLAN_KEYWRAP_BLOCK;

            memcpy(b, out, WLAN_KEYWRAP_BLOCK);
            memcpy(b + WLAN_KEYWRAP_BLOCK, r, WLAN_KEYWRAP_BLOCK);
            if (qcrypto_cipher_encrypt(aes, b, b, AES_BLOCK, errp) < 0) {
                return false;
            }
            memcpy(out, b, WLAN_KEYWRAP_BLOCK);
            wlan_keywrap_xor_t(out, n * j + i);
            memcpy(r, b + WLAN_KEYWRAP_BLOCK, WLAN_KEYWRAP_BLOCK);
        }
    }
    return true;
}

bool wlan_rsn_aes_unwrap(const uint8_t kek[WLAN_KEK_LEN], const uint8_t *in,
                         size_t len, uint8_t *out, Error **errp)
{
    g_autoptr(QCryptoCipher) aes = NULL;
    size_t n = len / WLAN_KEYWRAP_BLOCK - 1;
    uint8_t a[WLAN_KEYWRAP_BLOCK], b[AES_BLOCK];

    if (len % WLAN_KEYWRAP_BLOCK || len < 3 * WLAN_KEYWRAP_BLOCK) {
        error_setg(errp, "key unwrap takes a multiple of 8 bytes, at least "
                   "24, not %zu", len);
        return false;
    }
    aes = qcrypto_cipher_new(QCRYPTO_CIPHER_ALG_AES_128,
                             QCRYPTO_CIPHER_MODE_ECB, kek, WLAN_KEK_LEN, errp);
    if (!aes) {
        return false;
    }
    memcpy(a, in, WLAN_KEYWRAP_BLOCK);
    memmove(out, in + WLAN_KEYWRAP_BLOCK, len - WLAN_KEYWRAP_BLOCK);
    for (int64_t j = 5; j >= 0; j--) {
        for (size_t i = n; i >= 1; i--) {
            uint8_t *r = out + (i - 1) * WLAN_KEYWRAP_BLOCK;

            memcpy(b, a, WLAN_KEYWRAP_BLOCK);
            wlan_keywrap_xor_t(b, n * j + i);
            memcpy(b + WLAN_KEYWRAP_BLOCK, r, WLAN_KEYWRAP_BLOCK);
            if (qcrypto_cipher_decrypt(aes, b, b, AES_BLOCK, errp) < 0) {
                memset(out, 0, len - WLAN_KEYWRAP_BLOCK);
                return false;
            }
            memcpy(a, b, WLAN_KEYWRAP_BLOCK);
            memcpy(r, b + WLAN_KEYWRAP_BLOCK, WLAN_KEYWRAP_BLOCK);
        }
    }
    if (memcmp(a, wlan_keywrap_iv, WLAN_KEYWRAP_BLOCK)) {
        memset(out, 0, len - WLAN_KEYWRAP_BLOCK);
        error_setg(errp, "key unwrap: integrity check failed (wrong KEK or "
                   "altered data)");
        return false;
    }
    return true;
}

/* -- CCM (RFC 3610 section 2), M = 8, L = 2 -------------------------------- */

#define CCM_L                   2
#define CCM_FLAGS_ADATA         0x40
#define CCM_FLAGS_M             (((WLAN_CCM_MIC_LEN - 2) / 2) << 3)
#define CCM_FLAGS_L             (CCM_L - 1)
#define CCM_AAD_SHORT_MAX       0xfeff  /* two-byte l(a) encoding */

static void xor_block(uint8_t *x, const uint8_t *y, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        x[i] ^= y[i];
    }
}

/* CBC-MAC: X <- E(K, X xor block) for each (zero-padded) block of buf */
static bool ccm_mac_blocks(QCryptoCipher *aes, uint8_t x[AES_BLOCK],
                           const uint8_t *buf, size_t len, Error **errp)
{
    while (len) {
        size_t n = MIN(len, AES_BLOCK);

        xor_block(x, buf, n);
        if (qcrypto_cipher_encrypt(aes, x, x, AES_BLOCK, errp) < 0) {
            return false;
        }
        buf += n;
        len -= n;
    }
    return true;
}

/* T, the unencrypted authentication value (first M bytes of tag) */
static bool ccm_tag(QCryptoCipher *aes, const uint8_t *nonce,
                    const uint8_t *aad, size_t aad_len,
                    const uint8_t *msg, size_t len,
                    uint8_t tag[AES_BLOCK], Error **errp)
{
    uint8_t b0[AES_BLOCK], head[AES_BLOCK] = { 0 };
    size_t first;

    b0[0] = (aad_len ? CCM_FLAGS_ADATA : 0) | CCM_FLAGS_M | CCM_FLAGS_L;
    memcpy(b0 + 1, nonce, WLAN_CCM_NONCE_LEN);
    stw_be_p(b0 + 1 + WLAN_CCM_NONCE_LEN, len);
    memset(tag, 0, AES_BLOCK);
    if (!ccm_mac_blocks(aes, tag, b0, AES_BLOCK, errp)) {
        return false;
    }
    if (aad_len) {
        /* l(a) in two bytes, then a, the whole zero-padded to blocks */
        stw_be_p(head, aad_len);
        first = MIN(aad_len, AES_BLOCK - 2);
        memcpy(head + 2, aad, first);
        if (!ccm_mac_blocks(aes, tag, head, AES_BLOCK, errp) ||
            !ccm_mac_blocks(aes, tag, aad + first, aad_len - first, errp)) {
            return false;
        }
    }
    return ccm_mac_blocks(aes, tag, msg, len, errp);
}

/* A_i = flags || nonce || i; out = in xor S_1, S_2, ...; s0 = S_0 */
static bool ccm_ctr(QCryptoCipher *aes, const uint8_t *nonce,
                    const uint8_t *in, size_t len, uint8_t *out,
                    uint8_t s0[AES_BLOCK], Error **errp)
{
    uint8_t a[AES_BLOCK], s[AES_BLOCK];

    a[0] = CCM_FLAGS_L;
    memcpy(a + 1, nonce, WLAN_CCM_NONCE_LEN);
    for (uint32_t i = 0; i == 0 || len; i++) {
        stw_be_p(a + 1 + WLAN_CCM_NONCE_LEN, i);
        if (qcrypto_cipher_encrypt(aes, a, s, AES_BLOCK, errp) < 0) {
            return false;
        }
        if (i == 0) {
            memcpy(s0, s, AES_BLOCK);
        } else {
            size_t n = MIN(len, AES_BLOCK);

            memmove(out, in, n);
            xor_block(out, s, n);
            in += n;
            out += n;
            len -= n;
        }
    }
    return true;
}

static bool ccm_check_lengths(size_t aad_len, size_t len, Error **errp)
{
    if (aad_len > CCM_AAD_SHORT_MAX) {
        error_setg(errp, "CCM: %zu bytes of additional data are more than "
                   "this implementation encodes", aad_len);
        return false;
    }
    if (len > WLAN_CCM_MAX_LEN) {
        error_setg(errp, "CCM: a %zu-byte message is longer than L = 2 "
                   "allows", len);
        return false;
    }
    return true;
}

bool wlan_ccm_encrypt(QCryptoCipher *aes,
                      const uint8_t nonce[WLAN_CCM_NONCE_LEN],
                      const uint8_t *aad, size_t aad_len,
                      const uint8_t *in, size_t len, uint8_t *out,
                      Error **errp)
{
    uint8_t tag[AES_BLOCK], s0[AES_BLOCK];

    if (!ccm_check_lengths(aad_len, len, errp) ||
        !ccm_tag(aes, nonce, aad, aad_len, in, len, tag, errp) ||
        !ccm_ctr(aes, nonce, in, len, out, s0, errp)) {
        return false;
    }
    xor_block(tag, s0, WLAN_CCM_MIC_LEN);
    memcpy(out + len, tag, WLAN_CCM_MIC_LEN);
    return true;
}

bool wlan_ccm_decrypt(QCryptoCipher *aes,
                      const uint8_t nonce[WLAN_CCM_NONCE_LEN],
                      const uint8_t *aad, size_t aad_len,
                      const uint8_t *in, size_t len,
                      const uint8_t mic[WLAN_CCM_MIC_LEN], uint8_t *out,
                      Error **errp)
{
    uint8_t tag[AES_BLOCK], s0[AES_BLOCK], diff = 0;

    if (!ccm_check_lengths(aad_len, len, errp) ||
        !ccm_ctr(aes, nonce, in, len, out, s0, errp) ||
        !ccm_tag(aes, nonce, aad, aad_len, out, len, tag, errp)) {
        memset(out, 0, len);
        return false;
    }
    xor_block(tag, s0, WLAN_CCM_MIC_LEN);
    /* every byte compared, whatever the first difference */
    for (int i = 0; i < WLAN_CCM_MIC_LEN; i++) {
        diff |= tag[i] ^ mic[i];
    }
    if (diff) {
        memset(out, 0, len);
        error_setg(errp, "CCM: MIC mismatch");
        return false;
    }
    return true;
}

/* -- CCMP (IEEE 802.11-2012 11.4.3) ---------------------------------------- */

#define WLAN_FC1_PWRMGT         0x10
#define WLAN_FC1_MOREDATA       0x20
#define WLAN_FC0_SUBTYPE_MASK   0x70    /* subtype bits 4..6 of a data frame */
#define WLAN_QOS_TID_MASK       0x0f
#define WLAN_SC_FRAG_MASK       0x000f

static const char *const wlan_ccmp_errors[WLAN_CCMP_ERR_COUNT] = {
    [WLAN_CCMP_OK] = "ok",
    [WLAN_CCMP_ERR_SHORT] = "too short for CCMP",
    [WLAN_CCMP_ERR_NOT_DATA] = "not a data frame",
    [WLAN_CCMP_ERR_UNPROTECTED] = "Protected bit clear",
    [WLAN_CCMP_ERR_EXT_IV] = "Ext IV clear (not CCMP)",
    [WLAN_CCMP_ERR_KEY_ID] = "wrong key id",
    [WLAN_CCMP_ERR_REPLAY] = "replayed PN",
    [WLAN_CCMP_ERR_MIC] = "MIC mismatch",
    [WLAN_CCMP_ERR_TOO_LONG] = "too long for CCM",
    [WLAN_CCMP_ERR_PN_EXHAUSTED] = "PN exhausted",
    [WLAN_CCMP_ERR_CIPHER] = "cipher failure",
};

const char *wlan_ccmp_error_str(WlanCcmpError err)
{
    return (unsigned)err < WLAN_CCMP_ERR_COUNT ? wlan_ccmp_errors[err]
                                               : "unknown";
}

bool wlan_ccmp_key_init(WlanCcmpKey *key, const uint8_t tk[WLAN_TK_LEN],
                        uint8_t key_id, Error **errp)
{
    memset(key, 0, sizeof(*key));
    if (key_id > 3) {
        error_setg(errp, "CCMP: key id %u is not 0..3", key_id);
        return false;
    }
    key->aes = qcrypto_cipher_new(QCRYPTO_CIPHER_ALG_AES_128,
                                  QCRYPTO_CIPHER_MODE_ECB, tk, WLAN_TK_LEN,
                                  errp);
    key->key_id = key_id;
    return key->aes != NULL;
}

void wlan_ccmp_key_clear(WlanCcmpKey *key)
{
    qcrypto_cipher_free(key->aes);
    memset(key, 0, sizeof(*key));
}

static bool wlan_ccmp_is_qos(const uint8_t *frame)
{
    return WLAN_FC_SUBTYPE(frame[0]) & WLAN_DATA_QOS;
}

size_t wlan_ccmp_data_hdr_len(const uint8_t *frame, size_t len)
{
    size_t hdr = WLAN_HDR_LEN;

    if (len < 2 || WLAN_FC_TYPE(frame[0]) != WLAN_TYPE_DATA) {
        return 0;
    }
    if ((frame[1] & (WLAN_FC1_TODS | WLAN_FC1_FROMDS)) ==
        (WLAN_FC1_TODS | WLAN_FC1_FROMDS)) {
        hdr += WLAN_ADDR4_LEN;
    }
    if (wlan_ccmp_is_qos(frame)) {
        hdr += WLAN_QOS_LEN;
        if (frame[1] & WLAN_FC1_ORDER) {
            hdr += WLAN_HTC_LEN;
        }
    }
    return len < hdr ? 0 : hdr;
}

/*
 * The nonce (priority, A2, PN5..PN0) and AAD (masked frame control, A1,
 * A2, A3, sequence control with only the fragment number, A4 and the QoS
 * control's TID when present) of a data frame whose header is whole.
 */
static size_t wlan_ccmp_nonce_aad(const uint8_t *frame, uint64_t pn,
                                  uint8_t *nonce, uint8_t *aad)
{
    bool qos = wlan_ccmp_is_qos(frame);
    bool addr4 = (frame[1] & (WLAN_FC1_TODS | WLAN_FC1_FROMDS)) ==
                 (WLAN_FC1_TODS | WLAN_FC1_FROMDS);
    size_t qc_at = WLAN_HDR_LEN + (addr4 ? WLAN_ADDR4_LEN : 0);
    uint8_t tid = qos ? frame[qc_at] & WLAN_QOS_TID_MASK : 0;
    size_t n = 0;
    uint8_t fc1;

    nonce[0] = tid;
    memcpy(nonce + 1, frame + 10, 6);
    for (int i = 0; i < 6; i++) {
        nonce[7 + i] = pn >> (8 * (5 - i));
    }

    fc1 = frame[1] & ~(WLAN_FC1_RETRY | WLAN_FC1_PWRMGT | WLAN_FC1_MOREDATA);
    fc1 |= WLAN_FC1_PROTECTED;
    if (qos) {
        fc1 &= ~WLAN_FC1_ORDER;
    }
    aad[n++] = frame[0] & ~WLAN_FC0_SUBTYPE_MASK;
    aad[n++] = fc1;
    memcpy(aad + n, frame + 4, 18);             /* A1, A2, A3 */
    n += 18;
    aad[n++] = frame[22] & WLAN_SC_FRAG_MASK;
    aad[n++] = 0;
    if (addr4) {
        memcpy(aad + n, frame + WLAN_HDR_LEN, WLAN_ADDR4_LEN);
        n += WLAN_ADDR4_LEN;
    }
    if (qos) {
        aad[n++] = tid;
        aad[n++] = 0;
    }
    return n;
}

static uint8_t wlan_ccmp_tid(const uint8_t *frame)
{
    bool addr4 = (frame[1] & (WLAN_FC1_TODS | WLAN_FC1_FROMDS)) ==
                 (WLAN_FC1_TODS | WLAN_FC1_FROMDS);

    if (!wlan_ccmp_is_qos(frame)) {
        return 0;
    }
    return frame[WLAN_HDR_LEN + (addr4 ? WLAN_ADDR4_LEN : 0)] &
           WLAN_QOS_TID_MASK;
}

#define WLAN_CCMP_AAD_MAX       (2 + 18 + 2 + WLAN_ADDR4_LEN + WLAN_QOS_LEN)

WlanCcmpError wlan_ccmp_encap(WlanCcmpKey *key, const uint8_t *frame,
                              size_t len, uint8_t *out, size_t out_size,
                              size_t *out_len)
{
    uint8_t nonce[WLAN_CCM_NONCE_LEN], aad[WLAN_CCMP_AAD_MAX];
    uint8_t *ccmp_hdr;
    size_t hdr, aad_len, body_len;
    uint64_t pn;

    *out_len = 0;
    if (len < 2 || WLAN_FC_TYPE(frame[0]) != WLAN_TYPE_DATA) {
        return WLAN_CCMP_ERR_NOT_DATA;
    }
    hdr = wlan_ccmp_data_hdr_len(frame, len);
    if (!hdr || out_size < len + WLAN_CCMP_OVERHEAD) {
        return WLAN_CCMP_ERR_SHORT;
    }
    body_len = len - hdr;
    if (body_len > WLAN_CCM_MAX_LEN) {
        return WLAN_CCMP_ERR_TOO_LONG;
    }
    if (key->tx_pn >= WLAN_CCMP_PN_MAX) {
        return WLAN_CCMP_ERR_PN_EXHAUSTED;
    }
    pn = key->tx_pn + 1;

    memmove(out, frame, hdr);
    out[1] |= WLAN_FC1_PROTECTED;
    ccmp_hdr = out + hdr;
    ccmp_hdr[0] = pn;
    ccmp_hdr[1] = pn >> 8;
    ccmp_hdr[2] = 0;
    ccmp_hdr[3] = WLAN_CCMP_EXT_IV | (key->key_id << WLAN_CCMP_KEY_ID_SHIFT);
    for (int i = 0; i < 4; i++) {
        ccmp_hdr[4 + i] = pn >> (16 + 8 * i);
    }
    aad_len = wlan_ccmp_nonce_aad(out, pn, nonce, aad);
    if (!wlan_ccm_encrypt(key->aes, nonce, aad, aad_len, frame + hdr,
                          body_len, out + hdr + WLAN_CCMP_HDR_LEN, NULL)) {
        return WLAN_CCMP_ERR_CIPHER;
    }
    key->tx_pn = pn;
    *out_len = len + WLAN_CCMP_OVERHEAD;
    return WLAN_CCMP_OK;
}

WlanCcmpError wlan_ccmp_decap(WlanCcmpKey *key, const uint8_t *frame,
                              size_t len, uint8_t *out, size_t *out_len)
{
    uint8_t nonce[WLAN_CCM_NONCE_LEN], aad[WLAN_CCMP_AAD_MAX];
    const uint8_t *ccmp_hdr;
    size_t hdr, aad_len, body_len;
    uint64_t pn = 0;
    uint8_t tid;

    *out_len = 0;
    if (len < 2 || WLAN_FC_TYPE(frame[0]) != WLAN_TYPE_DATA) {
        return WLAN_CCMP_ERR_NOT_DATA;
    }
    hdr = wlan_ccmp_data_hdr_len(frame, len);
    if (!hdr || len < hdr + WLAN_CCMP_OVERHEAD) {
        return WLAN_CCMP_ERR_SHORT;
    }
    if (!(frame[1] & WLAN_FC1_PROTECTED)) {
        return WLAN_CCMP_ERR_UNPROTECTED;
    }
    ccmp_hdr = frame + hdr;
    if (!(ccmp_hdr[3] & WLAN_CCMP_EXT_IV)) {
        return WLAN_CCMP_ERR_EXT_IV;
    }
    if ((ccmp_hdr[3] >> WLAN_CCMP_KEY_ID_SHIFT) != key->key_id) {
        return WLAN_CCMP_ERR_KEY_ID;
    }
    body_len = len - hdr - WLAN_CCMP_OVERHEAD;
    if (body_len > WLAN_CCM_MAX_LEN) {
        return WLAN_CCMP_ERR_TOO_LONG;
    }
    for (int i = 3; i >= 0; i--) {
        pn = pn << 8 | ccmp_hdr[4 + i];
    }
    pn = pn << 16 | ccmp_hdr[1] << 8 | ccmp_hdr[0];
    tid = wlan_ccmp_tid(frame);
    if (pn <= key->rx_pn[tid]) {
        return WLAN_CCMP_ERR_REPLAY;
    }
    aad_len = wlan_ccmp_nonce_aad(frame, pn, nonce, aad);
    if (!wlan_ccm_decrypt(key->aes, nonce, aad, aad_len,
                          ccmp_hdr + WLAN_CCMP_HDR_LEN, body_len,
                          frame + len - WLAN_CCM_MIC_LEN, out + hdr, NULL)) {
        memset(out, 0, hdr);
        return WLAN_CCMP_ERR_MIC;
    }
    memmove(out, frame, hdr);
    out[1] &= ~WLAN_FC1_PROTECTED;
    key->rx_pn[tid] = pn;
    *out_len = hdr + body_len;
    return WLAN_CCMP_OK;
}
