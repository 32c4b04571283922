/* SPDX-License-Identifier: MIT */
/* crash=KIND: fault on purpose, to show (and test) the trap and panic paths (arch/x86/crash.c). */
#ifndef SLABLAB_CRASH_H
#define SLABLAB_CRASH_H

void crash(const char *kind);

#endif
