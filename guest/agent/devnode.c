/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ndisbench-agent: malformed messages to the wrapper's misc device.
 *
 * /dev/<module> carries Windows driver images into the kernel, and the
 * module must check every length, count and string it is given
 * (wrapper/include/loader_abi.h, wrapper/loader/msg.c). After a load, as
 * root, the agent sends one bad message per case and prints the errno the
 * kernel answered: `# ioctl: <case> errno=<NAME>` (`0` if it accepted).
 * The host judges them (scripts/ndisbench_lib/checks/load.py); here we
 * only observe.
 *
 * No message is valid as a whole: the device ids (FFFE:FFFE, driver
 * "ndisbench-probe") match nothing, so even a module that wrongly accepts
 * one changes nothing a later test depends on.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"
#include "loader_abi.h"

#define PROBE_VENDOR    0xfffe
#define PROBE_DEVICE    0xfffe
#define PROBE_DRIVER    "ndisbench-probe"
#define NOBODY_ID       65534
/* Not a user address on x86_64: copy_from_user() must fail. */
#define BAD_POINTER     ((void *)16)
#define IOCTL_UNKNOWN   _IOW(NDIS_IOCTL_MAGIC, 99, struct ndis_device_id)

static unsigned char probe_image[64];

static void good_id(struct ndis_device_id *id)
{
    memset(id, 0, sizeof(*id));
    id->abi_version = NDIS_LOADER_ABI_VERSION;
    id->bus = NDIS_BUS_PCI;
    id->vendor = PROBE_VENDOR;
    id->device = PROBE_DEVICE;
    id->subvendor = 0xffff;
    id->subdevice = 0xffff;
    strcpy(id->driver, PROBE_DRIVER);
}

/* A well-formed load message nobody asked for (the module: ESRCH). */
static void good_load(struct ndis_load_driver *ld)
{
    memset(ld, 0, sizeof(*ld));
    ld->abi_version = NDIS_LOADER_ABI_VERSION;
    good_id(&ld->id);
    strcpy(ld->sys_name, PROBE_DRIVER ".sys");
    ld->sys_data = (__u64)(unsigned long)probe_image;
    ld->sys_size = sizeof(probe_image);
}

static void say_case(const char *name, int fd, unsigned long cmd, void *arg)
{
    int err = ioctl(fd, cmd, arg) == 0 ? 0 : errno;

    say("# ioctl: %s errno=%s", name, errno_name(err));
}

static void add_device_cases(int fd)
{
    struct ndis_device_id id;

    good_id(&id);
    id.abi_version = NDIS_LOADER_ABI_VERSION + 1;
    say_case("add_abi_version", fd, NDIS_IOCTL_ADD_DEVICE, &id);
    good_id(&id);
    id.bus = 3;
    say_case("add_bus", fd, NDIS_IOCTL_ADD_DEVICE, &id);
    good_id(&id);
    memset(id.driver, 'a', sizeof(id.driver));
    say_case("add_driver_unterminated", fd, NDIS_IOCTL_ADD_DEVICE, &id);
    good_id(&id);
    id.driver[0] = '\0';
    say_case("add_driver_empty", fd, NDIS_IOCTL_ADD_DEVICE, &id);
    good_id(&id);
    strcpy(id.driver, "a/b");
    say_case("add_driver_slash", fd, NDIS_IOCTL_ADD_DEVICE, &id);
    good_id(&id);
    strcpy(id.driver, "..");
    say_case("add_driver_dotdot", fd, NDIS_IOCTL_ADD_DEVICE, &id);
    good_id(&id);
    strcpy(id.driver, "probe\xe9");     /* a Latin-1 letter */
    say_case("add_driver_latin1", fd, NDIS_IOCTL_ADD_DEVICE, &id);
    say_case("add_bad_pointer", fd, NDIS_IOCTL_ADD_DEVICE, BAD_POINTER);
}

static void load_driver_cases(int fd)
{
    struct ndis_load_driver ld;

    good_load(&ld);
    ld.abi_version = 0;
    say_case("load_abi_version", fd, NDIS_IOCTL_LOAD_DRIVER, &ld);
    good_load(&ld);
    ld.id.abi_version = 0;
    say_case("load_id_abi_version", fd, NDIS_IOCTL_LOAD_DRIVER, &ld);
    good_load(&ld);
    memset(ld.id.driver, 'a', sizeof(ld.id.driver));
    say_case("load_driver_unterminated", fd, NDIS_IOCTL_LOAD_DRIVER, &ld);
    good_load(&ld);
    ld.sys_size = 0;
    say_case("load_sys_size_0", fd, NDIS_IOCTL_LOAD_DRIVER, &ld);
    good_load(&ld);
    ld.sys_size = (__u64)NDIS_MAX_SYS_SIZE + 1;
    say_case("load_sys_size_over_max", fd, NDIS_IOCTL_LOAD_DRIVER, &ld);
    good_load(&ld);
    ld.sys_size = ~(__u64)0;
    say_case("load_sys_size_huge", fd, NDIS_IOCTL_LOAD_DRIVER, &ld);
    good_load(&ld);
    ld.num_settings = NDIS_MAX_SETTINGS + 1;
    say_case("load_num_settings_over_max", fd, NDIS_IOCTL_LOAD_DRIVER, &ld);
    good_load(&ld);
    ld.num_settings = ~(__u32)0;
    say_case("load_num_settings_huge", fd, NDIS_IOCTL_LOAD_DRIVER, &ld);
    good_load(&ld);
    memset(ld.sys_name, 's', sizeof(ld.sys_name));
    say_case("load_sys_name_unterminated", fd, NDIS_IOCTL_LOAD_DRIVER, &ld);
    good_load(&ld);
    strcpy(ld.sys_name, "a/b.sys");
    say_case("load_sys_name_slash", fd, NDIS_IOCTL_LOAD_DRIVER, &ld);
    good_load(&ld);
    strcpy(ld.sys_name, "..");
    say_case("load_sys_name_dotdot", fd, NDIS_IOCTL_LOAD_DRIVER, &ld);
    good_load(&ld);
    say_case("load_unrequested", fd, NDIS_IOCTL_LOAD_DRIVER, &ld);
    say_case("load_bad_pointer", fd, NDIS_IOCTL_LOAD_DRIVER, BAD_POINTER);
}

/*
 * An open descriptor handed to a process that dropped root: the ioctl
 * itself must check privileges too (the module: EPERM).
 */
static void unprivileged_case(int fd)
{
    struct ndis_load_driver ld;
    int status;
    pid_t pid;

    good_load(&ld);
    pid = fork();
    if (pid == 0) {
        if (setgid(NOBODY_ID) != 0 || setuid(NOBODY_ID) != 0)
            _exit(127);
        _exit(ioctl(fd, NDIS_IOCTL_LOAD_DRIVER, &ld) == 0 ? 0 :
              (errno & 0x7f));
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) == 127) {
        say("# ioctl: unprivileged error=cannot run as uid %d", NOBODY_ID);
        return;
    }
    say("# ioctl: unprivileged errno=%s", errno_name(WEXITSTATUS(status)));
}

void devnode_ioctl_facts(const char *path)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);

    if (fd < 0) {
        say("# ioctl: open error=%s", errno_name(errno));
        return;
    }
    add_device_cases(fd);
    load_driver_cases(fd);
    say_case("unknown_ioctl", fd, IOCTL_UNKNOWN, NULL);
    unprivileged_case(fd);
    close(fd);
}
