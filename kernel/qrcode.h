/* SPDX-License-Identifier: MIT */
/*
 * A QR code encoder (ISO/IEC 18004:2015): byte mode, error correction level L or M, the
 * smallest version 1..40 the data fits, the mask with the lowest penalty score. For the
 * results screen, which shows the run's JSON summary as a QR code a phone can read.
 * Everything lives in the struct: no allocation.
 */
#ifndef SLABLAB_QRCODE_H
#define SLABLAB_QRCODE_H

#include "kernel/types.h"

#define QR_MAX_VERSION 40
#define QR_MAX_SIZE (17 + 4 * QR_MAX_VERSION) /* 177 modules a side */

enum qr_ecc { QR_ECC_L, QR_ECC_M };

struct qr {
	int version, size, mask;
	enum qr_ecc ecc;
	u8 dark[QR_MAX_SIZE][QR_MAX_SIZE];     /* 1: a dark module */
	u8 function[QR_MAX_SIZE][QR_MAX_SIZE]; /* finder, timing, alignment, format, version */
};

/* 0 and the symbol in q; -1 with the reason in err (the data does not fit version 40). */
int qr_encode(struct qr *q, const void *data, size_t len, enum qr_ecc ecc, char *err,
	      size_t errlen);
/* The symbol under another mask (0..7), format information included. */
void qr_set_mask(struct qr *q, int mask);
/* The symbol's penalty score (ISO/IEC 18004:2015, 7.8.3), as qr_encode weighs masks. */
long qr_penalty(const struct qr *q);
/* Bytes of data version v at level ecc holds in byte mode. */
int qr_capacity(int version, enum qr_ecc ecc);

#endif
