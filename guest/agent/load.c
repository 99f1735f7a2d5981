/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ndisbench-agent load family: the boot test (dependency modules, the USB
 * device), one insmod test per module of ndisbench.load= (taint masks
 * before and after, errno, /sys/module/<m>/taint, the kernel log lines of
 * the load, the wrapper's /dev node) and the rmmod test at the end (with
 * the kmemleak scan and the kernel's warnings since boot).
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <linux/module.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"

#define MODULE_DIR      "/lib/ndisbench/modules"
#define DEPS_LIST       "/lib/ndisbench/deps.list"
#define TAINTED_PATH    "/proc/sys/kernel/tainted"
#define NOBODY_ID       65534
#define USB_DEVICES_DIR "/sys/bus/usb/devices"
#define PCI_DEVICES_DIR "/sys/bus/pci/devices"
#define USB_WAIT_MS     30000
#define DEVNODE_WAIT_MS 2000
#define DEBUGFS_DIR     "/sys/kernel/debug"
#define KMEMLEAK_PATH   DEBUGFS_DIR "/kmemleak"
/* kmemleak reports no object younger than 5 s (MSECS_MIN_AGE) */
#define KMEMLEAK_AGE_MS 6000
/* The kernel's MODULE_NAME_LEN is 64 - sizeof(unsigned long). */
#define MODULE_NAME_MAX 56

/* CLOCK_MONOTONIC of the last module load (kmemleak_facts waits on it):
 * in the rows' shared mapping, the loads and rmmod are other children. */
static long long last_load_local;

static long long *last_load(void)
{
    struct agent_shared *rows = agent_shared();

    return rows != NULL ? &rows->last_load_us : &last_load_local;
}
/* ndisbench.modparams= (parse_modparams sets it): every load of a module
 * named there gets its parameters. */
static const char *load_module_params;

/* ---- module names and files (pure) ---- */


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

/* ---- system access ---- */


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
static int finit_module_fd(int fd, const char *params, int flags)
{
    return syscall(SYS_finit_module, fd, params, flags) == 0 ? 0 : errno;
}

/*
 * One item of an ndisbench.modparams= list: its module (kernel spelling)
 * in mod, its "param[=value]" through *param. False if it is not
 * <module>.<param>[=<value>].
 */
static bool module_param_item(const char *item, size_t len, char *mod,
                              const char **param)
{
    const char *dot = memchr(item, '.', len);
    const char *eq = memchr(item, '=', len);
    size_t mod_len = dot ? (size_t)(dot - item) : 0;
    size_t i;

    if (dot == NULL || (eq != NULL && eq < dot) || mod_len == 0 ||
        mod_len >= MODULE_NAME_MAX || dot + 1 == item + len ||
        dot + 1 == eq)
        return false;
    for (i = 0; i < mod_len; i++)
        mod[i] = item[i] == '-' ? '_' : item[i];
    mod[mod_len] = '\0';
    *param = dot + 1;
    return true;
}

int module_params_for(const char *list, const char *kname, char *out,
                      size_t size)
{
    size_t used = 0;

    if (size == 0) {
        errno = E2BIG;
        return -1;
    }
    out[0] = '\0';
    while (list != NULL && *list != '\0') {
        size_t len = strcspn(list, ",");
        char mod[MODULE_NAME_MAX];
        const char *param;

        if (len > 0) {
            size_t plen;

            if (!module_param_item(list, len, mod, &param)) {
                errno = EINVAL;
                return -1;
            }
            plen = len - (size_t)(param - list);
            if (strcmp(mod, kname) == 0) {
                if (used + (used ? 1 : 0) + plen + 1 > size) {
                    errno = E2BIG;
                    return -1;
                }
                if (used)
                    out[used++] = ' ';
                memcpy(out + used, param, plen);
                used += plen;
                out[used] = '\0';
            }
        }
        list += len;
        if (*list == ',')
            list++;
    }
    return 0;
}

/* Returns 0 or the positive errno of open() or finit_module(). */
static int load_module_path(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int err;

    if (fd < 0)
        return errno;
    err = finit_module_fd(fd, "", module_file_flags(path));
    close(fd);
    return err;
}

/* Returns 0 or the positive errno of delete_module(). */
static int delete_module(const char *name)
{
    return syscall(SYS_delete_module, name, O_NONBLOCK) == 0 ? 0 : errno;
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

/* ---- boot ---- */


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

/* "0x10ec\n" -> 0x10ec; -1 if unreadable. */
static long read_hex_file(const char *path)
{
    char *text = read_file(path);
    long v = -1;

    if (text) {
        char *end;

        v = strtol(text, &end, 16);
        if (end == text)
            v = -1;
    }
    free(text);
    return v;
}

/*
 * ndisbench.unbind=vvvv:dddd: a driver the guest kernel has for that PCI
 * device (built in, or loaded) lets go of it before the wrapper loads, so
 * the wrapper's PCI driver can bind it. Facts: each device and the driver
 * it was taken from, or that none had it.
 */
static bool unbind_pci(const char *id)
{
    unsigned int want_vendor, want_device;
    struct dirent *ent;
    bool ok = true;
    int seen = 0;
    DIR *dir;

    if (sscanf(id, "%x:%x", &want_vendor, &want_device) != 2)
        return false;
    dir = opendir(PCI_DEVICES_DIR);
    if (dir == NULL) {
        say("# error: %s: %s", PCI_DEVICES_DIR, strerror(errno));
        return false;
    }
    while ((ent = readdir(dir)) != NULL) {
        char path[320], link[256];
        const char *driver;
        ssize_t n;
        int fd;

        if (ent->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), PCI_DEVICES_DIR "/%s/vendor",
                 ent->d_name);
        if (read_hex_file(path) != (long)want_vendor)
            continue;
        snprintf(path, sizeof(path), PCI_DEVICES_DIR "/%s/device",
                 ent->d_name);
        if (read_hex_file(path) != (long)want_device)
            continue;
        seen++;
        snprintf(path, sizeof(path), PCI_DEVICES_DIR "/%s/driver",
                 ent->d_name);
        n = readlink(path, link, sizeof(link) - 1);
        if (n < 0) {
            say("# unbind: %s had no driver", ent->d_name);
            continue;
        }
        link[n] = '\0';
        driver = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
        snprintf(path, sizeof(path), PCI_DEVICES_DIR "/%s/driver/unbind",
                 ent->d_name);
        fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0 || write(fd, ent->d_name, strlen(ent->d_name)) < 0) {
            say("# error: unbind %s from %s: %s", ent->d_name, driver,
                strerror(errno));
            ok = false;
        } else {
            say("# unbind: %s from %s", ent->d_name, driver);
        }
        if (fd >= 0)
            close(fd);
    }
    closedir(dir);
    if (seen == 0) {
        say("# error: no PCI device %s to unbind", id);
        ok = false;
    }
    return ok;
}

/*
 * The dependency modules (DEPS_LIST), each outcome a line through emit():
 * true when every one loaded (or none is listed).
 */
static bool load_deps(void (*emit)(const char *fmt, ...))
{
    char *deps = read_file(DEPS_LIST);
    char *cursor;
    char *line;
    bool ok = true;

    if (deps == NULL) {
        if (errno == ENOENT)
            return true;
        emit("# error: cannot read %s: %s", DEPS_LIST, strerror(errno));
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
        emit("# dep: %s errno=%d", base, err);
        if (err != 0)
            ok = false;
    }
    free(deps);
    return ok;
}

/*
 * Dependencies loaded before the agent waits for its words
 * (preload_deps()): what the boot test reports for them, kept until then.
 */
#define EARLY_LINES     64
#define EARLY_LINE_MAX  160
static struct {
    bool done;
    bool ok;
    char taint[24];
    size_t n;
    char lines[EARLY_LINES][EARLY_LINE_MAX];
} early;

static void early_line(const char *fmt, ...)
{
    va_list ap;

    if (early.n == EARLY_LINES)
        return;
    va_start(ap, fmt);
    vsnprintf(early.lines[early.n++], EARLY_LINE_MAX, fmt, ap);
    va_end(ap);
}

void preload_deps(void)
{
    tainted(early.taint, sizeof(early.taint));
    early.ok = load_deps(early_line);
    if (early.n == EARLY_LINES) {
        snprintf(early.lines[EARLY_LINES - 1], EARLY_LINE_MAX,
                 "# error: more than %d dependency lines", EARLY_LINES - 1);
        early.ok = false;
    }
    early.done = true;
}

static bool test_boot(const struct boot_errors *errs)
{
    struct utsname uts;
    char taint[24];
    bool ok = true;
    size_t i;

    say("# release: %s", uname(&uts) == 0 ? uts.release : "-");
    say("# tainted: %s", early.done ? early.taint :
        tainted(taint, sizeof(taint)));
    for (i = 0; i < AGENT_MOUNTS; i++) {
        if (errs->mount[i] != 0) {
            say("# mount: %s errno=%d", errs->target[i], errs->mount[i]);
            ok = false;
        }
    }
    if (errs->cmdline != 0) {
        say("# error: cannot read /proc/cmdline: %s",
            strerror(errs->cmdline));
        ok = false;
    }
    if (errs->params != 0) {
        say("# error: cannot read the parameters from the console: %s",
            strerror(errs->params));
        ok = false;
    }
    if (!early.done)
        return load_deps(say) && ok;
    for (i = 0; i < early.n; i++)
        say("%s", early.lines[i]);
    return early.ok && ok;
}

/* ---- insmod ---- */

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
    char params[256];
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
    if (module_params_for(load_module_params, kname, params,
                          sizeof(params)) != 0) {
        err = errno;
        say("# error: ndisbench.modparams for %s: %s", kname,
            strerror(err));
        goto report;
    }
    if (params[0] != '\0')
        say("# module_params: %s", params);
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
    err = finit_module_fd(fd, params, 0);
    *last_load() = monotonic_us();
    say("# load_ms: %lld", (*last_load() - load_start) / 1000);
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

/* The KTAP result `<prefix> <module>`, after the load's facts. */
static bool test_load(int number, const char *prefix, const char *name)
{
    bool ok = insmod_facts(name);
    char result[sizeof("insmod ") + MODULE_NAME_MAX + 8];

    snprintf(result, sizeof(result), "%s %s", prefix, name);
    say_result(ok, number, result);
    return ok;
}

static bool test_insmod(int number, const char *name)
{
    return test_load(number, "insmod", name);
}

/* ---- rmmod ---- */

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
    while (monotonic_us() - *last_load() < KMEMLEAK_AGE_MS * 1000LL)
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

/* ---- the rows ---- */

/* ndisbench.usb=vvvv:pppp: the boot test waits for that USB device. */
static int parse_usb(char *value, struct agent_opts *opts)
{
    if (value && *value)
        opts->usb_id = value;
    return 0;
}

/* Test 1: the guest is up, its dependency modules loaded; the parameters
 * parsed. */
static void run_boot(struct agent_opts *opts, struct agent_state *state)
{
    bool booted = test_boot(state->errs) && opts->bad_param == NULL;

    if (opts->usb_id)
        booted = wait_usb_device(opts->usb_id) && booted;
    if (opts->unbind_id)
        booted = unbind_pci(opts->unbind_id) && booted;
    say_result(booted, state->number++, "boot");
}

/* ndisbench.unbind=vvvv:dddd (hex): the boot test unbinds that device. */
static int parse_unbind(char *value, struct agent_opts *opts)
{
    unsigned int vendor, device;
    char tail;

    if (value == NULL || strlen(value) != 9 ||
        sscanf(value, "%4x:%4x%c", &vendor, &device, &tail) != 2) {
        errno = EINVAL;
        return -1;
    }
    opts->unbind_id = value;
    return 0;
}

/*
 * ndisbench.load=a,b,c: the modules to load, in order (the last
 * occurrence wins, as for kernel parameters).
 */
static int parse_load(char *value, struct agent_opts *opts)
{
    char *list = value;
    size_t max;

    free(opts->modules);
    free(opts->loaded);
    opts->modules = NULL;
    opts->loaded = NULL;
    opts->n_modules = 0;
    if (list == NULL)
        return 0;
    max = strlen(list) / 2 + 1;
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
    opts->n_modules = split_list(list, opts->modules);
    return 0;
}

/* ndisbench.modparams=<module>.<param>=<value>,...: checked here, split
 * at each load (module_params_for). */
static int parse_modparams(char *value, struct agent_opts *opts)
{
    char out[1];

    opts->module_params = NULL;
    if (value == NULL || *value == '\0')
        return bad_value();
    /* any module name: only the form of each item is looked at */
    if (module_params_for(value, "", out, sizeof(out)) != 0)
        return bad_value();
    opts->module_params = value;
    /* PID 1 parses before any row's child is forked: every child's loads
     * see it */
    load_module_params = value;
    return 0;
}

/*
 * ndisbench.oops=<module>: one of ndisbench.load's modules that oopses
 * as it loads (guest/plant/oops.c), loaded by a row of its own after the
 * others: the rows after it must still run (isolate.c).
 */
static int parse_oops(char *value, struct agent_opts *opts)
{
    (void)opts;
    return value != NULL && *value != '\0' ? 0 : bad_value();
}

/* The index of the ndisbench.oops= module in opts->modules, or -1. */
static int oops_module(const struct agent_opts *opts)
{
    const char *name;
    size_t i;

    if (!agent_param(opts, "ndisbench.oops", &name) || name == NULL)
        return -1;
    for (i = 0; i < opts->n_modules; i++)
        if (strcmp(opts->modules[i], name) == 0)
            return (int)i;
    return -1;
}

static int planned_modules(const struct agent_opts *opts)
{
    return (int)opts->n_modules - (oops_module(opts) >= 0);
}

static int planned_oops(const struct agent_opts *opts)
{
    return oops_module(opts) >= 0;
}

static void run_oops(struct agent_opts *opts, struct agent_state *state)
{
    int i = oops_module(opts);

    opts->loaded[i] = test_load(state->number++, "oops", opts->modules[i]);
}

static void oops_result_name(const struct agent_opts *opts, int index,
                             char *buf, size_t len)
{
    (void)index;
    snprintf(buf, len, "oops %s", opts->modules[oops_module(opts)]);
}

/* Tests 2..: one per module; the network tests wait for an interface only
 * if all of them loaded. */
static void run_insmod(struct agent_opts *opts, struct agent_state *state)
{
    size_t i;

    for (i = 0; i < opts->n_modules; i++) {
        bool before = state->all_loaded;

        if ((int)i == oops_module(opts))
            continue;

        /* Not all loaded while one loads: so it stays if the load kills
         * this row's child. */
        state->all_loaded = false;
        opts->loaded[i] = test_insmod(state->number++, opts->modules[i]);
        state->all_loaded = before && opts->loaded[i];
    }
}

/* The index-th module the insmod row loads (the oops module is not). */
static void insmod_result_name(const struct agent_opts *opts, int index,
                               char *buf, size_t len)
{
    int skip = oops_module(opts);
    size_t i = (size_t)index + (skip >= 0 && skip <= index);

    snprintf(buf, len, "insmod %s", i < opts->n_modules ?
             opts->modules[i] : "?");
}

/* The last test: remove the loaded modules in reverse order. */
static void run_rmmod(struct agent_opts *opts, struct agent_state *state)
{
    say_result(test_rmmod(opts), state->number++, "unload");
}

const struct agent_test load_tests[] = {
    { 10, "boot", "ndisbench.usb", parse_usb, planned_once, run_boot, NULL },
    { 11, "unbind", "ndisbench.unbind", parse_unbind, NULL, NULL, NULL },
    { 61, "modparams", "ndisbench.modparams", parse_modparams, NULL, NULL,
      NULL },
    { 62, "insmod", "ndisbench.load", parse_load, planned_modules,
      run_insmod, insmod_result_name },
    { 63, "oops", "ndisbench.oops", parse_oops, planned_oops, run_oops,
      oops_result_name },
    { 170, "unload", NULL, NULL, planned_once, run_rmmod, NULL },
};
const size_t load_tests_count = ARRAY_SIZE(load_tests);
