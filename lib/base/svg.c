/* svg.c - the SVG writer; see svg.h. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/svg.h"

/* Text into an SVG document: the three characters XML reserves escaped. */
static void
put_escaped(FILE *fp, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '&')
			fputs("&amp;", fp);
		else if (*s == '<')
			fputs("&lt;", fp);
		else if (*s == '>')
			fputs("&gt;", fp);
		else
			fputc(*s, fp);
	}
}

static void
vput_escaped(FILE *fp, const char *fmt, va_list ap)
{
	char buf[512];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	put_escaped(fp, buf);
}

/* Close an element begun with its attributes: bare, or holding the tip. */
static void
vend_tip(FILE *fp, const char *tag, const char *tip, va_list ap)
{
	if (tip == NULL) {
		fputs("/>\n", fp);
		return;
	}
	fputs("><title>", fp);
	vput_escaped(fp, tip, ap);
	fprintf(fp, "</title></%s>\n", tag);
}

void
mk_svg_open(FILE *fp, int w, int h, const char *title)
{
	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
	    "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, "
	    "Helvetica, Arial, sans-serif\">\n<title>", w, h, w, h);
	put_escaped(fp, title);
	fprintf(fp, "</title>\n<rect width=\"%d\" height=\"%d\" "
	    "fill=\"white\"/>\n", w, h);
}

void
mk_svg_close(FILE *fp)
{
	fputs("</svg>\n", fp);
}

void
mk_svg_text(FILE *fp, double x, double y, const char *anchor, int size,
    const char *fmt, ...)
{
	va_list ap;

	fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" "
	    "text-anchor=\"%s\">", x, y, size, anchor);
	va_start(ap, fmt);
	vput_escaped(fp, fmt, ap);
	va_end(ap);
	fputs("</text>\n", fp);
}

int
mk_svg_fit(int w, int size, const char *s)
{
	double need = 32 + 0.6 * size * (double)strlen(s);

	return need > w ? (int)ceil(need) : w;
}

void
mk_svg_vtext(FILE *fp, double x, double y, int size, const char *s)
{
	fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" "
	    "text-anchor=\"middle\" transform=\"rotate(-90 %.1f %.1f)\">",
	    x, y, size, x, y);
	put_escaped(fp, s);
	fputs("</text>\n", fp);
}

void
mk_svg_rect(FILE *fp, struct mk_svg_box b, const char *fill,
    const char *tip, ...)
{
	va_list ap;

	fprintf(fp, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
	    "height=\"%.2f\" fill=\"%s\"", b.x, b.y, b.w, b.h, fill);
	va_start(ap, tip);
	vend_tip(fp, "rect", tip, ap);
	va_end(ap);
}

void
mk_svg_circle(FILE *fp, struct mk_svg_dot d, const char *tip, ...)
{
	va_list ap;

	fprintf(fp, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\" fill=\"%s\"",
	    d.x, d.y, d.r, d.fill);
	if (d.stroke != NULL)
		fprintf(fp, " stroke=\"%s\" stroke-width=\"1.5\"", d.stroke);
	va_start(ap, tip);
	vend_tip(fp, "circle", tip, ap);
	va_end(ap);
}

void
mk_svg_frame(FILE *fp, struct mk_svg_box b, const char *stroke, double width)
{
	fprintf(fp, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
	    "height=\"%.2f\" fill=\"none\" stroke=\"%s\" "
	    "stroke-width=\"%.1f\"/>\n", b.x, b.y, b.w, b.h, stroke, width);
}

void
mk_svg_line(FILE *fp, struct mk_svg_seg s, const char *stroke, double width)
{
	fprintf(fp, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
	    "stroke=\"%s\" stroke-width=\"%.1f\"/>\n", s.x1, s.y1, s.x2, s.y2,
	    stroke, width);
}

static int
channel(double v)
{
	return v <= 0 ? 0 : v >= 255 ? 255 : (int)lround(v);
}

void
mk_svg_ratio(double r, char *out)
{
	/* blue (33,102,172) - white - red (178,24,43), ColorBrewer's RdBu */
	double t;
	int rr, g, b;

	if (!(r == r))
		r = 1;
	t = r < 1 ? 1 - (r < 0 ? 0 : r) : (r > 2 ? 1 : r - 1);
	if (r < 1) {
		rr = channel(247 + (33 - 247) * t);
		g = channel(247 + (102 - 247) * t);
		b = channel(247 + (172 - 247) * t);
	} else {
		rr = channel(247 + (178 - 247) * t);
		g = channel(247 + (24 - 247) * t);
		b = channel(247 + (43 - 247) * t);
	}
	snprintf(out, 8, "#%02x%02x%02x", rr, g, b);
}

void
mk_svg_level(double t, char *out)
{
	/* pale yellow (255,247,188) to dark red-brown (140,45,4) */
	if (!(t == t) || t < 0)
		t = 0;
	if (t > 1)
		t = 1;
	snprintf(out, 8, "#%02x%02x%02x", channel(255 + (140 - 255) * t),
	    channel(247 + (45 - 247) * t), channel(188 + (4 - 188) * t));
}

void
mk_svg_scale_bar(FILE *fp, struct mk_svg_box b, const struct mk_svg_scale *s)
{
	const double x = b.x, y = b.y, w = b.w, h = b.h, lo = s->lo, hi = s->hi;
	const int n = s->n, level = s->level;
	const char *caption = s->caption;
	char c[8];
	int i, steps = 64;

	for (i = 0; i < steps; i++) {
		if (level)
			mk_svg_level((i + 0.5) / steps, c);
		else
			mk_svg_ratio(lo + (hi - lo) * (i + 0.5) / steps, c);
		mk_svg_rect(fp, (struct mk_svg_box){ .x = x + w * i / steps,
		    .y = y, .w = w / steps + 0.5, .h = h }, c, NULL);
	}
	mk_svg_frame(fp, (struct mk_svg_box){ .x = x, .y = y, .w = w, .h = h },
	    "#888", 0.5);
	for (i = 0; i <= n; i++) {
		mk_svg_line(fp, (struct mk_svg_seg){ .x1 = x + w * i / n,
		    .y1 = y + h, .x2 = x + w * i / n, .y2 = y + h + 3 }, "#444",
		    0.8);
		mk_svg_text(fp, x + w * i / n, y + h + 14, "middle", 10, "%g",
		    lo + (hi - lo) * i / n);
	}
	mk_svg_text(fp, x + w / 2, y + h + 28, "middle", 11, "%s", caption);
}
