/* SPDX-License-Identifier: MIT */
/*
 * Fixed-width types, bool, NULL, offsetof and the few compiler helpers every file uses.
 * Freestanding: no libc headers beyond what GCC ships (stddef, stdint, stdbool, stdarg).
 */
#ifndef SLABLAB_TYPES_H
#define SLABLAB_TYPES_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef uintptr_t uptr;
typedef u64 phys_addr_t;

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define __noreturn __attribute__((noreturn))
#define __packed __attribute__((packed))
#define __aligned(n) __attribute__((aligned(n)))
#define __section(s) __attribute__((section(s)))
/*
 * For the pointers a registration macro puts in a linker section that is read as one array:
 * clang's AddressSanitizer (the host fuzzer's build) would put red zones between them. GCC
 * leaves variables in named sections alone.
 */
#if defined(__clang__) && defined(__has_feature)
#if __has_feature(address_sanitizer)
#define __section_array_entry __attribute__((no_sanitize("address")))
#endif
#endif
#ifndef __section_array_entry
#define __section_array_entry
#endif
#define __used __attribute__((used))
#define __unused __attribute__((unused))
#define __noinline __attribute__((noinline))
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define __printf(a, b) __attribute__((format(printf, a, b)))
#define __cacheline_aligned __aligned(64)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a) (((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define IS_ALIGNED(x, a) (((x) & ((__typeof__(x))(a) - 1)) == 0)
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
/* Compiler-only barrier: stops GCC from moving memory accesses across it. */
#define barrier() __asm__ __volatile__("" ::: "memory")

#define KiB (1024ULL)
#define MiB (1024ULL * 1024)
#define GiB (1024ULL * 1024 * 1024)

#define PAGE_SHIFT 12
#define PAGE_SIZE (1UL << PAGE_SHIFT)

/*
 * Upper bound on CPUs, as distribution kernels have 8192: x2APIC ids are 32 bits, and
 * QEMU 10's TCG boots 1024 vCPUs (q35 with an intel-iommu in EIM mode). Per-cpu memory is
 * allocated for the CPUs present only; what scales with this is a few static tables
 * (the MADT's CPUs, per-cpu offsets, the AP start slots) and cpumasks (512 bytes).
 */
#define NR_CPUS 4096

#endif
