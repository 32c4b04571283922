/* SPDX-License-Identifier: MIT */
/*
 * kmain: what the kernel does once every CPU is up (init/main.c). The arch's start-up code
 * calls it last; init/ sits above every other layer, so this is the one header of init/
 * that another layer includes.
 */
#ifndef SLABLAB_INIT_MAIN_H
#define SLABLAB_INIT_MAIN_H

void __attribute__((noreturn)) kmain(void);

#endif
