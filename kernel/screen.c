// SPDX-License-Identifier: MIT
/*
 * The screen console's text (kernel/screen.h): a grid of cells, the cells the backend shows,
 * and the line being written.
 *
 * Output arrives from console_write, under printk's console lock, or without it once a panic
 * has stopped the other CPUs (by NMI: a CPU stopped halfway through here never runs again,
 * so the panicking one simply carries on with the grid). A CPU that faults while drawing
 * and comes back through the panic path would find the grid half changed: that nested call
 * is left to the serial port (the owner field).
 *
 * Each write changes the grid; then the cells that differ from what the backend shows are
 * drawn, once. A line is coloured when it ends. At the bottom the grid moves up by half a
 * screen at once, xterm's "jump scroll": a framebuffer has no hardware scrolling, and
 * redrawing the whole screen for every line would cost more than all the drawing of text
 * under emulation. Characters outside ASCII's printable range show as the replacement
 * glyph; a tab moves to the next multiple of 8 columns; a line longer than the screen
 * continues on the next row.
 */
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/qrcode.h"
#include "kernel/screen.h"
#include "kernel/string.h"

struct cell {
	char ch;
	u8 colour;
};

static const struct screen_ops *ops;
static struct cell grid[SCREEN_MAX_ROWS][SCREEN_MAX_COLS];
static struct cell shown[SCREEN_MAX_ROWS][SCREEN_MAX_COLS];
static int cur_col, cur_row;
static int line_row, line_col; /* where the line being written started */
static char line[512];
static size_t line_len;
static int owner = -1; /* the CPU inside screen_write */

/* Before a screen is attached: what was written, to show it then. */
static char early[8192];
static size_t early_len;

static bool starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(s, prefix, k);
}

static bool contains(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);

	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(s + i, needle, k))
			return true;
	return false;
}

enum screen_colour screen_line_colour(const char *s, size_t n)
{
	const char *t = s;
	size_t m = n;

	while (m && *t == ' ') {
		t++;
		m--;
	}
	if (contains(s, n, "KERNEL PANIC") || starts(t, m, "EXCEPTION"))
		return SCREEN_PANIC;
	if (starts(t, m, "not ok") || contains(s, n, "FAILED") || starts(t, m, "slablab: fail") ||
	    starts(t, m, "slablab: panic"))
		return SCREEN_FAIL;
	if (contains(s, n, "# SKIP"))
		return SCREEN_SKIP;
	if (starts(t, m, "ok ") || starts(t, m, "slablab: pass"))
		return SCREEN_OK;
	return SCREEN_NORMAL;
}

static void scroll(void)
{
	int k = ops->rows / 2 ? ops->rows / 2 : 1;

	memmove(grid[0], grid[k], sizeof(grid[0]) * (size_t)(ops->rows - k));
	for (int r = ops->rows - k; r < ops->rows; r++)
		for (int c = 0; c < ops->cols; c++)
			grid[r][c] = (struct cell){ ' ', SCREEN_NORMAL };
	cur_row -= k;
	line_row -= k;
	if (line_row < 0)
		line_row = line_col = 0; /* its start scrolled away: colour what is left */
}

static void newline(void)
{
	cur_col = 0;
	if (++cur_row == ops->rows)
		scroll();
}

static void end_line(void)
{
	enum screen_colour colour = screen_line_colour(line, line_len);
	int r = line_row, c = line_col;

	if (colour != SCREEN_NORMAL)
		while (r < cur_row || (r == cur_row && c < cur_col)) {
			grid[r][c].colour = colour;
			if (++c == ops->cols) {
				c = 0;
				r++;
			}
		}
	line_len = 0;
	newline();
	line_row = cur_row;
	line_col = 0;
}

static void put(char ch)
{
	if (ch == '\n') {
		end_line();
		return;
	}
	if (ch == '\r') {
		cur_col = 0;
		return;
	}
	if (ch == '\t') {
		do
			put(' ');
		while (cur_col % 8);
		return;
	}
	if (line_len < sizeof(line))
		line[line_len++] = ch;
	if (cur_col == ops->cols)
		newline();
	grid[cur_row][cur_col++] = (struct cell){ ch, SCREEN_NORMAL };
}

static void flush(void)
{
	for (int r = 0; r < ops->rows; r++)
		for (int c = 0; c < ops->cols; c++)
			if (grid[r][c].ch != shown[r][c].ch || grid[r][c].colour != shown[r][c].colour) {
				ops->draw(c, r, grid[r][c].ch, grid[r][c].colour);
				shown[r][c] = grid[r][c];
			}
}

void screen_write(const char *s, size_t n)
{
	int me = smp_processor_id(), prev = READ_ONCE(owner);

	if (prev == me)
		return; /* a fault while drawing, reported from inside it: serial only */
	WRITE_ONCE(owner, me);
	if (!ops) {
		size_t k = MIN(n, sizeof(early) - early_len);

		memcpy(early + early_len, s, k);
		early_len += k;
	} else {
		for (size_t i = 0; i < n; i++)
			put(s[i]);
		flush();
	}
	WRITE_ONCE(owner, prev);
}

void screen_attach(const struct screen_ops *o)
{
	ops = o;
	for (int r = 0; r < o->rows; r++)
		for (int c = 0; c < o->cols; c++) {
			grid[r][c] = (struct cell){ ' ', SCREEN_NORMAL };
			shown[r][c] = (struct cell){ 0, 0xff }; /* differs from every cell: all drawn */
		}
	cur_col = cur_row = line_row = line_col = 0;
	line_len = 0;
	screen_write(early, early_len);
	early_len = 0;
}

static char results[3000];

void screen_set_results(const char *json)
{
	strlcpy(results, json, sizeof(results));
}

void screen_show_results(const char *result)
{
	static char text[3100];
	static struct qr q;
	char err[128];
	u32 scale, side, x0;
	int n;

	if (!results[0] || !ops)
		return;
	if (!ops->fill) {
		printk("screen: text mode has no room for the results' QR code\n");
		return;
	}
	n = snprintf(text, sizeof(text), "{\"result\":\"%s\",%s", result, results + 1);
	if (n >= (int)sizeof(text) || (qr_encode(&q, text, (size_t)n, QR_ECC_M, err, sizeof(err)) &&
				       qr_encode(&q, text, (size_t)n, QR_ECC_L, err, sizeof(err)))) {
		printk("screen: no QR code for the results: %s\n", n >= (int)sizeof(text) ?
		       "too long" : err);
		return;
	}
	/* A 4-module quiet zone around it (ISO/IEC 18004:2015, 6.3.8), whole pixels a module. */
	scale = MIN(ops->height, ops->width / 2) / (u32)(q.size + 8);
	if (scale < 2) {
		printk("screen: the results' QR code (version %d, %d modules a side) does not fit "
		       "this screen at 2 pixels a module\n", q.version, q.size);
		return;
	}
	side = scale * (u32)(q.size + 8);
	x0 = ops->width - side;
	ops->fill(x0, 0, side, side, false);
	for (int y = 0; y < q.size; y++)
		for (int x = 0; x < q.size; x++)
			if (q.dark[y][x])
				ops->fill(x0 + scale * (u32)(x + 4), scale * (u32)(y + 4), scale, scale,
					  true);
}
