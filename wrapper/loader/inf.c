// SPDX-License-Identifier: GPL-2.0
/*
 * Windows .inf parser (host only).  See inf.h for the syntax handled.
 * Parsing is two passes: first the text is decoded to UTF-8 and split into
 * logical lines per section (comments and continuations resolved, quotes
 * checked); then [Strings] is tokenised, and every other line is split into
 * key and fields with %strkey% substitution.
 */
#include "inf.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

struct inf_raw {
	char *text;
	int lineno;
};

struct inf_rawsec {
	struct inf_raw *lines;
	int n, cap;
};

struct buf {
	char *p;
	size_t len, cap;
};

static void seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static int buf_put(struct buf *b, char c)
{
	if (b->len + 2 > b->cap) {
		size_t ncap = b->cap ? b->cap * 2 : 64;
		char *np = realloc(b->p, ncap);

		if (!np)
			return -ENOMEM;
		b->p = np;
		b->cap = ncap;
	}
	b->p[b->len++] = c;
	b->p[b->len] = '\0';
	return 0;
}

static int buf_puts(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 2 > b->cap) {
		size_t ncap = b->cap ? b->cap : 64;
		char *np;

		while (ncap < b->len + n + 2)
			ncap *= 2;
		np = realloc(b->p, ncap);
		if (!np)
			return -ENOMEM;
		b->p = np;
		b->cap = ncap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

static char *buf_take(struct buf *b)
{
	char *p = b->p;

	if (!p)
		p = strdup("");
	b->p = NULL;
	b->len = b->cap = 0;
	return p;
}

static int put_utf8(struct buf *b, uint32_t cp)
{
	int rc = 0;

	if (cp < 0x80) {
		rc |= buf_put(b, (char)cp);
	} else if (cp < 0x800) {
		rc |= buf_put(b, (char)(0xc0 | (cp >> 6)));
		rc |= buf_put(b, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		rc |= buf_put(b, (char)(0xe0 | (cp >> 12)));
		rc |= buf_put(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		rc |= buf_put(b, (char)(0x80 | (cp & 0x3f)));
	} else {
		rc |= buf_put(b, (char)(0xf0 | (cp >> 18)));
		rc |= buf_put(b, (char)(0x80 | ((cp >> 12) & 0x3f)));
		rc |= buf_put(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		rc |= buf_put(b, (char)(0x80 | (cp & 0x3f)));
	}
	return rc ? -ENOMEM : 0;
}

/* Decode to a NUL-terminated UTF-8 string; *outlen excludes the NUL. */
static int decode(const char *name, const uint8_t *d, size_t n,
		  struct buf *out, char *err, size_t errlen)
{
	int be = -1;
	size_t i;

	if (n >= 2 && d[0] == 0xff && d[1] == 0xfe) {
		be = 0;
		d += 2;
		n -= 2;
	} else if (n >= 2 && d[0] == 0xfe && d[1] == 0xff) {
		be = 1;
		d += 2;
		n -= 2;
	} else if (n >= 2 && d[0] && !d[1]) {
		be = 0;		/* UTF-16LE without BOM (ASCII first char) */
	}
	if (be < 0) {
		if (n >= 3 && d[0] == 0xef && d[1] == 0xbb && d[2] == 0xbf) {
			d += 3;
			n -= 3;
		}
		for (i = 0; i < n; i++)
			if (!d[i]) {
				size_t line = 1, j;

				for (j = 0; j < i; j++)
					line += d[j] == '\n';
				seterr(err, errlen, "%s:%zu: NUL byte in a text file",
				       name, line);
				return -EINVAL;
			}
		if (buf_puts(out, (const char *)d, n) || buf_put(out, 0))
			return -ENOMEM;
		out->len--;
		return 0;
	}
	if (n & 1) {
		seterr(err, errlen, "%s: UTF-16 file with an odd number of bytes",
		       name);
		return -EINVAL;
	}
	for (i = 0; i + 1 < n; i += 2) {
		uint32_t u = be ? (uint32_t)(d[i] << 8 | d[i + 1]) :
				  (uint32_t)(d[i] | d[i + 1] << 8);

		if (u >= 0xd800 && u < 0xdc00 && i + 3 < n) {
			uint32_t l = be ? (uint32_t)(d[i + 2] << 8 | d[i + 3]) :
					  (uint32_t)(d[i + 2] | d[i + 3] << 8);

			if (l >= 0xdc00 && l < 0xe000) {
				u = 0x10000 + ((u - 0xd800) << 10) + (l - 0xdc00);
				i += 2;
			} else {
				u = 0xfffd;
			}
		} else if (u >= 0xd800 && u < 0xe000) {
			u = 0xfffd;
		} else if (u == 0) {
			size_t line = 1, j;

			for (j = 0; j < out->len; j++)
				line += out->p[j] == '\n';
			seterr(err, errlen, "%s:%zu: NUL character in a text file",
			       name, line);
			return -EINVAL;
		}
		if (put_utf8(out, u))
			return -ENOMEM;
	}
	if (!out->p && buf_put(out, 0) == 0)
		out->len = 0;
	return out->p ? 0 : -ENOMEM;
}

static int isws(char c)
{
	return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == 0x1a;
}

static void trim(char **s, size_t *n)
{
	while (*n && isws(**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && isws((*s)[*n - 1]))
		(*n)--;
}

void inf_free(struct inf_file *inf)
{
	int i, j, k;

	if (!inf)
		return;
	for (i = 0; i < inf->nsections; i++) {
		struct inf_section *s = &inf->sections[i];

		for (j = 0; j < s->nlines; j++) {
			free(s->lines[j].key);
			for (k = 0; k < s->lines[j].nfields; k++)
				free(s->lines[j].fields[k]);
			free(s->lines[j].fields);
		}
		free(s->lines);
		free(s->name);
	}
	free(inf->sections);
	free(inf->name);
	free(inf);
}

const struct inf_section *inf_find_section(const struct inf_file *inf,
					   const char *name)
{
	int i;

	for (i = 0; inf && name && i < inf->nsections; i++)
		if (!strcasecmp(inf->sections[i].name, name))
			return &inf->sections[i];
	return NULL;
}

const struct inf_line *inf_find_key(const struct inf_section *sec,
				    const char *key)
{
	int i;

	for (i = 0; sec && i < sec->nlines; i++)
		if (sec->lines[i].key && !strcasecmp(sec->lines[i].key, key))
			return &sec->lines[i];
	return NULL;
}

const char *inf_field(const struct inf_line *l, int i)
{
	if (!l || i < 0 || i >= l->nfields)
		return "";
	return l->fields[i];
}

/* [Strings] as an array sorted by key (case-insensitive), first
 * definition first: lookups are binary searches, so substitution stays
 * linear in the file size even for hostile input. */
struct inf_strtab {
	const struct inf_line **v;
	size_t n;
};

static int strtab_cmp(const void *a, const void *b)
{
	const struct inf_line *x = *(const struct inf_line *const *)a;
	const struct inf_line *y = *(const struct inf_line *const *)b;
	int c = strcasecmp(x->key, y->key);

	return c ? c : (x->lineno > y->lineno) - (x->lineno < y->lineno);
}

static int strtab_build(struct inf_strtab *t, const struct inf_section *sec)
{
	int i;

	t->v = NULL;
	t->n = 0;
	if (!sec)
		return 0;
	t->v = malloc(sizeof(*t->v) * ((size_t)sec->nlines + 1));
	if (!t->v)
		return -ENOMEM;
	for (i = 0; i < sec->nlines; i++)
		if (sec->lines[i].key)
			t->v[t->n++] = &sec->lines[i];
	qsort(t->v, t->n, sizeof(*t->v), strtab_cmp);
	return 0;
}

/* Compares key[0..n) with the NUL-terminated s, case-insensitively. */
static int keycmp(const char *key, size_t n, const char *s)
{
	int c = strncasecmp(key, s, n);

	if (c)
		return c;
	return s[n] ? -1 : 0;
}

static const char *strings_lookup(const struct inf_strtab *t,
				  const char *key, size_t n)
{
	size_t lo = 0, hi = t->n;

	/* leftmost match: the first definition wins */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (keycmp(key, n, t->v[mid]->key) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->n && !keycmp(key, n, t->v[lo]->key))
		return inf_field(t->v[lo], 0);
	return NULL;
}

/* Substitution and what the expanded text may still grow by. */
struct inf_subst {
	const struct inf_strtab *strs;	/* NULL: no substitution */
	size_t line_left, file_left;
};

/* Appends n bytes within the budgets: -E2BIG (line) or -EFBIG (file). */
static int cook_put(struct buf *b, const char *s, size_t n,
		    struct inf_subst *x)
{
	if (n > x->line_left)
		return -E2BIG;
	if (n > x->file_left)
		return -EFBIG;
	x->line_left -= n;
	x->file_left -= n;
	return buf_puts(b, s, n);
}

/* One field or key: drop outer whitespace, strip quotes ("" -> "), expand
 * %strkey% (when x->strs is given); *out is malloc'd. */
static int cook(const char *s, size_t n, struct inf_subst *x, char **out)
{
	struct buf b = { 0 };
	int q = 0, rc;
	size_t i;
	char *p = (char *)s;

	trim(&p, &n);
	for (i = 0; i < n; i++) {
		char c = p[i];

		if (c == '"') {
			if (q && i + 1 < n && p[i + 1] == '"') {
				rc = cook_put(&b, "\"", 1, x);
				if (rc)
					goto fail;
				i++;
			} else {
				q = !q;
			}
			continue;
		}
		if (c == '%' && x->strs) {
			const char *end = memchr(p + i + 1, '%', n - i - 1);

			if (end == p + i + 1) {
				rc = cook_put(&b, "%", 1, x);	/* %% */
				if (rc)
					goto fail;
				i++;
				continue;
			}
			if (end) {
				size_t kl = (size_t)(end - (p + i + 1));
				const char *v = strings_lookup(x->strs, p + i + 1,
							       kl);

				if (v) {
					rc = cook_put(&b, v, strlen(v), x);
					if (rc)
						goto fail;
					i += kl + 1;
					continue;
				}
			}
		}
		rc = cook_put(&b, &c, 1, x);
		if (rc)
			goto fail;
	}
	*out = buf_take(&b);
	return *out ? 0 : -ENOMEM;
fail:
	free(b.p);
	return rc;
}

/* Split a logical line into key and fields. */
static int tokenize(const char *text, struct inf_line *l,
		    struct inf_subst *x)
{
	const char *eq = NULL, *p, *start, *end;
	size_t n = strlen(text);
	int q = 0, rc;

	for (p = text; *p; p++) {
		if (*p == '"')
			q = !q;
		else if (*p == '=' && !q) {
			eq = p;
			break;
		}
	}
	start = text;
	if (eq) {
		rc = cook(text, (size_t)(eq - text), x, &l->key);
		if (rc)
			return rc;
		start = eq + 1;
	}
	{
		char *rest = (char *)start;
		size_t rn = n - (size_t)(start - text);

		trim(&rest, &rn);
		if (!rn && eq)
			return 0;	/* "key =" : no fields */
		start = rest;
		n = rn;
	}
	q = 0;
	end = start + n;
	for (p = start; ; p++) {
		if (p < end && *p == '"') {
			q = !q;
			continue;
		}
		if (p == end || (*p == ',' && !q)) {
			char **nf = realloc(l->fields,
					    sizeof(char *) * (size_t)(l->nfields + 1));

			if (!nf)
				return -ENOMEM;
			l->fields = nf;
			rc = cook(start, (size_t)(p - start), x,
				  &nf[l->nfields]);
			if (rc)
				return rc;
			l->nfields++;
			if (p == end)
				break;
			start = p + 1;
		}
	}
	return 0;
}

static int add_section(struct inf_file *inf, struct inf_rawsec **raws,
		       const char *name, size_t nlen, int lineno)
{
	int i;
	struct inf_section *ns;
	struct inf_rawsec *nr;

	for (i = 0; i < inf->nsections; i++)
		if (strlen(inf->sections[i].name) == nlen &&
		    !strncasecmp(inf->sections[i].name, name, nlen))
			return i;	/* repeated sections are merged */
	ns = realloc(inf->sections, sizeof(*ns) * (size_t)(inf->nsections + 1));
	if (!ns)
		return -ENOMEM;
	inf->sections = ns;
	nr = realloc(*raws, sizeof(*nr) * (size_t)(inf->nsections + 1));
	if (!nr)
		return -ENOMEM;
	*raws = nr;
	memset(&ns[inf->nsections], 0, sizeof(*ns));
	memset(&nr[inf->nsections], 0, sizeof(*nr));
	ns[inf->nsections].name = strndup(name, nlen);
	ns[inf->nsections].lineno = lineno;
	if (!ns[inf->nsections].name)
		return -ENOMEM;
	return inf->nsections++;
}

static int add_raw(struct inf_rawsec *r, char *text, int lineno)
{
	if (r->n == r->cap) {
		int ncap = r->cap ? r->cap * 2 : 16;
		struct inf_raw *nl = realloc(r->lines, sizeof(*nl) * (size_t)ncap);

		if (!nl)
			return -ENOMEM;
		r->lines = nl;
		r->cap = ncap;
	}
	r->lines[r->n].text = text;
	r->lines[r->n].lineno = lineno;
	r->n++;
	return 0;
}

int inf_parse_buffer(const char *name, const void *data, size_t size,
		     struct inf_file **out, char *err, size_t errlen)
{
	struct buf text = { 0 }, line = { 0 };
	struct inf_file *inf;
	struct inf_rawsec *raws = NULL;
	struct inf_strtab strtab = { NULL, 0 };
	struct inf_subst subst = { NULL, 0, INF_MAX_TEXT };
	size_t pos = 0;
	int phys = 0, cur = -1, rc = 0, i, j, pass;

	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	if (size > INF_MAX_FILE_SIZE) {
		seterr(err, errlen, "%s: file too large (%zu bytes)", name, size);
		return -EFBIG;
	}
	inf = calloc(1, sizeof(*inf));
	if (!inf || !(inf->name = strdup(name))) {
		free(inf);
		return -ENOMEM;
	}
	rc = decode(name, data, size, &text, err, errlen);
	if (rc)
		goto out;

	while (pos < text.len) {
		int start = phys + 1, q = 0, more;
		char *s;
		size_t n;

		line.len = 0;
		if (line.p)
			line.p[0] = '\0';
		do {
			int comment = 0;

			phys++;
			more = 0;
			while (pos < text.len && text.p[pos] != '\n') {
				char c = text.p[pos++];

				if (c == '\r' || comment)
					continue;
				if (!q && c == ';') {
					comment = 1;
					continue;
				}
				if (c == '"')
					q = !q;
				if (buf_put(&line, c)) {
					rc = -ENOMEM;
					goto out;
				}
			}
			if (pos < text.len)
				pos++;		/* the '\n' */
			if (q) {
				seterr(err, errlen, "%s:%d: unterminated quoted string",
				       name, phys);
				rc = -EINVAL;
				goto out;
			}
			while (line.len && isws(line.p[line.len - 1]))
				line.p[--line.len] = '\0';
			if (line.len && line.p[line.len - 1] == '\\') {
				line.p[--line.len] = '\0';
				more = pos < text.len;
			}
		} while (more);

		s = line.p ? line.p : (char *)"";
		n = line.len;
		trim(&s, &n);
		if (!n)
			continue;
		if (s[0] == '[') {
			char *close = memchr(s, ']', n);
			char *nm;
			size_t nl;

			if (!close) {
				seterr(err, errlen, "%s:%d: missing ']' in section header",
				       name, start);
				rc = -EINVAL;
				goto out;
			}
			if (close != s + n - 1) {
				seterr(err, errlen, "%s:%d: text after section header ']'",
				       name, start);
				rc = -EINVAL;
				goto out;
			}
			nm = s + 1;
			nl = (size_t)(close - nm);
			trim(&nm, &nl);
			if (!nl) {
				seterr(err, errlen, "%s:%d: empty section name",
				       name, start);
				rc = -EINVAL;
				goto out;
			}
			if (inf->nsections >= INF_MAX_SECTIONS) {
				seterr(err, errlen, "%s:%d: more than %d sections",
				       name, start, INF_MAX_SECTIONS);
				rc = -E2BIG;
				goto out;
			}
			cur = add_section(inf, &raws, nm, nl, start);
			if (cur < 0) {
				rc = cur;
				goto out;
			}
			continue;
		}
		if (cur < 0) {
			seterr(err, errlen, "%s:%d: line outside any [section]",
			       name, start);
			rc = -EINVAL;
			goto out;
		}
		{
			char *t = strndup(s, n);

			if (!t || add_raw(&raws[cur], t, start)) {
				free(t);
				rc = -ENOMEM;
				goto out;
			}
		}
	}

	/* pass 0: [Strings] without substitution; pass 1: the rest */
	for (pass = 0; pass < 2; pass++) {
		if (pass && strtab_build(&strtab,
					 inf_find_section(inf, "Strings"))) {
			rc = -ENOMEM;
			goto out;
		}
		for (i = 0; i < inf->nsections; i++) {
			struct inf_section *sec = &inf->sections[i];
			int is_strings = !strcasecmp(sec->name, "Strings");

			if (is_strings != !pass)
				continue;
			sec->lines = calloc((size_t)raws[i].n + 1, sizeof(*sec->lines));
			if (!sec->lines) {
				rc = -ENOMEM;
				goto out;
			}
			for (j = 0; j < raws[i].n; j++) {
				int lineno = raws[i].lines[j].lineno;

				sec->lines[j].lineno = lineno;
				sec->nlines = j + 1;
				subst.strs = pass ? &strtab : NULL;
				subst.line_left = INF_MAX_LINE_TEXT;
				rc = tokenize(raws[i].lines[j].text, &sec->lines[j],
					      &subst);
				if (rc == -E2BIG)
					seterr(err, errlen,
					       "%s:%d: line longer than %u bytes after %%strkey%% substitution",
					       name, lineno, INF_MAX_LINE_TEXT);
				if (rc == -EFBIG)
					seterr(err, errlen,
					       "%s:%d: more than %u bytes after %%strkey%% substitution in all",
					       name, lineno, INF_MAX_TEXT);
				if (rc)
					goto out;
			}
		}
	}
	*out = inf;
	inf = NULL;
out:
	if (rc == -ENOMEM)
		seterr(err, errlen, "%s: out of memory", name);
	{
		int nsec = inf ? inf->nsections : (*out)->nsections;

		for (i = 0; raws && i < nsec; i++) {
			for (j = 0; j < raws[i].n; j++)
				free(raws[i].lines[j].text);
			free(raws[i].lines);
		}
	}
	free(raws);
	free(strtab.v);
	free(text.p);
	free(line.p);
	inf_free(inf);
	return rc;
}

int inf_parse_file(const char *path, struct inf_file **out,
		   char *err, size_t errlen)
{
	const char *base = strrchr(path, '/');
	struct stat st;
	char *data;
	ssize_t r;
	size_t got = 0;
	int fd, rc;

	base = base ? base + 1 : path;
	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		rc = -errno;
		seterr(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > INF_MAX_FILE_SIZE) {
		seterr(err, errlen, "%s: not a regular file or larger than %u bytes",
		       path, INF_MAX_FILE_SIZE);
		close(fd);
		return -EINVAL;
	}
	data = malloc((size_t)st.st_size + 1);
	if (!data) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		r = read(fd, data + got, (size_t)st.st_size - got);
		if (r <= 0) {
			rc = r ? -errno : -EIO;
			seterr(err, errlen, "%s: read failed", path);
			free(data);
			close(fd);
			return rc;
		}
		got += (size_t)r;
	}
	close(fd);
	rc = inf_parse_buffer(base, data, got, out, err, errlen);
	free(data);
	return rc;
}

/* ---- ndiswrapper-level queries ---- */

static int parse_hex(const char *s, size_t n, uint32_t *v)
{
	size_t i;

	*v = 0;
	for (i = 0; i < n; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return -1;
		*v = *v << 4 | (uint32_t)(isdigit((unsigned char)s[i]) ?
			s[i] - '0' : (tolower((unsigned char)s[i]) - 'a' + 10));
	}
	return 0;
}

/* Parse "PCI\VEN_x&DEV_y[&SUBSYS_z]..." or "USB\VID_x&PID_y...". */
static int parse_hwid(const char *id, struct inf_hwid *h)
{
	const char *p;
	int have_v = 0, have_d = 0;

	memset(h, 0, sizeof(*h));
	if (!strncasecmp(id, "PCI\\", 4))
		h->bus = INF_BUS_PCI;
	else if (!strncasecmp(id, "USB\\", 4))
		h->bus = INF_BUS_USB;
	else
		return -1;
	p = id + 4;
	while (*p) {
		const char *end = strchr(p, '&');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		uint32_t v;

		if (h->bus == INF_BUS_PCI && n == 8 && !strncasecmp(p, "VEN_", 4) &&
		    !parse_hex(p + 4, 4, &v)) {
			h->vendor = (uint16_t)v;
			have_v = 1;
		} else if (h->bus == INF_BUS_PCI && n == 8 &&
			   !strncasecmp(p, "DEV_", 4) && !parse_hex(p + 4, 4, &v)) {
			h->device = (uint16_t)v;
			have_d = 1;
		} else if (h->bus == INF_BUS_PCI && n == 15 &&
			   !strncasecmp(p, "SUBSYS_", 7) &&
			   !parse_hex(p + 7, 8, &v)) {
			h->subdevice = (uint16_t)(v >> 16);
			h->subvendor = (uint16_t)v;
			h->has_subsys = 1;
		} else if (h->bus == INF_BUS_USB && n == 8 &&
			   !strncasecmp(p, "VID_", 4) && !parse_hex(p + 4, 4, &v)) {
			h->vendor = (uint16_t)v;
			have_v = 1;
		} else if (h->bus == INF_BUS_USB && n == 8 &&
			   !strncasecmp(p, "PID_", 4) && !parse_hex(p + 4, 4, &v)) {
			h->device = (uint16_t)v;
			have_d = 1;
		}
		p += n;
		if (*p)
			p++;
	}
	return have_v && have_d ? 0 : -1;
}

static char *join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = malloc(la + lb + 2);

	if (s) {
		memcpy(s, a, la);
		s[la] = '.';
		memcpy(s + la + 1, b, lb + 1);
	}
	return s;
}

const struct inf_section *inf_install_section_arch(const struct inf_file *inf,
						   const char *install,
						   const char *arch)
{
	const char *const deco[] = { arch, "NT" };
	const struct inf_section *s;
	size_t i;

	for (i = 0; i < sizeof(deco) / sizeof(deco[0]); i++) {
		char *n = join(install, deco[i]);

		s = n ? inf_find_section(inf, n) : NULL;
		free(n);
		if (s)
			return s;
	}
	return inf_find_section(inf, install);
}

const struct inf_section *inf_install_section(const struct inf_file *inf,
					      const char *install)
{
	return inf_install_section_arch(inf, install, INF_ARCH_NATIVE);
}

void inf_hwids_free(struct inf_hwid *ids, int nids)
{
	int i;

	for (i = 0; ids && i < nids; i++) {
		free(ids[i].id);
		free(ids[i].description);
		free(ids[i].install);
	}
	free(ids);
}

/* "<arch>" or "<arch>.<version>" (NTx86.5.1) */
static int is_arch_deco(const char *d, const char *arch)
{
	size_t n = strlen(arch);

	return !strncasecmp(d, arch, n) && (!d[n] || d[n] == '.');
}

static const char *arch_wrapper(const char *arch)
{
	return !strcasecmp(arch, INF_ARCH_X86) ? "i386" : "x86_64";
}

/* What a models decoration of another architecture says of the driver */
static const char *arch_driver(const char *deco)
{
	if (is_arch_deco(deco, INF_ARCH_X86))
		return " (a 32-bit i386 driver)";
	if (is_arch_deco(deco, INF_ARCH_AMD64))
		return " (a 64-bit x86_64 driver)";
	return "";
}

/* The first decoration of another platform a [Manufacturer] line names */
static const char *other_arch_deco(const struct inf_section *mfg,
				   const char *arch)
{
	int i, j;

	for (i = 0; i < mfg->nlines; i++)
		for (j = 1; j < mfg->lines[i].nfields; j++) {
			const char *d = mfg->lines[i].fields[j];

			if (!strncasecmp(d, "NT", 2) && d[2] && d[2] != '.' &&
			    !is_arch_deco(d, arch))
				return d;
		}
	return NULL;
}

/* "NT" or "NT.<version>": Windows NT on any architecture */
static int is_any_nt_deco(const char *d)
{
	return !strcasecmp(d, "NT") || !strncasecmp(d, "NT.", 3);
}

int inf_hwids(const struct inf_file *inf, struct inf_hwid **ids, int *nids,
	      char *err, size_t errlen)
{
	return inf_hwids_arch(inf, INF_ARCH_NATIVE, ids, nids, err, errlen);
}

int inf_hwids_arch(const struct inf_file *inf, const char *arch,
		   struct inf_hwid **ids, int *nids, char *err, size_t errlen)
{
	const struct inf_section *mfg = inf_find_section(inf, "Manufacturer");
	struct inf_hwid *v = NULL;
	int n = 0, i, j, k, other_deco = 0;
	unsigned char *walked;

	*ids = NULL;
	*nids = 0;
	if (!mfg) {
		seterr(err, errlen, "%s: no [Manufacturer] section", inf->name);
		return -ENOENT;
	}
	/* A models section named again gives only the ids already taken:
	 * walking it once keeps the walk linear in the file (many lines
	 * naming one big section would be quadratic). */
	walked = calloc((size_t)inf->nsections + 1, 1);
	if (!walked)
		goto oom;
	for (i = 0; i < mfg->nlines; i++) {
		const struct inf_line *ml = &mfg->lines[i];
		const struct inf_section *models = NULL;
		const char *base = inf_field(ml, 0);

		if (!*base)
			continue;
		/* decorations: <arch>* first, then architecture-less NT* */
		for (j = 1; j < 2 * ml->nfields && !models; j++) {
			const char *deco = ml->fields[j % ml->nfields];
			char *nm;

			if (j % ml->nfields == 0 ||
			    !(j < ml->nfields ? is_arch_deco(deco, arch) :
						is_any_nt_deco(deco)))
				continue;
			nm = join(base, deco);
			if (!nm)
				goto oom;
			models = inf_find_section(inf, nm);
			free(nm);
		}
		if (!models)
			models = inf_find_section(inf, base);
		if (!models) {
			other_deco = 1;
			continue;
		}
		if (walked[models - inf->sections])
			continue;
		walked[models - inf->sections] = 1;
		for (j = 0; j < models->nlines; j++) {
			const struct inf_line *l = &models->lines[j];
			const struct inf_section *inst;

			if (l->nfields < 2)
				continue;
			inst = inf_install_section_arch(inf, l->fields[0],
							arch);
			for (k = 1; k < l->nfields; k++) {
				struct inf_hwid h, *nv;
				int dup = 0, m;

				if (parse_hwid(l->fields[k], &h))
					continue;
				for (m = 0; m < n; m++)
					dup |= v[m].bus == h.bus &&
					       v[m].vendor == h.vendor &&
					       v[m].device == h.device &&
					       v[m].has_subsys == h.has_subsys &&
					       v[m].subvendor == h.subvendor &&
					       v[m].subdevice == h.subdevice;
				if (dup)
					continue;
				if (n >= INF_MAX_HWIDS) {
					seterr(err, errlen, "%s:%d: more than %d hardware ids",
					       inf->name, l->lineno, INF_MAX_HWIDS);
					inf_hwids_free(v, n);
					free(walked);
					return -E2BIG;
				}
				if (!inst) {
					seterr(err, errlen,
					       "%s:%d: install section [%s] (or .%s/.NT) of %s not found",
					       inf->name, l->lineno, l->fields[0],
					       arch, l->fields[k]);
					inf_hwids_free(v, n);
					free(walked);
					return -ENOENT;
				}
				h.id = strdup(l->fields[k]);
				h.description = strdup(l->key ? l->key : "");
				h.install = strdup(inst->name);
				h.lineno = l->lineno;
				nv = realloc(v, sizeof(*v) * (size_t)(n + 1));
				if (!nv || !h.id || !h.description || !h.install) {
					free(h.id);
					free(h.description);
					free(h.install);
					if (nv)
						v = nv;
					goto oom;
				}
				v = nv;
				v[n++] = h;
			}
		}
	}
	free(walked);
	walked = NULL;
	if (!n && other_deco) {
		const char *other = other_arch_deco(mfg, arch);

		if (other)
			seterr(err, errlen,
			       "%s:%d: no models for %s (this %s wrapper), only for %s%s",
			       inf->name, mfg->lineno, arch,
			       arch_wrapper(arch), other, arch_driver(other));
		else
			seterr(err, errlen,
			       "%s:%d: no models section for %s (this %s wrapper)",
			       inf->name, mfg->lineno, arch,
			       arch_wrapper(arch));
		return -ENOENT;
	}
	if (!n) {
		seterr(err, errlen,
		       "%s:%d: no PCI or USB hardware ids in the models sections",
		       inf->name, mfg->lineno);
		return -ENOENT;
	}
	*ids = v;
	*nids = n;
	return 0;
oom:
	free(walked);
	inf_hwids_free(v, n);
	seterr(err, errlen, "%s: out of memory", inf->name);
	return -ENOMEM;
}

void inf_params_free(struct inf_param *p, int n)
{
	int i;

	for (i = 0; p && i < n; i++) {
		free(p[i].name);
		free(p[i].value);
	}
	free(p);
}

static int set_param(struct inf_param **p, int *n, const char *name,
		     const char *value)
{
	struct inf_param *np;
	char *v;
	int i;

	for (i = 0; i < *n; i++)
		if (!strcasecmp((*p)[i].name, name)) {
			v = strdup(value);
			if (!v)
				return -ENOMEM;
			free((*p)[i].value);
			(*p)[i].value = v;
			return 0;
		}
	np = realloc(*p, sizeof(**p) * (size_t)(*n + 1));
	if (!np)
		return -ENOMEM;
	*p = np;
	np[*n].name = strdup(name);
	np[*n].value = strdup(value);
	if (!np[*n].name || !np[*n].value) {
		free(np[*n].name);
		free(np[*n].value);
		return -ENOMEM;
	}
	(*n)++;
	return 0;
}

int inf_params(const struct inf_file *inf, const char *install,
	       struct inf_param **params, int *nparams,
	       char *err, size_t errlen)
{
	const struct inf_section *inst = inf_find_section(inf, install);
	struct inf_param *p = NULL;
	int n = 0, i, j, k, rc;

	*params = NULL;
	*nparams = 0;
	if (!inst) {
		seterr(err, errlen, "%s: install section [%s] not found",
		       inf->name, install);
		return -ENOENT;
	}
	for (i = 0; i < inst->nlines; i++) {
		const struct inf_line *al = &inst->lines[i];

		if (!al->key || strcasecmp(al->key, "AddReg"))
			continue;
		for (j = 0; j < al->nfields; j++) {
			const struct inf_section *reg;

			if (!*al->fields[j])
				continue;
			reg = inf_find_section(inf, al->fields[j]);
			if (!reg) {
				seterr(err, errlen, "%s:%d: AddReg section [%s] not found",
				       inf->name, al->lineno, al->fields[j]);
				inf_params_free(p, n);
				return -ENOENT;
			}
			for (k = 0; k < reg->nlines; k++) {
				const struct inf_line *l = &reg->lines[k];
				const char *sub = inf_field(l, 1);
				const char *val = inf_field(l, 2);
				const char *name = NULL;

				if (l->key || strcasecmp(inf_field(l, 0), "HKR"))
					continue;
				if (!strncasecmp(sub, "Ndi\\params\\", 11) &&
				    sub[11] && !strchr(sub + 11, '\\') &&
				    !strcasecmp(val, "default"))
					name = sub + 11;
				else if (!*sub && *val)
					name = val;
				if (!name)
					continue;
				rc = set_param(&p, &n, name, inf_field(l, 4));
				if (rc) {
					inf_params_free(p, n);
					seterr(err, errlen, "%s: out of memory",
					       inf->name);
					return rc;
				}
			}
		}
	}
	*params = p;
	*nparams = n;
	return 0;
}

int inf_msi_supported(const struct inf_file *inf, const char *install)
{
	static const char key[] =
		"Interrupt Management\\MessageSignaledInterruptProperties";
	const struct inf_section *hw;
	char *name = join(install, "HW");
	int i, j, k, on = 0;

	hw = name ? inf_find_section(inf, name) : NULL;
	free(name);
	for (i = 0; hw && i < hw->nlines; i++) {
		const struct inf_line *al = &hw->lines[i];

		if (!al->key || strcasecmp(al->key, "AddReg"))
			continue;
		for (j = 0; j < al->nfields; j++) {
			const struct inf_section *reg =
				inf_find_section(inf, al->fields[j]);

			for (k = 0; reg && k < reg->nlines; k++) {
				const struct inf_line *l = &reg->lines[k];

				if (!l->key &&
				    !strcasecmp(inf_field(l, 0), "HKR") &&
				    !strcasecmp(inf_field(l, 1), key) &&
				    !strcasecmp(inf_field(l, 2), "MSISupported"))
					on = strtoul(inf_field(l, 4), NULL, 0) != 0;
			}
		}
	}
	return on;
}

static int ends_sys(const char *s)
{
	size_t n = strlen(s);

	return n > 4 && !strcasecmp(s + n - 4, ".sys");
}

static int dup_base(const char *path, char **out)
{
	const char *b = path, *p;

	for (p = path; *p; p++)
		if (*p == '\\' || *p == '/')
			b = p + 1;
	*out = strdup(b);
	return *out ? 0 : -ENOMEM;
}

int inf_sys_file(const struct inf_file *inf, const char *install,
		 char **sys, char *err, size_t errlen)
{
	const struct inf_section *inst = inf_find_section(inf, install);
	const struct inf_section *svc;
	char *svcname;
	int i, j, k;

	*sys = NULL;
	if (!inst) {
		seterr(err, errlen, "%s: install section [%s] not found",
		       inf->name, install);
		return -ENOENT;
	}
	svcname = join(inst->name, "Services");
	if (!svcname)
		return -ENOMEM;
	svc = inf_find_section(inf, svcname);
	free(svcname);
	for (i = 0; svc && i < svc->nlines; i++) {
		const struct inf_line *l = &svc->lines[i];
		const struct inf_line *bin;

		if (!l->key || strcasecmp(l->key, "AddService"))
			continue;
		bin = inf_find_key(inf_find_section(inf, inf_field(l, 2)),
				   "ServiceBinary");
		if (bin && ends_sys(inf_field(bin, 0)))
			return dup_base(inf_field(bin, 0), sys);
	}
	for (i = 0; i < inst->nlines; i++) {
		const struct inf_line *l = &inst->lines[i];

		if (!l->key || strcasecmp(l->key, "CopyFiles"))
			continue;
		for (j = 0; j < l->nfields; j++) {
			const struct inf_section *cf;
			const char *f = l->fields[j];

			if (f[0] == '@') {
				if (ends_sys(f + 1))
					return dup_base(f + 1, sys);
				continue;
			}
			cf = inf_find_section(inf, f);
			for (k = 0; cf && k < cf->nlines; k++)
				if (!cf->lines[k].key &&
				    ends_sys(inf_field(&cf->lines[k], 0)))
					return dup_base(cf->lines[k].fields[0], sys);
		}
	}
	/* the files on the source disks, this platform's list first: a
	 * driver's only .sys can be named there alone */
	for (i = 0; i < 2; i++) {
		const struct inf_section *disk = inf_find_section(inf,
			i ? "SourceDisksFiles" : "SourceDisksFiles." INF_DISK_ARCH);

		for (j = 0; disk && j < disk->nlines; j++) {
			const struct inf_line *l = &disk->lines[j];
			const char *f = l->key ? l->key : inf_field(l, 0);

			if (ends_sys(f))
				return dup_base(f, sys);
		}
	}
	seterr(err, errlen,
	       "%s:%d: no .sys file for install section [%s] (no ServiceBinary in [%s.Services], no .sys in CopyFiles or SourceDisksFiles)",
	       inf->name, inst->lineno, inst->name, inst->name);
	return -ENOENT;
}
