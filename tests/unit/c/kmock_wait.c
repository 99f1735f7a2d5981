// SPDX-License-Identifier: GPL-2.0
/*
 * kmock's wait queues (kmock/linux/wait.h), built with libc: one mutex
 * and condition variable for every queue; a queue's generation counts
 * its wakes, so a wake between the check and the sleep is not lost.
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "kmock/linux/wait.h"

static pthread_mutex_t kmock_wait_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t kmock_wait_cond = PTHREAD_COND_INITIALIZER;

unsigned long kmock_wait_prepare(struct wait_queue_head *wq)
{
	unsigned long gen;

	pthread_mutex_lock(&kmock_wait_mutex);
	gen = wq->generation;
	pthread_mutex_unlock(&kmock_wait_mutex);
	return gen;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

long kmock_wait_sleep(struct wait_queue_head *wq, unsigned long gen,
		      long timeout)
{
	long long ns_per_jiffy = 1000000000LL / KMOCK_HZ;
	long long start = now_ns(), deadline, left;
	struct timespec ts;

	if (timeout == MAX_SCHEDULE_TIMEOUT)
		deadline = start + 3600LL * 1000000000LL;
	else
		deadline = start + timeout * ns_per_jiffy;
	pthread_mutex_lock(&kmock_wait_mutex);
	while (wq->generation == gen) {
		long long now = now_ns();

		if (now >= deadline)
			break;
		/* the condition variable's clock is CLOCK_REALTIME */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += (deadline - now) / 1000000000LL;
		ts.tv_nsec += (deadline - now) % 1000000000LL;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&kmock_wait_cond, &kmock_wait_mutex, &ts);
	}
	pthread_mutex_unlock(&kmock_wait_mutex);
	if (timeout == MAX_SCHEDULE_TIMEOUT)
		return timeout;
	left = (deadline - now_ns() + ns_per_jiffy - 1) / ns_per_jiffy;
	return left > 0 ? left : 0;
}

void wake_up_all(struct wait_queue_head *wq)
{
	pthread_mutex_lock(&kmock_wait_mutex);
	wq->generation++;
	pthread_cond_broadcast(&kmock_wait_cond);
	pthread_mutex_unlock(&kmock_wait_mutex);
}
