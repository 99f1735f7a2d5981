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

/* Migrate the source VM into `path` and wait until that has completed. */
static inline void migrate_to_file(QTestState *qts, const char *path)
{
    g_autofree char *uri = g_strdup_printf("exec:cat > %s", path);
    QDict *resp;
    const char *status;
    int i;

    resp = qtest_qmp(qts, "{'execute': 'migrate', 'arguments': "
                     "{'uri': %s}}", uri);
    g_assert(qdict_haskey(resp, "return"));
    qobject_unref(resp);
    for (i = 0; i < 10000; i++) {
        resp = qtest_qmp(qts, "{'execute': 'query-migrate'}");
        status = qdict_get_try_str(qdict_get_qdict(resp, "return"),
                                   "status");
        if (status && g_str_equal(status, "completed")) {
            qobject_unref(resp);
            return;
        }
        g_assert(!status || !g_str_equal(status, "failed"));
        qobject_unref(resp);
        g_usleep(1000);
    }
    g_assert_not_reached();
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

#endif /* NDISBENCH_QTEST_H */
