/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The wrapper's ntoskrnl.exe logic that needs no kernel
 * (wrapper/driver/ntos_*.h) as kntos.c builds it against kmock, behind
 * plain entry points named after the exports they carry: test programs
 * built with libc call them from real threads.
 */
#ifndef NDIS_KNTOS_H
#define NDIS_KNTOS_H

/* Room for any dispatcher object (KEVENT, KMUTEX, KSEMAPHORE). */
struct kd_obj {
	unsigned long long q[8];
};

#define KD_STATUS_TIMEOUT			0x102
#define KD_STATUS_MUTANT_NOT_OWNED		((int)0xC0000046)
#define KD_STATUS_SEMAPHORE_LIMIT_EXCEEDED	((int)0xC0000047)

void kd_KeInitializeEvent(struct kd_obj *o, int synchronization, int state);
int kd_KeSetEvent(struct kd_obj *o);
int kd_KeResetEvent(struct kd_obj *o);
int kd_KeReadState(struct kd_obj *o);
void kd_KeInitializeMutex(struct kd_obj *o);
int kd_KeReleaseMutex(struct kd_obj *o, void *thread);
void *kd_mutex_owner(struct kd_obj *o);
void kd_KeInitializeSemaphore(struct kd_obj *o, int count, int limit);
int kd_KeReleaseSemaphore(struct kd_obj *o, int adjustment);
/* A wait by @thread: timeout_ms < 0 waits forever. Its NTSTATUS. */
int kd_KeWaitForMultipleObjects(struct kd_obj **objs, unsigned int count,
				int wait_all, void *thread, long timeout_ms);
/* A wait's timeout in 100 ns units as milliseconds (-1: passed). */
long long kd_timeout_ms(long long t100, long long now);

/* ntos_list.h: LIST_ENTRY and SList operations, Interlocked* counters */
struct kd_list_entry {
	struct kd_list_entry *flink, *blink;
};

struct kd_slist_entry {
	struct kd_slist_entry *next;
} __attribute__((aligned(16)));

struct kd_slist_header {
	unsigned long long words[2];
};

struct kd_list_entry *kd_ExInterlockedInsertHeadList(struct kd_list_entry *h,
						     struct kd_list_entry *e);
struct kd_list_entry *kd_ExInterlockedInsertTailList(struct kd_list_entry *h,
						     struct kd_list_entry *e);
struct kd_list_entry *kd_ExInterlockedRemoveHeadList(struct kd_list_entry *h);
struct kd_list_entry *kd_ExInterlockedRemoveTailList(struct kd_list_entry *h);
struct kd_slist_entry *kd_InterlockedPushEntrySList(struct kd_slist_header *h,
						    struct kd_slist_entry *e);
struct kd_slist_entry *kd_InterlockedPopEntrySList(struct kd_slist_header *h);
unsigned short kd_ExQueryDepthSList(struct kd_slist_header *h);
int kd_InterlockedIncrement(int *v);
int kd_InterlockedDecrement(int *v);
int kd_InterlockedExchange(int *v, int n);
int kd_InterlockedCompareExchange(int *v, int exchange, int comparand);
void kd_ExInterlockedAddLargeStatistic(long long *v, unsigned int inc);

/* ntos_timer.h: KTIMER and KDPC (struct kd_obj holds either); the DPC
 * queue is kntos.c's own */
void kd_KeInitializeTimerEx(struct kd_obj *t, int synchronization);
int kd_KeSetTimerEx(struct kd_obj *t, unsigned long long due, int period,
		    struct kd_obj *dpc);
int kd_KeCancelTimer(struct kd_obj *t);
/* The expiry at system time @now: the period to set it again for, and
 * whether its DPC was queued now; waiters are woken. */
int kd_timer_expire(struct kd_obj *t, unsigned long long now,
		    int *dpc_queued);
void kd_KeInitializeDpc(struct kd_obj *dpc, void *routine, void *context);
int kd_KeInsertQueueDpc(struct kd_obj *dpc, void *arg1, void *arg2);
int kd_KeRemoveQueueDpc(struct kd_obj *dpc);
/* The next queued DPC, dequeued, and its routine's arguments. */
struct kd_obj *kd_dpc_take(void **routine, void **context, void **arg1,
			   void **arg2);

/* ntos_pool.h: NPAGED_LOOKASIDE_LIST (its bytes) */
struct kd_lookaside {
	unsigned long long q[16];
};

void kd_ExInitializeNPagedLookasideList(struct kd_lookaside *l, void *allocate,
					void *free, unsigned int size,
					unsigned int tag, void *def_alloc,
					void *def_free);
void *kd_lookaside_drain(struct kd_lookaside *l);

/* ntos_thread.h: thread objects, references, priorities, work items */
void kd_PsCreateSystemThread(struct kd_obj *t);	/* the object's state */
void kd_PsTerminateSystemThread(struct kd_obj *t, int status);
int kd_thread_exit_status(struct kd_obj *t);
int kd_ObfReferenceObject(struct kd_obj *t, int delta);
int kd_priority_to_nice(int priority);
int kd_nice_to_priority(int nice);
void kd_ExQueueWorkItem(void *item, void *routine, void *parameter);
/* The next queued work item, dequeued, and its routine and parameter. */
void *kd_work_take(void **routine, void **parameter);

/* ntos_time.h: KeQueryTickCount, KeQueryPerformanceCounter,
 * ExSystemTimeToLocalTime, KeRaiseIrql/KeLowerIrql's rule */
unsigned long long kd_KeQueryTickCount(unsigned long long interrupt_time);
unsigned long long kd_KeQueryPerformanceCounter(unsigned long long ns,
						long long *frequency);
long long kd_ExSystemTimeToLocalTime(long long system_time, int minutes_west);
int kd_irql_change(int current_irql, int new_irql, int raise);

#endif
