/*
 * bigmem.c - the blocks of bigmem.h: mmap, trimmed to a 2 MiB-aligned
 * range, MADV_HUGEPAGE. The mapping's length is kept in a header at its
 * start; the block begins BIGMEM_HDR bytes in.
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bigmem.h"

#define HUGE ((size_t)2 << 20)
#define BIGMEM_HDR 64

struct hdr {
	size_t map;     /* the mapping's length, from the header on */
};

static size_t page_size(void)
{
	static size_t pg;

	if (!pg) {
		long v = sysconf(_SC_PAGESIZE);

		pg = v > 0 ? (size_t)v : 4096;
	}
	return pg;
}

char *bigmem_alloc(size_t n)
{
	size_t len, over;
	uintptr_t a, start;
	char *m;

	if (n > SIZE_MAX - BIGMEM_HDR - 2 * HUGE)
		return NULL;
	len = (n + BIGMEM_HDR + HUGE - 1) & ~(HUGE - 1);
	over = len + HUGE;
	m = mmap(NULL, over, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	/* keep the 2 MiB-aligned len bytes inside, unmap the rest */
	start = (uintptr_t)m;
	a = (start + HUGE - 1) & ~(uintptr_t)(HUGE - 1);
	if (a > start)
		munmap(m, a - start);
	if (start + over > a + len)
		munmap((void *)(a + len), start + over - (a + len));
	m = (char *)a;
#ifdef MADV_HUGEPAGE
	madvise(m, len, MADV_HUGEPAGE); /* a hint: no error matters */
#endif
	((struct hdr *)m)->map = len;
	return m + BIGMEM_HDR;
}

void bigmem_trim(char *p, size_t n)
{
	struct hdr *h = (struct hdr *)(p - BIGMEM_HDR);
	size_t pg = page_size();
	size_t keep = (BIGMEM_HDR + n + pg - 1) & ~(pg - 1);

	if (keep < h->map) {
		munmap((char *)h + keep, h->map - keep);
		h->map = keep;
	}
}

void bigmem_free(char *p)
{
	struct hdr *h;

	if (!p)
		return;
	h = (struct hdr *)(p - BIGMEM_HDR);
	munmap(h, h->map);
}
