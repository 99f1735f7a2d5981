/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ndisbench-agent install test: install a Windows driver with the
 * wrapper's own user tool, `ndiswrapper -i <file.inf>`, then list what is
 * installed with `ndiswrapper -l`. Runs before the wrapper module loads,
 * because the module asks /sbin/loadndisdriver for the installed devices
 * when it starts. Output lines of both commands become facts.
 */
#define _GNU_SOURCE

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "agent.h"

#define NDISWRAPPER_TOOL   "/sbin/ndiswrapper"
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

bool broken_run_test(const char *inf, const char *module, int number)
{
    char *install[] = { "ndiswrapper", "--no-check", "-i", (char *)inf,
                        NULL };
    char driver[64], name[80];
    char *remove[] = { "ndiswrapper", "-r", driver, NULL };
    bool ok = true;
    int status;

    driver_name(inf, driver, sizeof(driver));
    say("# inf: %s", inf);
    status = agent_run(NDISWRAPPER_TOOL, install, "out", TOOL_TIMEOUT_MS);
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
