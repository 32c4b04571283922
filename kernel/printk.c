// SPDX-License-Identifier: MIT
/*
 * vsnprintf and printk. printk appends to this CPU's line buffer and writes each finished
 * line to the console under console_lock with interrupts off, so a line is never split by
 * another CPU's output. After a panic has stopped the other CPUs the lock is bypassed.
 */
#include "kernel/console.h"
#include "kernel/nmi.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"

/* ---- formatting (also built on the host: tests/host/test_printk.c) ---- */

#define WIDTH_MAX 4096 /* widths and precisions are clamped here: no overflow, no silly padding */

struct outbuf {
	char *buf;
	size_t size;
	size_t len; /* characters produced, even those that did not fit */
};

static void put(struct outbuf *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void put_padding(struct outbuf *o, int n, char c)
{
	while (n-- > 0)
		put(o, c);
}

/* Emit one number: digits of v in base, with sign, width and flags applied. */
static void put_number(struct outbuf *o, unsigned long long v, bool negative, unsigned base,
		       bool upper, int width, bool zero, bool left, const char *prefix)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int n = 0, len, plen = prefix ? (int)strlen(prefix) : 0;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	len = n + (negative ? 1 : 0) + plen;
	if (!left && !zero)
		put_padding(o, width - len, ' ');
	if (negative)
		put(o, '-');
	while (plen && *prefix)
		put(o, *prefix++);
	if (!left && zero)
		put_padding(o, width - len, '0');
	while (n)
		put(o, tmp[--n]);
	if (left)
		put_padding(o, width - len, ' ');
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct outbuf o = { .buf = buf, .size = size, .len = 0 };

	for (; *fmt; fmt++) {
		bool left = false, zero = false, alt = false;
		int width = 0, prec = -1, lng = 0;
		char c;

		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		fmt++;
		for (;; fmt++) { /* flags */
			if (*fmt == '-')
				left = true;
			else if (*fmt == '0')
				zero = true;
			else if (*fmt == '#')
				alt = true;
			else
				break;
		}
		if (*fmt == '*') {
			width = va_arg(ap, int);
			if (width < 0) {
				left = true;
				width = width < -WIDTH_MAX ? WIDTH_MAX : -width;
			}
			fmt++;
		}
		while (*fmt >= '0' && *fmt <= '9') {
			int digit = *fmt++ - '0';

			width = width > WIDTH_MAX ? WIDTH_MAX : width * 10 + digit;
		}
		width = MIN(width, WIDTH_MAX);
		if (*fmt == '.') {
			fmt++;
			prec = 0;
			if (*fmt == '*') {
				prec = va_arg(ap, int);
				fmt++;
			}
			while (*fmt >= '0' && *fmt <= '9') {
				int digit = *fmt++ - '0';

				prec = prec > WIDTH_MAX ? WIDTH_MAX : prec * 10 + digit;
			}
			prec = MIN(prec, WIDTH_MAX);
		}
		while (*fmt == 'l' || *fmt == 'z' || *fmt == 'h') {
			if (*fmt == 'l' || *fmt == 'z')
				lng++;
			fmt++;
		}
		c = *fmt;
		if (!c)
			break;
		switch (c) {
		case 'd':
		case 'i': {
			long long v = lng >= 2 ? va_arg(ap, long long)
				    : lng == 1 ? va_arg(ap, long)
					       : va_arg(ap, int);
			unsigned long long m = v < 0 ? 0ULL - (unsigned long long)v
						     : (unsigned long long)v;

			put_number(&o, m, v < 0, 10, false, width, zero, left, NULL);
			break;
		}
		case 'u':
		case 'x':
		case 'X':
		case 'o': {
			unsigned long long v = lng >= 2 ? va_arg(ap, unsigned long long)
					     : lng == 1 ? va_arg(ap, unsigned long)
							: va_arg(ap, unsigned int);
			unsigned base = c == 'u' ? 10 : c == 'o' ? 8 : 16;
			const char *pfx = NULL;

			if (alt && base == 16 && v)
				pfx = c == 'X' ? "0X" : "0x";
			put_number(&o, v, false, base, c == 'X', width, zero, left, pfx);
			break;
		}
		case 'p': {
			void *p = va_arg(ap, void *);

			if (!p) {
				const char *s = "(null)";

				put_padding(&o, left ? 0 : width - 6, ' ');
				while (*s)
					put(&o, *s++);
				put_padding(&o, left ? width - 6 : 0, ' ');
			} else {
				put_number(&o, (uptr)p, false, 16, false, width, zero, left, "0x");
			}
			break;
		}
		case 'c':
			if (!left)
				put_padding(&o, width - 1, ' ');
			put(&o, (char)va_arg(ap, int));
			if (left)
				put_padding(&o, width - 1, ' ');
			break;
		case 's': {
			const char *s = va_arg(ap, const char *);
			int n;

			if (!s)
				s = "(null)";
			n = (int)(prec >= 0 ? strnlen(s, (size_t)prec) : strlen(s));
			if (!left)
				put_padding(&o, width - n, ' ');
			for (int i = 0; i < n; i++)
				put(&o, s[i]);
			if (left)
				put_padding(&o, width - n, ' ');
			break;
		}
		case '%':
			put(&o, '%');
			break;
		default: /* unknown conversion: print it as it stands */
			put(&o, '%');
			put(&o, c);
			break;
		}
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/* ---- the console side ---- */

#define LINE_MAX 512

struct printk_line {
	int len;
	char buf[LINE_MAX];
};

static DEFINE_PER_CPU(struct printk_line, printk_line);
static DEFINE_SPINLOCK(console_lock);
static bool panic_mode; /* set once the other CPUs are stopped: no more locking */

void printk_panic_mode(void)
{
	WRITE_ONCE(panic_mode, true);
}

static void emit(const char *s, int n)
{
	unsigned long flags;

	if (READ_ONCE(panic_mode)) {
		console_write(s, (size_t)n);
		return;
	}
	spin_lock_irqsave(&console_lock, flags);
	console_write(s, (size_t)n);
	spin_unlock_irqrestore(&console_lock, flags);
}

static void line_flush(struct printk_line *l)
{
	if (l->len) {
		emit(l->buf, l->len);
		l->len = 0;
	}
}

/*
 * printk from NMI context takes no lock: the text goes into this cpu's NMI buffer, a ring
 * with one writer (the NMI handler; NMIs do not nest) and one reader (this cpu outside NMI
 * context, interrupts off), and is written to the console by printk_nmi_flush(): from the
 * irq_work the NMI handler queues (kernel/nmi.c), or at this cpu's next printk. A message
 * that does not fit is dropped whole and counted; the flush says how many were.
 */
#define NMI_BUF_SIZE 2048

struct printk_nmi {
	u32 head; /* written by the NMI handler (release) */
	u32 tail; /* written by the flush (release) */
	u32 dropped;
	char buf[NMI_BUF_SIZE];
};

static DEFINE_PER_CPU(struct printk_nmi, printk_nmi);

static void nmi_store(const char *s, int len)
{
	struct printk_nmi *b = this_cpu_ptr(&printk_nmi);
	u32 head = b->head, tail = __atomic_load_n(&b->tail, __ATOMIC_ACQUIRE);

	if ((u32)len > NMI_BUF_SIZE - (head - tail)) {
		__atomic_fetch_add(&b->dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	for (int i = 0; i < len; i++)
		b->buf[(head + (u32)i) % NMI_BUF_SIZE] = s[i];
	__atomic_store_n(&b->head, head + (u32)len, __ATOMIC_RELEASE);
}

bool printk_nmi_pending(void)
{
	struct printk_nmi *b = this_cpu_ptr(&printk_nmi);

	return __atomic_load_n(&b->head, __ATOMIC_ACQUIRE) != b->tail ||
	       __atomic_load_n(&b->dropped, __ATOMIC_RELAXED);
}

void printk_nmi_flush(void)
{
	struct printk_nmi *b;
	unsigned long flags;
	u32 head, tail, dropped;

	if (in_nmi())
		return;
	local_irq_save(flags);
	b = this_cpu_ptr(&printk_nmi);
	head = __atomic_load_n(&b->head, __ATOMIC_ACQUIRE);
	tail = b->tail;
	while (tail != head) {
		u32 at = tail % NMI_BUF_SIZE, n = MIN(head - tail, NMI_BUF_SIZE - at);

		emit(b->buf + at, (int)n);
		tail += n;
	}
	__atomic_store_n(&b->tail, tail, __ATOMIC_RELEASE);
	dropped = __atomic_exchange_n(&b->dropped, 0, __ATOMIC_RELAXED);
	local_irq_restore(flags);
	if (dropped)
		printk("printk: %u messages from NMI context on cpu %d dropped (its buffer was "
		       "full)\n", dropped, smp_processor_id());
}

void printk_flush(void)
{
	unsigned long flags;

	if (in_nmi())
		return;
	printk_nmi_flush();
	local_irq_save(flags);
	line_flush(this_cpu_ptr(&printk_line));
	local_irq_restore(flags);
}

int vprintk(const char *fmt, va_list ap)
{
	char tmp[LINE_MAX];
	struct printk_line *l;
	unsigned long flags;
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	int len = n < (int)sizeof(tmp) ? n : (int)sizeof(tmp) - 1;

	if (unlikely(in_nmi()) && !READ_ONCE(panic_mode)) {
		nmi_store(tmp, len);
		return n;
	}
	if (unlikely(printk_nmi_pending()))
		printk_nmi_flush(); /* what NMIs printed here comes out first */
	/* Interrupts off: an interrupt handler's printk must not land mid-line in our buffer. */
	local_irq_save(flags);
	l = this_cpu_ptr(&printk_line);
	for (int i = 0; i < len; i++) {
		if (l->len == LINE_MAX - 1)
			line_flush(l); /* an over-long line goes out in pieces */
		l->buf[l->len++] = tmp[i];
		if (tmp[i] == '\n')
			line_flush(l);
	}
	local_irq_restore(flags);
	return n;
}

int printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}
