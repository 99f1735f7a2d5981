/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ndisbench-agent: /init of the ndisbench guest initramfs.
 *
 * Loads the modules named by ndisbench.load= on the kernel command line,
 * reports what the kernel did as KTAP version 1 on the console, removes the
 * modules again and powers the guest off. The output contract is described
 * in README.md next to this file.
 *
 * Build: meson (guest/agent/meson.build; README.md has the gcc line).
 */

#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/module.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

#define MODULE_DIR      "/lib/ndisbench/modules"
#define DEPS_LIST       "/lib/ndisbench/deps.list"
#define TAINTED_PATH    "/proc/sys/kernel/tainted"
#define KMSG_PATH       "/dev/kmsg"
#define KLOG_LEVEL      4       /* KERN_WARNING and worse */
#define NOBODY_ID       65534
#define USB_DEVICES_DIR "/sys/bus/usb/devices"
#define USB_WAIT_MS     30000
#define DEVNODE_WAIT_MS 2000
#define KLOG_MAX        400
#define SHELL_PATH      "/bin/sh"
#define DEBUGFS_DIR     "/sys/kernel/debug"
#define KMEMLEAK_PATH   DEBUGFS_DIR "/kmemleak"
/* kmemleak reports no object younger than 5 s (MSECS_MIN_AGE) */
#define KMEMLEAK_AGE_MS 6000

/* CLOCK_MONOTONIC of the last module load (kmemleak_facts waits on it). */
static long long last_load_us;

#define OPT_LOAD        "ndisbench.load"
#define OPT_SHELL       "ndisbench.shell"
#define OPT_NET         "ndisbench.net"
#define OPT_INSTALL     "ndisbench.install"
#define OPT_BROKEN      "ndisbench.broken"
#define OPT_PING        "ndisbench.ping"
#define OPT_TCP         "ndisbench.tcp"
#define OPT_CONNECT     "ndisbench.connect"
#define OPT_HOTPLUG     "ndisbench.hotplug"
#define OPT_UDP         "ndisbench.udp"
#define OPT_SCAN        "ndisbench.scan"
#define OPT_ROAM        "ndisbench.roam"
#define OPT_SLOWDOWN    "ndisbench.slowdown"
#define OPT_USB         "ndisbench.usb"
#define OPT_PEER        "ndisbench.peer"
#define OPT_SOAK        "ndisbench.soak"

/* The kernel's MODULE_NAME_LEN is 64 - sizeof(unsigned long). */
#define MODULE_NAME_MAX 56
/* Larger than any /dev/kmsg record (CONSOLE_EXT_LOG_MAX is 8192). */
#define KMSG_RECORD_MAX 16384
/* A kmsg record fully escaped, plus the "# kmsg: " prefix. */
#define OUT_LINE_MAX    (4 * KMSG_RECORD_MAX + 64)

struct agent_opts {
    char **modules;             /* names from ndisbench.load=, in order */
    bool *loaded;               /* loaded[i]: modules[i] is loaded */
    size_t n_modules;
    bool shell;                 /* ndisbench.shell=1 */
    const char *install_inf;    /* ndisbench.install=<file.inf> */
    const char *usb_id;         /* ndisbench.usb=vvvv:pppp */
    char **broken;              /* ndisbench.broken=a.inf,b.inf */
    size_t n_broken;
    struct net_opts net;        /* ndisbench.net=, .ping=, .tcp= */
    bool net_opts_bad;          /* a network option did not parse */
    struct soak_opts soak;      /* ndisbench.soak= */
};

struct mount_spec {
    const char *source;
    const char *target;
    const char *type;
    unsigned long flags;
};

static const struct mount_spec mounts[] = {
    { "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC },
    { "sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC },
    { "devtmpfs", "/dev", "devtmpfs", MS_NOSUID },
};

#define N_MOUNTS (sizeof(mounts) / sizeof(mounts[0]))

/* What went wrong before the first test; reported by the boot test. */
struct boot_errors {
    int mount[N_MOUNTS];        /* per mounts[] entry: 0 or errno */
    int cmdline;                /* 0 or errno: /proc/cmdline unusable */
};

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
static bool parse_bool(const char *value)
{
    return value == NULL || value[0] == '1' || value[0] == 'y' ||
           value[0] == 'Y';
}

/*
 * Split a comma-separated list in place into items[], skipping empty
 * items. items[] needs room for strlen(list) / 2 + 1 entries.
 */
static size_t split_list(char *list, char **items)
{
    size_t n = 0;
    char *item;

    while ((item = strsep(&list, ",")) != NULL) {
        if (*item != '\0')
            items[n++] = item;
    }
    return n;
}

/*
 * Parse the kernel command line (modified in place; opts->modules points
 * into it). The last ndisbench.load= wins, as for kernel parameters.
 * Returns 0, or -1 with errno ENOMEM (opts then names no module).
 */
static int parse_cmdline(char *cmdline, struct agent_opts *opts)
{
    char *cursor = cmdline;
    char *load = NULL;
    char *broken = NULL;
    char *word;
    size_t max;

    opts->modules = NULL;
    opts->loaded = NULL;
    opts->n_modules = 0;
    opts->shell = false;
    opts->install_inf = NULL;
    opts->broken = NULL;
    opts->n_broken = 0;
    memset(&opts->net, 0, sizeof(opts->net));
    memset(&opts->soak, 0, sizeof(opts->soak));
    opts->net_opts_bad = false;

    while ((word = cmdline_next(&cursor)) != NULL) {
        char *value = strchr(word, '=');

        if (value != NULL)
            *value++ = '\0';
        if (strcmp(word, OPT_LOAD) == 0)
            load = value;
        else if (strcmp(word, OPT_SHELL) == 0)
            opts->shell = parse_bool(value);
        else if (strcmp(word, OPT_INSTALL) == 0 && value && *value)
            opts->install_inf = value;
        else if (strcmp(word, OPT_BROKEN) == 0 && value && *value)
            broken = value;
        else if (strcmp(word, OPT_USB) == 0 && value && *value)
            opts->usb_id = value;
        else if (strcmp(word, OPT_NET) == 0 && value && *value)
            opts->net.ifname = value;
        else if (strcmp(word, OPT_CONNECT) == 0 && value && *value)
            opts->net.connect_ssid = value;
        else if (strcmp(word, OPT_SCAN) == 0)
            opts->net.scan = parse_bool(value);
        else if (strcmp(word, OPT_ROAM) == 0)
            opts->net.roam = parse_bool(value);
        else if (strcmp(word, OPT_SLOWDOWN) == 0)
            opts->net_opts_bad |= !net_parse_count(value,
                                                   &opts->net.slowdown) ||
                                  opts->net.slowdown == 0 ||
                                  opts->net.slowdown > 20;
        else if (strcmp(word, OPT_UDP) == 0)
            opts->net_opts_bad |= !net_parse_udp(value, &opts->net);
        else if (strcmp(word, OPT_HOTPLUG) == 0)
            opts->net_opts_bad |= !net_parse_port(value,
                                                  &opts->net.hotplug_port);
        else if (strcmp(word, OPT_PING) == 0)
            opts->net_opts_bad |= !net_parse_count(value,
                                                   &opts->net.ping_count);
        else if (strcmp(word, OPT_TCP) == 0)
            opts->net_opts_bad |= !net_parse_tcp(value, &opts->net);
        else if (strcmp(word, OPT_PEER) == 0)
            opts->net_opts_bad |= !net_parse_peer(value, &opts->net);
        else if (strcmp(word, OPT_SOAK) == 0)
            opts->net_opts_bad |= !soak_parse(value, &opts->soak);
    }
    if (broken != NULL) {
        opts->broken = calloc(strlen(broken) / 2 + 1, sizeof(*opts->broken));
        if (opts->broken == NULL) {
            errno = ENOMEM;
            return -1;
        }
        opts->n_broken = split_list(broken, opts->broken);
    }
    if (load == NULL)
        return 0;
    max = strlen(load) / 2 + 1;
    opts->modules = calloc(max, sizeof(*opts->modules));
    opts->loaded = calloc(max, sizeof(*opts->loaded));
    if (opts->modules == NULL || opts->loaded == NULL) {
        free(opts->modules);
        free(opts->loaded);
        opts->modules = NULL;
        opts->loaded = NULL;
        errno = ENOMEM;
        return -1;
    }
    opts->n_modules = split_list(load, opts->modules);
    return 0;
}

/*
 * A module name as given on the command line: what the agent accepts as
 * a file name under MODULE_DIR.
 */
static bool valid_module_name(const char *name)
{
    size_t len = strlen(name);

    if (len == 0 || len >= MODULE_NAME_MAX)
        return false;
    for (; *name != '\0'; name++) {
        char c = *name;

        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return false;
    }
    return true;
}

/*
 * The name the kernel knows a module by: kbuild turns '-' in a module's
 * file name into '_'. out must hold MODULE_NAME_MAX bytes; name must be
 * valid_module_name().
 */
static void kernel_module_name(const char *name, char *out)
{
    size_t i;

    for (i = 0; i < MODULE_NAME_MAX - 1 && name[i] != '\0'; i++)
        out[i] = name[i] == '-' ? '_' : name[i];
    out[i] = '\0';
}

/*
 * finit_module() flags for a module file: the kernel decompresses a
 * .ko.xz, .ko.gz or .ko.zst itself when asked to (Debian's 6.12 kernels
 * ship their modules xz-compressed).
 */
static int module_file_flags(const char *path)
{
    static const char *const suffixes[] = { ".ko.xz", ".ko.gz", ".ko.zst" };
    size_t len = strlen(path);
    size_t i;

    for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
        size_t n = strlen(suffixes[i]);

        if (len >= n && strcmp(path + len - n, suffixes[i]) == 0)
            return MODULE_INIT_COMPRESSED_FILE;
    }
    return 0;
}

/*
 * The message text of one /dev/kmsg record "prio,seq,ts,flags;text\n",
 * which may be followed by continuation lines " KEY=value\n" (skipped).
 * Returns NULL if the record has no ';'.
 */
static const char *kmsg_record_text(const char *rec, size_t len,
                                    size_t *text_len)
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
static size_t escape_text(const char *in, size_t len, char *out,
                          size_t out_size)
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

/* Remove trailing newlines (and carriage returns) in place. */
static char *strip_newline(char *s)
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
    say("%s %d %s", ok ? "ok" : "not ok", number, name);
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

/*
 * /proc/sys/kernel/tainted as a decimal string in buf (size >= 24), or
 * "-" if it cannot be read.
 */
static const char *tainted(char *buf, size_t size)
{
    char *text = read_file(TAINTED_PATH);
    char *end;
    unsigned long value;

    snprintf(buf, size, "-");
    if (text == NULL)
        return buf;
    errno = 0;
    value = strtoul(text, &end, 10);
    if (errno == 0 && end != text)
        snprintf(buf, size, "%lu", value);
    free(text);
    return buf;
}

/* Returns 0 or the positive errno of finit_module(). */
static int finit_module_fd(int fd, int flags)
{
    return syscall(SYS_finit_module, fd, "", flags) == 0 ? 0 : errno;
}

/* Returns 0 or the positive errno of open() or finit_module(). */
static int load_module_path(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int err;

    if (fd < 0)
        return errno;
    err = finit_module_fd(fd, module_file_flags(path));
    close(fd);
    return err;
}

/* Returns 0 or the positive errno of delete_module(). */
static int delete_module(const char *name)
{
    return syscall(SYS_delete_module, name, O_NONBLOCK) == 0 ? 0 : errno;
}

/* Mount the API filesystems; errs[i] gets 0 or the errno for mounts[i]. */
static void mount_api_filesystems(int *errs)
{
    size_t i;

    for (i = 0; i < N_MOUNTS; i++) {
        const struct mount_spec *m = &mounts[i];

        mkdir(m->target, 0755);
        errs[i] = 0;
        if (mount(m->source, m->target, m->type, m->flags, NULL) != 0 &&
            errno != EBUSY)
            errs[i] = errno;
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

/* ---- /dev/kmsg ---- */

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
        /* "<prio>,...;text": the level is prio's low three bits. */
        if ((atoi(rec) & 7) > KLOG_LEVEL)
            continue;
        msg = kmsg_record_text(rec, (size_t)n, &msg_len);
        if (msg == NULL)
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

static void klog_facts(void)
{
    int fd = open(KMSG_PATH, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

    if (fd < 0)
        return;
    klog_print_new(fd);
    close(fd);
}

/*
 * The wrapper's misc device (/dev/<module name>) carries Windows driver
 * images into the kernel: only root may open it. A child that became
 * nobody tries; fact devnode_unprivileged_errno (0: it could). Nothing
 * where the module has no such node (devtmpfs gets DEVNODE_WAIT_MS).
 */
static void devnode_facts(const char *kname)
{
    char path[sizeof("/dev/") + MODULE_NAME_MAX];
    long long start = monotonic_us();
    int status;
    pid_t pid;

    snprintf(path, sizeof(path), "/dev/%s", kname);
    while (access(path, F_OK) != 0) {
        if (monotonic_us() - start > DEVNODE_WAIT_MS * 1000LL)
            return;
        usleep(10000);
    }
    pid = fork();
    if (pid == 0) {
        int fd;

        if (setgid(NOBODY_ID) != 0 || setuid(NOBODY_ID) != 0)
            _exit(127);
        fd = open(path, O_RDWR | O_CLOEXEC);
        _exit(fd >= 0 ? 0 : (errno & 0x7f));
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) == 127)
        return;
    say("# devnode_unprivileged_errno: %d", WEXITSTATUS(status));
    devnode_ioctl_facts(path);
}

/* ---- the tests ---- */

/* Test 1: the guest is up; load the dependency modules of DEPS_LIST. */
/* The first interface of the USB device vvvv:pppp is registered. */
static bool usb_device_ready(const char *id)
{
    char path[300], want[16], got[16] = "";
    struct dirent *ent;
    bool found = false;
    DIR *dir = opendir(USB_DEVICES_DIR);

    if (dir == NULL)
        return false;
    while (!found && (ent = readdir(dir)) != NULL) {
        char *vendor, *product;
        struct stat st;

        if (ent->d_name[0] == '.' || strchr(ent->d_name, ':'))
            continue;
        snprintf(path, sizeof(path), USB_DEVICES_DIR "/%s/idVendor",
                 ent->d_name);
        vendor = read_file(path);
        snprintf(path, sizeof(path), USB_DEVICES_DIR "/%s/idProduct",
                 ent->d_name);
        product = read_file(path);
        if (vendor && product) {
            snprintf(got, sizeof(got), "%.4s:%.4s", vendor, product);
            snprintf(want, sizeof(want), "%s", id);
            snprintf(path, sizeof(path), USB_DEVICES_DIR "/%s:1.0",
                     ent->d_name);
            found = strcasecmp(got, want) == 0 && stat(path, &st) == 0;
        }
        free(vendor);
        free(product);
    }
    closedir(dir);
    return found;
}

/*
 * A USB device enumerates after its host controller's module loaded (a
 * module on Debian's kernels): the wrapper's first load must not race it,
 * or it registers its USB driver before there is anything to probe.
 */
static bool wait_usb_device(const char *id)
{
    long long start = monotonic_us();

    while (!usb_device_ready(id)) {
        if (monotonic_us() - start > USB_WAIT_MS * 1000LL) {
            say("# error: USB device %s not enumerated within %d ms", id,
                USB_WAIT_MS);
            return false;
        }
        usleep(10000);
    }
    say("# usb_device_ms: %lld", (monotonic_us() - start) / 1000);
    return true;
}

static bool test_boot(const struct boot_errors *errs)
{
    struct utsname uts;
    char taint[24];
    char *deps;
    char *cursor;
    char *line;
    bool ok = true;
    size_t i;

    say("# release: %s", uname(&uts) == 0 ? uts.release : "-");
    say("# tainted: %s", tainted(taint, sizeof(taint)));
    for (i = 0; i < N_MOUNTS; i++) {
        if (errs->mount[i] != 0) {
            say("# mount: %s errno=%d", mounts[i].target, errs->mount[i]);
            ok = false;
        }
    }
    if (errs->cmdline != 0) {
        say("# error: cannot read /proc/cmdline: %s",
            strerror(errs->cmdline));
        ok = false;
    }

    deps = read_file(DEPS_LIST);
    if (deps == NULL) {
        if (errno == ENOENT)
            return ok;
        say("# error: cannot read %s: %s", DEPS_LIST, strerror(errno));
        return false;
    }
    cursor = deps;
    while ((line = strsep(&cursor, "\n")) != NULL) {
        const char *base;
        int err;

        strip_newline(line);
        if (*line == '\0')
            continue;
        base = strrchr(line, '/');
        base = base != NULL ? base + 1 : line;
        err = load_module_path(line);
        if (err == EEXIST)
            err = 0;
        say("# dep: %s errno=%d", base, err);
        if (err != 0)
            ok = false;
    }
    free(deps);
    return ok;
}

/* Print the module's /sys/module/<name>/taint, or "-" if it has none. */
static void say_module_taint(const char *kname)
{
    char path[sizeof("/sys/module//taint") + MODULE_NAME_MAX];
    char *text;

    snprintf(path, sizeof(path), "/sys/module/%s/taint", kname);
    text = read_file(path);
    if (text == NULL) {
        say("# module_taint: -");
        return;
    }
    say("# module_taint: %s", strip_newline(text));
    free(text);
}

/* Tests 2..N-1: load one module from MODULE_DIR. Returns true if loaded. */
bool insmod_facts(const char *name)
{
    char path[sizeof(MODULE_DIR "/.ko") + MODULE_NAME_MAX];
    char kname[MODULE_NAME_MAX];
    char taint[24];
    long long load_start;
    int kmsg = -1;
    int kmsg_err = 0;
    int err;
    int fd;

    say("# module: %s", name);
    say("# tainted_before: %s", tainted(taint, sizeof(taint)));
    if (!valid_module_name(name)) {
        err = EINVAL;
        say("# error: invalid module name");
        kname[0] = '\0';
        goto report;
    }
    kernel_module_name(name, kname);
    snprintf(path, sizeof(path), MODULE_DIR "/%s.ko", name);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        err = errno;
        say("# error: cannot open %s: %s", path, strerror(err));
        goto report;
    }
    kmsg = kmsg_open();
    if (kmsg < 0)
        kmsg_err = errno;
    load_start = monotonic_us();
    err = finit_module_fd(fd, 0);
    last_load_us = monotonic_us();
    say("# load_ms: %lld", (last_load_us - load_start) / 1000);
    close(fd);

report:
    say("# errno: %d", err);
    say("# errname: %s", errno_name(err));
    say("# tainted_after: %s", tainted(taint, sizeof(taint)));
    if (kname[0] != '\0')
        say_module_taint(kname);
    else
        say("# module_taint: -");
    if (err == 0)
        devnode_facts(kname);
    if (kmsg >= 0) {
        kmsg_print_new(kmsg);
        close(kmsg);
    } else if (kmsg_err != 0) {
        say("# kmsg_error: cannot open %s: %s", KMSG_PATH,
            strerror(kmsg_err));
    }
    return err == 0;
}

long long monotonic_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static bool test_insmod(int number, const char *name)
{
    bool ok = insmod_facts(name);

    say("%s %d insmod %s", ok ? "ok" : "not ok", number, name);
    return ok;
}

int rmmod_facts(const char *name)
{
    char kname[MODULE_NAME_MAX];
    int kmsg = kmsg_open();
    int err;

    kernel_module_name(name, kname);
    err = delete_module(kname);
    say("# rmmod: %s errno=%d", kname, err);
    if (kmsg >= 0) {
        kmsg_print_new(kmsg);
        close(kmsg);
    }
    return err;
}

/* Test N: remove the loaded modules in reverse order. */
/*
 * On a kernel with kmemleak (the debug variant), scan now and print the
 * report: one `kmemleak` fact a line ("unreferenced object ..." fails the
 * cell on the host). Quiet where debugfs or kmemleak is absent.
 */
static void kmemleak_facts(void)
{
    char *report;
    char *line;
    int fd;

    if (mount("debugfs", DEBUGFS_DIR, "debugfs", 0, NULL) != 0 &&
        errno != EBUSY)
        return;
    fd = open(KMEMLEAK_PATH, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    /*
     * What the last module allocated as it loaded must be old enough to
     * count, and an object is reported only by a scan that finds its
     * contents unchanged since the scan before: so two scans.
     */
    while (monotonic_us() - last_load_us < KMEMLEAK_AGE_MS * 1000LL)
        usleep(100000);
    for (int i = 0; i < 2; i++)
        if (write(fd, "scan", 4) != 4)
            say("# kmemleak_error: scan: %s", strerror(errno));
    close(fd);
    report = read_file(KMEMLEAK_PATH);
    if (report == NULL)
        return;
    say("# kmemleak_scanned: 1");
    for (line = strtok(report, "\n"); line; line = strtok(NULL, "\n"))
        say("# kmemleak: %s", line);
    free(report);
}

static bool test_rmmod(const struct agent_opts *opts)
{
    char taint[24];
    bool ok = true;
    size_t i;

    for (i = opts->n_modules; i-- > 0;)
        if (opts->loaded[i] && rmmod_facts(opts->modules[i]) != 0)
            ok = false;
    say("# tainted: %s", tainted(taint, sizeof(taint)));
    kmemleak_facts();
    klog_facts();
    return ok;
}

static void run_tests(const struct agent_opts *opts,
                      const struct boot_errors *errs)
{
    int n_broken = (int)opts->n_broken;
    int n_install = opts->install_inf != NULL;
    int n_net = net_test_count(&opts->net);
    int n_soak = opts->soak.seconds > 0 && opts->n_modules > 0;
    int plan = 2 + n_broken + n_install + (int)opts->n_modules + n_net +
               n_soak;
    int first_module = 2 + n_broken + n_install;
    bool booted;
    size_t i;

    say("KTAP version 1");
    say("1..%d", plan);
    if (opts->net_opts_bad)
        say("# error: bad ndisbench.ping= or ndisbench.tcp= value");
    booted = test_boot(errs) && !opts->net_opts_bad;
    if (opts->usb_id)
        booted = wait_usb_device(opts->usb_id) && booted;
    say_result(booted, 1, "boot");
    for (i = 0; i < opts->n_broken; i++)
        broken_run_test(opts->broken[i],
                        opts->n_modules ? opts->modules[0] : "ndiswrapper",
                        2 + (int)i);
    if (n_install)
        install_run_test(opts->install_inf, 2 + n_broken);
    for (i = 0; i < opts->n_modules; i++)
        opts->loaded[i] = test_insmod(first_module + (int)i,
                                      opts->modules[i]);
    for (i = 0; i < opts->n_modules && opts->loaded[i]; i++)
        ;
    net_run_tests(&opts->net, i == opts->n_modules,
                  first_module + (int)opts->n_modules);
    if (n_soak)
        soak_run_test(&opts->soak, &opts->net,
                      opts->modules[opts->n_modules - 1],
                      i == opts->n_modules && opts->net.ifname != NULL,
                      plan - 1);
    say_result(test_rmmod(opts), plan, "rmmod");
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

#ifndef NDISBENCH_AGENT_NO_MAIN
int main(void)
{
    struct agent_opts opts = { 0 };
    struct boot_errors errs = { { 0 }, 0 };
    char *cmdline;

    if (getpid() != 1) {
        fprintf(stderr, "ndisbench-agent: must run as PID 1 (the guest's "
                "/init): it loads modules and powers off\n");
        return 1;
    }
    mount_api_filesystems(errs.mount);
    setup_console();

    cmdline = read_file("/proc/cmdline");
    if (cmdline == NULL || parse_cmdline(cmdline, &opts) != 0)
        errs.cmdline = errno;

    run_tests(&opts, &errs);
    finish(opts.shell);
}
#endif
