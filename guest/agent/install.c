/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ndisbench-agent install family: the wrapper's own user tool. `install`
 * installs a Windows driver with `ndiswrapper -i <file.inf>`, then lists
 * what is installed with `ndiswrapper -l`; it runs before the wrapper
 * module loads, because the module asks /sbin/loadndisdriver for the
 * installed devices when it starts. `broken <name>` installs each
 * malformed driver unchecked and loads the wrapper, which must refuse it.
 * Output lines of the commands become facts.
 */
#define _GNU_SOURCE

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "agent.h"

#define NDISWRAPPER_TOOL   "/sbin/ndiswrapper"
#define NDISWRAPPER_CONF   "/etc/ndiswrapper"
#define TOOL_TIMEOUT_MS    30000

bool install_run_test(const char *inf, int number)
{
    char *install[] = { "ndiswrapper", "-i", (char *)inf, NULL };
    char *list[] = { "ndiswrapper", "-l", NULL };
    int status;

    say("# inf: %s", inf);
    status = agent_run(NDISWRAPPER_TOOL, install, "out", TOOL_TIMEOUT_MS);
    say("# status: %d", status);
    say("# list_status: %d",
        agent_run(NDISWRAPPER_TOOL, list, "list", TOOL_TIMEOUT_MS));
    say_result(status == 0, number, "install");
    return status == 0;
}

/* Any wlan* network interface present? */
static bool wlan_present(void)
{
    DIR *dir = opendir("/sys/class/net");
    struct dirent *ent;
    bool found = false;

    if (dir == NULL)
        return false;
    while ((ent = readdir(dir)) != NULL)
        if (strncmp(ent->d_name, "wlan", 4) == 0)
            found = true;
    closedir(dir);
    return found;
}

/* The driver name ndiswrapper -i derives from a .inf path: its base name,
 * lower case, without the extension. */
static void driver_name(const char *inf, char *out, size_t size)
{
    const char *base = strrchr(inf, '/');
    size_t i;

    base = base ? base + 1 : inf;
    for (i = 0; i + 1 < size && base[i] != '\0' && base[i] != '.'; i++)
        out[i] = (char)tolower((unsigned char)base[i]);
    out[i] = '\0';
}

/* Did `ndiswrapper -i` leave the driver's folder in /etc/ndiswrapper? */
static bool driver_installed(const char *driver)
{
    char path[128];
    struct stat st;

    snprintf(path, sizeof(path), "%s/%s", NDISWRAPPER_CONF, driver);
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool broken_run_test(const char *inf, const char *module, int number)
{
    char *install[] = { "ndiswrapper", "--no-check", "-i", (char *)inf,
                        NULL };
    char *plain[] = { "ndiswrapper", "-i", (char *)inf, NULL };
    char driver[64], name[80];
    char *remove[] = { "ndiswrapper", "-r", driver, NULL };
    bool ok = true;
    int status;

    driver_name(inf, driver, sizeof(driver));
    say("# inf: %s", inf);
    status = agent_run(NDISWRAPPER_TOOL, install, "out", TOOL_TIMEOUT_MS);
    if (status == 0 && !driver_installed(driver)) {
        /* A classic installer knows no --no-check (1.63 prints its usage
         * and exits 0) and never looks into the .sys: its plain -i is
         * the unchecked install. */
        say("# install_form: plain");
        status = agent_run(NDISWRAPPER_TOOL, plain, "out", TOOL_TIMEOUT_MS);
    } else {
        say("# install_form: no-check");
    }
    say("# install_status: %d", status);
    if (status != 0) {
        ok = false;
    } else {
        if (insmod_facts(module)) {
            say("# wlan_present: %d", wlan_present());
            if (rmmod_facts(module) != 0)
                ok = false;
        }
        status = agent_run(NDISWRAPPER_TOOL, remove, "out",
                           TOOL_TIMEOUT_MS);
        say("# remove_status: %d", status);
        ok = ok && status == 0;
    }
    snprintf(name, sizeof(name), "broken %s", driver);
    say_result(ok, number, name);
    return ok;
}

/* ---- the rows ---- */

/* ndisbench.broken=a.inf,b.inf: the malformed drivers, in order. */
static int parse_broken(char *value, struct agent_opts *opts)
{
    if (value == NULL || *value == '\0')
        return 0;
    free(opts->broken);
    opts->broken = NULL;
    opts->n_broken = 0;
    opts->broken = calloc(strlen(value) / 2 + 1, sizeof(*opts->broken));
    if (opts->broken == NULL) {
        errno = ENOMEM;
        return -1;
    }
    opts->n_broken = split_list(value, opts->broken);
    return 0;
}

static int planned_broken(const struct agent_opts *opts)
{
    return (int)opts->n_broken;
}

/* Before the modules load: the wrapper is loaded (and removed) for each
 * malformed driver by the first module's name. */
static void run_broken(struct agent_opts *opts, struct agent_state *state)
{
    size_t i;

    for (i = 0; i < opts->n_broken; i++)
        broken_run_test(opts->broken[i],
                        opts->n_modules ? opts->modules[0] : "ndiswrapper",
                        state->number++);
}

/* ndisbench.install=/path/file.inf */
static int parse_install(char *value, struct agent_opts *opts)
{
    if (value && *value)
        opts->install_inf = value;
    return 0;
}

static int planned_install(const struct agent_opts *opts)
{
    return opts->install_inf != NULL;
}

static void run_install(struct agent_opts *opts, struct agent_state *state)
{
    install_run_test(opts->install_inf, state->number++);
}

static void broken_result_name(const struct agent_opts *opts, int index,
                               char *buf, size_t len)
{
    char driver[64];

    driver_name(opts->broken[index], driver, sizeof(driver));
    snprintf(buf, len, "broken %s", driver);
}

const struct agent_test install_tests[] = {
    { 50, "broken", "ndisbench.broken", parse_broken, planned_broken,
      run_broken, broken_result_name },
    { 60, "install", "ndisbench.install", parse_install, planned_install,
      run_install, NULL },
};
const size_t install_tests_count = ARRAY_SIZE(install_tests);
