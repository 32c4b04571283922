// SPDX-License-Identifier: MIT
/*
 * kernel/qrcode.c against a reference decoder: symbols of every version 1..40 at levels L and
 * M, each holding the most its version takes, written as PGM images and read back by zbarimg
 * (Debian's zbar-tools); a byte more takes the next version; the mask chosen scores least
 * of the eight; data past version 40 is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/qrcode.h"
#include "tests/host/ktest.h"

static struct qr q;

/* The symbol as a PGM with a 4-module quiet zone, 3 pixels a module; 0 on success. */
static int write_pgm(const char *path)
{
	int scale = 3, quiet = 4, side = (q.size + 2 * quiet) * scale;
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	fprintf(f, "P5\n%d %d\n255\n", side, side);
	for (int py = 0; py < side; py++)
		for (int px = 0; px < side; px++) {
			int x = px / scale - quiet, y = py / scale - quiet;
			bool dark = x >= 0 && y >= 0 && x < q.size && y < q.size && q.dark[y][x];

			fputc(dark ? 0 : 255, f);
		}
	return fclose(f);
}

/* What zbarimg reads from the image, in buf; its length, or -1. */
static long zbar(const char *path, char *buf, size_t size)
{
	char cmd[512];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "zbarimg -q --raw -Sdisable -Sqrcode.enable '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	n = fread(buf, 1, size - 1, p);
	buf[n] = '\0';
	if (pclose(p) != 0)
		return -1;
	if (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return (long)n;
}

static char data[4096], got[8192];

static void fill(size_t len, unsigned int seed)
{
	static const char alphabet[] = "{\"bench\":[0123456789.,abcdefghijklmnopqrstuvwxyz_ }";

	for (size_t i = 0; i < len; i++) {
		seed = seed * 1103515245u + 12345u;
		data[i] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
	}
	data[len] = '\0';
}

static void roundtrip(int version, enum qr_ecc ecc, size_t len, const char *what,
		      const char *pgm)
{
	char name[128], err[160];
	int rc;
	long n;

	fill(len, (unsigned)(version * 7 + ecc + len));
	rc = qr_encode(&q, data, len, ecc, err, sizeof(err));
	snprintf(name, sizeof(name), "version %d-%c, %zu bytes (%s): encodes, zbarimg reads it",
		 version, ecc == QR_ECC_L ? 'L' : 'M', len, what);
	if (rc || q.version != version) {
		kt_check(false, name, "rc %d (%s) version %d", rc, rc ? err : "", q.version);
		return;
	}
	if (write_pgm(pgm)) {
		kt_check(false, name, "cannot write %s", pgm);
		return;
	}
	n = zbar(pgm, got, sizeof(got));
	kt_check(n == (long)len && !memcmp(got, data, len), name,
		 "zbarimg gave %ld bytes \"%.60s\", want \"%.60s\"", n, n < 0 ? "" : got, data);
}

int main(void)
{
	char pgm[] = "/tmp/test_qrcode.XXXXXX";
	int fd = mkstemp(pgm);
	char err[160];
	long chosen;

	if (fd < 0 || system("command -v zbarimg >/dev/null") != 0) {
		kt_check(false, "zbarimg is there", "install zbar-tools (tools/deps.sh test)");
		return kt_finish();
	}
	close(fd);
	KT_EQ_U("capacity 1-L is 17 bytes", qr_capacity(1, QR_ECC_L), 17);
	KT_EQ_U("capacity 1-M is 14 bytes", qr_capacity(1, QR_ECC_M), 14);
	KT_EQ_U("capacity 40-L is 2953 bytes", qr_capacity(40, QR_ECC_L), 2953);
	KT_EQ_U("capacity 40-M is 2331 bytes", qr_capacity(40, QR_ECC_M), 2331);
	for (int ecc = QR_ECC_L; ecc <= QR_ECC_M; ecc++)
		for (int v = 1; v <= QR_MAX_VERSION; v++) {
			char name[96];
			int rc;

			roundtrip(v, (enum qr_ecc)ecc, (size_t)qr_capacity(v, (enum qr_ecc)ecc), "full",
				  pgm);
			if (v == 1)
				continue;
			rc = qr_encode(&q, data, (size_t)qr_capacity(v - 1, (enum qr_ecc)ecc) + 1,
				       (enum qr_ecc)ecc, err, sizeof(err));
			snprintf(name, sizeof(name), "a byte past %d-%c's capacity takes version %d",
				 v - 1, ecc == QR_ECC_L ? 'L' : 'M', v);
			kt_check(rc == 0 && q.version == v, name, "rc %d version %d", rc, q.version);
		}
	unlink(pgm);

	fill(200, 1);
	qr_encode(&q, data, 200, QR_ECC_M, err, sizeof(err));
	chosen = qr_penalty(&q);
	for (int m = 0; m < 8; m++) {
		static struct qr t;
		char name[64];

		t = q;
		qr_set_mask(&t, m);
		snprintf(name, sizeof(name), "mask %d scores no less than the one chosen", m);
		kt_check(qr_penalty(&t) >= chosen, name, "mask %d scores %ld, the chosen (%d) %ld", m,
			 qr_penalty(&t), q.mask, chosen);
	}
	{
		static struct qr t;

		t = q;
		qr_set_mask(&t, (q.mask + 1) % 8);
		qr_set_mask(&t, q.mask);
		kt_check(!memcmp(&t, &q, sizeof(t)), "qr_set_mask back to the chosen mask restores it",
			 "%s", "the symbol differs");
	}
	kt_check(qr_encode(&q, data, 2954, QR_ECC_L, err, sizeof(err)) == -1 &&
			 strstr(err, "2954 bytes do not fit a QR code at level L (at most 2953"),
		 "2954 bytes at L are refused", "%s", err);
	kt_check(qr_encode(&q, data, 2332, QR_ECC_M, err, sizeof(err)) == -1 &&
			 strstr(err, "at most 2331"),
		 "2332 bytes at M are refused", "%s", err);
	return kt_finish();
}
