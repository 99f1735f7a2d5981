// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel services kmock_ntos/'s headers declare, built with libc:
 * per-thread interrupt and FPU state, the online CPUs, the clocks (the
 * host's), busy waits and sleeps that take the time they say, and a
 * task_struct per thread.
 */
#include <pthread.h>
#include <stdbool.h>
#include <time.h>

#include "kmock_kernel.h"

struct timespec64 {
	long long tv_sec;
	long tv_nsec;
};

struct timezone {
	int tz_minuteswest;
	int tz_dsttime;
};

struct task_struct {
	int nice;
};

void kernel_fpu_begin(void);
void kernel_fpu_end(void);
bool cpu_online(unsigned int cpu);
void ktime_get_real_ts64(struct timespec64 *ts);
void ktime_get_raw_ts64(struct timespec64 *ts);
void udelay(unsigned long usecs);
struct task_struct *kmock_current(void);
long schedule_timeout_uninterruptible(long timeout);

__thread unsigned long kmock_irqs_off;
__thread int kmock_in_interrupt;
__thread int kmock_fpu_depth;
static __thread struct task_struct kmock_task;

unsigned int nr_cpu_ids = 1;
unsigned long kmock_online_mask = 1;
struct timezone sys_tz;

void kernel_fpu_begin(void)
{
	kmock_fpu_depth++;
}

void kernel_fpu_end(void)
{
	kmock_fpu_depth--;
}

bool cpu_online(unsigned int cpu)
{
	return cpu < nr_cpu_ids && cpu < 8 * sizeof(long) &&
	       (kmock_online_mask >> cpu & 1);
}

static void clock_ts64(clockid_t clock, struct timespec64 *ts)
{
	struct timespec now;

	clock_gettime(clock, &now);
	ts->tv_sec = now.tv_sec;
	ts->tv_nsec = now.tv_nsec;
}

void ktime_get_real_ts64(struct timespec64 *ts)
{
	clock_ts64(CLOCK_REALTIME, ts);
}

void ktime_get_raw_ts64(struct timespec64 *ts)
{
	clock_ts64(CLOCK_MONOTONIC_RAW, ts);
}

static long long monotonic_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec * 1000000000LL + now.tv_nsec;
}

/* a busy wait, as the kernel's: it never gives the CPU up */
void udelay(unsigned long usecs)
{
	long long end = monotonic_ns() + usecs * 1000LL;

	while (monotonic_ns() < end)
		;
}

/* KMOCK_HZ (1000) ticks a second, from the program's start */
volatile unsigned long jiffies;

static void *kmock_tick(void *arg)
{
	long long start = monotonic_ns();
	struct timespec ms = { 0, 1000000 };

	for (;;) {
		nanosleep(&ms, NULL);
		jiffies = (unsigned long)((monotonic_ns() - start) / 1000000);
	}
	return arg;
}

__attribute__((constructor)) static void kmock_tick_start(void)
{
	pthread_t t;

	pthread_create(&t, NULL, kmock_tick, NULL);
	pthread_detach(t);
}

struct task_struct *kmock_current(void)
{
	return &kmock_task;
}

int kmock_current_nice(void)
{
	return kmock_task.nice;
}

void kmock_set_current_nice(int nice)
{
	kmock_task.nice = nice;
}

long schedule_timeout_uninterruptible(long timeout)
{
	struct timespec ts = { timeout / 1000, (timeout % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
	return 0;
}
