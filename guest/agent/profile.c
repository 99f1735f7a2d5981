// SPDX-License-Identifier: GPL-2.0-only
/*
 * ndisbench.profile=<hz>: where the guest's CPU goes during the tcp
 * stream, from the kernel's own sampler (perf_event_open, the software
 * cpu-clock: TCG has no PMU). Every sample is one instruction pointer,
 * kernel or user; at the stream's end each is given the /proc/kallsyms
 * text symbol it falls in, and the tcp test states the heaviest as facts:
 *
 *   # profile_samples: <n> lost <m> at <hz> Hz
 *   # profile_where: <share>% <n> <kernel|user|module name|no symbol>
 *   # profile: <share>% <n> <symbol> [<module>]
 *
 * "no symbol" is kernel memory no symbol covers: the Windows driver's
 * image, which the wrapper maps outside any module. A timer-driven
 * sampler cannot interrupt code that runs with interrupts off; such time
 * is charged where they come on again.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent.h"
#include "profile.h"

#define KALLSYMS_PATH "/proc/kallsyms"
#define VMALLOCINFO_PATH "/proc/vmallocinfo"
/* 1: %pK prints real addresses to CAP_SYSLOG (the agent), 0 hashes them. */
#define KPTR_RESTRICT_PATH "/proc/sys/kernel/kptr_restrict"
/* 2^n pages of samples per CPU: 16 bytes each, 32768 of them. */
#define PROFILE_RING_PAGES 128
#define PROFILE_HZ_MAX 10000

int profile_parse_hz(const char *value, unsigned int *hz)
{
    unsigned long v;
    char *end;

    if (value == NULL || *value == '\0')
        return -1;
    errno = 0;
    v = strtoul(value, &end, 10);
    if (errno != 0 || *end != '\0' || v == 0 || v > PROFILE_HZ_MAX)
        return -1;
    *hz = (unsigned int)v;
    return 0;
}

/* One /proc/kallsyms line: a text symbol (t, T, w, W), or not (false). */
bool profile_kallsyms_line(const char *line, struct profile_sym *sym)
{
    unsigned long long addr;
    char type;
    int name_at = 0, name_end = 0, mod_at = 0, mod_end = 0;

    memset(sym, 0, sizeof(*sym));
    if (sscanf(line, "%llx %c %n%*s%n %n", &addr, &type, &name_at,
               &name_end, &mod_at) < 2 || name_end <= name_at)
        return false;
    if (type != 't' && type != 'T' && type != 'w' && type != 'W')
        return false;
    sym->addr = addr;
    snprintf(sym->name, sizeof(sym->name), "%.*s", name_end - name_at,
             line + name_at);
    if (mod_at > name_end && line[mod_at] == '[') {
        const char *close = strchr(line + mod_at, ']');

        mod_end = close ? (int)(close - line) : 0;
        if (mod_end > mod_at + 1)
            snprintf(sym->module, sizeof(sym->module), "%.*s",
                     mod_end - mod_at - 1, line + mod_at + 1);
    }
    return true;
}

/*
 * One /proc/vmallocinfo line: "0x<start>-0x<end> <size> <caller>+0x../0x..
 * [module] ...": the region and its caller's name (with the module, if
 * any); false for a line without a caller.
 */
bool profile_vmalloc_line(const char *line, struct profile_region *r)
{
    unsigned long long start, end, size;
    char caller[56], module[40];
    int n;

    memset(r, 0, sizeof(*r));
    n = sscanf(line, "0x%llx-0x%llx %llu %55s %39s", &start, &end, &size,
               caller, module);
    if (n < 4 || end <= start)
        return false;
    caller[strcspn(caller, "+")] = '\0';
    if (caller[0] == '\0' || strchr(caller, '=') != NULL)
        return false;       /* "pages=", "phys=": no caller was printed */
    r->start = start;
    r->end = end;
    if (n == 5 && module[0] == '[')
        snprintf(r->caller, sizeof(r->caller), "%s %s", caller, module);
    else
        snprintf(r->caller, sizeof(r->caller), "%s", caller);
    return true;
}

static int region_cmp(const void *a, const void *b)
{
    const struct profile_region *x = a, *y = b;

    return x->start < y->start ? -1 : x->start > y->start;
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

static long region_of(const struct profile_region *regions, size_t n,
                      uint64_t addr)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (regions[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || addr >= regions[lo - 1].end)
        return -1;
    return (long)(lo - 1);
}

static int sym_cmp(const void *a, const void *b)
{
    const struct profile_sym *x = a, *y = b;

    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void profile_sort(struct profile_sym *syms, size_t n)
{
    qsort(syms, n, sizeof(*syms), sym_cmp);
}

/*
 * The symbol ip falls in (syms sorted), or -1: below every symbol, or
 * farther than PROFILE_SYM_REACH past the nearest (the end of a text
 * region is not in kallsyms; what lies beyond it is no symbol's).
 */
long profile_lookup(const struct profile_sym *syms, size_t n, uint64_t ip)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (syms[mid].addr <= ip)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || ip - syms[lo - 1].addr > PROFILE_SYM_REACH)
        return -1;
    return (long)(lo - 1);
}

/*
 * The samples of one ring's records, appended to ips (up to max); lost
 * counts PERF_RECORD_LOST's. Returns the number appended.
 */
size_t profile_ring_samples(const uint8_t *data, size_t size, uint64_t tail,
                            uint64_t head, struct profile_ip *ips,
                            size_t max, uint64_t *lost)
{
    size_t n = 0;

    while (tail + sizeof(struct perf_event_header) <= head) {
        struct perf_event_header h;
        uint8_t rec[64];
        size_t i;

        for (i = 0; i < sizeof(h); i++)
            ((uint8_t *)&h)[i] = data[(tail + i) % size];
        if (h.size < sizeof(h) || tail + h.size > head)
            break;              /* torn: the kernel never writes one */
        for (i = 0; i < h.size && i < sizeof(rec); i++)
            rec[i] = data[(tail + i) % size];
        if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + 8 &&
            n < max) {
            memcpy(&ips[n].ip, rec + sizeof(h), 8);
            ips[n].user = (h.misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
                          PERF_RECORD_MISC_USER;
            n++;
        } else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
            uint64_t count;

            memcpy(&count, rec + sizeof(h) + 8, 8);
            *lost += count;
        }
        tail += h.size;
    }
    return n;
}

static size_t ring_bytes(void)
{
    return (size_t)(PROFILE_RING_PAGES + 1) * (size_t)sysconf(_SC_PAGESIZE);
}

bool profile_begin(struct profile *p, unsigned int hz)
{
    struct perf_event_attr attr;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int cpu;

    memset(p, 0, sizeof(*p));
    p->hz = hz;
    if (cpus < 1)
        cpus = 1;
    if (cpus > PROFILE_CPUS_MAX)
        cpus = PROFILE_CPUS_MAX;
    memset(&attr, 0, sizeof(attr));
    attr.type = PERF_TYPE_SOFTWARE;
    attr.size = sizeof(attr);
    attr.config = PERF_COUNT_SW_CPU_CLOCK;
    attr.freq = 1;
    attr.sample_freq = hz;
    attr.sample_type = PERF_SAMPLE_IP;
    attr.disabled = 1;
    for (cpu = 0; cpu < cpus; cpu++) {
        void *ring;
        int fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
                              PERF_FLAG_FD_CLOEXEC);

        if (fd < 0) {
            snprintf(p->error, sizeof(p->error), "perf_event_open cpu %d: %s",
                     cpu, strerror(errno));
            break;
        }
        ring = mmap(NULL, ring_bytes(), PROT_READ | PROT_WRITE, MAP_SHARED,
                    fd, 0);
        if (ring == MAP_FAILED) {
            snprintf(p->error, sizeof(p->error), "mmap of cpu %d's ring: %s",
                     cpu, strerror(errno));
            close(fd);
            break;
        }
        p->fd[p->n_cpus] = fd;
        p->ring[p->n_cpus] = ring;
        p->n_cpus++;
    }
    if (p->error[0]) {
        profile_close(p);
        return false;
    }
    for (cpu = 0; cpu < p->n_cpus; cpu++)
        ioctl(p->fd[cpu], PERF_EVENT_IOC_ENABLE, 0);
    return true;
}

void profile_close(struct profile *p)
{
    int cpu;

    for (cpu = 0; cpu < p->n_cpus; cpu++) {
        munmap(p->ring[cpu], ring_bytes());
        close(p->fd[cpu]);
    }
    p->n_cpus = 0;
}

/* Every text symbol of /proc/kallsyms, sorted; NULL on error. */
static struct profile_sym *read_kallsyms(size_t *count)
{
    FILE *f = fopen(KALLSYMS_PATH, "r");
    struct profile_sym *syms = NULL, sym;
    size_t n = 0, cap = 0;
    char line[512];

    if (f == NULL)
        return NULL;
    while (fgets(line, sizeof(line), f)) {
        if (!profile_kallsyms_line(line, &sym) || sym.addr == 0)
            continue;       /* 0: addresses hidden (kptr_restrict) */
        if (n == cap) {
            struct profile_sym *more;

            cap = cap ? cap * 2 : 4096;
            more = realloc(syms, cap * sizeof(*syms));
            if (more == NULL) {
                free(syms);
                fclose(f);
                return NULL;
            }
            syms = more;
        }
        syms[n++] = sym;
    }
    fclose(f);
    profile_sort(syms, n);
    *count = n;
    return syms;
}

static int row_cmp(const void *a, const void *b)
{
    const struct profile_row *x = a, *y = b;

    if (x->samples != y->samples)
        return x->samples < y->samples ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* rows[name] += 1, a new row where name is not there yet (few rows). */
static void row_add(struct profile_row *rows, size_t *n, size_t max,
                    const char *name, const char *module)
{
    size_t i;

    for (i = 0; i < *n; i++)
        if (strcmp(rows[i].name, name) == 0 &&
            strcmp(rows[i].module, module) == 0) {
            rows[i].samples++;
            return;
        }
    if (*n == max)
        return;
    memset(&rows[*n], 0, sizeof(rows[*n]));
    snprintf(rows[*n].name, sizeof(rows[*n].name), "%s", name);
    snprintf(rows[*n].module, sizeof(rows[*n].module), "%s", module);
    rows[*n].samples = 1;
    (*n)++;
}

/* A tally word: the slot in the low SLOT_BITS, its count above. */
#define SLOT_BITS 24
#define SLOT_MASK ((1ull << SLOT_BITS) - 1)

static int slot_cmp(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a;
    unsigned long long y = *(const unsigned long long *)b;

    if (x >> SLOT_BITS != y >> SLOT_BITS)
        return x >> SLOT_BITS < y >> SLOT_BITS ? 1 : -1;
    return (x & SLOT_MASK) < (y & SLOT_MASK) ? -1 : 1;
}

/*
 * Each sample to its symbol (counted in one slot per symbol, plus one
 * for "no symbol" and one for user space) and its place (kernel, a
 * module, user, no symbol); rows: the symbols sampled, heaviest first.
 * Returns the rows filled, or 0 with errno ENOMEM.
 */
size_t profile_tally(const struct profile_ip *ips, size_t n,
                     const struct profile_sym *syms, size_t n_syms,
                     struct profile_row *where, size_t *n_where,
                     struct profile_row *rows, size_t max_rows)
{
    unsigned long long *count;
    size_t i, n_rows = 0;

    *n_where = 0;
    if (n_syms + 2 > SLOT_MASK) {
        errno = ENOMEM;
        return 0;
    }
    count = calloc(n_syms + 2, sizeof(*count));
    if (count == NULL)
        return 0;
    for (i = 0; i < n; i++) {
        long s = ips[i].user ? -1 : profile_lookup(syms, n_syms, ips[i].ip);
        const char *place;

        if (ips[i].user) {
            place = "user";
            count[n_syms + 1]++;
        } else if (s < 0) {
            place = "no symbol";
            count[n_syms]++;
        } else {
            place = syms[s].module[0] ? syms[s].module : "kernel";
            count[s]++;
        }
        row_add(where, n_where, PROFILE_WHERE_MAX, place, "");
    }
    /* every slot sampled, heaviest first; the first max_rows are rows */
    for (i = 0; i < n_syms + 2; i++)
        if (count[i])
            count[n_rows++] = i | (count[i] << SLOT_BITS);
    qsort(count, n_rows, sizeof(*count), slot_cmp);
    if (n_rows > max_rows)
        n_rows = max_rows;
    for (i = 0; i < n_rows; i++) {
        struct profile_row *r = &rows[i];
        size_t slot = count[i] & SLOT_MASK;

        memset(r, 0, sizeof(*r));
        snprintf(r->name, sizeof(r->name), "%s", slot < n_syms ?
                 syms[slot].name : slot == n_syms ? "[no symbol]" : "[user]");
        if (slot < n_syms)
            snprintf(r->module, sizeof(r->module), "%s", syms[slot].module);
        r->samples = count[i] >> SLOT_BITS;
    }
    free(count);
    qsort(where, *n_where, sizeof(*where), row_cmp);
    return n_rows;
}

size_t profile_nosym_rows(const struct profile_ip *ips, size_t n,
                          const struct profile_sym *syms, size_t n_syms,
                          const struct profile_region *regions,
                          size_t n_regions, struct profile_row *rows,
                          size_t max_rows)
{
    uint64_t *bins = malloc((n ? n : 1) * sizeof(*bins));
    unsigned long long *runs = malloc((n ? n : 1) * sizeof(*runs));
    size_t i, m = 0, n_runs = 0, n_rows = 0;

    if (bins == NULL || runs == NULL) {
        free(bins);
        free(runs);
        return 0;
    }
    for (i = 0; i < n; i++)
        if (!ips[i].user && profile_lookup(syms, n_syms, ips[i].ip) < 0)
            bins[m++] = ips[i].ip & ~(uint64_t)(PROFILE_NOSYM_BIN - 1);
    qsort(bins, m, sizeof(*bins), u64_cmp);
    /* runs of one bin: the index of its first sample and its count */
    for (i = 0; i < m; i++) {
        if (i == 0 || bins[i] != bins[i - 1])
            runs[n_runs++] = (unsigned long long)i;
        runs[n_runs - 1] += 1ull << SLOT_BITS;
    }
    qsort(runs, n_runs, sizeof(*runs), slot_cmp);
    for (i = 0; i < n_runs && n_rows < max_rows; i++) {
        uint64_t addr = bins[runs[i] & SLOT_MASK];
        long r = region_of(regions, n_regions, addr);
        struct profile_row *row = &rows[n_rows++];

        memset(row, 0, sizeof(*row));
        if (r >= 0)
            snprintf(row->name, sizeof(row->name), "%s+0x%llx",
                     regions[r].caller,
                     (unsigned long long)(addr - regions[r].start));
        else
            snprintf(row->name, sizeof(row->name), "0x%llx",
                     (unsigned long long)addr);
        row->samples = runs[i] >> SLOT_BITS;
    }
    free(bins);
    free(runs);
    return n_rows;
}

/* Every region of /proc/vmallocinfo with a caller, sorted; NULL: none. */
static struct profile_region *read_vmallocinfo(size_t *count)
{
    struct profile_region *regions = NULL, r;
    size_t n = 0, cap = 0;
    char line[512], old[16] = "";
    FILE *f, *k = fopen(KPTR_RESTRICT_PATH, "r+");

    *count = 0;
    if (k != NULL) {
        if (fgets(old, sizeof(old), k) == NULL)
            old[0] = '\0';
        rewind(k);
        fputs("1\n", k);
        fflush(k);
    }
    f = fopen(VMALLOCINFO_PATH, "r");
    while (f != NULL && fgets(line, sizeof(line), f)) {
        if (!profile_vmalloc_line(line, &r))
            continue;
        if (n == cap) {
            struct profile_region *more;

            cap = cap ? cap * 2 : 1024;
            more = realloc(regions, cap * sizeof(*regions));
            if (more == NULL)
                break;
            regions = more;
        }
        regions[n++] = r;
    }
    if (f != NULL)
        fclose(f);
    if (k != NULL) {
        if (old[0]) {
            rewind(k);
            fputs(old, k);
        }
        fclose(k);
    }
    if (regions != NULL)
        qsort(regions, n, sizeof(*regions), region_cmp);
    *count = n;
    return regions;
}

void profile_end(struct profile *p)
{
    static struct profile_ip ips[PROFILE_SAMPLES_MAX];
    static struct profile_row rows[PROFILE_ROWS_MAX];
    struct profile_row where[PROFILE_WHERE_MAX];
    size_t n = 0, n_syms = 0, n_rows, n_where, i;
    uint64_t lost = 0;
    struct profile_sym *syms;
    struct profile_region *regions;
    size_t n_regions = 0;
    int cpu;

    for (cpu = 0; cpu < p->n_cpus; cpu++)
        ioctl(p->fd[cpu], PERF_EVENT_IOC_DISABLE, 0);
    for (cpu = 0; cpu < p->n_cpus; cpu++) {
        struct perf_event_mmap_page *meta = p->ring[cpu];
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);

        n += profile_ring_samples((uint8_t *)p->ring[cpu] + page,
                                  PROFILE_RING_PAGES * page, meta->data_tail,
                                  head, ips + n, PROFILE_SAMPLES_MAX - n,
                                  &lost);
    }
    profile_close(p);
    syms = read_kallsyms(&n_syms);
    if (syms == NULL) {
        say("# profile_error: %s: %s", KALLSYMS_PATH, strerror(errno));
        return;
    }
    n_rows = profile_tally(ips, n, syms, n_syms, where, &n_where, rows,
                           PROFILE_ROWS_MAX);
    if (n_rows == 0 && n) {
        free(syms);
        say("# profile_error: tally: %s", strerror(ENOMEM));
        return;
    }
    say("# profile_samples: %zu lost %" PRIu64 " at %u Hz", n, lost, p->hz);
    for (i = 0; i < n_where && n; i++)
        say("# profile_where: %.1f%% %zu %s",
            100.0 * (double)where[i].samples / (double)n, where[i].samples,
            where[i].name);
    for (i = 0; i < n_rows && i < PROFILE_SHOWN && n; i++)
        say("# profile: %.1f%% %zu %s%s%s%s",
            100.0 * (double)rows[i].samples / (double)n, rows[i].samples,
            rows[i].name, rows[i].module[0] ? " [" : "", rows[i].module,
            rows[i].module[0] ? "]" : "");
    regions = read_vmallocinfo(&n_regions);
    n_rows = profile_nosym_rows(ips, n, syms, n_syms, regions, n_regions,
                                rows, PROFILE_NOSYM_SHOWN);
    free(regions);
    free(syms);
    for (i = 0; i < n_rows; i++)
        say("# profile_nosym: %.1f%% %zu %s",
            100.0 * (double)rows[i].samples / (double)n, rows[i].samples,
            rows[i].name);
}
