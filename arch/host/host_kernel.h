/* SPDX-License-Identifier: MIT */
/*
 * Force-included (gcc -include) into every kernel source built for the host. The kernel's
 * snprintf/vsnprintf get other link names so they cannot take the place of glibc's (the
 * tests compare the two) and so GCC does not treat calls to them as calls to its builtins.
 */
#ifndef SLABLAB_HOST_KERNEL_H
#define SLABLAB_HOST_KERNEL_H

#define snprintf kernel_snprintf
#define vsnprintf kernel_vsnprintf

#endif
