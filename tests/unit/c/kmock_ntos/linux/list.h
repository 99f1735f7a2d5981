/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for <linux/list.h>: the kernel's circular doubly linked list,
 * the operations the ntoskrnl.exe export files use. */
#ifndef KMOCK_NTOS_LIST_H
#define KMOCK_NTOS_LIST_H
#include <linux/kernel.h>

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name)	{ &(name), &(name) }
#define LIST_HEAD(name)		struct list_head name = LIST_HEAD_INIT(name)

#ifndef container_of
#define container_of(ptr, type, member)					\
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif
#define list_entry(ptr, type, member)	container_of(ptr, type, member)

static inline void __list_add(struct list_head *e, struct list_head *prev,
			      struct list_head *next)
{
	next->prev = e;
	e->next = next;
	e->prev = prev;
	prev->next = e;
}

static inline void list_add(struct list_head *e, struct list_head *head)
{
	__list_add(e, head, head->next);
}

static inline void list_add_tail(struct list_head *e, struct list_head *head)
{
	__list_add(e, head->prev, head);
}

/* the kernel poisons the links; NULL faults the same way here */
static inline void list_del(struct list_head *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	e->next = NULL;
	e->prev = NULL;
}

static inline void list_move(struct list_head *e, struct list_head *head)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	list_add(e, head);
}

static inline int list_empty(const struct list_head *head)
{
	return head->next == head;
}

#define list_for_each_entry(pos, head, member)				\
	for (pos = list_entry((head)->next, __typeof__(*pos), member);	\
	     &pos->member != (head);					\
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))

#define list_for_each_entry_safe(pos, n, head, member)			\
	for (pos = list_entry((head)->next, __typeof__(*pos), member),	\
	     n = list_entry(pos->member.next, __typeof__(*pos), member); \
	     &pos->member != (head);					\
	     pos = n, n = list_entry(n->member.next, __typeof__(*n), member))
#endif
