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
#include "kernel/font.h"
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

/*
 * Once the results page is up (page_top >= 0), only the rows from page_top down scroll, one
 * at a time: what is printed after the page never moves it.
 */
static int page_top = -1;

static void scroll(void)
{
	int top = page_top >= 0 ? page_top : 0;
	int k = page_top >= 0 ? 1 : ops->rows / 2 ? ops->rows / 2 : 1;

	memmove(grid[top], grid[top + k], sizeof(grid[0]) * (size_t)(ops->rows - top - k));
	for (int r = ops->rows - k; r < ops->rows; r++)
		for (int c = 0; c < ops->cols; c++)
			grid[r][c] = (struct cell){ ' ', SCREEN_NORMAL };
	cur_row -= k;
	line_row -= k;
	if (line_row < top)
		line_row = top, line_col = 0; /* its start scrolled away: colour what is left */
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
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* drains a write-combining framebuffer's buffers */
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
	page_top = -1;
	screen_write(early, early_len);
	early_len = 0;
}

/* ---- the results page ---- */

enum { ITEM_GROUP, ITEM_ROW };

struct item {
	u8 kind;
	char a[72];	   /* a group's title, a row's scheme */
	char b[24], c[24]; /* a row's figure and ratio */
};

static char results[3000];
static char machine[200];
static struct item items[160];
static int nr_items, items_lost;

void screen_set_results(const char *json)
{
	strlcpy(results, json, sizeof(results));
}

void screen_results_machine(const char *line)
{
	strlcpy(machine, line, sizeof(machine));
}

static struct item *new_item(int kind)
{
	if (nr_items == (int)ARRAY_SIZE(items)) {
		items_lost++;
		return NULL;
	}
	items[nr_items].kind = (u8)kind;
	return &items[nr_items++];
}

void screen_results_group(const char *title)
{
	struct item *it = new_item(ITEM_GROUP);

	if (it)
		strlcpy(it->a, title, sizeof(it->a));
}

void screen_results_row(const char *scheme, const char *value, const char *ratio)
{
	struct item *it = new_item(ITEM_ROW);

	if (!it)
		return;
	strlcpy(it->a, scheme, sizeof(it->a));
	strlcpy(it->b, value, sizeof(it->b));
	strlcpy(it->c, ratio, sizeof(it->c));
}

/* The page's geometry: rows [0, limit) hold it; beside the QR code (rows [0, qr_rows)) a
 * row has beside columns, below it all of them. */
struct page {
	int limit, qr_rows, beside;
};

static int page_width(const struct page *pg, int r)
{
	return r < pg->qr_rows ? pg->beside : ops->cols;
}

/* At most n characters of s at (row, col), in colour; returns how many were put. */
static int page_put(int r, int c, const char *s, int n, enum screen_colour colour)
{
	int k = 0;

	for (; s[k] && k < n && c + k < ops->cols; k++)
		grid[r][c + k] = (struct cell){ s[k], (u8)colour };
	return k;
}

/* s from row *r on, broken at spaces to each row's width; *r moves past it. */
static void page_wrap(const struct page *pg, int *r, const char *s)
{
	while (*s && *r < pg->limit) {
		int w = page_width(pg, *r), n = (int)strlen(s);

		if (n > w) {
			n = w;
			while (n > 0 && s[n] != ' ')
				n--;
			if (!n)
				n = w; /* one word longer than the row: cut it */
		}
		page_put((*r)++, 0, s, n, SCREEN_NORMAL);
		s += n;
		while (*s == ' ')
			s++;
	}
}

/* The rows of figures left from item i on. */
static int rows_from(int i)
{
	int n = 0;

	for (; i < nr_items; i++)
		n += items[i].kind == ITEM_ROW;
	return n;
}

/* Whether the items from i on (item i itself may be a title) are one group's figures, at
 * most per of them: one row holds them all. */
static bool rest_fits_a_row(int i, int per)
{
	for (int j = i + 1; j < nr_items; j++)
		if (items[j].kind == ITEM_GROUP)
			return false;
	return !items_lost && rows_from(i) <= per;
}

/* The summary table from row r: a group's title on a row of its own, its figures as many
 * to a row as fit (indented by 2, 3 columns apart), all aligned; the last row says what
 * did not fit. */
static void page_table(const struct page *pg, int r)
{
	int sw = 0, vw = 0, rw = 0, cw, i = 0;
	char cell[140];

	for (int j = 0; j < nr_items; j++)
		if (items[j].kind == ITEM_ROW) {
			sw = MAX(sw, (int)strlen(items[j].a));
			vw = MAX(vw, (int)strlen(items[j].b));
			rw = MAX(rw, (int)strlen(items[j].c));
		}
	cw = sw + 1 + vw + 2 + rw;
	while (i < nr_items && r < pg->limit) {
		int w = page_width(pg, r), k = 0, per = MAX(1, (w + 1) / (cw + 3));
		int per_last = MAX(1, (page_width(pg, pg->limit - 1) + 1) / (cw + 3));
		bool last = r == pg->limit - 1;

		if (items[i].kind == ITEM_GROUP) {
			/* a title with none of its figures is no use: say what is left instead */
			if (last || (r == pg->limit - 2 && !rest_fits_a_row(i, per_last)))
				break;
			page_put(r++, 0, items[i++].a, w, SCREEN_NORMAL);
			continue;
		}
		if (last && !rest_fits_a_row(i, per))
			break;
		while (i < nr_items && items[i].kind == ITEM_ROW && k < per) {
			snprintf(cell, sizeof(cell), "%-*s %*s  %-*s", sw, items[i].a, vw, items[i].b,
				 rw, items[i].c);
			page_put(r, 2 + k * (cw + 3), cell, MIN(cw, w - 2 - k * (cw + 3)),
				 SCREEN_NORMAL);
			i++;
			k++;
		}
		r++;
	}
	if (i < nr_items || items_lost) {
		int left = rows_from(i) + items_lost;

		r = MIN(r, pg->limit - 1);
		snprintf(cell, sizeof(cell), "... %d more figure%s: all are in the serial log%s",
			 left, left == 1 ? "" : "s", pg->qr_rows ? " and the QR code" : "");
		for (int c = 0; c < ops->cols; c++)
			grid[r][c] = (struct cell){ ' ', SCREEN_NORMAL };
		page_put(r, 0, cell, page_width(pg, r), SCREEN_NORMAL);
	}
}

/* word at scale times the font's size, its top left corner at pixel (x, y). */
static void page_big(u32 x, u32 y, const char *word, u32 scale, int ink)
{
	for (int i = 0; word[i]; i++) {
		const unsigned char *g = font_glyphs[(u8)word[i] - FONT_FIRST];

		for (u32 gy = 0; gy < font_height; gy++)
			for (u32 gx = 0; gx < 8; gx++)
				if (g[gy] & (0x80u >> gx))
					ops->fill(x + ((u32)i * 8 + gx) * scale, y + gy * scale, scale,
						  scale, ink);
	}
}

void screen_show_results(const char *result)
{
	static char text[3100];
	static struct qr q;
	char err[128], note[200] = "";
	const char *word = !strcmp(result, "pass") ? "PASS" : !strcmp(result, "fail") ? "FAIL"
										       : "PANIC";
	enum screen_colour colour = !strcmp(result, "pass") ? SCREEN_OK : SCREEN_FAIL;
	struct page pg = { 0 };
	u32 scale = 0, side = 0, x0 = 0, big = 1;
	int me = smp_processor_id(), prev = READ_ONCE(owner), n, r;

	if (!ops || !nr_items || prev == me)
		return; /* no benchmark summary: the run's text stays */
	WRITE_ONCE(owner, me);
	pg.limit = ops->rows - SCREEN_PAGE_STATUS_ROWS;
	pg.beside = ops->cols;
	if (!ops->fill) {
		snprintf(note, sizeof(note), "screen: a text screen: the results page has no QR "
			 "code; the JSON summary is in the serial log");
	} else if (!results[0]) {
		snprintf(note, sizeof(note), "screen: no JSON summary for the results' QR code");
	} else if ((n = snprintf(text, sizeof(text), "{\"result\":\"%s\",%s", result, results + 1)) >=
			   (int)sizeof(text) ||
		   (qr_encode(&q, text, (size_t)n, QR_ECC_M, err, sizeof(err)) &&
		    qr_encode(&q, text, (size_t)n, QR_ECC_L, err, sizeof(err)))) {
		snprintf(note, sizeof(note), "screen: no QR code for the results: %s",
			 n >= (int)sizeof(text) ? "too long" : err);
	} else {
		/*
		 * A 4-module quiet zone around it (ISO/IEC 18004:2015, 6.3.8), whole pixels a
		 * module, at most half the width, above the status rows; on a narrow screen as
		 * much as leaves 30 columns of text.
		 */
		u32 m = (u32)q.size + 8, h = (u32)pg.limit * font_height;

		scale = MIN(h, ops->width / 2) / m;
		if (scale < 2 && ops->width > 8 * 31)
			scale = MIN(h, ops->width - 8 * 31) / m;
		if (scale < 2) {
			snprintf(note, sizeof(note), "screen: the results' QR code (version %d, %d "
				 "modules a side) does not fit this screen at 2 pixels a module",
				 q.version, q.size);
		} else {
			side = scale * m;
			x0 = ops->width - side;
			pg.qr_rows = (int)((side + font_height - 1) / font_height);
			pg.beside = (int)(x0 / 8) - 1;
		}
	}
	for (r = 0; r < ops->rows; r++)
		for (int c = 0; c < ops->cols; c++)
			grid[r][c] = (struct cell){ ' ', SCREEN_NORMAL };
	/* The result, up to 4 times the font's size where it fits beside the QR code. */
	if (ops->fill)
		for (big = 4; big > 1; big--)
			if ((int)(big * strlen(word)) <= page_width(&pg, 0) && (int)big < pg.limit - 2)
				break;
	if (big == 1)
		page_put(0, 0, word, ops->cols, colour);
	r = (int)big;
	page_wrap(&pg, &r, machine);
	page_table(&pg, r + 1);
	flush();
	if (big > 1)
		page_big(0, 0, word, big, colour);
	if (side) {
		ops->fill(x0, 0, side, side, SCREEN_INK_WHITE);
		for (int y = 0; y < q.size; y++)
			for (int x = 0; x < q.size; x++)
				if (q.dark[y][x])
					ops->fill(x0 + scale * (u32)(x + 4), scale * (u32)(y + 4), scale,
						  scale, SCREEN_INK_BLACK);
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	page_top = pg.limit;
	cur_row = line_row = page_top;
	cur_col = line_col = 0;
	line_len = 0;
	WRITE_ONCE(owner, prev);
	if (note[0])
		printk("%s\n", note);
	n = rows_from(0) + items_lost;
	if (side)
		printk("screen: results page: %s at %ux, %d figure%s, QR code %d-%c, %u px a module\n",
		       word, big, n, n == 1 ? "" : "s", q.version, q.ecc == QR_ECC_M ? 'M' : 'L',
		       scale);
	else
		printk("screen: results page: %s at %ux, %d figure%s, no QR code\n", word, big, n,
		       n == 1 ? "" : "s");
}
