/* SPDX-License-Identifier: GPL-2.0-only */
/* ndisbench.profile=<hz>: the guest's own sampler (profile.c). */
#ifndef NDISBENCH_PROFILE_H
#define NDISBENCH_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROFILE_CPUS_MAX 4
#define PROFILE_SAMPLES_MAX 65536
/* A symbol distinct enough to rank; more share the last row's fate. */
#define PROFILE_ROWS_MAX 8192
#define PROFILE_WHERE_MAX 32
/* The rows the tcp test states. */
#define PROFILE_SHOWN 40
/* Past this distance from the nearest symbol an address is no symbol's. */
#define PROFILE_SYM_REACH 0x10000

struct profile_sym {
    uint64_t addr;
    char name[64];
    char module[32];            /* "": the kernel's own */
};

struct profile_ip {
    uint64_t ip;
    bool user;
};

struct profile_row {
    char name[128];
    char module[32];
    size_t samples;
};

/* A /proc/vmallocinfo region: who mapped it ("ndis_map_image [ndiswrapper]"). */
struct profile_region {
    uint64_t start, end;
    char caller[96];
};

/* Rows of "no symbol" samples, by region and 16-byte offset bin. */
#define PROFILE_NOSYM_SHOWN 15
#define PROFILE_NOSYM_BIN 16

struct profile {
    unsigned int hz;
    int n_cpus;
    int fd[PROFILE_CPUS_MAX];
    void *ring[PROFILE_CPUS_MAX];
    char error[128];            /* why profile_begin failed */
};

int profile_parse_hz(const char *value, unsigned int *hz);
bool profile_kallsyms_line(const char *line, struct profile_sym *sym);
void profile_sort(struct profile_sym *syms, size_t n);
long profile_lookup(const struct profile_sym *syms, size_t n, uint64_t ip);
size_t profile_ring_samples(const uint8_t *data, size_t size, uint64_t tail,
                            uint64_t head, struct profile_ip *ips,
                            size_t max, uint64_t *lost);
size_t profile_tally(const struct profile_ip *ips, size_t n,
                     const struct profile_sym *syms, size_t n_syms,
                     struct profile_row *where, size_t *n_where,
                     struct profile_row *rows, size_t max_rows);
bool profile_vmalloc_line(const char *line, struct profile_region *r);
/*
 * The "no symbol" samples of ips (kernel, no symbol in syms) in bins of
 * PROFILE_NOSYM_BIN bytes, heaviest first, each named by the region it
 * falls in (regions sorted by start) and its offset there:
 * "<caller>+0x<off>", or "0x<addr>" outside every region. Returns the
 * rows filled (at most max_rows).
 */
size_t profile_nosym_rows(const struct profile_ip *ips, size_t n,
                          const struct profile_sym *syms, size_t n_syms,
                          const struct profile_region *regions,
                          size_t n_regions, struct profile_row *rows,
                          size_t max_rows);
/* Sampling starts on every online CPU; false: p->error says why. */
bool profile_begin(struct profile *p, unsigned int hz);
/* Sampling stops; the facts go to the console. */
void profile_end(struct profile *p);
void profile_close(struct profile *p);

#endif
