/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The agent's row isolation (guest/agent/isolate.c): every row runs in a
 * child; PID 1 keeps the shared state, prints the results a dead, short
 * or hung child left out, and goes on with the next row. The rows here
 * are fakes; the console is a temporary file, so is the kernel log.
 */
#define NDISBENCH_AGENT_NO_MAIN
#include "../../../guest/agent/agent.c"

#include <signal.h>
#include <sys/wait.h>

#include "tap.h"

static char console_path[] = "/tmp/ndisbench-isolate-console-XXXXXX";
static char kmsg_path[] = "/tmp/ndisbench-isolate-kmsg-XXXXXX";
static char text[16384];

/* ---- fake rows ---- */

static int planned_two(const struct agent_opts *opts)
{
    (void)opts;
    return 2;
}

/* Both results, and state for the next rows. */
static void run_good(struct agent_opts *opts, struct agent_state *state)
{
    opts->loaded[0] = true;
    state->all_loaded = false;
    state->iface_ok = true;
    say_result(true, state->number++, "good one");
    say_result(true, state->number++, "good two");
}

/* One result, then the kernel kills it (as an oops in its syscall would). */
static void run_segv(struct agent_opts *opts, struct agent_state *state)
{
    (void)opts;
    say_result(true, state->number++, "crash one");
    state->number++;        /* the second result's number taken, unprinted */
    raise(SIGSEGV);
}

/* Returns early: its second result is never printed. */
static void run_short(struct agent_opts *opts, struct agent_state *state)
{
    (void)opts;
    say_result(false, state->number++, "short one");
}

/* Stuck: only SIGKILL ends it. */
static void run_hang(struct agent_opts *opts, struct agent_state *state)
{
    (void)opts;
    (void)state;
    for (;;)
        pause();
}

static void crash_name(const struct agent_opts *opts, int index, char *buf,
                       size_t len)
{
    (void)opts;
    snprintf(buf, len, "crash %s", index == 0 ? "one" : "two");
}

static const struct agent_test good_row = {
    500, "good", NULL, NULL, planned_two, run_good, NULL };
static const struct agent_test segv_row = {
    501, "crash", NULL, NULL, planned_two, run_segv, crash_name };
static const struct agent_test short_row = {
    502, "short", NULL, NULL, planned_two, run_short, NULL };
static const struct agent_test hang_row = {
    503, "hang", NULL, NULL, planned_two, run_hang, NULL };

/* ---- a run with the console and the kernel log captured ---- */

static struct agent_opts opts;
static bool loaded_init[2];
static char *modules[2] = { "a", "b" };

static struct agent_state *share(void)
{
    static struct boot_errors errs;
    struct agent_shared *rows;

    memset(&opts, 0, sizeof(opts));
    opts.modules = modules;
    opts.n_modules = 2;
    opts.loaded = malloc(sizeof(loaded_init));
    memcpy(opts.loaded, loaded_init, sizeof(loaded_init));
    rows = agent_share(&opts, &errs);
    return rows != NULL ? &rows->state : NULL;
}

/* Run rows with stdout on the console file; its text in text[]. */
static void run_rows(const struct agent_test *const *rows, size_t n,
                     struct agent_state *state, int limit_ms,
                     struct row_end *ends)
{
    int saved = dup(STDOUT_FILENO);
    int fd = open(console_path, O_RDWR | O_TRUNC);
    ssize_t got;
    size_t i;

    fflush(stdout);
    dup2(fd, STDOUT_FILENO);
    for (i = 0; i < n; i++)
        row_run(rows[i], &opts, state, limit_ms, &ends[i]);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    lseek(fd, 0, SEEK_SET);
    got = read(fd, text, sizeof(text) - 1);
    text[got > 0 ? got : 0] = '\0';
    close(fd);
}

static void unshare(void)
{
    agent_unshare(&opts);
    free(opts.loaded);
    opts.loaded = NULL;
}

/* ---- the tests ---- */

/* The child's changes reach PID 1 and the next row's child. */
static void state_survives_the_child(void)
{
    const struct agent_test *rows[] = { &good_row };
    struct agent_state *state = share();
    struct row_end end;

    CHECK(state != NULL);
    if (state == NULL)
        return;
    CHECK(state->number == 1 && state->all_loaded && !state->iface_ok);
    run_rows(rows, 1, state, 5000, &end);
    CHECK(state->number == 3);
    CHECK(!state->all_loaded && state->iface_ok);
    CHECK(opts.loaded[0] && !opts.loaded[1]);
    CHECK(end.reaped && !end.timed_out && WIFEXITED(end.status));
    CHECK(end.planned == 2 && end.printed == 2);
    CHECK_STR(text, "# ndisbench: begin good\nok 1 good one\n"
              "ok 2 good two\n# ndisbench: end good\n");
    CHECK(strstr(text, "row_death") == NULL);
    unshare();
}

/* Killed by a signal after one of two results: PID 1 prints the second
 * under its own name, says how the child died, and the next row runs. */
static void signal_death_then_next_row(void)
{
    const struct agent_test *rows[] = { &segv_row, &good_row };
    struct agent_state *state = share();
    struct row_end ends[2];

    if (state == NULL)
        return;
    run_rows(rows, 2, state, 5000, ends);
    CHECK(ends[0].reaped && WIFSIGNALED(ends[0].status));
    CHECK(WTERMSIG(ends[0].status) == SIGSEGV);
    CHECK(ends[0].printed == 1);
    CHECK_STR(text,
              "# ndisbench: begin crash\nok 1 crash one\n"
              "# ndisbench: died crash: killed by signal 11 "
              "(Segmentation fault)\n"
              "# row_death: killed by signal 11 (Segmentation fault)\n"
              "not ok 2 crash two\n# ndisbench: end crash\n"
              "# ndisbench: begin good\nok 3 good one\nok 4 good two\n"
              "# ndisbench: end good\n");
    CHECK(state->number == 5);
    unshare();
}

/* A clean exit short of the plan is a death too: the plan's count holds. */
static void short_exit(void)
{
    const struct agent_test *rows[] = { &short_row };
    struct agent_state *state = share();
    struct row_end end;

    if (state == NULL)
        return;
    run_rows(rows, 1, state, 5000, &end);
    CHECK(WIFEXITED(end.status) && WEXITSTATUS(end.status) == 0);
    CHECK(end.printed == 1);
    CHECK_CONTAINS(text, "not ok 1 short one\n"
                   "# ndisbench: died short: exit status 0 after 1 of 2 "
                   "results\n# row_death: exit status 0 after 1 of 2 "
                   "results\nnot ok 2 short\n");
    CHECK(state->number == 3);
    unshare();
}

/* A hung row is killed at its limit; PID 1 does not wait longer. */
static void hang_times_out(void)
{
    const struct agent_test *rows[] = { &hang_row, &good_row };
    struct agent_state *state = share();
    struct row_end ends[2];
    long long start = monotonic_us();

    if (state == NULL)
        return;
    run_rows(rows, 2, state, 300, ends);
    CHECK(monotonic_us() - start < 4000000);
    CHECK(ends[0].timed_out && ends[0].printed == 0);
    CHECK(ends[0].reaped && WIFSIGNALED(ends[0].status) &&
          WTERMSIG(ends[0].status) == SIGKILL);
    CHECK_CONTAINS(text, "# row_death: timed out after 0 s (killed)\n"
                   "not ok 1 hang\n# row_death: timed out after 0 s "
                   "(killed)\nnot ok 2 hang\n# ndisbench: end hang\n");
    CHECK_CONTAINS(text, "ok 3 good one\nok 4 good two\n");
    CHECK(state->number == 5);
    unshare();
}

/* Each mark is a notice-level kernel log record of its own. */
static void marks_in_the_kernel_log(void)
{
    const struct agent_test *rows[] = { &good_row };
    struct agent_state *state = share();
    struct row_end end;
    char *log;

    if (state == NULL)
        return;
    CHECK(truncate(kmsg_path, 0) == 0);
    run_rows(rows, 1, state, 5000, &end);
    log = read_file(kmsg_path);
    CHECK_STR(log, "<5>ndisbench: begin good\n<5>ndisbench: end good\n");
    free(log);
    unshare();
}

/* The insmod row prints its results with say_result() too: PID 1 knows
 * they were printed. A module named by ndisbench.oops= is its own row's. */
static void insmod_results_are_counted(void)
{
    const struct agent_test *const *table;
    size_t n = agent_table(&table), i;
    const struct agent_test *insmod = NULL, *oops = NULL;
    char line[] = "ndisbench.load=nope_a,nope_b,nope_c ndisbench.oops=nope_b";
    struct agent_state *state;
    struct row_end ends[2];
    char name[96];

    for (i = 0; i < n; i++) {
        if (strcmp(table[i]->name, "insmod") == 0)
            insmod = table[i];
        if (strcmp(table[i]->name, "oops") == 0)
            oops = table[i];
    }
    CHECK(insmod != NULL && oops != NULL);
    if (insmod == NULL || oops == NULL)
        return;
    CHECK(parse_cmdline(line, &opts) == 0);
    CHECK(insmod->planned(&opts) == 2 && oops->planned(&opts) == 1);
    CHECK(planned_tests(&opts) == 5);   /* boot, 2 insmod, oops, unload */
    row_result_name(insmod, &opts, 1, name, sizeof(name));
    CHECK_STR(name, "insmod nope_c");
    row_result_name(oops, &opts, 0, name, sizeof(name));
    CHECK_STR(name, "oops nope_b");
    state = agent_share(&opts, NULL) ? &agent_shared()->state : NULL;
    CHECK(state != NULL);
    if (state == NULL)
        return;
    {
        const struct agent_test *rows[] = { insmod, oops };

        run_rows(rows, 2, state, 20000, ends);
    }
    /* No such modules here: each load fails, but by its own child. */
    CHECK(ends[0].printed == 2 && ends[1].printed == 1);
    CHECK(strstr(text, "row_death") == NULL);
    CHECK_CONTAINS(text, "not ok 1 insmod nope_a\n");
    CHECK_CONTAINS(text, "not ok 2 insmod nope_c\n");
    CHECK_CONTAINS(text, "not ok 3 oops nope_b\n");
    CHECK(state->number == 4 && !state->all_loaded);
    agent_unshare(&opts);
}

static void limits_and_names(void)
{
    const struct agent_test *const *table;
    size_t n = agent_table(&table), i;
    struct agent_opts o;
    char line[] = "ndisbench.load=ndisbench_control,ndiswrapper "
                  "ndisbench.broken=/f/broken/pe32.inf,/f/broken/NoEntry.inf "
                  "ndisbench.net=wlan0 ndisbench.soak=30:40000 "
                  "ndisbench.slowdown=3";
    char name[96];
    int seen = 0;

    CHECK(parse_cmdline(line, &o) == 0);
    for (i = 0; i < n; i++) {
        const struct agent_test *row = table[i];

        seen++;
        if (strcmp(row->name, "insmod") == 0) {
            row_result_name(row, &o, 1, name, sizeof(name));
            CHECK_STR(name, "insmod ndiswrapper");
        } else if (strcmp(row->name, "broken") == 0) {
            row_result_name(row, &o, 1, name, sizeof(name));
            CHECK_STR(name, "broken noentry");
        } else if (strcmp(row->name, "bind") == 0) {
            row_result_name(row, &o, 0, name, sizeof(name));
            CHECK_STR(name, "bind wlan0");
        } else if (strcmp(row->name, "dhcp") == 0) {
            row_result_name(row, &o, 0, name, sizeof(name));
            CHECK_STR(name, "dhcp");
            CHECK(row_limit_ms(row, &o) == 3 * ROW_LIMIT_MS);
        } else if (strcmp(row->name, "soak") == 0) {
            CHECK(row_limit_ms(row, &o) == 3 * (ROW_LIMIT_MS + 30000));
        } else {
            seen--;
        }
    }
    CHECK(seen == 5);   /* each row above is in the table, by that name */
}

int main(void)
{
    int fd = mkstemp(console_path);
    int kfd = mkstemp(kmsg_path);

    if (fd < 0 || kfd < 0) {
        printf("Bail out! no temporary files\n");
        return 1;
    }
    close(fd);
    close(kfd);
    kmsg_mark_path = kmsg_path;
    TEST(state_survives_the_child);
    TEST(signal_death_then_next_row);
    TEST(short_exit);
    TEST(hang_times_out);
    TEST(marks_in_the_kernel_log);
    TEST(limits_and_names);
    TEST(insmod_results_are_counted);
    unlink(console_path);
    unlink(kmsg_path);
    return tap_done();
}
