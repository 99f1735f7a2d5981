/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ndisbench-agent: every row of the test table runs in a child of PID 1.
 *
 * A wrapper under test may oops in the agent's own system calls (a PE
 * loader on a malformed driver, an ethtool handler): the kernel kills the
 * task that oopsed, and if that were PID 1 every later check of the cell
 * would go unrun. So PID 1 only starts rows, waits for each (bounded: a
 * child stuck in the kernel must not stop the run), prints the results a
 * dead child left out, and goes on. What the rows tell later rows (the
 * KTAP number, all_loaded, iface_ok, the modules loaded, the last load's
 * time) lives in one MAP_SHARED mapping made before the first fork.
 *
 * Each row is marked `ndisbench: begin <row>` / `ndisbench: end <row>` on
 * the console and in the kernel log, so the host charges a kernel report
 * to the row (and the checks reading it) that was running.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"

#define ROW_POLL_US     10000

static struct agent_shared *shared;

struct agent_shared *agent_shared(void)
{
    return shared;
}

struct agent_shared *agent_share(struct agent_opts *opts,
                                 const struct boot_errors *errs)
{
    size_t size = sizeof(*shared) + opts->n_modules * sizeof(bool);
    struct agent_shared *map;

    map = mmap(NULL, size, PROT_READ | PROT_WRITE,
               MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED)
        return NULL;
    memset(map, 0, size);
    map->state.errs = errs;
    map->state.number = 1;
    map->state.all_loaded = true;
    map->n_loaded = opts->n_modules;
    if (opts->n_modules > 0) {
        memcpy(map->loaded, opts->loaded, opts->n_modules * sizeof(bool));
        free(opts->loaded);
        opts->loaded = map->loaded;
    }
    shared = map;
    return map;
}

void agent_unshare(struct agent_opts *opts)
{
    bool *loaded = NULL;

    if (shared == NULL)
        return;
    if (shared->n_loaded > 0 && opts->loaded == shared->loaded) {
        loaded = calloc(shared->n_loaded, sizeof(bool));
        if (loaded != NULL)
            memcpy(loaded, shared->loaded, shared->n_loaded * sizeof(bool));
        opts->loaded = loaded;
    }
    munmap(shared, sizeof(*shared) + shared->n_loaded * sizeof(bool));
    shared = NULL;
}

int row_limit_ms(const struct agent_test *row, const struct agent_opts *opts)
{
    long long limit = ROW_LIMIT_MS;

    /* The soak runs for its own seconds before it reports. */
    if (strcmp(row->name, "soak") == 0)
        limit += (long long)opts->soak.seconds * 1000;
    if (opts->net.slowdown > 1)
        limit *= opts->net.slowdown;
    return limit > 0x7fffffff ? 0x7fffffff : (int)limit;
}

void row_result_name(const struct agent_test *row,
                     const struct agent_opts *opts, int index, char *buf,
                     size_t len)
{
    if (row->result_name != NULL)
        row->result_name(opts, index, buf, len);
    else
        snprintf(buf, len, "%s", row->name);
}

void row_death(const struct row_end *end, int limit_ms, char *buf,
               size_t len)
{
    if (end->timed_out)
        snprintf(buf, len, "timed out after %d s (killed)", limit_ms / 1000);
    else if (!end->reaped)
        snprintf(buf, len, "not reaped");
    else if (WIFSIGNALED(end->status))
        snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(end->status),
                 strsignal(WTERMSIG(end->status)));
    else
        snprintf(buf, len, "exit status %d after %d of %d results",
                 WEXITSTATUS(end->status), end->printed, end->planned);
}

/* The row's mark on the console and in the kernel log. */
static void row_mark(const char *what, const char *name)
{
    say("# %s%s %s", ROW_MARK, what, name);
    kmsg_mark(what, name);
}

/*
 * Wait for the child at most limit_ms; orphans of earlier rows (their
 * children re-parented to PID 1) are reaped on the way. true: reaped.
 */
static bool row_wait(pid_t pid, long long limit_ms, int *status)
{
    long long deadline = monotonic_us() + limit_ms * 1000;

    for (;;) {
        int st;
        pid_t got = waitpid(-1, &st, WNOHANG);

        if (got == pid) {
            *status = st;
            return true;
        }
        if (got > 0)
            continue;
        if (got < 0 && errno != EINTR && errno != ECHILD)
            return false;
        if (got < 0 && errno == ECHILD)
            return false;
        if (monotonic_us() >= deadline)
            return false;
        usleep(ROW_POLL_US);
    }
}

void row_run(const struct agent_test *row, struct agent_opts *opts,
             struct agent_state *state, int limit_ms, struct row_end *end)
{
    int first = state->number;
    char why[128], name[96];
    pid_t pid;
    int i;

    memset(end, 0, sizeof(*end));
    end->planned = row->planned(opts);
    if (shared != NULL)
        shared->last_result = first - 1;
    row_mark("begin", row->name);
    pid = shared != NULL ? fork() : -1;
    if (pid == 0) {
        row->run(opts, state);
        _exit(0);
    }
    if (pid < 0) {
        /* No mapping or no fork: the row runs in PID 1, unguarded. */
        end->fork_errno = shared != NULL ? errno : ENOMEM;
        row->run(opts, state);
        end->printed = end->planned;
        end->reaped = true;
        row_mark("end", row->name);
        return;
    }
    end->reaped = row_wait(pid, limit_ms, &end->status);
    if (!end->reaped) {
        end->timed_out = true;
        kill(pid, SIGKILL);
        end->reaped = row_wait(pid, ROW_KILL_WAIT_MS, &end->status);
    }
    end->printed = shared->last_result - first + 1;
    if (end->printed < 0)
        end->printed = 0;
    if (end->printed > end->planned)
        end->printed = end->planned;
    if (end->printed < end->planned || end->timed_out ||
        (end->reaped && !WIFEXITED(end->status))) {
        row_death(end, limit_ms, why, sizeof(why));
        say("# %sdied %s: %s", ROW_MARK, row->name, why);
    }
    for (i = end->printed; i < end->planned; i++) {
        row_result_name(row, opts, i, name, sizeof(name));
        say("# row_death: %s", why);
        say_result(false, first + i, name);
    }
    state->number = first + end->planned;
    row_mark("end", row->name);
}
