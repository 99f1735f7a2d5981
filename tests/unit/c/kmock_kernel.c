// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel services kmock_ntos/'s headers declare, built with libc:
 * per-thread interrupt and FPU state, the online CPUs, the clocks (the
 * host's), busy waits and sleeps that take the time they say, and a
 * task_struct per thread, kernel threads, work items and timers on host
 * threads, the heap.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
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
void *kzalloc(size_t size, unsigned int flags);
void kfree(const void *p);
struct task_struct *kthread_run(int (*fn)(void *data), void *data,
				const char *namefmt, ...);
void kthread_complete_and_exit(void *comp, long code)
	__attribute__((noreturn));

struct work_struct;
struct work_struct {
	void (*func)(struct work_struct *work);
	int pending;
	int running;
};
struct workqueue_struct;
bool queue_work(struct workqueue_struct *wq, struct work_struct *work);
bool flush_work(struct work_struct *work);

struct timer_list {
	void (*function)(struct timer_list *t);
	unsigned long expires;
	void *firing;
	int pending;
	int running;
};
void timer_setup(struct timer_list *t, void (*fn)(struct timer_list *),
		 unsigned int flags);
int mod_timer(struct timer_list *t, unsigned long expires);
int kmock_timer_delete(struct timer_list *t);
int kmock_timer_delete_sync(struct timer_list *t);

__thread unsigned long kmock_irqs_off;
__thread int kmock_in_interrupt;
__thread int kmock_fpu_depth;
static __thread struct task_struct kmock_task;
static __thread struct task_struct *kmock_kthread_task;	/* a kthread's */

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
	return kmock_kthread_task ? kmock_kthread_task : &kmock_task;
}

int kmock_current_nice(void)
{
	return kmock_current()->nice;
}

void kmock_set_current_nice(int nice)
{
	kmock_current()->nice = nice;
}

long schedule_timeout_uninterruptible(long timeout)
{
	struct timespec ts = { timeout / 1000, (timeout % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
	return 0;
}

/* -- the heap --------------------------------------------------------- */

int kmock_slab_live;

void *kzalloc(size_t size, unsigned int flags)
{
	void *p = calloc(1, size ? size : 1);

	(void)flags;
	if (p)
		__atomic_add_fetch(&kmock_slab_live, 1, __ATOMIC_SEQ_CST);
	return p;
}

void kfree(const void *p)
{
	if (p)
		__atomic_sub_fetch(&kmock_slab_live, 1, __ATOMIC_SEQ_CST);
	free((void *)p);
}

/* -- kernel threads ---------------------------------------------------- */

int kmock_kthread_fail;
int kmock_kthreads_running;

struct kmock_kthread {
	int (*fn)(void *data);
	void *data;
	struct task_struct task;	/* leaked with the thread: the kernel
					 * frees it after its last reference,
					 * which tests may still hold */
};

static void *kmock_kthread_main(void *arg)
{
	struct kmock_kthread *k = arg;

	kmock_kthread_task = &k->task;
	k->fn(k->data);
	__atomic_sub_fetch(&kmock_kthreads_running, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

struct task_struct *kthread_run(int (*fn)(void *data), void *data,
				const char *namefmt, ...)
{
	struct kmock_kthread *k;
	pthread_t t;

	(void)namefmt;
	if (kmock_kthread_fail)
		return (struct task_struct *)(long)-12;	/* ERR_PTR(-ENOMEM) */
	k = calloc(1, sizeof(*k));
	if (!k)
		return (struct task_struct *)(long)-12;
	k->fn = fn;
	k->data = data;
	__atomic_add_fetch(&kmock_kthreads_running, 1, __ATOMIC_SEQ_CST);
	if (pthread_create(&t, NULL, kmock_kthread_main, k)) {
		__atomic_sub_fetch(&kmock_kthreads_running, 1, __ATOMIC_SEQ_CST);
		free(k);
		return (struct task_struct *)(long)-12;
	}
	pthread_detach(t);
	return &k->task;
}

void kthread_complete_and_exit(void *comp, long code)
{
	(void)comp;
	(void)code;
	__atomic_sub_fetch(&kmock_kthreads_running, 1, __ATOMIC_SEQ_CST);
	pthread_exit(NULL);
}

/* -- work items -------------------------------------------------------- */

static pthread_mutex_t kmock_work_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t kmock_work_cond = PTHREAD_COND_INITIALIZER;
struct workqueue_struct *system_wq;

static void *kmock_worker(void *arg)
{
	struct work_struct *w = arg;

	pthread_mutex_lock(&kmock_work_mutex);
	while (w->pending) {
		w->pending = 0;
		w->running = 1;
		pthread_mutex_unlock(&kmock_work_mutex);
		w->func(w);
		pthread_mutex_lock(&kmock_work_mutex);
		w->running = 0;
		pthread_cond_broadcast(&kmock_work_cond);
	}
	pthread_mutex_unlock(&kmock_work_mutex);
	return NULL;
}

bool queue_work(struct workqueue_struct *wq, struct work_struct *w)
{
	pthread_t t;
	bool queued;

	(void)wq;
	pthread_mutex_lock(&kmock_work_mutex);
	queued = !w->pending;
	if (queued) {
		w->pending = 1;
		/* a running worker takes it again when its call returns */
		if (!w->running && !pthread_create(&t, NULL, kmock_worker, w))
			pthread_detach(t);
	}
	pthread_mutex_unlock(&kmock_work_mutex);
	return queued;
}

bool flush_work(struct work_struct *w)
{
	bool waited = false;

	pthread_mutex_lock(&kmock_work_mutex);
	while (w->pending || w->running) {
		waited = true;
		pthread_cond_wait(&kmock_work_cond, &kmock_work_mutex);
	}
	pthread_mutex_unlock(&kmock_work_mutex);
	return waited;
}

/* -- timers ------------------------------------------------------------ */

/*
 * A pending expiry: its thread's, freed by it. Setting the timer again
 * or deleting it voids the pending one (t = NULL) without touching it
 * after, so a timer may be freed once deleted.
 */
struct kmock_firing {
	struct timer_list *t;
	long long deadline_ns;	/* monotonic */
};

static void *kmock_timer_thread(void *arg)
{
	struct kmock_firing *f = arg;
	struct timespec tick = { 0, 200000 };
	struct timer_list *t;

	for (;;) {
		pthread_mutex_lock(&kmock_work_mutex);
		t = f->t;
		if (!t)
			break;
		if (monotonic_ns() >= f->deadline_ns) {
			t->firing = NULL;
			t->pending = 0;
			t->running++;
			pthread_mutex_unlock(&kmock_work_mutex);
			t->function(t);
			pthread_mutex_lock(&kmock_work_mutex);
			t->running--;
			pthread_cond_broadcast(&kmock_work_cond);
			break;
		}
		pthread_mutex_unlock(&kmock_work_mutex);
		nanosleep(&tick, NULL);
	}
	pthread_mutex_unlock(&kmock_work_mutex);
	free(f);
	return NULL;
}

void timer_setup(struct timer_list *t, void (*fn)(struct timer_list *),
		 unsigned int flags)
{
	(void)flags;
	t->function = fn;
	t->expires = 0;
	t->firing = NULL;
	t->pending = 0;
	t->running = 0;
}

/* Under kmock_work_mutex: the pending expiry void; whether there was one. */
static int kmock_timer_void(struct timer_list *t)
{
	int was = t->pending;

	if (t->firing)
		((struct kmock_firing *)t->firing)->t = NULL;
	t->firing = NULL;
	t->pending = 0;
	return was;
}

/* Whether it was pending; the earlier expiry is void. */
int mod_timer(struct timer_list *t, unsigned long expires)
{
	struct kmock_firing *f = malloc(sizeof(*f));
	pthread_t th;
	int was;

	pthread_mutex_lock(&kmock_work_mutex);
	was = kmock_timer_void(t);
	t->expires = expires;
	if (f) {
		f->t = t;
		/* the delay the caller meant, from now: jiffies lags the
		 * clock while the tick thread waits for a CPU, and an expiry
		 * checked against it would fire that much early */
		f->deadline_ns = monotonic_ns() +
				 (long)(expires - jiffies) * 1000000LL;
		if (!pthread_create(&th, NULL, kmock_timer_thread, f)) {
			pthread_detach(th);
			t->firing = f;
			t->pending = 1;
		} else {
			free(f);
		}
	}
	pthread_mutex_unlock(&kmock_work_mutex);
	return was;
}

int kmock_timer_delete(struct timer_list *t)
{
	int was;

	pthread_mutex_lock(&kmock_work_mutex);
	was = kmock_timer_void(t);
	pthread_mutex_unlock(&kmock_work_mutex);
	return was;
}

int kmock_timer_delete_sync(struct timer_list *t)
{
	int was;

	pthread_mutex_lock(&kmock_work_mutex);
	was = kmock_timer_void(t);
	while (t->running)
		pthread_cond_wait(&kmock_work_cond, &kmock_work_mutex);
	pthread_mutex_unlock(&kmock_work_mutex);
	return was;
}
