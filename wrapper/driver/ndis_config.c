// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: NDIS.SYS's configuration calls. A driver's registry key is
 * the adapter's settings: the name|value pairs the loader read from its
 * .conf file (the .inf's values of the driver key, and the defaults of
 * its Ndi\params entries), which are flat: the key has no subkeys.
 *
 * NdisWriteConfiguration keeps what a driver writes in memory, per
 * adapter, for as long as the adapter exists: a later
 * NdisReadConfiguration of that keyword returns it in place of the
 * .conf value. Nothing is written back to the .conf file (Windows would
 * keep it in the registry across boots; a driver that counts on that
 * sees its first-boot values each time it loads).
 *
 * Written from the NDIS 5.1 reference. The configuration handle is the
 * adapter (NdisOpenConfiguration's WrapperConfigurationContext); what
 * NdisReadConfiguration returns lives until NdisCloseConfiguration. These
 * run at PASSIVE_LEVEL from MiniportInitialize, one at a time per adapter:
 * no lock.
 */

#include <linux/kernel.h>
#include <linux/types.h>

#include "../parse/ndiscfg.h"
#include "ndis_core.h"
#include "winexport.h"

#define NDIS_PARAMETER_MULTI_STRING	3
#define NDIS_PARAMETER_BINARY		4

/* What NdisReadConfiguration hands the driver, until it closes. */
struct ndis_config_param_node {
	struct ndis_config_param_node *next;
	struct ndis_config_param param;
	u16 string[NDIS_MAX_SETTING_VALUE];
};

/* One NdisWriteConfiguration value: an integer, or an ASCII string. */
struct ndis_config_written {
	struct ndis_config_written *next;
	char name[NDIS_MAX_SETTING_NAME];
	bool integer;
	u32 type;			/* _INTEGER or _HEX_INTEGER */
	u32 value;
	char string[NDIS_MAX_SETTING_VALUE];
};

static WIN_ABI void NdisOpenConfiguration(ndis_status *status,
					  void **handle, void *wrapper_ctx)
{
	*handle = wrapper_ctx;		/* the adapter */
	*status = NDIS_STATUS_SUCCESS;
}
WIN_FUNC(NdisOpenConfiguration);

static struct ndis_config_written *
ndis_config_find_written(struct ndis_config_store *cs, const char *name)
{
	struct ndis_config_written *w;
	size_t i;

	for (w = cs->written; w; w = w->next) {
		for (i = 0; ; i++) {
			char a = w->name[i], b = name[i];

			if (a >= 'A' && a <= 'Z')
				a += 'a' - 'A';
			if (b >= 'A' && b <= 'Z')
				b += 'a' - 'A';
			if (a != b)
				break;
			if (!a)
				return w;
		}
	}
	return NULL;
}

/* A keyword as an ASCII name: printable, not empty, short enough. */
static bool ndis_config_name(const struct win_unicode_string *keyword,
			     char *name, size_t size)
{
	return keyword &&
	       ndis_cfg_keyword(keyword->buffer, keyword->length, name,
				size) && name[0];
}

static WIN_ABI void NdisReadConfiguration(ndis_status *status,
					  struct ndis_config_param **result,
					  void *handle,
					  struct win_unicode_string *keyword,
					  u32 type)
{
	struct ndis_config_store *cs;
	char name[NDIS_MAX_SETTING_NAME];
	struct ndis_config_param_node *p;
	struct ndis_config_written *w;
	struct ndis_cfg_value v;
	const char *value;

	if (!status)
		return;
	*status = NDIS_STATUS_FAILURE;
	if (!result || !handle || !ndis_config_name(keyword, name,
						     sizeof(name)))
		return;
	cs = ndis_config_store(handle);
	w = ndis_config_find_written(cs, name);
	value = w ? (w->integer ? NULL : w->string) :
		    ndis_config_setting(handle, name);
	if (!value && !w)
		return;
	p = win_alloc(ndis_config_driver(handle), sizeof(*p));
	if (!p) {
		*status = NDIS_STATUS_RESOURCES;
		return;
	}
	if (w && w->integer) {
		/* a number stays a number, in the base asked for */
		p->param.type = type == NDIS_PARAMETER_HEX_INTEGER ?
				NDIS_PARAMETER_HEX_INTEGER :
				type == NDIS_PARAMETER_INTEGER ?
				NDIS_PARAMETER_INTEGER : w->type;
		p->param.data.integer = w->value;
	} else {
		ndis_cfg_convert(value, type, p->string,
				 ARRAY_SIZE(p->string), &v);
		p->param.type = v.type;
		if (v.type == NDIS_PARAMETER_STRING) {
			p->param.data.string.buffer = p->string;
			p->param.data.string.length = v.length;
			p->param.data.string.max_length = v.length +
							  sizeof(u16);
		} else {
			p->param.data.integer = v.integer;
		}
	}
	p->next = cs->params;
	cs->params = p;
	*result = &p->param;
	*status = NDIS_STATUS_SUCCESS;
}
WIN_FUNC(NdisReadConfiguration);

/*
 * Integers and strings, as the NDIS 5.1 reference lists for a write;
 * a string is kept as ASCII (what the .conf values are), so one with
 * other characters is refused. MULTI_STRING and BINARY are not kept.
 */
static WIN_ABI void NdisWriteConfiguration(ndis_status *status, void *handle,
					   struct win_unicode_string *keyword,
					   struct ndis_config_param *param)
{
	struct ndis_config_written *w, tmp = { };
	struct ndis_config_store *cs;

	if (!status)
		return;
	*status = NDIS_STATUS_FAILURE;
	if (!handle || !param ||
	    !ndis_config_name(keyword, tmp.name, sizeof(tmp.name)))
		return;
	switch (param->type) {
	case NDIS_PARAMETER_INTEGER:
	case NDIS_PARAMETER_HEX_INTEGER:
		tmp.integer = true;
		tmp.type = param->type;
		tmp.value = param->data.integer;
		break;
	case NDIS_PARAMETER_STRING:
		if (!ndis_cfg_keyword(param->data.string.buffer,
				      param->data.string.length, tmp.string,
				      sizeof(tmp.string)))
			return;
		break;
	default:
		*status = NDIS_STATUS_NOT_SUPPORTED;
		return;
	}
	cs = ndis_config_store(handle);
	w = ndis_config_find_written(cs, tmp.name);
	if (!w) {
		w = win_alloc(ndis_config_driver(handle), sizeof(*w));
		if (!w) {
			*status = NDIS_STATUS_RESOURCES;
			return;
		}
		w->next = cs->written;
		cs->written = w;
	}
	tmp.next = w->next;
	*w = tmp;
	*status = NDIS_STATUS_SUCCESS;
}
WIN_FUNC(NdisWriteConfiguration);

/*
 * The adapter's key has no subkeys (the loader keeps the driver key's own
 * values only), so no subkey opens: by name, as Windows answers for a
 * subkey that is not there; by index, as past the last one.
 */
static WIN_ABI void NdisOpenConfigurationKeyByName(ndis_status *status,
						   void *handle,
						   struct win_unicode_string *name,
						   void **subkey)
{
	if (subkey)
		*subkey = NULL;
	if (status)
		*status = NDIS_STATUS_FAILURE;
}
WIN_FUNC(NdisOpenConfigurationKeyByName);

static WIN_ABI void NdisOpenConfigurationKeyByIndex(ndis_status *status,
						    void *handle, u32 index,
						    struct win_unicode_string *name,
						    void **subkey)
{
	if (subkey)
		*subkey = NULL;
	if (status)
		*status = NDIS_STATUS_FAILURE;
}
WIN_FUNC(NdisOpenConfigurationKeyByIndex);

void ndis_config_free_params(struct ndis_config_store *cs)
{
	struct ndis_config_param_node *p;

	while ((p = cs->params)) {
		cs->params = p->next;
		win_free(p);
	}
}

void ndis_config_free_written(struct ndis_config_store *cs)
{
	struct ndis_config_written *w;

	while ((w = cs->written)) {
		cs->written = w->next;
		win_free(w);
	}
}

static WIN_ABI void NdisCloseConfiguration(void *handle)
{
	if (handle)
		ndis_config_free_params(ndis_config_store(handle));
}
WIN_FUNC(NdisCloseConfiguration);
