/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ndisbench-agent: /init of the ndisbench guest initramfs.
 *
 * Reads what to do from the kernel command line, runs the test table's
 * rows (struct agent_test: each family file, load.c, install.c, net.c,
 * wireless.c, soak.c, contributes its own) in order, reports what the
 * kernel did as KTAP version 1 on the console and powers the guest off.
 * The output contract is described in README.md next to this file.
 *
 * Build: meson (guest/agent/meson.build; README.md has the gcc line).
 */

#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

#define SHELL_PATH      "/bin/sh"
/* A kmsg record (at most 16 KiB) fully escaped, plus the fact's prefix. */
#define OUT_LINE_MAX    (4 * 16384 + 64)
#define TABLE_MAX       AGENT_TABLE_MAX

/* ---- pure helpers: no I/O, no global state ---- */


/*
 * Split the next whitespace-separated word off a kernel command line, in
 * place. Double quotes group words and are removed, as the kernel does for
 * param="a b". Returns NULL when no word is left.
 */
static char *cmdline_next(char **cursor)
{
    char *in = *cursor;
    char *out;
    char *word;
    bool quoted = false;

    while (*in == ' ' || (*in >= '\t' && *in <= '\r'))
        in++;
    if (*in == '\0') {
        *cursor = in;
        return NULL;
    }
    word = out = in;
    for (; *in != '\0'; in++) {
        if (*in == '"') {
            quoted = !quoted;
            continue;
        }
        if (!quoted && (*in == ' ' || (*in >= '\t' && *in <= '\r'))) {
            in++;
            break;
        }
        *out++ = *in;
    }
    *cursor = in;
    *out = '\0';
    return word;
}

/* Kernel bool parameter semantics: no value, "1", "y..." or "Y..." is true. */
bool parse_bool(const char *value)
{
    return value == NULL || value[0] == '1' || value[0] == 'y' ||
           value[0] == 'Y';
}

/*
 * Split a comma-separated list in place into items[], skipping empty
 * items. items[] needs room for strlen(list) / 2 + 1 entries.
 */
size_t split_list(char *list, char **items)
{
    size_t n = 0;
    char *item;

    while ((item = strsep(&list, ",")) != NULL) {
        if (*item != '\0')
            items[n++] = item;
    }
    return n;
}

/* Remove trailing newlines (and carriage returns) in place. */
char *strip_newline(char *s)
{
    size_t len = strlen(s);

    while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r'))
        s[--len] = '\0';
    return s;
}

#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 32)
const char *errno_name(int err)
{
    const char *name;

    if (err == 0)
        return "0";
    name = strerrorname_np(err);
    return name != NULL ? name : "UNKNOWN";
}
#else
const char *errno_name(int err)
{
    static const struct {
        int err;
        const char *name;
    } names[] = {
        { EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { EINTR, "EINTR" },
        { EIO, "EIO" }, { ENOEXEC, "ENOEXEC" }, { EBADF, "EBADF" },
        { EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" }, { EACCES, "EACCES" },
        { EFAULT, "EFAULT" }, { EBUSY, "EBUSY" }, { EEXIST, "EEXIST" },
        { ENODEV, "ENODEV" }, { EISDIR, "EISDIR" }, { EINVAL, "EINVAL" },
        { ENOSPC, "ENOSPC" }, { ERANGE, "ERANGE" }, { ENOSYS, "ENOSYS" },
        { EBADMSG, "EBADMSG" }, { EKEYREJECTED, "EKEYREJECTED" },
        { ENOKEY, "ENOKEY" }, { EWOULDBLOCK, "EWOULDBLOCK" },
    };
    size_t i;

    if (err == 0)
        return "0";
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (names[i].err == err)
            return names[i].name;
    }
    return "UNKNOWN";
}
#endif

int bad_value(void)
{
    errno = EINVAL;
    return -1;
}

int planned_once(const struct agent_opts *opts)
{
    (void)opts;
    return 1;
}

int planned_with_iface(const struct agent_opts *opts)
{
    return opts->net.ifname != NULL;
}

/* ---- the test table ---- */

/* ndisbench.shell=1: after the run, exec /bin/sh instead of powering off. */
static int parse_shell(char *value, struct agent_opts *opts)
{
    opts->shell = parse_bool(value);
    return 0;
}

/*
 * ndisbench.params=console: the rest of the parameters come as one line on
 * the console, after the agent has said PARAMS_READY. The host boots a
 * kernel x device once, saves the guest at that line and restores it for
 * every cell that shares the boot (scripts/ndisbench_lib/guest/
 * snapshot.py): what differs per cell cannot be on the kernel command
 * line.
 */
static int parse_params(char *value, struct agent_opts *opts)
{
    (void)opts;
    return value != NULL && strcmp(value, "console") == 0 ? 0 : bad_value();
}

const struct agent_test agent_settings[] = {
    { 0, "params", "ndisbench.params", parse_params, NULL, NULL, NULL },
    { 1, "shell", "ndisbench.shell", parse_shell, NULL, NULL, NULL },
};
const size_t agent_settings_count = ARRAY_SIZE(agent_settings);

static const struct {
    const struct agent_test *rows;
    const size_t *count;
} families[] = {
    { agent_settings, &agent_settings_count },
    { load_tests, &load_tests_count },
    { install_tests, &install_tests_count },
    { net_tests, &net_tests_count },
    { wireless_tests, &wireless_tests_count },
    { wpa_tests, &wpa_tests_count },
    { soak_tests, &soak_tests_count },
};

/* Every family's rows, in order of `order`. */
static size_t agent_table(const struct agent_test *const **out)
{
    static const struct agent_test *table[TABLE_MAX];
    static size_t n;
    size_t f, i, j;

    if (n == 0) {
        for (f = 0; f < ARRAY_SIZE(families); f++)
            for (i = 0; i < *families[f].count && n < TABLE_MAX; i++)
                table[n++] = &families[f].rows[i];
        for (i = 1; i < n; i++)
            for (j = i; j > 0 && table[j - 1]->order > table[j]->order; j--) {
                const struct agent_test *row = table[j];

                table[j] = table[j - 1];
                table[j - 1] = row;
            }
    }
    *out = table;
    return n;
}

/* The table index of a parameter's row, or -1. */
static int row_of_param(const char *param)
{
    const struct agent_test *const *table;
    size_t n = agent_table(&table);
    size_t i;

    for (i = 0; i < n; i++)
        if (table[i]->param != NULL && strcmp(table[i]->param, param) == 0)
            return (int)i;
    return -1;
}

bool agent_param(const struct agent_opts *opts, const char *param,
                 const char **value)
{
    int row = row_of_param(param);

    if (row < 0 || !opts->given[row])
        return false;
    if (value)
        *value = opts->values[row];
    return true;
}

int parse_cmdline(char *cmdline, struct agent_opts *opts)
{
    const struct agent_test *const *table;
    char *cursor = cmdline;
    char *word;

    agent_table(&table);
    memset(opts, 0, sizeof(*opts));
    while ((word = cmdline_next(&cursor)) != NULL) {
        char *value = strchr(word, '=');
        const struct agent_test *row;
        int index;

        if (value != NULL)
            *value++ = '\0';
        index = row_of_param(word);
        if (index < 0)
            continue;
        row = table[index];
        opts->given[index] = true;
        opts->values[index] = value;
        if (row->parse == NULL || row->parse(value, opts) == 0)
            continue;
        if (errno == ENOMEM)
            return -1;
        if (opts->bad_param == NULL)
            opts->bad_param = row->param;
    }
    return 0;
}

/*
 * The command line followed by the console's parameter line, as one
 * malloc()ed string for parse_cmdline (the later words win), or NULL.
 */
char *join_params(const char *cmdline, const char *line)
{
    size_t a = strlen(cmdline), b = strlen(line);
    char *out = malloc(a + b + 2);

    if (out == NULL)
        return NULL;
    memcpy(out, cmdline, a);
    out[a] = ' ';
    memcpy(out + a + 1, line, b + 1);
    return strip_newline(out);
}

/*
 * Read one line (up to the newline, which is dropped) from fd into buf of
 * size len, a byte at a time so that nothing after it is consumed.
 * Returns 0, or -1 with errno (EIO at end of file, E2BIG when the line does
 * not fit).
 */
int read_line(int fd, char *buf, size_t len)
{
    size_t n = 0;

    for (;;) {
        char c;
        ssize_t got = read(fd, &c, 1);

        if (got < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (got == 0) {
            errno = EIO;
            return -1;
        }
        if (c == '\n') {
            buf[n] = '\0';
            return 0;
        }
        if (n + 1 >= len) {
            errno = E2BIG;
            return -1;
        }
        buf[n++] = c;
    }
}

int planned_tests(const struct agent_opts *opts)
{
    const struct agent_test *const *table;
    size_t n = agent_table(&table);
    int plan = 0;
    size_t i;

    for (i = 0; i < n; i++)
        if (table[i]->run != NULL && table[i]->planned != NULL)
            plan += table[i]->planned(opts);
    return plan;
}

/* ---- output: one write() per complete line ---- */

static void write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);

        if (n < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        buf += n;
        len -= (size_t)n;
    }
}

/*
 * Print one line; the newline is added here, the caller gives none. The
 * line goes out in one write() and is drained from the serial port before
 * the agent goes on, so the kernel messages its next system call causes
 * cannot land inside it. (tcdrain() fails harmlessly on a non-tty.)
 */
void say(const char *fmt, ...)
{
    static char line[OUT_LINE_MAX];
    va_list ap;
    size_t len;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    len = (size_t)n < sizeof(line) - 1 ? (size_t)n : sizeof(line) - 2;
    line[len++] = '\n';
    write_all(STDOUT_FILENO, line, len);
    tcdrain(STDOUT_FILENO);
}

/* The KTAP result line of test number: "ok <n> <name>" or "not ok ...". */
void say_result(bool ok, int number, const char *name)
{
    struct agent_shared *rows = agent_shared();

    say("%s %d %s", ok ? "ok" : "not ok", number, name);
    /* PID 1 prints what a dead child did not (isolate.c). */
    if (rows != NULL)
        rows->last_result = number;
}

/* ---- system access ---- */

/* Read fd to EOF into a NUL-terminated malloc()ed buffer, or NULL. */
static char *read_all(int fd)
{
    size_t size = 0;
    size_t len = 0;
    char *buf = NULL;
    int err;

    for (;;) {
        ssize_t n;

        if (len + 1 >= size) {
            size_t bigger_size = size == 0 ? 4096 : 2 * size;
            char *bigger = realloc(buf, bigger_size);

            if (bigger == NULL)
                break;
            buf = bigger;
            size = bigger_size;
        }
        n = read(fd, buf + len, size - len - 1);
        if (n == 0) {
            buf[len] = '\0';
            return buf;
        }
        if (n > 0)
            len += (size_t)n;
        else if (errno != EINTR)
            break;
    }
    err = errno;
    free(buf);
    errno = err;
    return NULL;
}

/*
 * Read a whole file (procfs and sysfs files report size 0, so read to
 * EOF). Returns a NUL-terminated malloc()ed buffer, or NULL with errno
 * set.
 */
char *read_file(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    char *buf;
    int err;

    if (fd < 0)
        return NULL;
    buf = read_all(fd);
    err = errno;
    close(fd);
    errno = err;
    return buf;
}

long long monotonic_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ---- PID 1: the machine, the run, the end (not in the unit tests) ---- */

#ifndef NDISBENCH_AGENT_NO_MAIN
struct mount_spec {
    const char *source;
    const char *target;
    const char *type;
    unsigned long flags;
};

static const struct mount_spec mounts[AGENT_MOUNTS] = {
    { "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC },
    { "sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC },
    { "devtmpfs", "/dev", "devtmpfs", MS_NOSUID },
};

/* Mount the API filesystems; errs gets 0 or the errno of each. */
static void mount_api_filesystems(struct boot_errors *errs)
{
    size_t i;

    for (i = 0; i < AGENT_MOUNTS; i++) {
        const struct mount_spec *m = &mounts[i];

        mkdir(m->target, 0755);
        errs->target[i] = m->target;
        errs->mount[i] = 0;
        if (mount(m->source, m->target, m->type, m->flags, NULL) != 0 &&
            errno != EBUSY)
            errs->mount[i] = errno;
    }
}

/* Make sure fds 0, 1 and 2 are open, on /dev/console if they are not. */
static void setup_console(void)
{
    int console = -1;
    int fd;

    for (fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0)
            continue;
        if (console < 0) {
            console = open("/dev/console", O_RDWR | O_NOCTTY);
            if (console < 0)
                return;
        }
        if (console != fd)
            dup2(console, fd);
    }
    if (console > 2)
        close(console);
}

/*
 * The parameters the host writes on the console (ndisbench.params=console)
 * joined to the command line and parsed. Echo and line editing are off so
 * the line does not come back into the log, and the host knows the guest
 * waits from PARAMS_READY. The guest may be saved and restored at that
 * line, many times over.
 */
static char *console_params(char *cmdline, struct agent_opts *opts,
                            struct boot_errors *errs)
{
    static char line[PARAMS_LINE_MAX];
    struct termios tio;
    char *joined;

    if (tcgetattr(STDIN_FILENO, &tio) == 0) {
        tio.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON);
        tio.c_iflag &= ~(tcflag_t)(ICRNL | IXON);
        tio.c_cc[VMIN] = 1;
        tio.c_cc[VTIME] = 0;
        tcsetattr(STDIN_FILENO, TCSANOW, &tio);
    }
    preload_deps();
    say("%s", PARAMS_READY);
    joined = read_line(STDIN_FILENO, line, sizeof(line)) == 0 ?
             join_params(cmdline, line) : NULL;
    if (joined == NULL || parse_cmdline(joined, opts) != 0) {
        errs->params = errno;
        return cmdline;
    }
    return joined;
}

/* ---- the run ---- */

/* Each row in a child of its own (isolate.c): PID 1 survives its oops. */
static void run_tests(struct agent_opts *opts, const struct boot_errors *errs)
{
    struct agent_state local = { errs, 1, true, false };
    struct agent_shared *rows = agent_share(opts, errs);
    struct agent_state *state = rows != NULL ? &rows->state : &local;
    const struct agent_test *const *table;
    size_t n = agent_table(&table);
    size_t i;

    say("KTAP version 1");
    say("1..%d", planned_tests(opts));
    if (opts->bad_param)
        say("# error: bad %s= value", opts->bad_param);
    if (rows == NULL)
        say("# error: no shared mapping (errno %s): rows run in PID 1",
            errno_name(errno));
    for (i = 0; i < n; i++) {
        struct row_end end;

        if (table[i]->run != NULL && table[i]->planned(opts) > 0)
            row_run(table[i], opts, state, row_limit_ms(table[i], opts),
                    &end);
    }
}

/* ---- the end: PID 1 must never exit ---- */

static void exec_shell(void)
{
    char *const argv[] = { "sh", NULL };
    char *const envp[] = { "PATH=/bin:/sbin:/usr/bin:/usr/sbin", "HOME=/",
                           "TERM=linux", NULL };

    execve(SHELL_PATH, argv, envp);
    say("# ndisbench-agent: exec %s failed errno=%d", SHELL_PATH, errno);
}

__attribute__((noreturn))
static void finish(bool shell)
{
    say("# ndisbench-agent: done");
    sync();
    if (shell)
        exec_shell();
    reboot(RB_POWER_OFF);
    say("# ndisbench-agent: poweroff failed errno=%d", errno);
    for (;;)
        pause();
}

int main(void)
{
    struct agent_opts opts = { 0 };
    struct boot_errors errs = { { 0 }, { 0 }, 0, 0 };
    char *cmdline;

    if (getpid() != 1) {
        fprintf(stderr, "ndisbench-agent: must run as PID 1 (the guest's "
                "/init): it loads modules and powers off\n");
        return 1;
    }
    mount_api_filesystems(&errs);
    setup_console();

    cmdline = read_file("/proc/cmdline");
    if (cmdline == NULL || parse_cmdline(cmdline, &opts) != 0)
        errs.cmdline = errno;
    else if (agent_param(&opts, "ndisbench.params", NULL))
        cmdline = console_params(cmdline, &opts, &errs);

    run_tests(&opts, &errs);
    finish(opts.shell);
}
#endif
