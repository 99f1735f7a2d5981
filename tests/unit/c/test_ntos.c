// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of ntoskrnl.exe's dispatcher objects (wrapper/driver/
 * ntos_dispatch.h, behind KeSetEvent, KeWaitForMultipleObjects, ...),
 * built -nostdinc against kmock by kntos.c. The waits really sleep:
 * another thread signals, and the timeouts are measured.
 */
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "kntos.h"
#include "tap.h"

static int thread_a, thread_b;	/* two "threads" (KTHREAD addresses) */

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* What another context does after a delay. */
struct later {
	int delay_ms;
	void (*act)(struct later *l);
	struct kd_obj *obj;
	int arg;
	int ret;
	pthread_t tid;
};

static void *later_run(void *arg)
{
	struct later *l = arg;

	usleep(l->delay_ms * 1000);
	l->act(l);
	return NULL;
}

static void later_start(struct later *l)
{
	pthread_create(&l->tid, NULL, later_run, l);
}

static void later_join(struct later *l)
{
	pthread_join(l->tid, NULL);
}

static void act_set(struct later *l)
{
	l->ret = kd_KeSetEvent(l->obj);
}

static void act_release_mutex(struct later *l)
{
	l->ret = kd_KeReleaseMutex(l->obj, &thread_b);
}

static void act_release_semaphore(struct later *l)
{
	l->ret = kd_KeReleaseSemaphore(l->obj, l->arg);
}

static int wait1(struct kd_obj *o, void *thread, long timeout_ms)
{
	return kd_KeWaitForMultipleObjects(&o, 1, 0, thread, timeout_ms);
}

/* -- events --------------------------------------------------------------- */

static void test_event_state(void)
{
	struct kd_obj ev;

	kd_KeInitializeEvent(&ev, 0, 0);
	CHECK(kd_KeReadState(&ev) == 0);
	CHECK(kd_KeSetEvent(&ev) == 0);		/* previous state */
	CHECK(kd_KeReadState(&ev) == 1);
	CHECK(kd_KeSetEvent(&ev) == 1);
	CHECK(kd_KeResetEvent(&ev) == 1);
	CHECK(kd_KeReadState(&ev) == 0);
	kd_KeInitializeEvent(&ev, 1, 1);
	CHECK(kd_KeReadState(&ev) == 1);
}

/* A notification event stays set for every waiter; a synchronization
 * event is taken by the one wait it satisfies. */
static void test_event_consumed(void)
{
	struct kd_obj ev;

	kd_KeInitializeEvent(&ev, 0, 1);
	CHECK(wait1(&ev, &thread_a, 0) == 0);
	CHECK(wait1(&ev, &thread_a, 0) == 0);
	CHECK(kd_KeReadState(&ev) == 1);
	kd_KeInitializeEvent(&ev, 1, 1);
	CHECK(wait1(&ev, &thread_a, 0) == 0);
	CHECK(kd_KeReadState(&ev) == 0);
	CHECK(wait1(&ev, &thread_a, 0) == KD_STATUS_TIMEOUT);
}

static void test_event_wait_signalled(void)
{
	struct later l = { .delay_ms = 100, .act = act_set };
	struct kd_obj ev;
	long long t0, took;
	int st;

	kd_KeInitializeEvent(&ev, 1, 0);
	l.obj = &ev;
	t0 = now_ms();
	later_start(&l);
	st = wait1(&ev, &thread_a, -1);
	took = now_ms() - t0;
	later_join(&l);
	CHECK(st == 0);
	if (took < 90 || took > 2000)
		printf("#   the wait took %lld ms, the set came at 100\n", took);
	CHECK(took >= 90 && took < 2000);
	CHECK(kd_KeReadState(&ev) == 0);	/* consumed by the wait */
}

static void test_event_wait_timeout(void)
{
	struct kd_obj ev;
	long long t0, took;

	kd_KeInitializeEvent(&ev, 0, 0);
	t0 = now_ms();
	CHECK(wait1(&ev, &thread_a, 150) == KD_STATUS_TIMEOUT);
	took = now_ms() - t0;
	if (took < 150 || took > 2000)
		printf("#   a 150 ms timeout took %lld ms\n", took);
	CHECK(took >= 150 && took < 2000);
}

/* -- mutexes -------------------------------------------------------------- */

static void test_mutex_recursive(void)
{
	struct kd_obj m;

	kd_KeInitializeMutex(&m);
	CHECK(kd_KeReadState(&m) == 1);
	CHECK(wait1(&m, &thread_a, 0) == 0);
	CHECK(kd_mutex_owner(&m) == &thread_a);
	CHECK(wait1(&m, &thread_a, 0) == 0);	/* the owner again */
	CHECK(kd_KeReadState(&m) == -1);
	CHECK(wait1(&m, &thread_b, 0) == KD_STATUS_TIMEOUT);
	/* only the owner releases */
	CHECK(kd_KeReleaseMutex(&m, &thread_b) == KD_STATUS_MUTANT_NOT_OWNED);
	CHECK(kd_KeReadState(&m) == -1);
	CHECK(kd_KeReleaseMutex(&m, &thread_a) == -1);
	CHECK(kd_mutex_owner(&m) == &thread_a);
	CHECK(kd_KeReleaseMutex(&m, &thread_a) == 0);
	CHECK(kd_KeReadState(&m) == 1);
	CHECK(kd_mutex_owner(&m) == NULL);
	CHECK(kd_KeReleaseMutex(&m, &thread_a) == KD_STATUS_MUTANT_NOT_OWNED);
}

static void test_mutex_wait_released(void)
{
	struct later l = { .delay_ms = 100, .act = act_release_mutex };
	struct kd_obj m;
	long long t0, took;
	int st;

	kd_KeInitializeMutex(&m);
	CHECK(wait1(&m, &thread_b, 0) == 0);
	l.obj = &m;
	t0 = now_ms();
	later_start(&l);
	st = wait1(&m, &thread_a, 2000);
	took = now_ms() - t0;
	later_join(&l);
	CHECK(l.ret == 0);
	CHECK(st == 0);
	CHECK(took >= 90 && took < 2000);
	CHECK(kd_mutex_owner(&m) == &thread_a);
}

/* -- semaphores ----------------------------------------------------------- */

static void test_semaphore_count(void)
{
	struct kd_obj s;

	kd_KeInitializeSemaphore(&s, 2, 3);
	CHECK(wait1(&s, &thread_a, 0) == 0);
	CHECK(wait1(&s, &thread_b, 0) == 0);
	CHECK(kd_KeReadState(&s) == 0);
	CHECK(wait1(&s, &thread_a, 0) == KD_STATUS_TIMEOUT);
	CHECK(kd_KeReleaseSemaphore(&s, 3) == 0);
	CHECK(kd_KeReadState(&s) == 3);
	CHECK(kd_KeReleaseSemaphore(&s, 1) ==
	      KD_STATUS_SEMAPHORE_LIMIT_EXCEEDED);
	CHECK(kd_KeReadState(&s) == 3);
	CHECK(kd_KeReleaseSemaphore(&s, 0) ==
	      KD_STATUS_SEMAPHORE_LIMIT_EXCEEDED);
}

static void test_semaphore_wait_released(void)
{
	struct later l = { .delay_ms = 100, .act = act_release_semaphore,
			   .arg = 1 };
	struct kd_obj s;
	long long t0, took;
	int st;

	kd_KeInitializeSemaphore(&s, 0, 1);
	l.obj = &s;
	t0 = now_ms();
	later_start(&l);
	st = wait1(&s, &thread_a, 2000);
	took = now_ms() - t0;
	later_join(&l);
	CHECK(st == 0);
	CHECK(took >= 90 && took < 2000);
	CHECK(kd_KeReadState(&s) == 0);
}

/* -- several objects ------------------------------------------------------ */

static void test_wait_any(void)
{
	struct later l = { .delay_ms = 100, .act = act_set };
	struct kd_obj e0, e1, e2;
	struct kd_obj *objs[3] = { &e0, &e1, &e2 };
	int st;

	kd_KeInitializeEvent(&e0, 1, 0);
	kd_KeInitializeEvent(&e1, 1, 1);
	kd_KeInitializeEvent(&e2, 1, 1);
	/* the lowest signalled index, and only it is consumed */
	CHECK(kd_KeWaitForMultipleObjects(objs, 3, 0, &thread_a, 0) == 1);
	CHECK(kd_KeReadState(&e1) == 0);
	CHECK(kd_KeReadState(&e2) == 1);
	CHECK(kd_KeWaitForMultipleObjects(objs, 3, 0, &thread_a, 0) == 2);
	CHECK(kd_KeWaitForMultipleObjects(objs, 3, 0, &thread_a, 50) ==
	      KD_STATUS_TIMEOUT);
	l.obj = &e0;
	later_start(&l);
	st = kd_KeWaitForMultipleObjects(objs, 3, 0, &thread_a, 2000);
	later_join(&l);
	CHECK(st == 0);
}

static void test_wait_all(void)
{
	struct later l = { .delay_ms = 100, .act = act_set };
	struct kd_obj ev, sem;
	struct kd_obj *objs[2] = { &ev, &sem };
	long long t0, took;
	int st;

	kd_KeInitializeEvent(&ev, 1, 0);
	kd_KeInitializeSemaphore(&sem, 1, 1);
	/* one of two ready: nothing is taken */
	CHECK(kd_KeWaitForMultipleObjects(objs, 2, 1, &thread_a, 0) ==
	      KD_STATUS_TIMEOUT);
	CHECK(kd_KeReadState(&sem) == 1);
	l.obj = &ev;
	t0 = now_ms();
	later_start(&l);
	st = kd_KeWaitForMultipleObjects(objs, 2, 1, &thread_a, 2000);
	took = now_ms() - t0;
	later_join(&l);
	CHECK(st == 0);
	CHECK(took >= 90 && took < 2000);
	CHECK(kd_KeReadState(&ev) == 0);
	CHECK(kd_KeReadState(&sem) == 0);
}

/* -- timeouts ------------------------------------------------------------- */

static void test_timeout_units(void)
{
	CHECK(kd_timeout_ms(0, 0) == -1);		/* poll */
	CHECK(kd_timeout_ms(-10000, 0) == 1);		/* 1 ms relative */
	CHECK(kd_timeout_ms(-10001, 0) == 2);		/* rounded up */
	CHECK(kd_timeout_ms(-1, 0) == 1);
	/* absolute: 5 ms after now, and one already past */
	CHECK(kd_timeout_ms(1000050000LL, 1000000000LL) == 5);
	CHECK(kd_timeout_ms(999999999LL, 1000000000LL) == -1);
}

/* -- lists and counters -------------------------------------------------- */

static void test_lists(void)
{
	struct kd_list_entry head = { &head, &head }, a, b, c;

	CHECK(kd_ExInterlockedRemoveHeadList(&head) == NULL);
	CHECK(kd_ExInterlockedRemoveTailList(&head) == NULL);
	CHECK(kd_ExInterlockedInsertHeadList(&head, &b) == NULL);
	CHECK(kd_ExInterlockedInsertHeadList(&head, &a) == &b);
	CHECK(kd_ExInterlockedInsertTailList(&head, &c) == &b);
	/* a b c, both directions */
	CHECK(head.flink == &a && a.flink == &b && b.flink == &c &&
	      c.flink == &head);
	CHECK(head.blink == &c && c.blink == &b && b.blink == &a &&
	      a.blink == &head);
	CHECK(kd_ExInterlockedRemoveTailList(&head) == &c);
	CHECK(kd_ExInterlockedRemoveHeadList(&head) == &a);
	CHECK(kd_ExInterlockedRemoveHeadList(&head) == &b);
	CHECK(head.flink == &head && head.blink == &head);
}

static void test_slist(void)
{
	struct kd_slist_header h = { { 0, 0 } };	/* InitializeSListHead */
	struct kd_slist_entry e[3];

	CHECK(kd_InterlockedPopEntrySList(&h) == NULL);
	CHECK(kd_ExQueryDepthSList(&h) == 0);
	CHECK(kd_InterlockedPushEntrySList(&h, &e[0]) == NULL);
	CHECK(kd_InterlockedPushEntrySList(&h, &e[1]) == &e[0]);
	CHECK(kd_InterlockedPushEntrySList(&h, &e[2]) == &e[1]);
	CHECK(kd_ExQueryDepthSList(&h) == 3);
	/* where the WDK's inline ExQueryDepthSList reads it (amd64: the low
	 * 16 bits of the first quadword), and the first entry's address
	 * (Header16.NextEntry, bits 4-63 of the second) */
	CHECK((unsigned short)h.words[0] == 3);
	CHECK((h.words[1] & ~15ULL) == (unsigned long long)(unsigned long)&e[2]);
	CHECK(h.words[1] & 1);				/* HeaderType */
	CHECK(kd_InterlockedPopEntrySList(&h) == &e[2]);
	CHECK(kd_InterlockedPopEntrySList(&h) == &e[1]);
	CHECK(kd_ExQueryDepthSList(&h) == 1);
	CHECK(kd_InterlockedPopEntrySList(&h) == &e[0]);
	CHECK(kd_InterlockedPopEntrySList(&h) == NULL);
	CHECK(kd_ExQueryDepthSList(&h) == 0);
}

struct counter_run {
	int *v;
	long long *big;
	pthread_t tid;
};

static void *count_up(void *arg)
{
	struct counter_run *r = arg;
	int i;

	for (i = 0; i < 100000; i++) {
		kd_InterlockedIncrement(r->v);
		kd_ExInterlockedAddLargeStatistic(r->big, 3);
	}
	return NULL;
}

static void test_counters(void)
{
	long long big = 0x7fffffffLL;
	struct counter_run r[2];
	int v = 0, i;

	for (i = 0; i < 2; i++) {
		r[i].v = &v;
		r[i].big = &big;
		pthread_create(&r[i].tid, NULL, count_up, &r[i]);
	}
	for (i = 0; i < 2; i++)
		pthread_join(r[i].tid, NULL);
	CHECK(v == 200000);
	CHECK(big == 0x7fffffffLL + 600000);
	CHECK(kd_InterlockedDecrement(&v) == 199999);	/* the new value */
	CHECK(kd_InterlockedExchange(&v, 5) == 199999);	/* the old one */
	CHECK(kd_InterlockedCompareExchange(&v, 7, 4) == 5);	/* no match */
	CHECK(v == 5);
	CHECK(kd_InterlockedCompareExchange(&v, 7, 5) == 5);
	CHECK(v == 7);
}

/* -- DPCs and timers ----------------------------------------------------- */

static int routine_a, routine_b, ctx_a, ctx_b;

static void test_dpc_queue(void)
{
	struct kd_obj d1, d2;
	void *routine, *context, *a1, *a2;

	kd_KeInitializeDpc(&d1, &routine_a, &ctx_a);
	kd_KeInitializeDpc(&d2, &routine_b, &ctx_b);
	CHECK(kd_KeRemoveQueueDpc(&d1) == 0);
	CHECK(kd_KeInsertQueueDpc(&d1, (void *)1, (void *)2) == 1);
	/* queued already: not again, and its arguments stay */
	CHECK(kd_KeInsertQueueDpc(&d1, (void *)3, (void *)4) == 0);
	CHECK(kd_KeInsertQueueDpc(&d2, (void *)5, (void *)6) == 1);
	CHECK(kd_KeRemoveQueueDpc(&d1) == 1);
	CHECK(kd_KeRemoveQueueDpc(&d1) == 0);
	CHECK(kd_KeInsertQueueDpc(&d1, (void *)7, (void *)8) == 1);
	/* in order: d2, then d1 with its new arguments */
	CHECK(kd_dpc_take(&routine, &context, &a1, &a2) == &d2);
	CHECK(routine == &routine_b && context == &ctx_b);
	CHECK(a1 == (void *)5 && a2 == (void *)6);
	CHECK(kd_dpc_take(&routine, &context, &a1, &a2) == &d1);
	CHECK(routine == &routine_a && context == &ctx_a);
	CHECK(a1 == (void *)7 && a2 == (void *)8);
	CHECK(kd_dpc_take(&routine, &context, &a1, &a2) == NULL);
	/* taken: it may be queued again */
	CHECK(kd_KeInsertQueueDpc(&d1, NULL, NULL) == 1);
	CHECK(kd_dpc_take(&routine, &context, &a1, &a2) == &d1);
}

struct expire_later {
	struct kd_obj *timer;
	unsigned long long now;
	int period, dpc_queued;
	pthread_t tid;
};

static void *expire_run(void *arg)
{
	struct expire_later *e = arg;

	usleep(100 * 1000);
	e->period = kd_timer_expire(e->timer, e->now, &e->dpc_queued);
	return NULL;
}

static void test_timer_one_shot(void)
{
	struct expire_later e = { .now = 0x123456789abcdefULL };
	void *routine, *context, *a1, *a2;
	struct kd_obj t, d;
	long long t0, took;
	int st;

	kd_KeInitializeTimerEx(&t, 1);
	kd_KeInitializeDpc(&d, &routine_a, &ctx_a);
	CHECK(kd_KeReadState(&t) == 0);
	CHECK(kd_KeSetTimerEx(&t, 1000, 0, &d) == 0);
	CHECK(kd_KeSetTimerEx(&t, 1000, 0, &d) == 1);	/* was set */
	/* a waiter returns when it expires (another thread) */
	e.timer = &t;
	t0 = now_ms();
	pthread_create(&e.tid, NULL, expire_run, &e);
	st = wait1(&t, &thread_a, 2000);
	took = now_ms() - t0;
	pthread_join(e.tid, NULL);
	CHECK(st == 0);
	CHECK(took >= 90 && took < 2000);
	CHECK(e.period == 0 && e.dpc_queued == 1);
	CHECK(kd_KeReadState(&t) == 0);	/* a synchronization timer */
	/* its DPC, with the expiry's system time */
	CHECK(kd_dpc_take(&routine, &context, &a1, &a2) == &d);
	CHECK(a1 == (void *)(unsigned long)0x89abcdefU);
	CHECK(a2 == (void *)(unsigned long)0x01234567U);
	CHECK(kd_KeCancelTimer(&t) == 0);		/* expired: not set */
	/* a notification timer stays signalled for every waiter */
	kd_KeInitializeTimerEx(&t, 0);
	kd_KeSetTimerEx(&t, 1000, 0, NULL);
	kd_timer_expire(&t, 1, &e.dpc_queued);
	CHECK(e.dpc_queued == 0);
	CHECK(wait1(&t, &thread_a, 0) == 0);
	CHECK(wait1(&t, &thread_b, 0) == 0);
	CHECK(kd_KeReadState(&t) == 1);
	/* set again: not signalled until it expires */
	kd_KeSetTimerEx(&t, 1000, 0, NULL);
	CHECK(kd_KeReadState(&t) == 0);
	CHECK(wait1(&t, &thread_a, 50) == KD_STATUS_TIMEOUT);
}

static void test_timer_periodic_cancel(void)
{
	void *routine, *context, *a1, *a2;
	struct kd_obj t, d;
	int queued;

	kd_KeInitializeTimerEx(&t, 0);
	kd_KeInitializeDpc(&d, &routine_a, &ctx_a);
	kd_KeSetTimerEx(&t, 1000, 250, &d);
	CHECK(kd_timer_expire(&t, 1, &queued) == 250);
	CHECK(queued == 1);
	/* the DPC not run yet: the next expiry does not queue it twice */
	CHECK(kd_timer_expire(&t, 2, &queued) == 250);
	CHECK(queued == 0);
	CHECK(kd_dpc_take(&routine, &context, &a1, &a2) == &d);
	CHECK(kd_dpc_take(&routine, &context, &a1, &a2) == NULL);
	CHECK(kd_KeCancelTimer(&t) == 1);
	CHECK(kd_KeCancelTimer(&t) == 0);
	/* an expiry racing the cancel does nothing */
	kd_KeSetTimerEx(&t, 1000, 0, &d);
	kd_KeCancelTimer(&t);
	CHECK(kd_timer_expire(&t, 3, &queued) == 0);
	CHECK(queued == 0);
	CHECK(kd_KeReadState(&t) == 0);
	CHECK(kd_dpc_take(&routine, &context, &a1, &a2) == NULL);
}

/* -- lookaside lists ------------------------------------------------------ */

static int def_alloc, def_free, drv_alloc, drv_free;

/* The WDK's GENERAL_LOOKASIDE offsets (amd64), read as the DDK's inline
 * ExAllocateFromNPagedLookasideList does. */
#define LA_DEPTH	0x10
#define LA_SIZE		0x2c
#define LA_ALLOCATE	0x30
#define LA_FREE		0x38

static void *field_ptr(struct kd_lookaside *l, unsigned int off)
{
	void *p;

	memcpy(&p, (char *)l + off, sizeof(p));
	return p;
}

static void test_lookaside(void)
{
	struct kd_slist_entry e[3];
	struct kd_lookaside l;
	unsigned short depth;
	unsigned int size;
	int i;

	memset(&l, 0xa5, sizeof(l));
	kd_ExInitializeNPagedLookasideList(&l, NULL, NULL, 200, 0x41424344,
					   &def_alloc, &def_free);
	CHECK(field_ptr(&l, LA_ALLOCATE) == &def_alloc);
	CHECK(field_ptr(&l, LA_FREE) == &def_free);
	memcpy(&size, (char *)&l + LA_SIZE, 4);
	memcpy(&depth, (char *)&l + LA_DEPTH, 2);
	CHECK(size == 200);
	CHECK(depth > 0);	/* the inline free caches up to it */
	CHECK(kd_ExQueryDepthSList((struct kd_slist_header *)&l) == 0);
	kd_ExInitializeNPagedLookasideList(&l, &drv_alloc, &drv_free, 64, 0,
					   &def_alloc, &def_free);
	CHECK(field_ptr(&l, LA_ALLOCATE) == &drv_alloc);
	CHECK(field_ptr(&l, LA_FREE) == &drv_free);
	/* what the inline free cached, the delete hands back */
	for (i = 0; i < 3; i++)
		kd_InterlockedPushEntrySList((struct kd_slist_header *)&l,
					     &e[i]);
	CHECK(kd_lookaside_drain(&l) == &e[2]);
	CHECK(kd_lookaside_drain(&l) == &e[1]);
	CHECK(kd_lookaside_drain(&l) == &e[0]);
	CHECK(kd_lookaside_drain(&l) == NULL);
}

/* -- threads, references, work items ------------------------------------ */

struct terminate_later {
	struct kd_obj *t;
	pthread_t tid;
};

static void *terminate_run(void *arg)
{
	struct terminate_later *l = arg;

	usleep(100 * 1000);
	kd_PsTerminateSystemThread(l->t, 0x1234);
	return NULL;
}

static void test_thread_object(void)
{
	struct terminate_later l;
	struct kd_obj t;
	long long t0, took;
	int st;

	kd_PsCreateSystemThread(&t);
	CHECK(wait1(&t, &thread_a, 20) == KD_STATUS_TIMEOUT);
	l.t = &t;
	t0 = now_ms();
	pthread_create(&l.tid, NULL, terminate_run, &l);
	st = wait1(&t, &thread_a, 2000);
	took = now_ms() - t0;
	pthread_join(l.tid, NULL);
	CHECK(st == 0);
	CHECK(took >= 90 && took < 2000);
	CHECK(kd_thread_exit_status(&t) == 0x1234);
	/* an ended thread stays signalled for every waiter */
	CHECK(wait1(&t, &thread_b, 0) == 0);
	/* the handle's and the thread's references, one more taken */
	CHECK(kd_ObfReferenceObject(&t, 1) == 3);
	CHECK(kd_ObfReferenceObject(&t, -1) == 2);
	CHECK(kd_ObfReferenceObject(&t, -1) == 1);
	CHECK(kd_ObfReferenceObject(&t, -1) == 0);
}

static void test_priorities(void)
{
	CHECK(kd_priority_to_nice(8) == 0);
	CHECK(kd_priority_to_nice(9) == -2);
	CHECK(kd_priority_to_nice(15) == -14);
	CHECK(kd_priority_to_nice(1) == 14);
	CHECK(kd_priority_to_nice(16) == -20);	/* real time */
	CHECK(kd_priority_to_nice(31) == -20);
	CHECK(kd_nice_to_priority(0) == 8);
	CHECK(kd_nice_to_priority(-14) == 15);
	CHECK(kd_nice_to_priority(-20) == 15);
	CHECK(kd_nice_to_priority(19) == 1);
	CHECK(kd_nice_to_priority(kd_priority_to_nice(12)) == 12);
}

static void test_work_items(void)
{
	void *items[2][4], *routine, *parameter;	/* WORK_QUEUE_ITEMs */

	kd_ExQueueWorkItem(items[0], &routine_a, &ctx_a);
	kd_ExQueueWorkItem(items[1], &routine_b, &ctx_b);
	CHECK(kd_work_take(&routine, &parameter) == items[0]);
	CHECK(routine == &routine_a && parameter == &ctx_a);
	CHECK(kd_work_take(&routine, &parameter) == items[1]);
	CHECK(routine == &routine_b && parameter == &ctx_b);
	CHECK(kd_work_take(&routine, &parameter) == NULL);
}

/* -- clocks and IRQL ------------------------------------------------------ */

static void test_clocks(void)
{
	long long freq = 0;

	/* 15.625 ms ticks (KeQueryTimeIncrement's 156250) */
	CHECK(kd_KeQueryTickCount(0) == 0);
	CHECK(kd_KeQueryTickCount(156249) == 0);
	CHECK(kd_KeQueryTickCount(156250) == 1);
	CHECK(kd_KeQueryTickCount(10000000ULL * 3600) == 230400);
	/* 100 ns counts at 10 MHz */
	CHECK(kd_KeQueryPerformanceCounter(1000000000ULL, &freq) == 10000000);
	CHECK(freq == 10000000);
	CHECK(kd_KeQueryPerformanceCounter(199, &freq) == 1);
	/* UTC+1 (60 minutes east): an hour later locally */
	CHECK(kd_ExSystemTimeToLocalTime(1000, -60) == 1000 + 36000000000LL);
	CHECK(kd_ExSystemTimeToLocalTime(36000000000LL, 60) == 0);
}

static void test_irql_rule(void)
{
	CHECK(kd_irql_change(0, 2, 1) == 2);	/* raise */
	CHECK(kd_irql_change(2, 2, 1) == 2);
	CHECK(kd_irql_change(2, 0, 1) == -1);	/* a raise that lowers */
	CHECK(kd_irql_change(2, 0, 0) == 0);	/* lower */
	CHECK(kd_irql_change(0, 2, 0) == -1);	/* a lower that raises */
}

int main(void)
{
	TEST(test_event_state);
	TEST(test_event_consumed);
	TEST(test_event_wait_signalled);
	TEST(test_event_wait_timeout);
	TEST(test_mutex_recursive);
	TEST(test_mutex_wait_released);
	TEST(test_semaphore_count);
	TEST(test_semaphore_wait_released);
	TEST(test_wait_any);
	TEST(test_wait_all);
	TEST(test_timeout_units);
	TEST(test_lists);
	TEST(test_slist);
	TEST(test_counters);
	TEST(test_dpc_queue);
	TEST(test_timer_one_shot);
	TEST(test_timer_periodic_cancel);
	TEST(test_lookaside);
	TEST(test_thread_object);
	TEST(test_priorities);
	TEST(test_work_items);
	TEST(test_clocks);
	TEST(test_irql_rule);
	return tap_done();
}
