/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ndisbench-agent install test: install a Windows driver with the
 * wrapper's own user tool, `ndiswrapper -i <file.inf>`, then list what is
 * installed with `ndiswrapper -l`. Runs before the wrapper module loads,
 * because the module asks /sbin/loadndisdriver for the installed devices
 * when it starts. Output lines of both commands become facts.
 */
#define _GNU_SOURCE

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
