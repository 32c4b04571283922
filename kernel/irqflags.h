/* SPDX-License-Identifier: MIT */
/* local_irq_save/restore and friends, as in Linux. No preemption exists in slablab. */
#ifndef SLABLAB_IRQFLAGS_H
#define SLABLAB_IRQFLAGS_H

#include "kernel/arch.h"

#define local_irq_save(flags) ((flags) = arch_local_irq_save())
#define local_irq_restore(flags) arch_local_irq_restore(flags)
#define local_irq_disable() irq_disable_raw()
#define local_irq_enable() irq_enable_raw()
#define irqs_disabled() arch_irqs_disabled()
#define irqs_disabled_flags(flags) (!((flags) & RFLAGS_IF))

#endif
