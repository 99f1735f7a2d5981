// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: ntoskrnl.exe's threads, work items and object references:
 * PsCreateSystemThread (a kthread running the start routine at
 * PASSIVE_LEVEL), PsTerminateSystemThread, KeGetCurrentThread and
 * PsGetCurrentThread (the task), thread priorities, ExQueueWorkItem,
 * ObReferenceObjectByHandle, ObfReferenceObject, ObfDereferenceObject.
 * ntos_thread.h has the rules (unit-tested there).
 *
 * A thread object is the wrapper's allocation, on win_thread_objects
 * while it lives; a handle or object the wrapper did not make is
 * refused by ObReferenceObjectByHandle and left alone by the reference
 * counters (which answer 1): the other objects drivers reference (device
 * and file objects) are the wrapper's own and live as long as it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/version.h>
#include <linux/workqueue.h>

#include "ntos.h"
#include "ntos_list.h"
#include "ntos_thread.h"
#include "wincall.h"
#include "winexport.h"

#define STATUS_INVALID_HANDLE		0xC0000008
#define STATUS_OBJECT_TYPE_MISMATCH	0xC0000024

struct win_thread {
	struct win_thread_object obj;	/* first: the handle is its address */
	struct list_head link;		/* win_thread_objects */
	struct task_struct *task;	/* set by the thread itself */
	void *start;
	void *context;
};

/* Under win_dispatch_lock. */
static LIST_HEAD(win_thread_objects);

/* Under win_dispatch_lock. */
static struct win_thread *win_thread_find(void *object)
{
	struct win_thread *t;

	list_for_each_entry(t, &win_thread_objects, link)
		if (t == object)
			return t;
	return NULL;
}

/* Drops a reference; the last one frees it. */
static void win_thread_put(struct win_thread *t)
{
	unsigned long flags;
	s32 left;

	spin_lock_irqsave(&win_dispatch_lock, flags);
	left = win_object_ref(&t->obj, -1);
	if (!left)
		list_del(&t->link);
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	if (!left)
		kfree(t);
}

static struct win_thread *win_current_thread_object(void);

static void win_thread_end(struct win_thread *t, s32 status)
{
	unsigned long flags;

	spin_lock_irqsave(&win_dispatch_lock, flags);
	win_thread_object_exit(&t->obj, status);
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	win_dispatch_wake();
	win_thread_put(t);
}

static int win_thread_main(void *arg)
{
	struct win_thread *t = arg;
	unsigned long flags;

	spin_lock_irqsave(&win_dispatch_lock, flags);
	t->task = current;
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	LIN2WIN1(t->start, t->context);
	win_thread_end(t, STATUS_SUCCESS);
	return 0;
}

static WIN_ABI s32 PsCreateSystemThread(void **handle, u32 access,
					void *attributes, void *process,
					void *client_id, void *start,
					void *context)
{
	struct task_struct *task;
	struct win_thread *t;
	unsigned long flags;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return STATUS_INSUFFICIENT_RESOURCES;
	win_thread_object_init(&t->obj);
	t->start = start;
	t->context = context;
	spin_lock_irqsave(&win_dispatch_lock, flags);
	list_add(&t->link, &win_thread_objects);
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	task = kthread_run(win_thread_main, t, "win-%ps", start);
	if (IS_ERR(task)) {
		win_thread_put(t);
		win_thread_put(t);
		return STATUS_INSUFFICIENT_RESOURCES;
	}
	*handle = t;
	return STATUS_SUCCESS;
}
WIN_FUNC(PsCreateSystemThread);

/*
 * Ends the calling system thread from inside its Windows code: the
 * Windows frames are abandoned, so the FPU section they run in is ended
 * here, as the thread's start would have on return.
 */
static WIN_ABI s32 PsTerminateSystemThread(s32 status)
{
	struct win_thread *t = win_current_thread_object();

	if (!t) {
		pr_err("PsTerminateSystemThread: not a thread PsCreateSystemThread made\n");
		return STATUS_INVALID_PARAMETER;
	}
	win_thread_end(t, status);
	if (this_cpu_read(win_depth)) {
		this_cpu_write(win_irql, WIN_PASSIVE_LEVEL);
		this_cpu_write(win_depth, 0);
		kernel_fpu_end();
	}
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 17, 0)
	kthread_complete_and_exit(NULL, status);
#else
	complete_and_exit(NULL, status);
#endif
}
WIN_FUNC(PsTerminateSystemThread);

/*
 * The thread object of the current task, if one of ours (found by its
 * task: kthread_data() is a GPL-only export).
 */
static struct win_thread *win_current_thread_object(void)
{
	struct win_thread *t, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&win_dispatch_lock, flags);
	list_for_each_entry(t, &win_thread_objects, link)
		if (t->task == current)
			found = t;
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	return found;
}

/* The current thread: its task (a mutex's owner is the same). */
static WIN_ABI void *KeGetCurrentThread(void)
{
	return current;
}
WIN_FUNC(KeGetCurrentThread);

static WIN_ABI void *PsGetCurrentThread(void)
{
	return current;
}
WIN_FUNC(PsGetCurrentThread);

/* Only the current thread's task is known by its KTHREAD pointer. */
static WIN_ABI s32 KeQueryPriorityThread(void *thread)
{
	if (thread != current)
		return WIN_NORMAL_PRIORITY;
	return win_nice_to_priority(task_nice(current));
}
WIN_FUNC(KeQueryPriorityThread);

static WIN_ABI s32 KeSetPriorityThread(void *thread, s32 priority)
{
	s32 old = KeQueryPriorityThread(thread);

	if (thread == current)
		set_user_nice(current, win_priority_to_nice(priority));
	return old;
}
WIN_FUNC(KeSetPriorityThread);

/* -- object references ------------------------------------------------ */

static WIN_ABI s32 ObReferenceObjectByHandle(void *handle, u32 access,
					     void *type, u8 mode,
					     void **object, void *info)
{
	struct win_thread *t;
	unsigned long flags;

	spin_lock_irqsave(&win_dispatch_lock, flags);
	t = win_thread_find(handle);
	if (t)
		win_object_ref(&t->obj, 1);
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	if (!t) {
		pr_err("ObReferenceObjectByHandle: %p is no handle the wrapper gave\n",
		       handle);
		return STATUS_INVALID_HANDLE;
	}
	*object = t;
	return STATUS_SUCCESS;
}
WIN_FUNC(ObReferenceObjectByHandle);

static WIN_FASTCALL long ObfReferenceObject(void *object)
{
	struct win_thread *t;
	unsigned long flags;
	long refs = 1;

	spin_lock_irqsave(&win_dispatch_lock, flags);
	t = win_thread_find(object);
	if (t)
		refs = win_object_ref(&t->obj, 1);
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	return refs;
}
WIN_FUNC(ObfReferenceObject);

static WIN_FASTCALL long ObfDereferenceObject(void *object)
{
	struct win_thread *t;
	unsigned long flags;
	long refs = 1;

	spin_lock_irqsave(&win_dispatch_lock, flags);
	t = win_thread_find(object);
	if (t) {
		refs = win_object_ref(&t->obj, -1);
		if (!refs)
			list_del(&t->link);
	}
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	if (t && !refs)
		kfree(t);
	return refs;
}
WIN_FUNC(ObfDereferenceObject);

/* ZwClose on a thread handle (ntos.h): the handle's reference. */
bool win_object_close(void *handle)
{
	struct win_thread *t;
	unsigned long flags;

	spin_lock_irqsave(&win_dispatch_lock, flags);
	t = win_thread_find(handle);
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	if (t)
		ObfDereferenceObject(t);
	return t;
}

/* -- work items ------------------------------------------------------- */

static struct win_list_entry win_work_items = { &win_work_items,
						&win_work_items };

static void win_work_run(struct work_struct *work)
{
	struct win_list_entry *e;
	struct win_work_queue_item *item;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&win_dispatch_lock, flags);
		e = win_list_remove_head(&win_work_items);
		spin_unlock_irqrestore(&win_dispatch_lock, flags);
		if (!e)
			return;
		item = (struct win_work_queue_item *)e;
		/* the routine may free or requeue the item: read it first */
		LIN2WIN1(item->worker_routine, item->parameter);
		cond_resched();
	}
}
static DECLARE_WORK(win_work, win_work_run);

/*
 * Every queue type (critical, delayed, hyper critical) is the same one,
 * the kernel's system_wq (system_long_wq is a GPL-only export).
 */
static WIN_ABI void ExQueueWorkItem(struct win_work_queue_item *item,
				   u32 queue_type)
{
	unsigned long flags;

	spin_lock_irqsave(&win_dispatch_lock, flags);
	win_list_insert_tail(&win_work_items, &item->list);
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	queue_work(system_wq, &win_work);
}
WIN_FUNC(ExQueueWorkItem);
