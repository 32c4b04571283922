/* SPDX-License-Identifier: MIT */
/* kmain: what the kernel does once every CPU is up (kernel/kmain.c). */
#ifndef SLABLAB_KMAIN_H
#define SLABLAB_KMAIN_H

void __attribute__((noreturn)) kmain(void);

#endif
