// SPDX-License-Identifier: MIT
/*
 * QR codes (kernel/qrcode.h), from ISO/IEC 18004:2015: the byte-mode segment (mode 0100, an
 * 8-bit count up to version 9 and 16-bit after; 7.4.5), the terminator and the pad bytes
 * 0xec 0x11 (7.4.10), Reed-Solomon error correction over GF(256) with the polynomial
 * x^8+x^4+x^3+x^2+1 and the generator of roots 2^0..2^(n-1) (7.5.2), the blocks of table 9
 * interleaved (7.6), the function patterns (6.3), the modules placed in two-column zigzags
 * from the bottom right (7.7.3), the eight masks (7.8.2) scored by the four penalty rules
 * (7.8.3: runs of 5 or more, 2x2 blocks, the 1:1:3:1:1 finder-like pattern with 4 light
 * modules beside it, the share of dark modules), the format information as BCH(15,5) with
 * the mask 101010000010010 (7.9) and, from version 7, the version information as
 * BCH(18,6) (7.10). The per-version tables below are table 9's figures for levels L and M.
 */
#include "kernel/printk.h"
#include "kernel/qrcode.h"
#include "kernel/string.h"

/* Table 9: error correction codewords per block, and blocks, by version (index 0 unused). */
static const u8 ecc_per_block[2][QR_MAX_VERSION + 1] = {
	[QR_ECC_L] = { 0,  7,  10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26,
		       30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30,
		       30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30 },
	[QR_ECC_M] = { 0,  10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22,
		       24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28,
		       28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28 },
};
static const u8 nr_blocks[2][QR_MAX_VERSION + 1] = {
	[QR_ECC_L] = { 0,  1,  1,  1,  1,  1,  2,  2,  2,  2,  4,  4,  4,  4,
		       4,  6,  6,  6,  6,  7,  8,  8,  9,  9,  10, 12, 12, 12,
		       13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25 },
	[QR_ECC_M] = { 0,  1,  1,  1,  2,  2,  4,  4,  4,  5,  5,  5,  8,  9,
		       9,  10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25,
		       26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49 },
};

/* Modules left for data and error correction once the function patterns are placed. */
static int raw_modules(int v)
{
	int n = (16 * v + 128) * v + 64; /* all, less the finders, separators, timing, format */

	if (v >= 2) {
		int a = v / 7 + 2; /* alignment patterns per row */

		n -= (25 * a - 10) * a - 55; /* those not overlapping the timing patterns count 25 */
		if (v >= 7)
			n -= 36; /* the two version information blocks */
	}
	return n;
}

static int data_codewords(int v, enum qr_ecc ecc)
{
	return raw_modules(v) / 8 - ecc_per_block[ecc][v] * nr_blocks[ecc][v];
}

int qr_capacity(int v, enum qr_ecc ecc)
{
	return (data_codewords(v, ecc) * 8 - 4 - (v <= 9 ? 8 : 16)) / 8;
}

/* ---- GF(256) and Reed-Solomon ---- */

static u8 gf_mul(u8 a, u8 b)
{
	unsigned int r = 0;

	for (int i = 7; i >= 0; i--) {
		r = (r << 1) ^ ((r >> 7) * 0x11d);
		r ^= ((b >> i) & 1) * a;
	}
	return (u8)r;
}

/* The generator polynomial of degree n (coefficients, highest first, leading 1 left out). */
static void rs_generator(u8 *g, int n)
{
	u8 root = 1;

	memset(g, 0, (size_t)n);
	g[n - 1] = 1;
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < n; j++) {
			g[j] = gf_mul(g[j], root);
			if (j + 1 < n)
				g[j] ^= g[j + 1];
		}
		root = gf_mul(root, 2);
	}
}

/* The remainder of data(x) * x^n divided by g(x): the n error correction codewords. */
static void rs_remainder(const u8 *data, int len, const u8 *g, int n, u8 *out)
{
	memset(out, 0, (size_t)n);
	for (int i = 0; i < len; i++) {
		u8 factor = data[i] ^ out[0];

		memmove(out, out + 1, (size_t)n - 1);
		out[n - 1] = 0;
		for (int j = 0; j < n; j++)
			out[j] ^= gf_mul(g[j], factor);
	}
}

/* ---- function patterns ---- */

static void set_function(struct qr *q, int x, int y, bool dark)
{
	q->dark[y][x] = dark;
	q->function[y][x] = 1;
}

static void finder(struct qr *q, int cx, int cy)
{
	for (int dy = -4; dy <= 4; dy++)
		for (int dx = -4; dx <= 4; dx++) {
			int x = cx + dx, y = cy + dy, d = MAX(dx < 0 ? -dx : dx, dy < 0 ? -dy : dy);

			if (x >= 0 && x < q->size && y >= 0 && y < q->size)
				set_function(q, x, y, d != 2 && d != 4);
		}
}

static void alignment(struct qr *q, int cx, int cy)
{
	for (int dy = -2; dy <= 2; dy++)
		for (int dx = -2; dx <= 2; dx++)
			set_function(q, cx + dx, cy + dy,
				     MAX(dx < 0 ? -dx : dx, dy < 0 ? -dy : dy) != 1);
}

/* Annex E: the centres' coordinates, 6 first and size - 7 last, evenly spaced between. */
static int alignment_positions(int v, int *pos)
{
	int n, step, size = 17 + 4 * v;

	if (v == 1)
		return 0;
	n = v / 7 + 2;
	step = v == 32 ? 26 : (v * 4 + n * 2 + 1) / (n * 2 - 2) * 2;
	pos[0] = 6;
	for (int i = n - 1, p = size - 7; i >= 1; i--, p -= step)
		pos[i] = p;
	return n;
}

static void format_bits(struct qr *q, int mask)
{
	int data = (q->ecc == QR_ECC_L ? 1 : 0) << 3 | mask, rem = data, bits;

	for (int i = 0; i < 10; i++)
		rem = (rem << 1) ^ ((rem >> 9) * 0x537);
	bits = (data << 10 | rem) ^ 0x5412;
	for (int i = 0; i <= 5; i++)
		set_function(q, 8, i, (bits >> i) & 1);
	set_function(q, 8, 7, (bits >> 6) & 1);
	set_function(q, 8, 8, (bits >> 7) & 1);
	set_function(q, 7, 8, (bits >> 8) & 1);
	for (int i = 9; i < 15; i++)
		set_function(q, 14 - i, 8, (bits >> i) & 1);
	for (int i = 0; i < 8; i++)
		set_function(q, q->size - 1 - i, 8, (bits >> i) & 1);
	for (int i = 8; i < 15; i++)
		set_function(q, 8, q->size - 15 + i, (bits >> i) & 1);
	set_function(q, 8, q->size - 8, true); /* the dark module */
}

static void function_patterns(struct qr *q)
{
	int pos[8], n = alignment_positions(q->version, pos);

	for (int i = 0; i < q->size; i++) {
		set_function(q, 6, i, i % 2 == 0);
		set_function(q, i, 6, i % 2 == 0);
	}
	finder(q, 3, 3);
	finder(q, q->size - 4, 3);
	finder(q, 3, q->size - 4);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			if (!((i == 0 && j == 0) || (i == 0 && j == n - 1) || (i == n - 1 && j == 0)))
				alignment(q, pos[i], pos[j]);
	format_bits(q, 0); /* reserves the area; redrawn with the mask chosen */
	if (q->version >= 7) {
		int rem = q->version;
		long bits;

		for (int i = 0; i < 12; i++)
			rem = (rem << 1) ^ ((rem >> 11) * 0x1f25);
		bits = (long)q->version << 12 | rem;
		for (int i = 0; i < 18; i++) {
			int a = q->size - 11 + i % 3, b = i / 3;

			set_function(q, a, b, (bits >> i) & 1);
			set_function(q, b, a, (bits >> i) & 1);
		}
	}
}

/* ---- data ---- */

struct bits {
	u8 *buf;
	int n; /* bits written */
};

static void put_bits(struct bits *b, u32 v, int count)
{
	for (int i = count - 1; i >= 0; i--, b->n++)
		if ((v >> i) & 1)
			b->buf[b->n >> 3] |= (u8)(0x80 >> (b->n & 7));
}

static bool masked(int mask, int x, int y)
{
	switch (mask) {
	case 0: return (x + y) % 2 == 0;
	case 1: return y % 2 == 0;
	case 2: return x % 3 == 0;
	case 3: return (x + y) % 3 == 0;
	case 4: return (x / 3 + y / 2) % 2 == 0;
	case 5: return x * y % 2 + x * y % 3 == 0;
	case 6: return (x * y % 2 + x * y % 3) % 2 == 0;
	default: return ((x + y) % 2 + x * y % 3) % 2 == 0;
	}
}

static void apply_mask(struct qr *q, int mask)
{
	for (int y = 0; y < q->size; y++)
		for (int x = 0; x < q->size; x++)
			if (!q->function[y][x] && masked(mask, x, y))
				q->dark[y][x] ^= 1;
}

static void place(struct qr *q, const u8 *cw, int len)
{
	int i = 0;

	for (int right = q->size - 1; right >= 1; right -= 2) {
		if (right == 6)
			right = 5; /* the vertical timing pattern */
		for (int vert = 0; vert < q->size; vert++)
			for (int j = 0; j < 2; j++) {
				int x = right - j;
				bool up = ((right + 1) & 2) == 0;
				int y = up ? q->size - 1 - vert : vert;

				if (q->function[y][x])
					continue;
				if (i < len * 8)
					q->dark[y][x] = (cw[i >> 3] >> (7 - (i & 7))) & 1;
				i++; /* the remainder bits stay light */
			}
	}
}

long qr_penalty(const struct qr *q)
{
	static const u8 finder_like[2][11] = { { 1, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0 },
					       { 0, 0, 0, 0, 1, 0, 1, 1, 1, 0, 1 } };
	long score = 0;
	int n = q->size, dark = 0;

	for (int pass = 0; pass < 2; pass++) /* rows, then columns */
		for (int a = 0; a < n; a++) {
			int run = 1;

			for (int b = 1; b <= n; b++) {
				int cur = b < n ? (pass ? q->dark[b][a] : q->dark[a][b]) : -1;
				int prev = pass ? q->dark[b - 1][a] : q->dark[a][b - 1];

				if (cur == prev) {
					run++;
				} else {
					if (run >= 5)
						score += 3 + (run - 5);
					run = 1;
				}
			}
			for (int b = 0; b + 11 <= n; b++)
				for (int p = 0; p < 2; p++) {
					int k = 0;

					while (k < 11 && (pass ? q->dark[b + k][a] : q->dark[a][b + k]) ==
								  finder_like[p][k])
						k++;
					if (k == 11)
						score += 40;
				}
		}
	for (int y = 0; y + 1 < n; y++)
		for (int x = 0; x + 1 < n; x++) {
			int c = q->dark[y][x];

			if (q->dark[y][x + 1] == c && q->dark[y + 1][x] == c && q->dark[y + 1][x + 1] == c)
				score += 3;
		}
	for (int y = 0; y < n; y++)
		for (int x = 0; x < n; x++)
			dark += q->dark[y][x];
	{
		long total = (long)n * n, dev = (long)dark * 100 - total * 50;

		if (dev < 0)
			dev = -dev;
		score += 10 * (dev / (total * 5)); /* each full 5% away from half dark */
	}
	return score;
}

void qr_set_mask(struct qr *q, int mask)
{
	apply_mask(q, q->mask);
	apply_mask(q, mask);
	format_bits(q, mask);
	q->mask = mask;
}

int qr_encode(struct qr *q, const void *data, size_t len, enum qr_ecc ecc, char *err,
	      size_t errlen)
{
	static u8 codewords[3706], out[3706], gen[30], ecc_cw[30];
	struct bits b = { codewords, 0 };
	int v, ndata, nblocks, ecl, raw, short_len, nshort, k = 0;
	long best = -1;
	int best_mask = 0;

	for (v = 1; v <= QR_MAX_VERSION && qr_capacity(v, ecc) < (long)len; v++)
		;
	if (v > QR_MAX_VERSION) {
		snprintf(err, errlen, "%zu bytes do not fit a QR code at level %c (at most %d, "
			 "version 40)", len, ecc == QR_ECC_L ? 'L' : 'M', qr_capacity(40, ecc));
		return -1;
	}
	memset(q, 0, sizeof(*q));
	q->version = v;
	q->size = 17 + 4 * v;
	q->ecc = ecc;
	ndata = data_codewords(v, ecc);
	memset(codewords, 0, sizeof(codewords));
	put_bits(&b, 4, 4); /* byte mode */
	put_bits(&b, (u32)len, v <= 9 ? 8 : 16);
	for (size_t i = 0; i < len; i++)
		put_bits(&b, ((const u8 *)data)[i], 8);
	put_bits(&b, 0, MIN(4, ndata * 8 - b.n)); /* terminator */
	b.n = (b.n + 7) & ~7;
	for (u8 pad = 0xec; b.n < ndata * 8; pad ^= 0xec ^ 0x11)
		put_bits(&b, pad, 8);

	/* Blocks: the short ones first, each long one a data codeword more (7.6). */
	nblocks = nr_blocks[ecc][v];
	ecl = ecc_per_block[ecc][v];
	raw = raw_modules(v) / 8;
	short_len = raw / nblocks; /* data and error correction of a short block */
	nshort = nblocks - raw % nblocks;
	rs_generator(gen, ecl);
	{
		static u8 blocks[81][200]; /* at most 81 blocks (40-H) of at most 154 + 30 bytes */
		int off = 0;

		for (int i = 0; i < nblocks; i++) {
			int dl = short_len - ecl + (i >= nshort);

			memcpy(blocks[i], codewords + off, (size_t)dl);
			rs_remainder(codewords + off, dl, gen, ecl, ecc_cw);
			memcpy(blocks[i] + dl, ecc_cw, (size_t)ecl);
			off += dl;
		}
		for (int i = 0; i < short_len - ecl + 1; i++) /* data, interleaved */
			for (int j = 0; j < nblocks; j++)
				if (i < short_len - ecl + (j >= nshort))
					out[k++] = blocks[j][i];
		for (int i = 0; i < ecl; i++) /* then error correction */
			for (int j = 0; j < nblocks; j++)
				out[k++] = blocks[j][short_len - ecl + (j >= nshort) + i];
	}
	function_patterns(q);
	place(q, out, k);
	apply_mask(q, 0);
	for (int m = 0; m < 8; m++) {
		long s;

		qr_set_mask(q, m);
		s = qr_penalty(q);
		if (best < 0 || s < best) {
			best = s;
			best_mask = m;
		}
	}
	qr_set_mask(q, best_mask);
	return 0;
}
