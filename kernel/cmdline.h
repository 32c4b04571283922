/* SPDX-License-Identifier: MIT */
/*
 * Boot options from the multiboot2 command line (docs/options.md lists them all).
 *
 * An option is declared beside the code that uses it, with the variable it fills:
 *
 *	unsigned int ap_timeout_ms;
 *	boot_param(ap_timeout_ms, ap_timeout_ms, uint, (1, 60000), 5000,
 *		   "how long to wait for the other CPUs to start, in ms");
 *
 *	boot_param(NAME, VAR, TYPE, RANGE, DEFAULT, HELP)
 *	  NAME     the option's spelling on the command line (NAME=value), a C identifier
 *	  VAR      the variable it fills; reset to DEFAULT by cmdline_parse() and
 *		   cmdline_defaults(), so give it no initializer of its own
 *	  TYPE     uint  VAR an unsigned or signed integer of 4 or 8 bytes; RANGE (MIN, MAX),
 *			 inclusive; decimal without a leading zero, or 0x hex. DEFAULT a number,
 *			 which may lie outside RANGE to mean "not given" (cpus=: 0, all CPUs)
 *		   enum  VAR a char array; RANGE a NULL-ended array of the valid words;
 *			 DEFAULT a string (one of them, or "" for "not given")
 *		   str   VAR a char array; RANGE NULL or a function
 *			 int check(const char *val, char *err, size_t errlen) that returns 0, or
 *			 -1 with a message in err; DEFAULT a string
 *		   list  a str that is a comma list of names: no empty item, no name twice,
 *			 "all" or "none" only alone (RANGE and DEFAULT as for str)
 *	  HELP     one line for the error messages: what the option does and what is valid
 *
 * Every option is given at most once; boot_param_given(NAME) says whether it was. Pointers
 * to the descriptors are gathered in the section boot_params (linker.ld; for the host
 * builds arch/host/boot_params.ld), the way kunit_test_suite() gathers suites, so
 * kernel/cmdline.c, the parser, knows no option by name. The section's name is a C
 * identifier, unlike .kunit_suites: clang's AddressSanitizer leaves the globals of such a
 * section as they are (LLVM 14, AddressSanitizer.cpp, shouldInstrumentGlobal), and in any
 * other it pads each pointer with a red zone, so the section is no longer an array (the
 * fuzzer, tests/host/fuzz_slab.c, is built by clang; GCC leaves every named section alone). Two options of one name do not
 * link (each descriptor is the global __boot_param_NAME). Each pointer is the symbol
 * __boot_param_ptr_NAME, from which tests/host/test_options.sh reads the options a build
 * has: one without a row in docs/options.md's table fails it, as one without a field in
 * tests/host/test_cmdline.c (which checks each option's type, size, range and default)
 * fails that test.
 */
#ifndef SLABLAB_CMDLINE_H
#define SLABLAB_CMDLINE_H

#include "kernel/types.h"

#define OPT_STR_MAX 256

enum boot_param_type { BOOT_PARAM_STR, BOOT_PARAM_LIST, BOOT_PARAM_UINT, BOOT_PARAM_ENUM };

struct boot_param {
	const char *name;
	enum boot_param_type type;
	void *var;
	size_t size;			/* of var: a string's buffer, a number's 4 or 8 bytes */
	u64 min, max, dflt;		/* uint */
	const char *dflt_str;		/* str, list, enum */
	const char *const *choices;	/* enum: NULL-ended */
	int (*check)(const char *val, char *err, size_t errlen); /* str, list: optional */
	const char *help;
	bool given;			/* on this command line (cmdline_parse) */
};

/* Compile-time checks that evaluate to 0 (Linux's BUILD_BUG_ON_ZERO, __must_be_array). */
#define __bp_check(cond) (sizeof(struct { int : (-!!(cond)); }))
#define __bp_is_array(a) __bp_check(__builtin_types_compatible_p(__typeof__(a), __typeof__(&(a)[0])))
#define __bp_lo(lo, hi) (lo)
#define __bp_hi(lo, hi) (hi)

#define __boot_param_uint(var, range, d)                                                           \
	.type = BOOT_PARAM_UINT, .min = __bp_lo range, .max = __bp_hi range, .dflt = (u64)(d),    \
	.size = sizeof(var) + __bp_check(sizeof(var) != 4 && sizeof(var) != 8)
#define __boot_param_enum(var, range, d)                                                           \
	.type = BOOT_PARAM_ENUM, .choices = (range), .dflt_str = (d),                              \
	.size = sizeof(var) + __bp_is_array(var) + __bp_check(sizeof(d) > sizeof(var))
#define __boot_param_str(var, range, d)                                                            \
	.type = BOOT_PARAM_STR, .check = (range), .dflt_str = (d),                                 \
	.size = sizeof(var) + __bp_is_array(var) + __bp_check(sizeof(d) > sizeof(var))
#define __boot_param_list(var, range, d)                                                           \
	.type = BOOT_PARAM_LIST, .check = (range), .dflt_str = (d),                                \
	.size = sizeof(var) + __bp_is_array(var) + __bp_check(sizeof(d) > sizeof(var))

#define boot_param(pname, pvar, ptype, prange, pdefault, phelp)                                   \
	struct boot_param __boot_param_##pname = {                                                 \
		.name = #pname, .var = &(pvar), .help = (phelp),                                    \
		__boot_param_##ptype(pvar, prange, pdefault)                                       \
	};                                                                                         \
	static struct boot_param *const __boot_param_ptr_##pname __used                            \
		__section("boot_params") = &__boot_param_##pname

/* Was option NAME (declared in any file) on the command line? */
#define boot_param_given(pname)                                                                    \
	({                                                                                         \
		extern struct boot_param __boot_param_##pname;                                     \
		__boot_param_##pname.given;                                                        \
	})

/*
 * Sets every option to its default, then to what the command line says. 0 on success;
 * otherwise -1 with a message for the user in err that names what is valid.
 */
int cmdline_parse(const char *cmdline, char *err, size_t errlen);
/* Every option to its default, none given (what an empty command line gives). */
void cmdline_defaults(void);
/* "name= name= ...": every option this kernel has. */
const char *cmdline_help(void);
/* The option of that name (len characters), or NULL. */
struct boot_param *boot_param_find(const char *name, size_t len);
/* The options, in link order: boot_param_at(0), (1), ... then NULL. */
struct boot_param *boot_param_at(unsigned int i);

#endif
