// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: loading a Windows driver image and calling DriverEntry.
 *
 * The PE32+ parsing, relocation and import walking is the shared loader
 * in wrapper/loader/pe.c (also built for the host tools and tests),
 * compiled into this file. Here: executable memory, the import resolver
 * over the generated export tables, the taint, and the driver's lifetime.
 *
 * Executable memory: module_alloc()/execmem_alloc() and set_memory_x()
 * are not exported to modules (6.1 to 7.x), __vmalloc() takes no page
 * protections and vmap() forces NX. So the image's pages get two vmap()
 * mappings: drv->image, where it will run, and a writable alias the
 * loader writes it through (mapped, relocated for drv->image, its
 * imports resolved). drv->image is not touched before its page table
 * entries are set per section (lookup_address(): code read-only and
 * executable, writable data writable, the rest read-only, nothing both
 * writable and executable unless one page holds both); then the alias
 * goes. A mapping no CPU has used has no TLB entries to flush: no
 * __flush_tlb_all(), which 7.x no longer exports to modules (only to
 * kvm).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <asm/pgtable.h>

#include "compat.h"
#include "../loader/pe.c"
#include "../loader/kuser.h"

#include "ndis.h"
#include "ntos.h"
#include "wincall.h"
#include "winexport.h"

static DEFINE_MUTEX(ndis_drivers_lock);	/* loading and unloading */
static DEFINE_SPINLOCK(ndis_drivers_list_lock);	/* for lookups */
static LIST_HEAD(ndis_drivers);

/* The driver whose image contains addr (a return address), or NULL. */
struct ndis_driver *ndis_driver_at(unsigned long addr)
{
	struct ndis_driver *drv, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&ndis_drivers_list_lock, flags);
	list_for_each_entry(drv, &ndis_drivers, list) {
		unsigned long base = (unsigned long)drv->image;

		if (addr >= base && addr - base < drv->image_size) {
			found = drv;
			break;
		}
	}
	spin_unlock_irqrestore(&ndis_drivers_list_lock, flags);
	return found;
}

static int ndis_resolve(void *ctx, const char *dll, const char *name,
			u64 *addr)
{
	unsigned int i, j;

	for (i = 0; i < win_num_dlls; i++) {
		const struct win_dll *d = &win_dlls[i];

		if (strcasecmp(d->name, dll))
			continue;
		for (j = 0; j < d->count; j++) {
			if (!strcmp(d->exports[j]->name, name)) {
				*addr = (u64)(uintptr_t)d->exports[j]->func;
				return 0;
			}
		}
	}
	return -ENOENT;
}

/* MmGetSystemRoutineAddress (ntos.h): the kernel's and the HAL's only. */
void *ntos_system_routine(const char *name)
{
	u64 addr;

	if (!ndis_resolve(NULL, "ntoskrnl.exe", name, &addr) ||
	    !ndis_resolve(NULL, "HAL.dll", name, &addr))
		return (void *)(uintptr_t)addr;
	return NULL;
}

/* drv->image and the writable alias the loader fills (see the top). */
static int ndis_map_image(struct ndis_driver *drv, size_t size, void **alias)
{
	unsigned int i;

	drv->num_pages = DIV_ROUND_UP(size, PAGE_SIZE);
	drv->pages = kcalloc(drv->num_pages, sizeof(*drv->pages), GFP_KERNEL);
	if (!drv->pages)
		return -ENOMEM;
	for (i = 0; i < drv->num_pages; i++) {
		drv->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!drv->pages[i])
			goto err_free;
	}
	drv->image = vmap(drv->pages, drv->num_pages, VM_MAP, PAGE_KERNEL);
	if (!drv->image)
		goto err_free;
	*alias = vmap(drv->pages, drv->num_pages, VM_MAP, PAGE_KERNEL);
	if (!*alias)
		goto err_unmap;
	drv->image_size = size;
	return 0;

err_unmap:
	vunmap(drv->image);
	drv->image = NULL;
err_free:
	while (i--)
		__free_page(drv->pages[i]);
	kfree(drv->pages);
	drv->pages = NULL;
	return -ENOMEM;
}

static void ndis_unmap_image(struct ndis_driver *drv)
{
	unsigned int i;

	vunmap(drv->image);
	for (i = 0; i < drv->num_pages; i++)
		__free_page(drv->pages[i]);
	kfree(drv->pages);
}

#define PE_SCN_MEM_EXECUTE	0x20000000
#define PE_SCN_MEM_WRITE	0x80000000
#define PE_SCN_CNT_INITIALIZED_DATA	0x00000040
#define PE_SECTION_HEADER_SIZE	40

static u32 ndis_le32(const u8 *p)
{
	__le32 v;

	memcpy(&v, p, sizeof(v));
	return le32_to_cpu(v);
}

/*
 * W^X for the image: each page gets the union of the permissions of the
 * sections on it. pe_check() has validated the section table, read here
 * through the alias: drv->image stays untouched until this is done.
 */
static int ndis_protect_image(struct ndis_driver *drv,
			      const struct pe_info *info, const void *alias)
{
	u32 *page_flags;
	unsigned int i, pg;
	int ret = 0;

	page_flags = kcalloc(drv->num_pages, sizeof(*page_flags), GFP_KERNEL);
	if (!page_flags)
		return -ENOMEM;
	for (i = 0; i < info->num_sections; i++) {
		const u8 *sh = (const u8 *)alias + info->sections_offset +
			       i * PE_SECTION_HEADER_SIZE;
		u32 vsize = ndis_le32(sh + 8);
		u32 rva = ndis_le32(sh + 12);
		u32 flags = ndis_le32(sh + 36);

		if (!vsize || rva >= drv->image_size)
			continue;
		vsize = min_t(u32, vsize, drv->image_size - rva);
		for (pg = rva / PAGE_SIZE; pg <= (rva + vsize - 1) / PAGE_SIZE;
		     pg++)
			page_flags[pg] |= flags;
	}
	for (pg = 0; pg < drv->num_pages; pg++) {
		unsigned long addr = (unsigned long)drv->image + pg * PAGE_SIZE;
		unsigned int level;
		pte_t *ptep = lookup_address(addr, &level);
		pte_t pte;

		if (!ptep || level != PG_LEVEL_4K) {
			ret = -EFAULT;
			break;
		}
		pte = *ptep;
		if (page_flags[pg] & PE_SCN_MEM_EXECUTE)
			pte = pte_clear_flags(pte, _PAGE_NX);
		if (!(page_flags[pg] & PE_SCN_MEM_WRITE))
			pte = pte_clear_flags(pte, _PAGE_RW);
		set_pte(ptep, pte);
	}
	kfree(page_flags);
	return ret;
}

/*
 * The amd64 DDK's time macros read KUSER_SHARED_DATA at a fixed address
 * no Linux kernel maps: those reads are pointed at the wrapper's own page
 * (kuser.h, win_kuser_page()), section by section through the writable alias, before the image is
 * protected. A driver that builds the address another way than the
 * instructions kuser.h knows still faults on it.
 */
static int ndis_redirect_kuser(struct ndis_driver *drv,
			       const struct pe_info *info, u8 *alias)
{
	unsigned int i, n = 0;
	u64 page = 0;

	/* The x86_64 address only: i386 images are left as they are. */
	if (info->machine != PE_MACHINE_AMD64)
		return 0;

	for (i = 0; i < info->num_sections; i++) {
		const u8 *sh = alias + info->sections_offset +
			       i * PE_SECTION_HEADER_SIZE;
		u32 vsize = ndis_le32(sh + 8);
		u32 rva = ndis_le32(sh + 12);
		u32 flags = ndis_le32(sh + 36);
		bool code = flags & PE_SCN_MEM_EXECUTE;
		u8 *sec = alias + rva;
		unsigned int refs;

		if (!vsize || rva >= drv->image_size ||
		    !(code || (flags & PE_SCN_CNT_INITIALIZED_DATA)))
			continue;
		vsize = min_t(u32, vsize, drv->image_size - rva);
		/* a dry run first: the page is only made when needed */
		refs = kuser_redirect(sec, vsize, code, WIN_KUSER_SHARED_DATA);
		if (!refs)
			continue;
		if (!page)
			page = win_kuser_page();
		if (!page)
			return -ENOMEM;
		n += kuser_redirect(sec, vsize, code, page);
	}
	if (n)
		pr_info("%s: %u reads of KUSER_SHARED_DATA (the DDK's time macros) redirected to the wrapper's page\n",
			drv->name, n);
	return 0;
}

/* "\Registry\Machine\...\Services\<driver>" as a UNICODE_STRING. */
static int ndis_registry_path(struct ndis_driver *drv)
{
	static const char prefix[] =
		"\\Registry\\Machine\\System\\CurrentControlSet\\Services\\";
	size_t len = strlen(prefix) + strlen(drv->name);
	u16 *buf;
	size_t i;

	buf = kcalloc(len + 1, sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < len; i++)
		buf[i] = i < strlen(prefix) ? prefix[i] :
			 drv->name[i - strlen(prefix)];
	drv->registry_path.buffer = buf;
	drv->registry_path.length = len * sizeof(*buf);
	drv->registry_path.max_length = (len + 1) * sizeof(*buf);
	return 0;
}

static int ndis_prepare_image(struct ndis_driver *drv,
			      const struct ndis_load_req *req,
			      struct pe_info *info)
{
	char err[512];	/* every missing import of a driver, in one line */
	void *alias;
	int ret;

	/* pe_check refuses the other architecture's images, naming both */
	ret = pe_check(req->sys_data, req->sys_size, info, err, sizeof(err));
	if (!ret && (info->machine != PE_MACHINE_NATIVE ||
		     info->subsystem != PE_SUBSYSTEM_NATIVE)) {
		snprintf(err, sizeof(err),
			 "not a native driver of this architecture (machine %#x, subsystem %u)",
			 info->machine, info->subsystem);
		ret = -ENOEXEC;
	}
	if (ret)
		goto fail;
	ret = ndis_map_image(drv, info->size_of_image, &alias);
	if (ret) {
		snprintf(err, sizeof(err), "no memory for a %u byte image",
			 info->size_of_image);
		goto fail;
	}
	ret = pe_map(req->sys_data, req->sys_size, info, alias, err,
		     sizeof(err));
	if (!ret)
		ret = pe_relocate(alias, info, (u64)(uintptr_t)drv->image,
				  err, sizeof(err));
	if (!ret)
		ret = pe_resolve_imports(alias, info, ndis_resolve, NULL,
					 err, sizeof(err));
	if (!ret) {
		ret = ndis_redirect_kuser(drv, info, alias);
		if (ret)
			snprintf(err, sizeof(err), "no memory for the shared user data page");
	}
	if (!ret) {
		ret = ndis_protect_image(drv, info, alias);
		if (ret)
			snprintf(err, sizeof(err), "cannot protect the image");
	}
	vunmap(alias);
	if (ret) {
		ndis_unmap_image(drv);
		goto fail;
	}
	return 0;

fail:
	pr_err("%s: cannot load %s: %s\n", drv->name, req->sys_name, err);
	return ret;
}

static struct ndis_driver *ndis_find_driver(const char *name)
{
	struct ndis_driver *drv;

	list_for_each_entry(drv, &ndis_drivers, list)
		if (!strcmp(drv->name, name))
			return drv;
	return NULL;
}

static void ndis_release_driver(struct kref *ref)
{
	struct ndis_driver *drv = container_of(ref, struct ndis_driver, ref);

	spin_lock_irq(&ndis_drivers_list_lock);
	list_del(&drv->list);
	spin_unlock_irq(&ndis_drivers_list_lock);
	if (drv->unload)
		LIN2WIN1(drv->unload, drv->driver_object);
	ntos_devobj_forget(drv->driver_object);
	win_timers_release(drv);
	win_free_leaks(drv);
	ndis_unmap_image(drv);
	kfree(drv->registry_path.buffer);
	pr_info("%s: driver unloaded\n", drv->name);
	kfree(drv);
}

void ndis_driver_set_unload(void *wrapper_handle, void *func)
{
	struct ndis_driver *drv = wrapper_handle;

	drv->unload = func;
}

void ndis_put_driver(struct ndis_driver *drv)
{
	mutex_lock(&ndis_drivers_lock);
	kref_put(&drv->ref, ndis_release_driver);
	mutex_unlock(&ndis_drivers_lock);
}

/*
 * Returns the driver named in req, loading its image and running its
 * DriverEntry the first time; the caller holds a reference.
 */
struct ndis_driver *ndis_load_driver(struct ndis_load_req *req)
{
	struct ndis_driver *drv;
	struct pe_info info;
	s32 status;
	int err;

	mutex_lock(&ndis_drivers_lock);
	drv = ndis_find_driver(req->id.driver);
	if (drv) {
		kref_get(&drv->ref);
		goto out;
	}
	err = -ENOMEM;
	drv = kzalloc(sizeof(*drv), GFP_KERNEL);
	if (!drv)
		goto err_out;
	kref_init(&drv->ref);
	strscpy(drv->name, req->id.driver, sizeof(drv->name));
	strscpy(drv->sys_name, req->sys_name, sizeof(drv->sys_name));
	spin_lock_init(&drv->alloc_lock);
	INIT_LIST_HEAD(&drv->allocs);
	err = ndis_registry_path(drv);
	if (err)
		goto err_free;
	err = ndis_prepare_image(drv, req, &info);
	if (err)
		goto err_free_path;

	/*
	 * As the historical wrapper did: a Windows binary now runs. Lockdep
	 * stays reliable: the Windows code locks only through our exports.
	 */
	add_taint(TAINT_PROPRIETARY_MODULE, LOCKDEP_STILL_OK);
	spin_lock_irq(&ndis_drivers_list_lock);
	list_add(&drv->list, &ndis_drivers);
	spin_unlock_irq(&ndis_drivers_list_lock);

	status = LIN2WIN2((u8 *)drv->image + info.entry_rva,
			  drv->driver_object, &drv->registry_path);
	if (status < 0 || !drv->registered) {
		pr_err("%s: DriverEntry of %s failed (status %#x)\n",
		       drv->name, drv->sys_name, status);
		err = -ENODEV;
		kref_put(&drv->ref, ndis_release_driver);
		goto err_out;
	}
	pr_info("%s: %s loaded (NDIS %u.%u miniport)\n", drv->name,
		drv->sys_name, drv->chars.major, drv->chars.minor);
out:
	mutex_unlock(&ndis_drivers_lock);
	return drv;

err_free_path:
	kfree(drv->registry_path.buffer);
err_free:
	kfree(drv);
err_out:
	mutex_unlock(&ndis_drivers_lock);
	return ERR_PTR(err);
}
