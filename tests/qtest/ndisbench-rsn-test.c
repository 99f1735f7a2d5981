/*
 * QTest for the access point's WPA2 crypto (qemu-devices/wlan-rsn.c)
 *
 * Copyright (c) 2026 The ndisbench authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Two halves. The crypto core is a host program here: qemu_build.py links
 * wlan-rsn.c with QEMU's crypto library into this test (QTEST_EXTRAS), the
 * way QEMU's own tests/unit/test-crypto-* link it, so every primitive is
 * checked against published vectors without a guest or a QMP test path
 * into the AP. Then a QEMU with a WPA2 AP and an open one beside it: the
 * RSN element and Privacy bit in the first's beacons, the second's
 * beacons as they always were; and the WPA2 AP's answers to association
 * requests with and without the right RSN element, the test playing the
 * station over the air's UDP link (as ndisbench-link-test does).
 *
 * The vectors, written as data from the documents named at each:
 *   IEEE 802.11-2012 annex M (M.4.2 pass-phrase to PSK, M.3 PRF, M.6.3
 *   pairwise key derivation, M.6.4 CCMP), RFC 3394 section 4.1, RFC 3610
 *   section 8 packet vectors #1 to #4 (M = 8, L = 2).
 */

#include "qemu/osdep.h"
#include <poll.h>
#include "qemu/bswap.h"
#include "qemu/sockets.h"
#include "qapi/error.h"
#include "crypto/init.h"
#include "libqtest.h"
#include "qapi/qmp/qdict.h"
#include "ndisbench-qtest.h"
#include "../../hw/ndisbench/wlan-rsn.h"

/* -- keys ------------------------------------------------------------------ */

typedef struct PskVector {
    const char *passphrase;
    const char *ssid;
    uint8_t psk[WLAN_PMK_LEN];
} PskVector;

/* IEEE 802.11-2012 M.4.2, "Test vectors" of the pass-phrase mapping */
static const PskVector psk_vectors[] = {
    { "password", "IEEE", {
        0xf4, 0x2c, 0x6f, 0xc5, 0x2d, 0xf0, 0xeb, 0xef,
        0x9e, 0xbb, 0x4b, 0x90, 0xb3, 0x8a, 0x5f, 0x90,
        0x2e, 0x83, 0xfe, 0x1b, 0x13, 0x5a, 0x70, 0xe2,
        0x3a, 0xed, 0x76, 0x2e, 0x97, 0x10, 0xa1, 0x2e } },
    { "ThisIsAPassword", "ThisIsASSID", {
        0x0d, 0xc0, 0xd6, 0xeb, 0x90, 0x55, 0x5e, 0xd6,
        0x41, 0x97, 0x56, 0xb9, 0xa1, 0x5e, 0xc3, 0xe3,
        0x20, 0x9b, 0x63, 0xdf, 0x70, 0x7d, 0xd5, 0x08,
        0xd1, 0x45, 0x81, 0xf8, 0x98, 0x27, 0x21, 0xaf } },
    { "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ", {
        0xbe, 0xcb, 0x93, 0x86, 0x6b, 0xb8, 0xc3, 0x83,
        0x2c, 0xb7, 0x77, 0xc2, 0xf5, 0x59, 0x80, 0x7c,
        0x8c, 0x59, 0xaf, 0xcb, 0x6e, 0xae, 0x73, 0x48,
        0x85, 0x00, 0x13, 0x00, 0xa9, 0x81, 0xcc, 0x62 } },
};

static void test_pmk(void)
{
    uint8_t pmk[WLAN_PMK_LEN];

    for (size_t i = 0; i < ARRAY_SIZE(psk_vectors); i++) {
        const PskVector *v = &psk_vectors[i];

        g_assert(wlan_rsn_pmk(v->passphrase, (const uint8_t *)v->ssid,
                              strlen(v->ssid), pmk, &error_abort));
        g_assert_cmpmem(pmk, sizeof(pmk), v->psk, sizeof(v->psk));
    }
}

static void assert_refused(const char *passphrase, size_t ssid_len,
                           const char *message)
{
    uint8_t pmk[WLAN_PMK_LEN];
    Error *err = NULL;

    g_assert_false(wlan_rsn_pmk(passphrase, (const uint8_t *)"IEEEIEEEIEEEIEEE"
                                "IEEEIEEEIEEEIEEEX", ssid_len, pmk, &err));
    g_assert_nonnull(err);
    g_assert_cmpstr(error_get_pretty(err), ==, message);
    error_free(err);
}

static void test_pmk_refused(void)
{
    assert_refused("1234567", 4, "a WPA2 passphrase is 8 to 63 characters "
                   "long, not 7");
    assert_refused("0123456789012345678901234567890123456789012345678901234"
                   "567890123", 4, "a WPA2 passphrase is 8 to 63 characters "
                   "long, not 64");
    assert_refused("pass\tword", 4, "a WPA2 passphrase is printable ASCII "
                   "(character 5 is 0x09)");
    assert_refused("password", 0, "an SSID is 1 to 32 bytes long, not 0");
    assert_refused("password", 33, "an SSID is 1 to 32 bytes long, not 33");
}

typedef struct PrfVector {
    const uint8_t *key;
    size_t key_len;
    const char *label;
    const uint8_t *data;
    size_t data_len;
    uint8_t out[64];
} PrfVector;

static const uint8_t key_0b[20] = {
    0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b,
    0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b,
};
static const uint8_t key_aa[20] = {
    0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,
    0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,
};
static const uint8_t data_dd[50] = {
    0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd,
    0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd,
    0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd,
    0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd,
    0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd,
};

/* IEEE 802.11-2012 M.3, PRF test vectors (PRF-512, label "prefix") */
static const PrfVector prf_vectors[] = {
    { key_0b, 20, "prefix", (const uint8_t *)"Hi There", 8, {
        0xbc, 0xd4, 0xc6, 0x50, 0xb3, 0x0b, 0x96, 0x84,
        0x95, 0x18, 0x29, 0xe0, 0xd7, 0x5f, 0x9d, 0x54,
        0xb8, 0x62, 0x17, 0x5e, 0xd9, 0xf0, 0x06, 0x06,
        0xe1, 0x7d, 0x8d, 0xa3, 0x54, 0x02, 0xff, 0xee,
        0x75, 0xdf, 0x78, 0xc3, 0xd3, 0x1e, 0x0f, 0x88,
        0x9f, 0x01, 0x21, 0x20, 0xc0, 0x86, 0x2b, 0xeb,
        0x67, 0x75, 0x3e, 0x74, 0x39, 0xae, 0x24, 0x2e,
        0xdb, 0x83, 0x73, 0x69, 0x83, 0x56, 0xcf, 0x5a } },
    { (const uint8_t *)"Jefe", 4, "prefix",
      (const uint8_t *)"what do ya want for nothing?", 28, {
        0x51, 0xf4, 0xde, 0x5b, 0x33, 0xf2, 0x49, 0xad,
        0xf8, 0x1a, 0xeb, 0x71, 0x3a, 0x3c, 0x20, 0xf4,
        0xfe, 0x63, 0x14, 0x46, 0xfa, 0xbd, 0xfa, 0x58,
        0x24, 0x47, 0x59, 0xae, 0x58, 0xef, 0x90, 0x09,
        0xa9, 0x9a, 0xbf, 0x4e, 0xac, 0x2c, 0xa5, 0xfa,
        0x87, 0xe6, 0x92, 0xc4, 0x40, 0xeb, 0x40, 0x02,
        0x3e, 0x7b, 0xab, 0xb2, 0x06, 0xd6, 0x1d, 0xe7,
        0xb9, 0x2f, 0x41, 0x52, 0x90, 0x92, 0xb8, 0xfc } },
    { key_aa, 20, "prefix", data_dd, 50, {
        0xe1, 0xac, 0x54, 0x6e, 0xc4, 0xcb, 0x63, 0x6f,
        0x99, 0x76, 0x48, 0x7b, 0xe5, 0xc8, 0x6b, 0xe1,
        0x7a, 0x02, 0x52, 0xca, 0x5d, 0x8d, 0x8d, 0xf1,
        0x2c, 0xfb, 0x04, 0x73, 0x52, 0x52, 0x49, 0xce,
        0x9d, 0xd8, 0xd1, 0x77, 0xea, 0xd7, 0x10, 0xbc,
        0x9b, 0x59, 0x05, 0x47, 0x23, 0x91, 0x07, 0xae,
        0xf7, 0xb4, 0xab, 0xd4, 0x3d, 0x87, 0xf0, 0xa6,
        0x8f, 0x1c, 0xbd, 0x9e, 0x2b, 0x6f, 0x76, 0x07 } },
};

static void test_prf(void)
{
    uint8_t out[64];

    for (size_t i = 0; i < ARRAY_SIZE(prf_vectors); i++) {
        const PrfVector *v = &prf_vectors[i];

        g_assert(wlan_rsn_prf(v->key, v->key_len, v->label, v->data,
                              v->data_len, out, sizeof(out), &error_abort));
        g_assert_cmpmem(out, sizeof(out), v->out, sizeof(v->out));
        /* a shorter output is the same stream cut short */
        memset(out, 0, sizeof(out));
        g_assert(wlan_rsn_prf(v->key, v->key_len, v->label, v->data,
                              v->data_len, out, 30, &error_abort));
        g_assert_cmpmem(out, 30, v->out, 30);
        g_assert_cmpuint(out[30], ==, 0);
    }
}

/*
 * IEEE 802.11-2012 M.6.3, pairwise key derivation: the PMK of the second
 * pass-phrase vector, AA a0:a1:a1:a3:a4:a5 (as printed there), SPA
 * b0:..:b5. The annex prints the CCMP TK and, for TKIP, KCK and KEK,
 * which are the same first 32 bytes of the PRF output for both.
 */
static const uint8_t ptk_aa[6] = { 0xa0, 0xa1, 0xa1, 0xa3, 0xa4, 0xa5 };
static const uint8_t ptk_spa[6] = { 0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5 };
static const uint8_t ptk_snonce[WLAN_NONCE_LEN] = {
    0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7,
    0xc8, 0xc9, 0xd0, 0xd1, 0xd2, 0xd3, 0xd4, 0xd5,
    0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xdb, 0xdc, 0xdd,
    0xde, 0xdf, 0xe0, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5,
};
static const uint8_t ptk_anonce[WLAN_NONCE_LEN] = {
    0xe0, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7,
    0xe8, 0xe9, 0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5,
    0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd,
    0xfe, 0xff, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05,
};
static const WlanPtk ptk_expected = {
    .kck = { 0x37, 0x9f, 0x98, 0x52, 0xd0, 0x19, 0x92, 0x36,
             0xb9, 0x4e, 0x40, 0x7c, 0xe4, 0xc0, 0x0e, 0xc8 },
    .kek = { 0x47, 0xc9, 0xed, 0xc0, 0x1c, 0x2c, 0x6e, 0x5b,
             0x49, 0x10, 0xca, 0xdd, 0xfb, 0x3e, 0x51, 0xa7 },
    .tk = { 0xb2, 0x36, 0x0c, 0x79, 0xe9, 0x71, 0x0f, 0xdd,
            0x58, 0xbe, 0xa9, 0x3d, 0xea, 0xf0, 0x65, 0x99 },
};

static void test_ptk(void)
{
    WlanPtk ptk;

    g_assert(wlan_rsn_ptk(psk_vectors[1].psk, ptk_aa, ptk_spa, ptk_anonce,
                          ptk_snonce, &ptk, &error_abort));
    g_assert_cmpmem(ptk.kck, WLAN_KCK_LEN, ptk_expected.kck, WLAN_KCK_LEN);
    g_assert_cmpmem(ptk.kek, WLAN_KEK_LEN, ptk_expected.kek, WLAN_KEK_LEN);
    g_assert_cmpmem(ptk.tk, WLAN_TK_LEN, ptk_expected.tk, WLAN_TK_LEN);
    /* the station derives it with the roles swapped: the same keys */
    memset(&ptk, 0, sizeof(ptk));
    g_assert(wlan_rsn_ptk(psk_vectors[1].psk, ptk_spa, ptk_aa, ptk_snonce,
                          ptk_anonce, &ptk, &error_abort));
    g_assert_cmpmem(&ptk, sizeof(ptk), &ptk_expected, sizeof(ptk_expected));
}

/*
 * The EAPOL-Key MIC (HMAC-SHA1-128) with the annex's KCK over a message 2
 * (the fuzz seeds' one, MIC field zero). 802.11 prints no MIC vector; the
 * expected value is from Python's hmac module, an implementation
 * independent of QEMU's, and HMAC-SHA1 itself is pinned by the PRF
 * vectors above.
 */
static size_t build_msg2(uint8_t *f)
{
    static const uint8_t rsn_ie[] = {
        48, 20, 1, 0, 0x00, 0x0f, 0xac, 4, 1, 0, 0x00, 0x0f, 0xac, 4,
        1, 0, 0x00, 0x0f, 0xac, 2, 0, 0,
    };
    size_t body = 95 + sizeof(rsn_ie);

    memset(f, 0, 4 + body);
    f[0] = 1;
    f[1] = 3;
    stw_be_p(f + 2, body);
    f[4] = 2;
    stw_be_p(f + 5, 0x010a);
    f[4 + 12] = 1;
    memset(f + 4 + 13, 0x5a, 32);
    f[4 + 94] = sizeof(rsn_ie);
    memcpy(f + 4 + 95, rsn_ie, sizeof(rsn_ie));
    return 4 + body;
}

static void test_eapol_mic(void)
{
    static const uint8_t expected[WLAN_EAPOL_MIC_LEN] = {
        0x52, 0x0f, 0xcf, 0xd9, 0xf3, 0x77, 0xb5, 0x86,
        0x11, 0x3c, 0x1e, 0xc1, 0x62, 0xc7, 0xef, 0xf6,
    };
    uint8_t f[256], mic[WLAN_EAPOL_MIC_LEN];
    size_t len = build_msg2(f);

    g_assert(wlan_rsn_eapol_mic(ptk_expected.kck, f, len, mic,
                                &error_abort));
    g_assert_cmpmem(mic, sizeof(mic), expected, sizeof(expected));
    f[len - 1] ^= 1;
    g_assert(wlan_rsn_eapol_mic(ptk_expected.kck, f, len, mic,
                                &error_abort));
    g_assert(memcmp(mic, expected, sizeof(mic)));
}

/* -- AES key wrap ---------------------------------------------------------- */

/* RFC 3394 4.1, "Wrap 128 bits of Key Data with a 128-bit KEK" */
static const uint8_t kw_kek[16] = {
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
    0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
};
static const uint8_t kw_key[16] = {
    0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
    0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
};
static const uint8_t kw_wrapped[24] = {
    0x1f, 0xa6, 0x8b, 0x0a, 0x81, 0x12, 0xb4, 0x47,
    0xae, 0xf3, 0x4b, 0xd8, 0xfb, 0x5a, 0x7b, 0x82,
    0x9d, 0x3e, 0x86, 0x23, 0x71, 0xd2, 0xcf, 0xe5,
};

static void test_keywrap(void)
{
    uint8_t out[24], back[16], bad[24];
    Error *err = NULL;

    g_assert(wlan_rsn_aes_wrap(kw_kek, kw_key, sizeof(kw_key), out,
                               &error_abort));
    g_assert_cmpmem(out, sizeof(out), kw_wrapped, sizeof(kw_wrapped));
    g_assert(wlan_rsn_aes_unwrap(kw_kek, kw_wrapped, sizeof(kw_wrapped),
                                 back, &error_abort));
    g_assert_cmpmem(back, sizeof(back), kw_key, sizeof(kw_key));

    /* any altered byte fails the integrity check, and leaves no key */
    for (size_t i = 0; i < sizeof(bad); i++) {
        memcpy(bad, kw_wrapped, sizeof(bad));
        bad[i] ^= 0x01;
        memset(back, 0x77, sizeof(back));
        g_assert_false(wlan_rsn_aes_unwrap(kw_kek, bad, sizeof(bad), back,
                                           &err));
        g_assert_cmpstr(error_get_pretty(err), ==, "key unwrap: integrity "
                        "check failed (wrong KEK or altered data)");
        g_assert_cmpmem(back, sizeof(back), (uint8_t[16]) { 0 }, 16);
        g_clear_pointer(&err, error_free);
    }
    g_assert_false(wlan_rsn_aes_wrap(kw_kek, kw_key, 12, out, &err));
    g_assert_cmpstr(error_get_pretty(err), ==, "key wrap takes a multiple "
                    "of 8 bytes, at least 16, not 12");
    g_clear_pointer(&err, error_free);
    g_assert_false(wlan_rsn_aes_unwrap(kw_kek, kw_wrapped, 16, back, &err));
    g_assert_cmpstr(error_get_pretty(err), ==, "key unwrap takes a multiple "
                    "of 8 bytes, at least 24, not 16");
    g_clear_pointer(&err, error_free);
}

/* -- CCM ------------------------------------------------------------------- */

typedef struct CcmVector {
    uint8_t nonce[WLAN_CCM_NONCE_LEN];
    size_t aad_len;             /* the first bytes of the packet */
    size_t len;                 /* packet length; bytes 0, 1, 2, ... */
    uint8_t out[40];            /* ciphertext then the 8-byte MIC */
} CcmVector;

/* RFC 3610 section 8: key C0..CF, packets of the bytes 00 01 02 ... */
static const uint8_t ccm_key[16] = {
    0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7,
    0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf,
};
static const CcmVector ccm_vectors[] = {
    {   /* Packet Vector #1 */
        { 0x00, 0x00, 0x00, 0x03, 0x02, 0x01, 0x00,
          0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5 }, 8, 31, {
        0x58, 0x8c, 0x97, 0x9a, 0x61, 0xc6, 0x63, 0xd2,
        0xf0, 0x66, 0xd0, 0xc2, 0xc0, 0xf9, 0x89, 0x80,
        0x6d, 0x5f, 0x6b, 0x61, 0xda, 0xc3, 0x84, 0x17,
        0xe8, 0xd1, 0x2c, 0xfd, 0xf9, 0x26, 0xe0 } },
    {   /* Packet Vector #2 */
        { 0x00, 0x00, 0x00, 0x04, 0x03, 0x02, 0x01,
          0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5 }, 8, 32, {
        0x72, 0xc9, 0x1a, 0x36, 0xe1, 0x35, 0xf8, 0xcf,
        0x29, 0x1c, 0xa8, 0x94, 0x08, 0x5c, 0x87, 0xe3,
        0xcc, 0x15, 0xc4, 0x39, 0xc9, 0xe4, 0x3a, 0x3b,
        0xa0, 0x91, 0xd5, 0x6e, 0x10, 0x40, 0x09, 0x16 } },
    {   /* Packet Vector #3 */
        { 0x00, 0x00, 0x00, 0x05, 0x04, 0x03, 0x02,
          0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5 }, 8, 33, {
        0x51, 0xb1, 0xe5, 0xf4, 0x4a, 0x19, 0x7d, 0x1d,
        0xa4, 0x6b, 0x0f, 0x8e, 0x2d, 0x28, 0x2a, 0xe8,
        0x71, 0xe8, 0x38, 0xbb, 0x64, 0xda, 0x85, 0x96,
        0x57, 0x4a, 0xda, 0xa7, 0x6f, 0xbd, 0x9f, 0xb0,
        0xc5 } },
    {   /* Packet Vector #4: 12 bytes of additional data */
        { 0x00, 0x00, 0x00, 0x06, 0x05, 0x04, 0x03,
          0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5 }, 12, 31, {
        0xa2, 0x8c, 0x68, 0x65, 0x93, 0x9a, 0x9a, 0x79,
        0xfa, 0xaa, 0x5c, 0x4c, 0x2a, 0x9d, 0x4a, 0x91,
        0xcd, 0xac, 0x8c, 0x96, 0xc8, 0x61, 0xb9, 0xc9,
        0xe6, 0x1e, 0xf1 } },
};

static void test_ccm(void)
{
    g_autoptr(QCryptoCipher) aes = qcrypto_cipher_new(
        QCRYPTO_CIPHER_ALG_AES_128, QCRYPTO_CIPHER_MODE_ECB, ccm_key,
        sizeof(ccm_key), &error_abort);

    for (size_t i = 0; i < ARRAY_SIZE(ccm_vectors); i++) {
        const CcmVector *v = &ccm_vectors[i];
        size_t msg_len = v->len - v->aad_len;
        uint8_t packet[64], out[64], back[64], bad[64];
        Error *err = NULL;

        for (size_t j = 0; j < v->len; j++) {
            packet[j] = j;
        }
        g_assert(wlan_ccm_encrypt(aes, v->nonce, packet, v->aad_len,
                                  packet + v->aad_len, msg_len, out,
                                  &error_abort));
        g_assert_cmpmem(out, msg_len + WLAN_CCM_MIC_LEN,
                        v->out, msg_len + WLAN_CCM_MIC_LEN);
        g_assert(wlan_ccm_decrypt(aes, v->nonce, packet, v->aad_len, v->out,
                                  msg_len, v->out + msg_len, back,
                                  &error_abort));
        g_assert_cmpmem(back, msg_len, packet + v->aad_len, msg_len);

        /* a flipped bit anywhere in ciphertext or MIC, or in the AAD */
        for (size_t j = 0; j < msg_len + WLAN_CCM_MIC_LEN; j++) {
            memcpy(bad, v->out, msg_len + WLAN_CCM_MIC_LEN);
            bad[j] ^= 0x80;
            g_assert_false(wlan_ccm_decrypt(aes, v->nonce, packet,
                                            v->aad_len, bad, msg_len,
                                            bad + msg_len, back, &err));
            g_assert_cmpstr(error_get_pretty(err), ==, "CCM: MIC mismatch");
            g_clear_pointer(&err, error_free);
        }
        packet[0] ^= 1;
        g_assert_false(wlan_ccm_decrypt(aes, v->nonce, packet, v->aad_len,
                                        v->out, msg_len, v->out + msg_len,
                                        back, NULL));
    }
}

/* -- CCMP ------------------------------------------------------------------ */

/*
 * IEEE 802.11-2012 M.6.4, CCMP test MPDU: data, Retry and Protected set,
 * TK c9 7c .., PN 0xB5039776E70C, key id 0. The MPDU without its FCS.
 */
static const uint8_t ccmp_tk[16] = {
    0xc9, 0x7c, 0x1f, 0x67, 0xce, 0x37, 0x11, 0x85,
    0x51, 0x4a, 0x8a, 0x19, 0xf2, 0xbd, 0xd5, 0x2f,
};
#define CCMP_PN         0xb5039776e70cULL
static const uint8_t ccmp_plain[] = {
    /* 802.11 header */
    0x08, 0x48, 0xc3, 0x2c, 0x0f, 0xd2, 0xe1, 0x28,
    0xa5, 0x7c, 0x50, 0x30, 0xf1, 0x84, 0x44, 0x08,
    0xab, 0xae, 0xa5, 0xb8, 0xfc, 0xba, 0x80, 0x33,
    /* plaintext data */
    0xf8, 0xba, 0x1a, 0x55, 0xd0, 0x2f, 0x85, 0xae,
    0x96, 0x7b, 0xb6, 0x2f, 0xb6, 0xcd, 0xa8, 0xeb,
    0x7e, 0x78, 0xa0, 0x50,
};
static const uint8_t ccmp_mpdu[] = {
    0x08, 0x48, 0xc3, 0x2c, 0x0f, 0xd2, 0xe1, 0x28,
    0xa5, 0x7c, 0x50, 0x30, 0xf1, 0x84, 0x44, 0x08,
    0xab, 0xae, 0xa5, 0xb8, 0xfc, 0xba, 0x80, 0x33,
    /* CCMP header */
    0x0c, 0xe7, 0x00, 0x20, 0x76, 0x97, 0x03, 0xb5,
    /* encrypted data, then the MIC */
    0xf3, 0xd0, 0xa2, 0xfe, 0x9a, 0x3d, 0xbf, 0x23,
    0x42, 0xa6, 0x43, 0xe4, 0x32, 0x46, 0xe8, 0x0c,
    0x3c, 0x04, 0xd0, 0x19,
    0x78, 0x45, 0xce, 0x0b, 0x16, 0xf9, 0x76, 0x23,
};

static void test_ccmp(void)
{
    WlanCcmpKey key;
    uint8_t out[128];
    size_t len;

    g_assert(wlan_ccmp_key_init(&key, ccmp_tk, 0, &error_abort));
    key.tx_pn = CCMP_PN - 1;
    g_assert_cmpint(wlan_ccmp_encap(&key, ccmp_plain, sizeof(ccmp_plain),
                                    out, sizeof(out), &len), ==,
                    WLAN_CCMP_OK);
    g_assert_cmpmem(out, len, ccmp_mpdu, sizeof(ccmp_mpdu));
    g_assert_cmphex(key.tx_pn, ==, CCMP_PN);
    /* no room for the 16 bytes CCMP adds */
    g_assert_cmpint(wlan_ccmp_encap(&key, ccmp_plain, sizeof(ccmp_plain),
                                    out, sizeof(ccmp_mpdu) - 1, &len), ==,
                    WLAN_CCMP_ERR_SHORT);
    g_assert_cmpuint(len, ==, 0);
    wlan_ccmp_key_clear(&key);

    g_assert(wlan_ccmp_key_init(&key, ccmp_tk, 0, &error_abort));
    g_assert_cmpint(wlan_ccmp_decap(&key, ccmp_mpdu, sizeof(ccmp_mpdu), out,
                                    &len), ==, WLAN_CCMP_OK);
    g_assert_cmpuint(len, ==, sizeof(ccmp_plain));
    g_assert_cmpmem(out + 24, len - 24, ccmp_plain + 24,
                    sizeof(ccmp_plain) - 24);
    g_assert_cmphex(out[1], ==, 0x08);          /* Protected bit cleared */
    g_assert_cmpmem(out + 2, 22, ccmp_plain + 2, 22);
    g_assert_cmphex(key.rx_pn[0], ==, CCMP_PN);
    wlan_ccmp_key_clear(&key);
}

/*
 * What the receiver drops, and that a dropped frame leaves the replay
 * counter alone: a replay, a forged or damaged frame (a bit of every byte
 * but those CCMP leaves out of the MIC: duration, the sequence number,
 * the CCMP header's reserved byte and bits), another key id, no Ext IV,
 * no Protected bit, a cut frame.
 */
static void test_ccmp_drops(void)
{
    WlanCcmpKey key;
    uint8_t bad[sizeof(ccmp_mpdu)], out[128];
    size_t len;

    g_assert(wlan_ccmp_key_init(&key, ccmp_tk, 0, &error_abort));
    key.rx_pn[0] = CCMP_PN;
    g_assert_cmpint(wlan_ccmp_decap(&key, ccmp_mpdu, sizeof(ccmp_mpdu), out,
                                    &len), ==, WLAN_CCMP_ERR_REPLAY);
    g_assert_cmphex(key.rx_pn[0], ==, CCMP_PN);
    /* (a changed PN byte may lower the PN: no replay check in the way) */
    key.rx_pn[0] = 0;
    for (size_t i = 0; i < sizeof(bad); i++) {
        /* duration, sequence number, reserved byte, key id octet */
        if (i == 2 || i == 3 || i == 23 || i == 26 || i == 27) {
            continue;
        }
        memcpy(bad, ccmp_mpdu, sizeof(bad));
        bad[i] ^= 0x01;
        g_assert_cmpint(wlan_ccmp_decap(&key, bad, sizeof(bad), out, &len),
                        ==, WLAN_CCMP_ERR_MIC);
        g_assert_cmpuint(len, ==, 0);
        g_assert_cmphex(key.rx_pn[0], ==, 0);
    }
    /*
     * Outside the MIC (802.11 masks them in the AAD): the subtype bits
     * 4..6 of a data frame, Retry, PwrMgt, MoreData, the sequence number
     */
    memcpy(bad, ccmp_mpdu, sizeof(bad));
    bad[0] ^= 0x70;
    bad[1] ^= 0x08 | 0x10 | 0x20;
    bad[23] ^= 0x10;
    g_assert_cmpint(wlan_ccmp_decap(&key, bad, sizeof(bad), out, &len), ==,
                    WLAN_CCMP_OK);
    g_assert_cmphex(key.rx_pn[0], ==, CCMP_PN);
    /* the same PN again is a replay now */
    g_assert_cmpint(wlan_ccmp_decap(&key, ccmp_mpdu, sizeof(ccmp_mpdu), out,
                                    &len), ==, WLAN_CCMP_ERR_REPLAY);
    key.rx_pn[0] = 0;

    memcpy(bad, ccmp_mpdu, sizeof(bad));
    bad[27] |= 1 << 6;                          /* key id 1 */
    g_assert_cmpint(wlan_ccmp_decap(&key, bad, sizeof(bad), out, &len), ==,
                    WLAN_CCMP_ERR_KEY_ID);
    bad[27] = 0;                                /* no Ext IV */
    g_assert_cmpint(wlan_ccmp_decap(&key, bad, sizeof(bad), out, &len), ==,
                    WLAN_CCMP_ERR_EXT_IV);
    memcpy(bad, ccmp_mpdu, sizeof(bad));
    bad[1] &= ~0x40;
    g_assert_cmpint(wlan_ccmp_decap(&key, bad, sizeof(bad), out, &len), ==,
                    WLAN_CCMP_ERR_UNPROTECTED);
    g_assert_cmpint(wlan_ccmp_decap(&key, ccmp_mpdu, 24 + 15, out, &len), ==,
                    WLAN_CCMP_ERR_SHORT);
    g_assert_cmpint(wlan_ccmp_decap(&key, ccmp_mpdu, 20, out, &len), ==,
                    WLAN_CCMP_ERR_SHORT);
    g_assert_cmphex(key.rx_pn[0], ==, 0);
    g_assert_cmpstr(wlan_ccmp_error_str(WLAN_CCMP_ERR_REPLAY), ==,
                    "replayed PN");
    wlan_ccmp_key_clear(&key);
}

/*
 * QoS data (TID 5) and four addresses, which the annex vector does not
 * cover: the sealed frame is the one pyca/cryptography's AESCCM (an
 * implementation independent of this one) gives for the nonce and AAD
 * 802.11-2012 11.4.3.3.3 and .4 define (A4 and the QoS TID in the AAD,
 * the TID as priority in the nonce, Order masked); each TID keeps its own
 * replay counter, and moving the frame to another TID fails the MIC.
 */
static const uint8_t ccmp_qos_sealed[] = {
    0x88, 0x43, 0x00, 0x00, 0x04, 0x05, 0x06, 0x07,
    0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
    0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
    0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x05, 0x00,
    0x01, 0x00, 0x00, 0xa0, 0x00, 0x00, 0x00, 0x00,
    0x1a, 0xd5, 0x4a, 0x35, 0xf2, 0x07, 0x89, 0x5e,
    0x1f, 0x90, 0x70, 0xea, 0x69, 0x26, 0x41, 0x68,
    0xb3, 0x1b, 0x56, 0xf7, 0x77, 0x9b, 0xfc, 0x4f,
    0xe4, 0x03, 0xa4, 0xf8, 0x0e, 0x30, 0x7e, 0xf3,
};

static void test_ccmp_qos(void)
{
    uint8_t frame[64], sealed[96], out[96];
    WlanCcmpKey tx, rx;
    size_t len, hdr = 24 + 6 + 2, sealed_len;

    memset(frame, 0, sizeof(frame));
    frame[0] = 0x88;                            /* QoS data */
    frame[1] = 0x03;                            /* ToDS | FromDS */
    for (int i = 4; i < 30; i++) {
        frame[i] = i;
    }
    frame[30] = 5;                              /* TID 5 */
    memcpy(frame + hdr, "four-address QoS payload", 24);
    g_assert(wlan_ccmp_key_init(&tx, ccmp_tk, 2, &error_abort));
    g_assert(wlan_ccmp_key_init(&rx, ccmp_tk, 2, &error_abort));
    g_assert_cmpuint(wlan_ccmp_data_hdr_len(frame, hdr + 24), ==, hdr);
    g_assert_cmpint(wlan_ccmp_encap(&tx, frame, hdr + 24, sealed,
                                    sizeof(sealed), &sealed_len), ==,
                    WLAN_CCMP_OK);
    g_assert_cmpmem(sealed, sealed_len, ccmp_qos_sealed,
                    sizeof(ccmp_qos_sealed));
    g_assert_cmphex(sealed[hdr + 3], ==, 0x20 | (2 << 6));
    g_assert_cmphex(sealed[hdr], ==, 1);        /* PN 1 */
    rx.rx_pn[0] = 100;                          /* TID 0's counter */
    g_assert_cmpint(wlan_ccmp_decap(&rx, sealed, sealed_len, out, &len), ==,
                    WLAN_CCMP_OK);
    g_assert_cmpmem(out, len, frame, hdr + 24);
    g_assert_cmphex(rx.rx_pn[5], ==, 1);
    g_assert_cmphex(rx.rx_pn[0], ==, 100);
    sealed[30] = 6;
    rx.rx_pn[5] = 0;
    g_assert_cmpint(wlan_ccmp_decap(&rx, sealed, sealed_len, out, &len), ==,
                    WLAN_CCMP_ERR_MIC);
    wlan_ccmp_key_clear(&tx);
    wlan_ccmp_key_clear(&rx);
}

/* -- the access point ------------------------------------------------------ */

#define PCAP_HDR_LEN    24
#define PCAP_REC_LEN    16
#define RT_LEN          13

/* Frames of the capture, in order: *frame, *len; false at the end. */
static bool capture_next(const uint8_t *cap, size_t cap_len, size_t *off,
                         const uint8_t **frame, size_t *len)
{
    uint32_t incl;

    if (*off + PCAP_REC_LEN > cap_len) {
        return false;
    }
    incl = ldl_le_p(cap + *off + 8);
    g_assert_cmpuint(*off + PCAP_REC_LEN + incl, <=, cap_len);
    g_assert_cmpuint(incl, >, RT_LEN);
    *frame = cap + *off + PCAP_REC_LEN + RT_LEN;
    *len = incl - RT_LEN;
    *off += PCAP_REC_LEN + incl;
    return true;
}

/*
 * A WPA2 AP and an open one on one air, a beacon interval of virtual
 * time. The WPA2 beacon: Privacy in the capability, the RSN element
 * (version 1, CCMP group, one CCMP pairwise, one PSK AKM, capabilities
 * 0) before the extended rates. The open beacon: exactly the bytes it
 * had before the AP knew WPA2 (after its TSF).
 */
static void test_ap_beacons(void)
{
    static const uint8_t rsn_ie[] = {
        48, 20, 1, 0, 0x00, 0x0f, 0xac, 4, 1, 0, 0x00, 0x0f, 0xac, 4,
        1, 0, 0x00, 0x0f, 0xac, 2, 0, 0,
    };
    static const uint8_t open_body[] = {
        100, 0, 0x01, 0x00,                     /* interval, ESS */
        0, 4, 'o', 'p', 'e', 'n',
        1, 8, 0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24,
        3, 1, 6,
        5, 4, 0, 1, 0, 0,
        50, 4, 0x30, 0x48, 0x60, 0x6c,
    };
    g_autofree char *path = NULL;
    g_autofree gchar *cap = NULL;
    const uint8_t *f;
    size_t off = PCAP_HDR_LEN, len, cap_len;
    QTestState *qts;
    int fd, wpa2 = 0, open = 0;

    fd = g_file_open_tmp("ndisbench-rsn-XXXXXX.pcap", &path, NULL);
    g_assert(fd >= 0);
    close(fd);
    qts = qtest_initf("-machine none -object wlan-air,id=air0,pcap=%s "
                      "-object wlan-ap,id=ap0,air=air0,ssid=qtest-wpa2,"
                      "passphrase=ThisIsAPassword "
                      "-object wlan-ap,id=ap1,air=air0,ssid=open,"
                      "bssid=02:00:00:00:02:00", path);
    qtest_clock_step(qts, 102400 * 1000);
    qtest_quit(qts);
    g_assert(g_file_get_contents(path, &cap, &cap_len, NULL));
    unlink(path);

    while (capture_next((const uint8_t *)cap, cap_len, &off, &f, &len)) {
        g_assert_cmphex(f[0], ==, 0x80);
        if (f[14] == 0x01) {                    /* bssid ..:01:00 */
            const uint8_t *rsn = NULL;

            wpa2++;
            g_assert_cmphex(lduw_le_p(f + 34), ==, 0x0011);
            for (size_t i = 36; i + 2 <= len; i += 2 + f[i + 1]) {
                g_assert_cmpuint(i + 2 + f[i + 1], <=, len);
                if (f[i] == 48) {
                    rsn = f + i;
                }
                if (f[i] == 50) {
                    g_assert_nonnull(rsn);      /* RSN before ext rates */
                }
            }
            g_assert_nonnull(rsn);
            g_assert_cmpmem(rsn, sizeof(rsn_ie), rsn_ie, sizeof(rsn_ie));
        } else {
            open++;
            g_assert_cmpmem(f + 32, len - 32, open_body, sizeof(open_body));
        }
    }
    g_assert_cmpint(wpa2, ==, 1);
    g_assert_cmpint(open, ==, 1);
}

/*
 * The passphrase is checked where it is given, and never read back (QOM
 * has no getter for it: qom-get and qom-list-properties would show it).
 */
static void test_ap_passphrase_property(void)
{
    QTestState *qts = qtest_init("-machine none -object wlan-air,id=air0");
    QDict *resp;

    resp = qtest_qmp(qts, "{'execute': 'object-add', 'arguments': "
                     "{'qom-type': 'wlan-ap', 'id': 'ap0', 'air': 'air0', "
                     "'passphrase': 'short'}}");
    g_assert_cmpstr(qdict_get_str(qdict_get_qdict(resp, "error"), "desc"),
                    ==, "wlan-ap: a WPA2 passphrase is 8 to 63 characters "
                    "long, not 5");
    qobject_unref(resp);
    resp = qtest_qmp(qts, "{'execute': 'object-add', 'arguments': "
                     "{'qom-type': 'wlan-ap', 'id': 'ap0', 'air': 'air0', "
                     "'passphrase': 'ThisIsAPassword'}}");
    g_assert(qdict_haskey(resp, "return"));
    qobject_unref(resp);
    resp = qtest_qmp(qts, "{'execute': 'qom-get', 'arguments': "
                     "{'path': '/objects/ap0', 'property': 'passphrase'}}");
    g_assert(qdict_haskey(resp, "error"));
    qobject_unref(resp);
    resp = qtest_qmp(qts, "{'execute': 'qom-get', 'arguments': "
                     "{'path': '/objects/ap0', 'property': 'wpa2'}}");
    g_assert(qdict_get_bool(resp, "return"));
    qobject_unref(resp);
    qtest_quit(qts);
}

/*
 * The station side over the link: the datagram format of wlan-link.h
 * (ndisbench-link-test checks it; here it is only the way in).
 */
#define LINK_HDR_LEN    32
#define TOKEN_HEX       "00112233445566778899aabbccddeeff"
static const uint8_t link_token[16] = {
    0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
    0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
};
static const uint8_t ap_bssid[6] = { 0x02, 0x00, 0x00, 0x00, 0x01, 0x00 };
static const uint8_t sta_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x09, 0x09 };

static void link_send(int fd, uint8_t type, const uint8_t *frame,
                      size_t len)
{
    uint8_t buf[LINK_HDR_LEN + 256];

    g_assert_cmpuint(len, <=, 256);
    stl_be_p(buf, 0x4e42414c);
    buf[4] = 2;
    buf[5] = type;
    buf[6] = type ? 0 : 6;
    buf[7] = (uint8_t)-50;
    stw_be_p(buf + 8, len);
    stw_be_p(buf + 10, 0);
    stl_be_p(buf + 12, len ? fcs32(frame, len) : 0);
    memcpy(buf + 16, link_token, sizeof(link_token));
    if (len) {
        memcpy(buf + LINK_HDR_LEN, frame, len);
    }
    g_assert_cmpint(send(fd, buf, LINK_HDR_LEN + len, 0), ==,
                    LINK_HDR_LEN + len);
}

/* The AP's next management frame of this subtype to sta_mac: its body. */
static size_t link_recv_mgmt(int fd, uint8_t subtype, uint8_t *body)
{
    uint8_t buf[LINK_HDR_LEN + 2400];
    struct pollfd pfd = { .fd = fd, .events = POLLIN };
    ssize_t n;

    while (poll(&pfd, 1, 5000) > 0 &&
           (n = recv(fd, buf, sizeof(buf), 0)) > 0) {
        const uint8_t *f = buf + LINK_HDR_LEN;

        if (n >= LINK_HDR_LEN + 24 && f[0] == subtype << 4 &&
            !memcmp(f + 4, sta_mac, 6) && !memcmp(f + 10, ap_bssid, 6)) {
            memcpy(body, f + 24, n - LINK_HDR_LEN - 24);
            return n - LINK_HDR_LEN - 24;
        }
    }
    g_error("no management frame of subtype %u from the AP", subtype);
}

static size_t mgmt_hdr(uint8_t *f, uint8_t subtype)
{
    memset(f, 0, 24);
    f[0] = subtype << 4;
    memcpy(f + 4, ap_bssid, 6);
    memcpy(f + 10, sta_mac, 6);
    memcpy(f + 16, ap_bssid, 6);
    return 24;
}

/* Open authentication, then an association request with these IEs
 * after the SSID: the status of the AP's association response. */
static uint16_t associate(int fd, const uint8_t *rsn, size_t rsn_len)
{
    static const uint8_t ssid[] = { 0, 10, 'q', 't', 'e', 's', 't', '-',
                                    'w', 'p', 'a', '2' };
    uint8_t f[256], body[2400];
    size_t n = mgmt_hdr(f, 11);

    memcpy(f + n, "\0\0\1\0\0\0", 6);        /* open, seq 1 */
    link_send(fd, 0, f, n + 6);
    link_recv_mgmt(fd, 11, body);
    g_assert_cmphex(lduw_le_p(body + 4), ==, 0);
    n = mgmt_hdr(f, 0);
    memcpy(f + n, "\x11\0\x0a\0", 4);           /* ESS, privacy; 10 */
    n += 4;
    memcpy(f + n, ssid, sizeof(ssid));
    n += sizeof(ssid);
    memcpy(f + n, rsn, rsn_len);
    link_send(fd, 0, f, n + rsn_len);
    g_assert_cmpuint(link_recv_mgmt(fd, 1, body), >=, 6);
    return lduw_le_p(body + 2);
}

static uint32_t ap_stations(QTestState *qts)
{
    QDict *resp = qtest_qmp(qts, "{'execute': 'qom-get', 'arguments': "
                            "{'path': '/objects/ap0', 'property': "
                            "'stations'}}");
    uint32_t n = qdict_get_int(resp, "return");

    qobject_unref(resp);
    return n;
}

/*
 * A station must select exactly the BSS's suite in its RSN element, or
 * its association is refused with the status that names what is wrong
 * (802.11-2012 table 8-37), and it stays unassociated.
 */
static void test_ap_assoc_rsn(void)
{
#define RSN(group, pairwise, akm) { \
        48, 20, 1, 0, 0x00, 0x0f, 0xac, group, 1, 0, 0x00, 0x0f, 0xac, \
        pairwise, 1, 0, 0x00, 0x0f, 0xac, akm, 0, 0 }
    static const uint8_t good[] = RSN(4, 4, 2);
    static const uint8_t tkip_group[] = RSN(2, 4, 2);
    static const uint8_t tkip_pairwise[] = RSN(4, 2, 2);
    static const uint8_t eap[] = RSN(4, 4, 1);
    static const uint8_t version2[] = { 48, 2, 2, 0 };
    /* two pairwise ciphers announced, one there: cut */
    static const uint8_t cut[] = { 48, 10, 1, 0, 0x00, 0x0f, 0xac, 4,
                                   2, 0, 0x00, 0x0f };
    static const uint8_t two_pairwise[] = {
        48, 24, 1, 0, 0x00, 0x0f, 0xac, 4, 2, 0, 0x00, 0x0f, 0xac, 4,
        0x00, 0x0f, 0xac, 2, 1, 0, 0x00, 0x0f, 0xac, 2, 0, 0 };
#undef RSN
    uint16_t port = free_udp_port();
    QTestState *qts = qtest_initf("-machine none -object wlan-air,id=air0,"
                                  "link-listen=%u,link-token=" TOKEN_HEX
                                  " -object wlan-ap,id=ap0,air=air0,"
                                  "ssid=qtest-wpa2,passphrase=password",
                                  port);
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                             .sin_port = htons(port) };
    int fd = socket(AF_INET, SOCK_DGRAM, 0);

    g_assert(fd >= 0);
    g_assert(connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
    link_send(fd, 1, NULL, 0);                  /* hello */

    g_assert_cmpuint(associate(fd, NULL, 0), ==, 40);
    g_assert_cmpuint(associate(fd, cut, sizeof(cut)), ==, 40);
    g_assert_cmpuint(associate(fd, version2, sizeof(version2)), ==, 44);
    g_assert_cmpuint(associate(fd, tkip_group, sizeof(tkip_group)), ==, 41);
    g_assert_cmpuint(associate(fd, tkip_pairwise, sizeof(tkip_pairwise)),
                     ==, 42);
    g_assert_cmpuint(associate(fd, two_pairwise, sizeof(two_pairwise)), ==,
                     42);
    g_assert_cmpuint(associate(fd, eap, sizeof(eap)), ==, 43);
    g_assert_cmpuint(ap_stations(qts), ==, 0);
    g_assert_cmpuint(associate(fd, good, sizeof(good)), ==, 0);
    g_assert_cmpuint(ap_stations(qts), ==, 1);
    close(fd);
    qtest_quit(qts);
}

/* -- the 4-way handshake, the CCMP data path and the group rekey ---------- */

/*
 * The test plays a WPA2 station on the link (the crypto is wlan-rsn.c's,
 * as the AP's is, but the frames are built here from 802.11-2012 11.6:
 * EAPOL-Key layout, key information bits, KDEs) and the netdev's other
 * end on a UDP socket (-netdev socket,udp=), so it sees what the AP
 * bridges and feeds it Ethernet frames.
 */
#define KI_VER2         0x0002
#define KI_PAIRWISE     0x0008
#define KI_INSTALL      0x0040
#define KI_ACK          0x0080
#define KI_MIC          0x0100
#define KI_SECURE       0x0200
#define KI_ENC          0x1000
#define EAPOL_MIC_AT    (4 + 77)
#define SNAP_LEN        8

static const uint8_t good_rsn_ie[] = {
    48, 20, 1, 0, 0x00, 0x0f, 0xac, 4, 1, 0, 0x00, 0x0f, 0xac, 4,
    1, 0, 0x00, 0x0f, 0xac, 2, 0, 0,
};
static const uint8_t snap_eapol[SNAP_LEN] = {
    0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00, 0x88, 0x8e,
};
static const uint8_t eth_host[6] = { 0x52, 0x55, 0x0a, 0x00, 0x02, 0x02 };

typedef struct Sta {
    QTestState *qts;
    int fd;                     /* the link: the station's radio */
    int eth;                    /* the netdev's other end */
    uint8_t pmk[WLAN_PMK_LEN];
    uint8_t anonce[WLAN_NONCE_LEN];
    uint8_t snonce[WLAN_NONCE_LEN];
    WlanPtk ptk;
    WlanCcmpKey ptk_key;        /* PTK: both directions */
    WlanCcmpKey gtk_key;        /* the AP's group key: receive only */
    uint8_t gtk[WLAN_GTK_LEN];
    uint8_t gtk_id;
    uint64_t replay;            /* the last replay counter of the AP */
    uint16_t seq;
} Sta;

static uint64_t ap_counter(QTestState *qts, const char *name)
{
    QDict *resp = qtest_qmp(qts, "{'execute': 'qom-get', 'arguments': "
                            "{'path': '/objects/ap0', 'property': %s}}",
                            name);
    uint64_t n;

    g_assert(qdict_haskey(resp, "return"));
    n = qdict_get_int(resp, "return");
    qobject_unref(resp);
    return n;
}

/*
 * The AP's next frame to sta_mac or to all, beacons aside: the whole
 * 802.11 frame; 0 if none came within a second.
 */
static size_t link_recv_to_sta(int fd, uint8_t *frame)
{
    uint8_t buf[LINK_HDR_LEN + 2400];
    struct pollfd pfd = { .fd = fd, .events = POLLIN };
    ssize_t n;

    while (poll(&pfd, 1, 1000) > 0 &&
           (n = recv(fd, buf, sizeof(buf), 0)) > 0) {
        const uint8_t *f = buf + LINK_HDR_LEN;

        if (n >= LINK_HDR_LEN + 24 && f[0] != 0x80 &&
            (!memcmp(f + 4, sta_mac, 6) ||
             !memcmp(f + 4, "\xff\xff\xff\xff\xff\xff", 6)) &&
            !memcmp(f + 10, ap_bssid, 6)) {
            memcpy(frame, f, n - LINK_HDR_LEN);
            return n - LINK_HDR_LEN;
        }
    }
    return 0;
}

/*
 * Wait until the AP has taken every datagram sent on the link so far: a
 * probe request goes after them, in order, and its response comes back.
 * (QMP and the netdev's socket are other file descriptors, which QEMU's
 * main loop may serve first.)
 */
static void link_sync(int fd)
{
    static const uint8_t ssid[] = { 0, 10, 'q', 't', 'e', 's', 't', '-',
                                    'w', 'p', 'a', '2' };
    uint8_t f[64], body[2400];
    size_t n = mgmt_hdr(f, 4);

    memcpy(f + n, ssid, sizeof(ssid));
    link_send(fd, 0, f, n + sizeof(ssid));
    link_recv_mgmt(fd, 5, body);
}

/* The next frame to sta_mac, which must be a data frame: its length. */
static size_t recv_data(Sta *s, uint8_t *frame)
{
    size_t n = link_recv_to_sta(s->fd, frame);

    if (!n) {
        g_error("no data frame from the AP");
    }
    g_assert_cmphex(frame[0], ==, 0x08);
    g_assert_cmphex(frame[1] & 0x03, ==, 0x02);         /* FromDS */
    return n;
}

/*
 * The next EAPOL-Key frame to the station, opened with the PTK when it
 * came protected: the EAPOL frame at eapol, its length returned.
 */
static size_t recv_eapol(Sta *s, uint8_t *eapol, bool protected)
{
    uint8_t f[2400], plain[2400];
    size_t n = recv_data(s, f), len;
    const uint8_t *p = f;

    g_assert_cmpint(!!(f[1] & 0x40), ==, protected);
    if (protected) {
        g_assert_cmpint(wlan_ccmp_decap(&s->ptk_key, f, n, plain, &len), ==,
                        WLAN_CCMP_OK);
        p = plain;
        n = len;
    }
    g_assert_cmpuint(n, >=, 24 + SNAP_LEN + 4 + 95);
    g_assert_cmpmem(p + 24, SNAP_LEN, snap_eapol, SNAP_LEN);
    memcpy(eapol, p + 24 + SNAP_LEN, n - 24 - SNAP_LEN);
    g_assert_cmphex(eapol[1], ==, 3);                   /* EAPOL-Key */
    g_assert_cmphex(eapol[4], ==, 2);                   /* RSN descriptor */
    g_assert_cmpuint(4 + lduw_be_p(eapol + 2), <=, n - 24 - SNAP_LEN);
    return 4 + lduw_be_p(eapol + 2);
}

/* The MIC of an EAPOL-Key frame received checks with the KCK. */
static void assert_eapol_mic(Sta *s, uint8_t *eapol, size_t len)
{
    uint8_t mic[WLAN_EAPOL_MIC_LEN], got[WLAN_EAPOL_MIC_LEN];

    memcpy(got, eapol + EAPOL_MIC_AT, sizeof(got));
    memset(eapol + EAPOL_MIC_AT, 0, sizeof(got));
    g_assert(wlan_rsn_eapol_mic(s->ptk.kck, eapol, len, mic, &error_abort));
    g_assert_cmpmem(mic, sizeof(mic), got, sizeof(got));
    memcpy(eapol + EAPOL_MIC_AT, got, sizeof(got));
}

/* Send an 802.11 data frame body (after the header) ToDS, protected or not. */
static void send_data(Sta *s, const uint8_t *da, const uint8_t *body,
                      size_t len, bool protect)
{
    uint8_t f[256], sealed[256 + WLAN_CCMP_OVERHEAD];
    size_t n;

    g_assert_cmpuint(24 + len, <=, 256 - WLAN_CCMP_OVERHEAD);
    memset(f, 0, 24);
    f[0] = 0x08;
    f[1] = 0x01;                                        /* ToDS */
    memcpy(f + 4, ap_bssid, 6);
    memcpy(f + 10, sta_mac, 6);
    memcpy(f + 16, da, 6);
    stw_le_p(f + 22, s->seq++ << 4);
    memcpy(f + 24, body, len);
    if (!protect) {
        link_send(s->fd, 0, f, 24 + len);
        return;
    }
    g_assert_cmpint(wlan_ccmp_encap(&s->ptk_key, f, 24 + len, sealed,
                                    sizeof(sealed), &n), ==, WLAN_CCMP_OK);
    link_send(s->fd, 0, sealed, n);
}

/* An EAPOL-Key frame from the station, MIC computed with kck. */
static void send_eapol(Sta *s, uint16_t key_info, uint64_t replay,
                       const uint8_t *nonce, const uint8_t *key_data,
                       size_t key_data_len, const uint8_t *kck,
                       bool protect)
{
    uint8_t body[SNAP_LEN + 4 + 95 + 64], mic[WLAN_EAPOL_MIC_LEN];
    uint8_t *e = body + SNAP_LEN;
    size_t len = 4 + 95 + key_data_len;

    g_assert_cmpuint(key_data_len, <=, 64);
    memset(body, 0, sizeof(body));
    memcpy(body, snap_eapol, SNAP_LEN);
    e[0] = 1;                                           /* 802.1X-2001 */
    e[1] = 3;
    stw_be_p(e + 2, len - 4);
    e[4] = 2;
    stw_be_p(e + 5, key_info);
    stq_be_p(e + 9, replay);
    if (nonce) {
        memcpy(e + 17, nonce, WLAN_NONCE_LEN);
    }
    stw_be_p(e + 4 + 93, key_data_len);
    if (key_data_len) {
        memcpy(e + 4 + 95, key_data, key_data_len);
    }
    g_assert(wlan_rsn_eapol_mic(kck, e, len, mic, &error_abort));
    memcpy(e + EAPOL_MIC_AT, mic, sizeof(mic));
    send_data(s, ap_bssid, body, SNAP_LEN + len, protect);
}

/* Message 1 of the 4-way handshake: ANonce and replay counter kept. */
static void recv_msg1(Sta *s)
{
    uint8_t e[2400];

    recv_eapol(s, e, false);
    g_assert_cmphex(lduw_be_p(e + 5), ==, KI_VER2 | KI_PAIRWISE | KI_ACK);
    g_assert_cmpuint(lduw_be_p(e + 7), ==, 16);         /* key length */
    s->replay = ldq_be_p(e + 9);
    memcpy(s->anonce, e + 17, WLAN_NONCE_LEN);
    g_assert_cmpmem(e + EAPOL_MIC_AT, 16, (uint8_t[16]) { 0 }, 16);
}

static void send_msg2(Sta *s, const uint8_t *pmk)
{
    memset(s->snonce, 0x5a, sizeof(s->snonce));
    s->snonce[0] = s->replay;
    g_assert(wlan_rsn_ptk(pmk, sta_mac, ap_bssid, s->snonce, s->anonce,
                          &s->ptk, &error_abort));
    send_eapol(s, KI_VER2 | KI_PAIRWISE | KI_MIC, s->replay, s->snonce,
               good_rsn_ie, sizeof(good_rsn_ie), s->ptk.kck, false);
}

/*
 * Key data of a message 3 or group message 1, unwrapped with the KEK:
 * the GTK KDE's key taken (and the RSN element checked in message 3).
 */
static void take_gtk(Sta *s, const uint8_t *e, bool with_rsn)
{
    size_t len = lduw_be_p(e + 4 + 93);
    uint8_t data[256];
    const uint8_t *kd = data, *end;
    bool rsn = false, gtk = false;

    g_assert_cmpuint(len, >=, 24);
    g_assert_cmpuint(len % 8, ==, 0);
    g_assert_cmpuint(len, <=, sizeof(data) + 8);
    g_assert(wlan_rsn_aes_unwrap(s->ptk.kek, e + 4 + 95, len, data,
                                 &error_abort));
    end = data + len - 8;
    while (kd + 2 <= end) {
        if (kd[0] == 0xdd && kd[1] == 0) {
            break;                                      /* padding */
        }
        g_assert_cmpuint(kd + 2 + kd[1], <=, end);
        if (kd[0] == 48) {
            g_assert_cmpmem(kd, 2 + kd[1], good_rsn_ie, sizeof(good_rsn_ie));
            rsn = true;
        } else if (kd[0] == 0xdd && kd[1] == 22 && kd[2] == 0x00 &&
                   kd[3] == 0x0f && kd[4] == 0xac && kd[5] == 1) {
            s->gtk_id = kd[6] & 3;
            memcpy(s->gtk, kd + 8, WLAN_GTK_LEN);
            gtk = true;
        }
        kd += 2 + kd[1];
    }
    g_assert(gtk);
    g_assert_cmpint(rsn, ==, with_rsn);
    g_assert_cmpuint(s->gtk_id, >=, 1);
    g_assert_cmpuint(s->gtk_id, <=, 2);
    wlan_ccmp_key_clear(&s->gtk_key);
    g_assert(wlan_ccmp_key_init(&s->gtk_key, s->gtk, s->gtk_id,
                                &error_abort));
}

static void recv_msg3(Sta *s)
{
    uint8_t e[2400];
    size_t len = recv_eapol(s, e, false);

    g_assert_cmphex(lduw_be_p(e + 5), ==, KI_VER2 | KI_PAIRWISE |
                    KI_INSTALL | KI_ACK | KI_MIC | KI_SECURE | KI_ENC);
    g_assert_cmpuint(ldq_be_p(e + 9), >, s->replay);
    s->replay = ldq_be_p(e + 9);
    g_assert_cmpmem(e + 17, WLAN_NONCE_LEN, s->anonce, WLAN_NONCE_LEN);
    assert_eapol_mic(s, e, len);
    take_gtk(s, e, true);
}

/* A QEMU with a WPA2 AP bridged to a UDP socket, and the station. */
static void sta_start(Sta *s, const char *extra)
{
    uint16_t port = free_udp_port(), eth_port = free_udp_port();
    uint16_t qemu_eth_port = free_udp_port();
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

    memset(s, 0, sizeof(*s));
    s->qts = qtest_initf("-machine none -object wlan-air,id=air0,"
                         "link-listen=%u,link-token=" TOKEN_HEX
                         " -netdev socket,id=n0,udp=127.0.0.1:%u,"
                         "localaddr=127.0.0.1:%u"
                         " -object wlan-ap,id=ap0,air=air0,netdev=n0,"
                         "ssid=qtest-wpa2,passphrase=password%s",
                         port, eth_port, qemu_eth_port, extra);
    s->fd = socket(AF_INET, SOCK_DGRAM, 0);
    g_assert(s->fd >= 0);
    a.sin_port = htons(port);
    g_assert(connect(s->fd, (struct sockaddr *)&a, sizeof(a)) == 0);
    link_send(s->fd, 1, NULL, 0);                       /* hello */

    s->eth = socket(AF_INET, SOCK_DGRAM, 0);
    g_assert(s->eth >= 0);
    a.sin_port = htons(eth_port);
    g_assert(bind(s->eth, (struct sockaddr *)&a, sizeof(a)) == 0);
    a.sin_port = htons(qemu_eth_port);
    g_assert(connect(s->eth, (struct sockaddr *)&a, sizeof(a)) == 0);
    g_assert(wlan_rsn_pmk("password", (const uint8_t *)"qtest-wpa2", 10,
                          s->pmk, &error_abort));
}

static void sta_stop(Sta *s)
{
    wlan_ccmp_key_clear(&s->ptk_key);
    wlan_ccmp_key_clear(&s->gtk_key);
    close(s->fd);
    close(s->eth);
    qtest_quit(s->qts);
}

/* Association and the whole 4-way handshake with the right passphrase. */
static void sta_connect(Sta *s)
{
    g_assert_cmpuint(associate(s->fd, good_rsn_ie, sizeof(good_rsn_ie)), ==,
                     0);
    recv_msg1(s);
    send_msg2(s, s->pmk);
    recv_msg3(s);
    g_assert_cmpuint(ap_counter(s->qts, "handshakes-completed"), ==, 0);
    send_eapol(s, KI_VER2 | KI_PAIRWISE | KI_MIC | KI_SECURE, s->replay,
               NULL, NULL, 0, s->ptk.kck, false);
    link_sync(s->fd);
    g_assert(wlan_ccmp_key_init(&s->ptk_key, s->ptk.tk, 0, &error_abort));
    g_assert_cmpuint(ap_counter(s->qts, "handshakes-completed"), ==, 1);
}

/* The next Ethernet frame the AP bridged to the netdev, or 0. */
static size_t eth_recv(Sta *s, uint8_t *buf, size_t size)
{
    struct pollfd pfd = { .fd = s->eth, .events = POLLIN };
    ssize_t n;

    if (poll(&pfd, 1, 500) <= 0) {
        return 0;
    }
    n = recv(s->eth, buf, size, 0);
    g_assert_cmpint(n, >, 0);
    return n;
}

/* An Ethernet frame into the AP from the netdev side. */
static void eth_send(Sta *s, const uint8_t *da, const char *payload)
{
    uint8_t buf[256];
    size_t len = strlen(payload);

    memcpy(buf, da, 6);
    memcpy(buf + 6, eth_host, 6);
    stw_be_p(buf + 12, 0x88b5);                 /* local experimental */
    memcpy(buf + 14, payload, len);
    g_assert_cmpint(send(s->eth, buf, 14 + len, 0), ==, 14 + len);
}

/* The payload of a protected frame the AP sent, opened with key. */
static void assert_payload(Sta *s, WlanCcmpKey *key, const uint8_t *da,
                           const char *payload)
{
    uint8_t f[2400], plain[2400];
    size_t n = recv_data(s, f), len;

    g_assert_cmphex(f[1] & 0x40, ==, 0x40);
    g_assert_cmphex(f[24 + 3], ==, 0x20 | key->key_id << 6);
    g_assert_cmpint(wlan_ccmp_decap(key, f, n, plain, &len), ==,
                    WLAN_CCMP_OK);
    g_assert_cmpmem(plain + 4, 6, da, 6);
    g_assert_cmpuint(len, ==, 24 + SNAP_LEN + strlen(payload));
    g_assert_cmphex(lduw_be_p(plain + 24 + 6), ==, 0x88b5);
    g_assert_cmpmem(plain + 24 + SNAP_LEN, len - 24 - SNAP_LEN, payload,
                    strlen(payload));
}

/*
 * The whole handshake, then CCMP both ways: the station's protected
 * frame reaches the netdev as plain Ethernet; the netdev's unicast
 * comes to the station under the PTK, its broadcast under the GTK of
 * message 3. Before message 4 nothing but EAPOL passes.
 */
static void test_ap_4way(void)
{
    static const uint8_t body[] = {
        0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00, 0x88, 0xb5, 'u', 'p', 'l', 'i',
        'n', 'k',
    };
    uint8_t buf[2400];
    Sta s;
    size_t n;

    sta_start(&s, "");
    g_assert_cmpuint(associate(s.fd, good_rsn_ie, sizeof(good_rsn_ie)), ==,
                     0);
    recv_msg1(&s);
    /* the port is closed: data from the station is dropped */
    send_data(&s, eth_host, body, sizeof(body), false);
    g_assert_cmpuint(eth_recv(&s, buf, sizeof(buf)), ==, 0);
    g_assert_cmpuint(ap_counter(s.qts, "rx-unprotected-dropped"), ==, 1);
    send_msg2(&s, s.pmk);
    recv_msg3(&s);
    send_eapol(&s, KI_VER2 | KI_PAIRWISE | KI_MIC | KI_SECURE, s.replay,
               NULL, NULL, 0, s.ptk.kck, false);
    link_sync(s.fd);
    g_assert(wlan_ccmp_key_init(&s.ptk_key, s.ptk.tk, 0, &error_abort));
    g_assert_cmpuint(ap_counter(s.qts, "handshakes-completed"), ==, 1);
    g_assert_cmpuint(ap_counter(s.qts, "handshake-failures"), ==, 0);

    send_data(&s, eth_host, body, sizeof(body), true);
    n = eth_recv(&s, buf, sizeof(buf));
    g_assert_cmpuint(n, ==, 14 + 6);
    g_assert_cmpmem(buf, 6, eth_host, 6);
    g_assert_cmpmem(buf + 6, 6, sta_mac, 6);
    g_assert_cmphex(lduw_be_p(buf + 12), ==, 0x88b5);
    g_assert_cmpmem(buf + 14, 6, "uplink", 6);

    eth_send(&s, sta_mac, "to the station");
    assert_payload(&s, &s.ptk_key, sta_mac, "to the station");
    eth_send(&s, (const uint8_t *)"\xff\xff\xff\xff\xff\xff", "to all");
    assert_payload(&s, &s.gtk_key, (const uint8_t *)"\xff\xff\xff\xff\xff"
                   "\xff", "to all");
    g_assert_cmpuint(ap_counter(s.qts, "rx-ccmp-mic-errors"), ==, 0);
    g_assert_cmpuint(ap_counter(s.qts, "rx-ccmp-replays"), ==, 0);
    sta_stop(&s);
}

/*
 * Replays, forgeries and plaintext after the keys are in: each dropped
 * (nothing reaches the netdev) and counted in its own counter.
 */
static void test_ap_ccmp_drops(void)
{
    static const uint8_t body[] = {
        0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00, 0x88, 0xb5, 'o', 'n', 'c', 'e',
    };
    uint8_t f[64], sealed[128], buf[2400];
    size_t n;
    Sta s;

    sta_start(&s, "");
    sta_connect(&s);
    memset(f, 0, 24);
    f[0] = 0x08;
    f[1] = 0x01;
    memcpy(f + 4, ap_bssid, 6);
    memcpy(f + 10, sta_mac, 6);
    memcpy(f + 16, eth_host, 6);
    memcpy(f + 24, body, sizeof(body));
    g_assert_cmpint(wlan_ccmp_encap(&s.ptk_key, f, 24 + sizeof(body), sealed,
                                    sizeof(sealed), &n), ==, WLAN_CCMP_OK);
    link_send(s.fd, 0, sealed, n);
    g_assert_cmpuint(eth_recv(&s, buf, sizeof(buf)), ==, 14 + 4);
    link_send(s.fd, 0, sealed, n);                      /* replayed */
    g_assert_cmpuint(eth_recv(&s, buf, sizeof(buf)), ==, 0);
    g_assert_cmpuint(ap_counter(s.qts, "rx-ccmp-replays"), ==, 1);

    stw_le_p(f + 22, 1 << 4);
    g_assert_cmpint(wlan_ccmp_encap(&s.ptk_key, f, 24 + sizeof(body), sealed,
                                    sizeof(sealed), &n), ==, WLAN_CCMP_OK);
    sealed[24 + 8 + 9] ^= 0x10;                         /* flipped byte */
    link_send(s.fd, 0, sealed, n);
    g_assert_cmpuint(eth_recv(&s, buf, sizeof(buf)), ==, 0);
    g_assert_cmpuint(ap_counter(s.qts, "rx-ccmp-mic-errors"), ==, 1);
    g_assert_cmpuint(ap_counter(s.qts, "rx-ccmp-replays"), ==, 1);
    /* the forged frame did not move the counter: the next PN passes */
    sealed[24 + 8 + 9] ^= 0x10;
    link_send(s.fd, 0, sealed, n);
    g_assert_cmpuint(eth_recv(&s, buf, sizeof(buf)), ==, 14 + 4);

    g_assert_cmpuint(ap_counter(s.qts, "rx-unprotected-dropped"), ==, 0);
    send_data(&s, eth_host, body, sizeof(body), false);
    g_assert_cmpuint(eth_recv(&s, buf, sizeof(buf)), ==, 0);
    g_assert_cmpuint(ap_counter(s.qts, "rx-unprotected-dropped"), ==, 1);
    g_assert_cmpuint(ap_counter(s.qts, "rx-ccmp-mic-errors"), ==, 1);
    sta_stop(&s);
}

/*
 * A wrong passphrase: every message 2 fails the AP's MIC check and is
 * dropped and counted; message 1 comes four times (100 ms, then 1 s
 * apart: hostapd's timing), with one ANonce and rising replay counters,
 * and after the last timeout the station is deauthenticated with reason
 * 15 (4-way handshake timeout, 802.11-2012 table 8-36).
 */
static void test_ap_wrong_passphrase(void)
{
    static const int64_t wait_ms[] = { 100, 1000, 1000, 1000 };
    uint8_t wrong[WLAN_PMK_LEN], anonce[WLAN_NONCE_LEN], f[2400];
    uint64_t last = 0;
    size_t n;
    Sta s;

    sta_start(&s, "");
    g_assert(wlan_rsn_pmk("passw0rd", (const uint8_t *)"qtest-wpa2", 10,
                          wrong, &error_abort));
    g_assert_cmpuint(associate(s.fd, good_rsn_ie, sizeof(good_rsn_ie)), ==,
                     0);
    for (int i = 0; i < 4; i++) {
        recv_msg1(&s);
        if (i == 0) {
            memcpy(anonce, s.anonce, sizeof(anonce));
        } else {
            g_assert_cmpmem(s.anonce, sizeof(anonce), anonce, sizeof(anonce));
            g_assert_cmpuint(s.replay, >, last);
        }
        last = s.replay;
        send_msg2(&s, wrong);
        link_sync(s.fd);
        g_assert_cmpuint(ap_counter(s.qts, "rx-eapol-mic-errors"), ==, i + 1);
        /* just short of the timeout: nothing yet */
        qtest_clock_step(s.qts, (wait_ms[i] - 1) * 1000000);
        g_assert_cmpuint(link_recv_to_sta(s.fd, f), ==, 0);
        qtest_clock_step(s.qts, 1000000);
    }
    n = link_recv_to_sta(s.fd, f);
    g_assert_cmpuint(n, ==, 26);
    g_assert_cmphex(f[0], ==, 0xc0);                    /* deauth */
    g_assert_cmpuint(lduw_le_p(f + 24), ==, 15);
    g_assert_cmpuint(ap_counter(s.qts, "handshake-failures"), ==, 1);
    g_assert_cmpuint(ap_counter(s.qts, "handshakes-completed"), ==, 0);
    g_assert_cmpuint(ap_stations(s.qts), ==, 0);
    sta_stop(&s);
}

/*
 * group-rekey=5: five seconds on, a new GTK (the other key id) comes in
 * group message 1, under the PTK, wrapped with the KEK; once the station
 * answered with message 2, broadcast data is under the new key.
 */
static void test_ap_group_rekey(void)
{
    uint8_t e[2400], old_gtk[WLAN_GTK_LEN], old_id;
    size_t len;
    Sta s;

    sta_start(&s, ",group-rekey=5");
    sta_connect(&s);
    memcpy(old_gtk, s.gtk, sizeof(old_gtk));
    old_id = s.gtk_id;
    g_assert_cmpuint(ap_counter(s.qts, "group-rekeys"), ==, 0);
    qtest_clock_step(s.qts, 5000000000LL);
    len = recv_eapol(&s, e, true);
    g_assert_cmphex(lduw_be_p(e + 5), ==, KI_VER2 | KI_ACK | KI_MIC |
                    KI_SECURE | KI_ENC);
    g_assert_cmpuint(ldq_be_p(e + 9), >, s.replay);
    s.replay = ldq_be_p(e + 9);
    assert_eapol_mic(&s, e, len);
    take_gtk(&s, e, false);
    g_assert_cmpuint(s.gtk_id, ==, 3 - old_id);
    g_assert(memcmp(s.gtk, old_gtk, sizeof(old_gtk)));
    g_assert_cmpuint(ap_counter(s.qts, "group-rekeys"), ==, 1);
    send_eapol(&s, KI_VER2 | KI_MIC | KI_SECURE, s.replay, NULL, NULL, 0,
               s.ptk.kck, true);
    link_sync(s.fd);
    eth_send(&s, (const uint8_t *)"\xff\xff\xff\xff\xff\xff", "new key");
    assert_payload(&s, &s.gtk_key, (const uint8_t *)"\xff\xff\xff\xff\xff"
                   "\xff", "new key");
    sta_stop(&s);
}

/*
 * Message 3 unanswered for 100 ms goes out again with the next replay
 * counter; a message 4 answering the first copy still completes the
 * handshake (the supplicant may have been slow, not the AP's copy lost).
 */
static void test_ap_msg3_retry(void)
{
    uint64_t first;
    Sta s;

    sta_start(&s, "");
    g_assert_cmpuint(associate(s.fd, good_rsn_ie, sizeof(good_rsn_ie)), ==,
                     0);
    recv_msg1(&s);
    send_msg2(&s, s.pmk);
    recv_msg3(&s);
    first = s.replay;
    qtest_clock_step(s.qts, 100 * 1000000);
    recv_msg3(&s);
    g_assert_cmpuint(s.replay, ==, first + 1);
    send_eapol(&s, KI_VER2 | KI_PAIRWISE | KI_MIC | KI_SECURE, first, NULL,
               NULL, 0, s.ptk.kck, false);
    link_sync(s.fd);
    g_assert_cmpuint(ap_counter(s.qts, "handshakes-completed"), ==, 1);
    /* and no third copy comes */
    qtest_clock_step(s.qts, 2000 * 1000000LL);
    g_assert_cmpuint(link_recv_to_sta(s.fd, (uint8_t[2400]) { 0 }), ==, 0);
    sta_stop(&s);
}

/*
 * A message 2 whose RSN element is not the association request's (here:
 * other RSN capabilities), with a good MIC: deauthenticated at once with
 * reason 17 (802.11-2012 table 8-36).
 */
static void test_ap_msg2_rsn_differs(void)
{
    uint8_t other_ie[sizeof(good_rsn_ie)], f[2400];
    size_t n;
    Sta s;

    memcpy(other_ie, good_rsn_ie, sizeof(other_ie));
    other_ie[sizeof(other_ie) - 2] = 0x0c;
    sta_start(&s, "");
    g_assert_cmpuint(associate(s.fd, good_rsn_ie, sizeof(good_rsn_ie)), ==,
                     0);
    recv_msg1(&s);
    memset(s.snonce, 0x33, sizeof(s.snonce));
    g_assert(wlan_rsn_ptk(s.pmk, sta_mac, ap_bssid, s.snonce, s.anonce,
                          &s.ptk, &error_abort));
    send_eapol(&s, KI_VER2 | KI_PAIRWISE | KI_MIC, s.replay, s.snonce,
               other_ie, sizeof(other_ie), s.ptk.kck, false);
    n = link_recv_to_sta(s.fd, f);
    g_assert_cmpuint(n, ==, 26);
    g_assert_cmphex(f[0], ==, 0xc0);
    g_assert_cmpuint(lduw_le_p(f + 24), ==, 17);
    g_assert_cmpuint(ap_counter(s.qts, "handshake-failures"), ==, 1);
    g_assert_cmpuint(ap_counter(s.qts, "rx-eapol-mic-errors"), ==, 0);
    sta_stop(&s);
}

/*
 * A station that never answers group message 1 gets it four times (500
 * ms, then 1 s apart) and is then deauthenticated with reason 16 (group
 * key handshake timeout); that is no 4-way handshake failure.
 */
static void test_ap_group_timeout(void)
{
    static const int64_t wait_ms[] = { 500, 1000, 1000, 1000 };
    uint8_t e[2400], f[2400];
    uint64_t last = 0;
    size_t n;
    Sta s;

    sta_start(&s, ",group-rekey=5");
    sta_connect(&s);
    qtest_clock_step(s.qts, 5000000000LL);
    for (int i = 0; i < 4; i++) {
        recv_eapol(&s, e, true);
        g_assert_cmpuint(ldq_be_p(e + 9), >, last);
        last = ldq_be_p(e + 9);
        qtest_clock_step(s.qts, (wait_ms[i] - 1) * 1000000);
        g_assert_cmpuint(link_recv_to_sta(s.fd, f), ==, 0);
        qtest_clock_step(s.qts, 1000000);
    }
    n = link_recv_to_sta(s.fd, f);
    g_assert_cmpuint(n, ==, 26);
    g_assert_cmphex(f[0], ==, 0xc0);
    g_assert_cmpuint(lduw_le_p(f + 24), ==, 16);
    g_assert_cmpuint(ap_counter(s.qts, "handshake-failures"), ==, 0);
    g_assert_cmpuint(ap_stations(s.qts), ==, 0);
    sta_stop(&s);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qcrypto_init(&error_abort);

    qtest_add_func("/ndisbench/rsn/pmk", test_pmk);
    qtest_add_func("/ndisbench/rsn/pmk-refused", test_pmk_refused);
    qtest_add_func("/ndisbench/rsn/prf", test_prf);
    qtest_add_func("/ndisbench/rsn/ptk", test_ptk);
    qtest_add_func("/ndisbench/rsn/eapol-mic", test_eapol_mic);
    qtest_add_func("/ndisbench/rsn/keywrap", test_keywrap);
    qtest_add_func("/ndisbench/rsn/ccm", test_ccm);
    qtest_add_func("/ndisbench/rsn/ccmp", test_ccmp);
    qtest_add_func("/ndisbench/rsn/ccmp-drops", test_ccmp_drops);
    qtest_add_func("/ndisbench/rsn/ccmp-qos", test_ccmp_qos);
    qtest_add_func("/ndisbench/rsn/ap-beacons", test_ap_beacons);
    qtest_add_func("/ndisbench/rsn/ap-passphrase", test_ap_passphrase_property);
    qtest_add_func("/ndisbench/rsn/ap-assoc-rsn", test_ap_assoc_rsn);
    qtest_add_func("/ndisbench/rsn/ap-4way", test_ap_4way);
    qtest_add_func("/ndisbench/rsn/ap-ccmp-drops", test_ap_ccmp_drops);
    qtest_add_func("/ndisbench/rsn/ap-wrong-passphrase",
                   test_ap_wrong_passphrase);
    qtest_add_func("/ndisbench/rsn/ap-group-rekey", test_ap_group_rekey);
    qtest_add_func("/ndisbench/rsn/ap-msg3-retry", test_ap_msg3_retry);
    qtest_add_func("/ndisbench/rsn/ap-msg2-rsn-differs",
                   test_ap_msg2_rsn_differs);
    qtest_add_func("/ndisbench/rsn/ap-group-timeout", test_ap_group_timeout);
    return g_test_run();
}
