// SPDX-License-Identifier: MIT
/*
 * memset and memcpy with "rep stos"/"rep movs". Eight bytes at a time for the bulk: real
 * CPUs do as well with the byte forms (ERMS), but QEMU's TCG runs one loop iteration per
 * element, and the page allocator's start-up clears megabytes.
 */
#include "kernel/string.h"

void *memset(void *s, int c, size_t n)
{
	void *d = s;
	size_t q = n / 8, r = n % 8;
	u64 pattern = (u8)c * 0x0101010101010101ULL;

	__asm__ __volatile__("rep stosq" : "+D"(d), "+c"(q) : "a"(pattern) : "memory");
	__asm__ __volatile__("rep stosb" : "+D"(d), "+c"(r) : "a"(pattern) : "memory");
	return s;
}

void *memcpy(void *dst, const void *src, size_t n)
{
	void *d = dst;
	size_t q = n / 8, r = n % 8;

	__asm__ __volatile__("rep movsq" : "+D"(d), "+S"(src), "+c"(q) : : "memory");
	__asm__ __volatile__("rep movsb" : "+D"(d), "+S"(src), "+c"(r) : : "memory");
	return dst;
}
