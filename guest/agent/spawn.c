/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ndisbench-agent: running a helper program (busybox udhcpc, the wrapper's
 * ndiswrapper tool) with a time limit, its output either left on the
 * console or turned into KTAP facts.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

static long long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Print each complete line of buf as "# <key>: <line>"; keep the rest. */
static size_t say_lines(const char *key, char *buf, size_t len)
{
    char *start = buf, *nl;

    while ((nl = memchr(start, '\n', len - (size_t)(start - buf)))) {
        *nl = '\0';
        say("# %s: %s", key, start);
        start = nl + 1;
    }
    len -= (size_t)(start - buf);
    memmove(buf, start, len);
    return len;
}

int agent_run(const char *path, char *const argv[], const char *key,
              int timeout_ms)
{
    char *const envp[] = { "PATH=/bin:/sbin:/usr/bin:/usr/sbin", NULL };
    long long deadline = now_ms() + timeout_ms;
    char buf[1024];
    size_t len = 0;
    int pipefd[2], status;
    pid_t pid;

    if (pipe2(pipefd, O_CLOEXEC) < 0)
        return -errno;
    pid = fork();
    if (pid < 0) {
        close(pipefd[0]);
        close(pipefd[1]);
        return -errno;
    }
    if (pid == 0) {
        if (key != NULL) {
            dup2(pipefd[1], STDOUT_FILENO);
            dup2(pipefd[1], STDERR_FILENO);
        }
        execve(path, argv, envp);
        _exit(127);
    }
    close(pipefd[1]);
    for (;;) {
        struct pollfd pfd = { .fd = pipefd[0], .events = POLLIN };
        long long left = deadline - now_ms();
        ssize_t n;

        if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
            break;
        n = read(pipefd[0], buf + len, sizeof(buf) - 1 - len);
        if (n <= 0)
            break;
        len = say_lines(key, buf, len + (size_t)n);
        if (len == sizeof(buf) - 1)     /* an overlong line: cut it */
            len = say_lines(key, strcat(buf, "\n"), len + 1);
    }
    if (len) {
        buf[len] = '\n';
        say_lines(key, buf, len + 1);
    }
    close(pipefd[0]);
    /* EOF on the pipe comes just before the exit: wait for it, bounded. */
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (now_ms() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -ETIMEDOUT;
        }
        usleep(5000);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -EINTR;
}
