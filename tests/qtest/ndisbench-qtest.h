/*
 * ndisbench qtests: helpers the device-model qtests share
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Included by tests/qtest/ndisbench-*-test.c after libqtest.h and
 * qapi/qmp/qdict.h; qemu_build.py links it into QEMU's tests/qtest/ next
 * to them.
 */
#ifndef NDISBENCH_QTEST_H
#define NDISBENCH_QTEST_H

/*
 * A private folder (0700, g_dir_make_tmp) for a test's migration streams.
 * Tests may run as root: a fixed name in the shared temporary folder
 * could be a link planted there, and QEMU would write through it. Remove
 * it with stream_dir_free().
 */
static inline char *stream_dir_new(void)
{
    GError *err = NULL;
    char *dir = g_dir_make_tmp("ndisbench-qtest-XXXXXX", &err);

    g_assert_no_error(err);
    return dir;
}

/* Remove a stream_dir_new() folder with the files in it. */
static inline void stream_dir_free(char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *name;

    while (d && (name = g_dir_read_name(d))) {
        g_autofree char *file = g_build_filename(dir, name, NULL);

        unlink(file);
    }
    if (d) {
        g_dir_close(d);
    }
    rmdir(dir);
    g_free(dir);
}

/*
 * Open @path (not through a link) with @flags and hand it to QEMU's
 * monitor as fd "stream" (getfd): the migration's fd: end. QEMU holds
 * its own copy; ours is closed.
 */
static inline void stream_fd_to(QTestState *qts, const char *path,
                                int flags)
{
    int fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC, 0600);
    QDict *resp;

    g_assert(fd >= 0);
    resp = qtest_qmp_fds(qts, &fd, 1, "{'execute': 'getfd', 'arguments': "
                         "{'fdname': 'stream'}}");
    g_assert(qdict_haskey(resp, "return"));
    qobject_unref(resp);
    close(fd);
}

/*
 * Migrate the source VM into `path` (best in a stream_dir_new() folder)
 * through fd: and wait until that has completed: query-migrate says so
 * a moment before the VM leaves the finish-migrate state, and a `cont`
 * in that moment is refused ("Migration is not finalized yet"), so the
 * run state is waited for too.
 */
static inline void migrate_to_file(QTestState *qts, const char *path)
{
    QDict *resp;
    const char *status;
    int i;

    stream_fd_to(qts, path, O_WRONLY | O_CREAT | O_TRUNC);
    resp = qtest_qmp(qts, "{'execute': 'migrate', 'arguments': "
                     "{'uri': 'fd:stream'}}");
    g_assert(qdict_haskey(resp, "return"));
    qobject_unref(resp);
    for (i = 0; i < 10000; i++) {
        resp = qtest_qmp(qts, "{'execute': 'query-migrate'}");
        status = qdict_get_try_str(qdict_get_qdict(resp, "return"),
                                   "status");
        if (status && g_str_equal(status, "completed")) {
            qobject_unref(resp);
            break;
        }
        g_assert(!status || !g_str_equal(status, "failed"));
        qobject_unref(resp);
        g_usleep(1000);
    }
    g_assert_cmpint(i, <, 10000);
    for (i = 0; i < 10000; i++) {
        resp = qtest_qmp(qts, "{'execute': 'query-status'}");
        status = qdict_get_try_str(qdict_get_qdict(resp, "return"),
                                   "status");
        if (status && !g_str_equal(status, "finish-migrate")) {
            qobject_unref(resp);
            return;
        }
        qobject_unref(resp);
        g_usleep(1000);
    }
    g_assert_not_reached();
}

/*
 * Start loading the stream in @path into @qts (started with -incoming
 * defer) through fd:, without waiting for the answer.
 */
static inline void incoming_from_file(QTestState *qts, const char *path)
{
    stream_fd_to(qts, path, O_RDONLY);
    qtest_qmp_send(qts, "{'execute': 'migrate-incoming', 'arguments': "
                   "{'uri': 'fd:stream'}}");
}

/* The destination loads in the background: wait until it has. */
static inline void wait_incoming(QTestState *qts)
{
    QDict *resp;
    bool loading = true;
    int i;

    for (i = 0; i < 10000 && loading; i++) {
        resp = qtest_qmp(qts, "{'execute': 'query-status'}");
        loading = g_str_equal(qdict_get_str(qdict_get_qdict(resp, "return"),
                                            "status"), "inmigrate");
        qobject_unref(resp);
        if (loading) {
            g_usleep(1000);
        }
    }
    g_assert(!loading);
}

/*
 * Load the stream in @path into a new QEMU started with @args (-incoming
 * defer, then migrate-incoming from an fd, so that a QEMU refusing the
 * stream does not exit under libqtest's handshake) and wait until the
 * load is over, as the destination's trace of it says. Returns the QEMU, running on,
 * if the stream loaded; NULL if QEMU refused it and exited with status 1.
 * Any other end (a crash, an abort) fails the test in qtest_quit().
 */
static inline QTestState *load_stream(const char *args, const char *path)
{
    g_autofree char *log = g_strdup_printf("%s.trace", path);
    QTestState *qts;
    int i;

    unlink(log);
    qts = qtest_initf("%s -incoming defer -D %s "
                      "-trace process_incoming_migration_co_end", args, log);
    qtest_set_expected_status(qts, EXIT_FAILURE);
    incoming_from_file(qts, path);
    for (i = 0; i < 60000; i++) {
        g_autofree char *text = NULL;

        if (!qtest_probe_child(qts)) {
            qtest_quit(qts);    /* status 1: refused */
            unlink(log);
            return NULL;
        }
        if (g_file_get_contents(log, &text, NULL, NULL) &&
            strstr(text, "process_incoming_migration_co_end ret=0 ")) {
            qtest_set_expected_status(qts, 0);
            qobject_unref(qtest_qmp_receive(qts));  /* migrate-incoming */
            unlink(log);
            return qts;
        }
        g_usleep(1000);
    }
    g_assert_not_reached();
}

/*
 * Copy @src to @dst with the 4 bytes at @off after the first occurrence
 * of @pattern (plen bytes) replaced by @val (big-endian, as VMState puts
 * a uint32).
 */
static inline void patch_stream(const char *src, const char *dst,
                                const uint8_t *pattern, size_t plen,
                                size_t off, uint32_t val)
{
    g_autofree gchar *data = NULL;
    gsize size;
    uint8_t *p;

    g_assert(g_file_get_contents(src, &data, &size, NULL));
    p = memmem(data, size, pattern, plen);
    g_assert(p && p + off + 4 <= (uint8_t *)data + size);
    stl_be_p(p + off, val);
    g_assert(g_file_set_contents(dst, data, size, NULL));
}

/* A UDP port on 127.0.0.1 that was free a moment ago. */
static inline uint16_t free_udp_port(void)
{
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t alen = sizeof(a);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);

    g_assert(fd >= 0);
    g_assert(bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
    g_assert(getsockname(fd, (struct sockaddr *)&a, &alen) == 0);
    close(fd);
    return ntohs(a.sin_port);
}

/* Set a wlan-air property (a fault rate, delay-us...) of air0. */
static inline void air_set(QTestState *qts, const char *prop, int64_t value)
{
    qtest_qmp_assert_success(qts, "{'execute': 'qom-set', 'arguments': {"
                             "'path': '/objects/air0', 'property': %s, "
                             "'value': %" PRId64 "}}", prop, value);
}

/* The 802.11 FCS (IEEE CRC-32, reflected, as zlib's crc32()). */
static inline uint32_t fcs32(const uint8_t *buf, size_t len)
{
    uint32_t crc = 0xffffffff;
    size_t i;
    int k;

    for (i = 0; i < len; i++) {
        crc ^= buf[i];
        for (k = 0; k < 8; k++) {
            crc = (crc >> 1) ^ (0xedb88320 & -(crc & 1));
        }
    }
    return ~crc;
}

/* How many bits differ between two buffers. */
static inline int bits_differ(const uint8_t *a, const uint8_t *b, size_t len)
{
    int n = 0;
    size_t i;

    for (i = 0; i < len; i++) {
        n += __builtin_popcount(a[i] ^ b[i]);
    }
    return n;
}

/*
 * For a watchdog that found QEMU hanging: SIGKILL every child of this
 * process (the QEMUs libqtest started), since libqtest's abort hook only
 * sends SIGTERM and waits, which a QEMU spinning in a device model never
 * answers.
 */
static inline void kill_qemu_children(void)
{
    GDir *dir = g_dir_open("/proc", 0, NULL);
    const char *name;

    while (dir && (name = g_dir_read_name(dir))) {
        g_autofree char *path = g_strdup_printf("/proc/%s/stat", name);
        g_autofree char *stat = NULL;
        const char *p = NULL;
        int ppid = 0;

        if (g_ascii_isdigit(name[0]) &&
            g_file_get_contents(path, &stat, NULL, NULL)) {
            p = strrchr(stat, ')');     /* after the command's name */
        }
        if (p && sscanf(p + 1, " %*c %d", &ppid) == 1 && ppid == getpid()) {
            kill(atoi(name), SIGKILL);
        }
    }
    if (dir) {
        g_dir_close(dir);
    }
}

#endif /* NDISBENCH_QTEST_H */
