/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ndisbench-agent: the kernel log through /dev/kmsg. The tests print the
 * records a load or a removal caused as `kmsg` facts, and at the end the
 * warnings and worse since boot as `klog` facts (the console shows only
 * emergencies and alerts, loglevel=2, so that asynchronous kernel messages
 * cannot cut into the agent's lines).
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"

#define KLOG_LEVEL      4       /* KERN_WARNING and worse */
#define KLOG_MAX        400
/* Larger than any /dev/kmsg record (CONSOLE_EXT_LOG_MAX is 8192). */
#define KMSG_RECORD_MAX 16384

/* ---- pure: a record's text, escaped ---- */

/*
 * The message text of one /dev/kmsg record "prio,seq,ts,flags;text\n",
 * which may be followed by continuation lines " KEY=value\n" (skipped).
 * Returns NULL if the record has no ';'.
 */
const char *kmsg_record_text(const char *rec, size_t len, size_t *text_len)
{
    const char *semi = memchr(rec, ';', len);
    const char *text;
    const char *nl;

    if (semi == NULL)
        return NULL;
    text = semi + 1;
    len -= (size_t)(text - rec);
    nl = memchr(text, '\n', len);
    *text_len = nl != NULL ? (size_t)(nl - text) : len;
    return text;
}

/*
 * Copy len bytes of in to out, writing every byte outside ' '..'~' as
 * \xNN, and NUL-terminate. Stops early rather than split an escape if out
 * is too small (4 * len + 1 bytes always suffice). Returns the length
 * written.
 */
size_t escape_text(const char *in, size_t len, char *out, size_t out_size)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    size_t i;

    if (out_size == 0)
        return 0;
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)in[i];

        if (c >= ' ' && c <= '~') {
            if (o + 1 >= out_size)
                break;
            out[o++] = (char)c;
        } else {
            if (o + 4 >= out_size)
                break;
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 0xf];
        }
    }
    out[o] = '\0';
    return o;
}

/* ---- writing and reading /dev/kmsg ---- */

const char *kmsg_mark_path = KMSG_PATH;

void kmsg_mark(const char *what, const char *row)
{
    char line[160];
    int fd, n;

    /* Opened for each mark: the kernel rate-limits the writes of one
     * open file (ten in five seconds). */
    fd = open(kmsg_mark_path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0)
        return;
    n = snprintf(line, sizeof(line), "<5>%s%s %s\n", ROW_MARK, what, row);
    if (n > 0 && (size_t)n < sizeof(line) && write(fd, line, (size_t)n) < 0)
        n = -1;
    close(fd);
}

/* Open /dev/kmsg positioned after the last record, or -1 with errno. */
int kmsg_open(void)
{
    int fd = open(KMSG_PATH, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

    if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0) {
        int err = errno;

        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

/* Print every record logged since kmsg_open() as "# kmsg: <text>". */
void kmsg_print_new(int fd)
{
    static char rec[KMSG_RECORD_MAX];
    static char text[4 * KMSG_RECORD_MAX + 1];

    for (;;) {
        ssize_t n = read(fd, rec, sizeof(rec));
        const char *msg;
        size_t msg_len;

        if (n < 0) {
            /* EPIPE: records were overwritten, the next read goes on. */
            if (errno == EINTR || errno == EPIPE)
                continue;
            if (errno != EAGAIN)
                say("# kmsg_error: cannot read %s: %s", KMSG_PATH,
                    strerror(errno));
            return;
        }
        if (n == 0)
            return;
        msg = kmsg_record_text(rec, (size_t)n, &msg_len);
        if (msg == NULL)
            continue;
        escape_text(msg, msg_len, text, sizeof(text));
        say("# kmsg: %s", text);
    }
}

/*
 * Every record of the kernel log at warning level or worse, from boot on,
 * as "# klog: <text>" (at most KLOG_MAX). The console shows only the
 * worst levels (loglevel=2), so that asynchronous kernel messages cannot
 * cut into the agent's lines; WARN, lockdep and KASAN reports reach the
 * host through these facts instead.
 */
void klog_print_new(int fd)
{
    static char rec[KMSG_RECORD_MAX];
    static char text[4 * KMSG_RECORD_MAX + 1];
    unsigned int printed = 0, skipped = 0;

    for (;;) {
        ssize_t n = read(fd, rec, sizeof(rec));
        const char *msg;
        size_t msg_len;

        if (n < 0 && (errno == EINTR || errno == EPIPE))
            continue;
        if (n <= 0)
            break;
        msg = kmsg_record_text(rec, (size_t)n, &msg_len);
        if (msg == NULL)
            continue;
        /* "<prio>,...;text": the level is prio's low three bits. The row
         * marks (notice) come too: they say which row a report is of. */
        if ((atoi(rec) & 7) > KLOG_LEVEL &&
            (msg_len < strlen(ROW_MARK) ||
             memcmp(msg, ROW_MARK, strlen(ROW_MARK)) != 0))
            continue;
        if (printed == KLOG_MAX) {
            skipped++;
            continue;
        }
        escape_text(msg, msg_len, text, sizeof(text));
        say("# klog: %s", text);
        printed++;
    }
    if (skipped)
        say("# klog_skipped: %u", skipped);
}
