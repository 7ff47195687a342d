/*
 * svg.h - a small SVG writer for the tools' pictures: shapes and text
 * with the numbers on hover (an element's <title>), two colour scales.
 * It writes to a stdio stream; write errors are the stream's (ferror).
 *
 *	mk_svg_open(fp, 800, 600, "title");
 *	mk_svg_rect(fp, (struct mk_svg_box){ .x = x, .y = y, .w = w,
 *	    .h = h }, fill, "GPU %d: %g", g, v);
 *	mk_svg_close(fp);
 */
#ifndef MK_SVG_H
#define MK_SVG_H

#include <stdio.h>

/* The document: width and height in pixels, a title for the viewer. */
void	mk_svg_open(FILE *fp, int w, int h, const char *title);
void	mk_svg_close(FILE *fp);

/* Text at (x, y): anchor "start", "middle" or "end"; size in pixels. */
void	mk_svg_text(FILE *fp, double x, double y, const char *anchor,
	    int size, const char *fmt, ...) __attribute__((format(printf, 6,
	    7)));

/*
 * Width w, or more where a line s of text at size, from x = 16 or 20 (where
 * the tools put their titles), would pass the right edge: a title made of
 * file names must not be cut off.  DejaVu Sans, the document's font,
 * averages under 0.6 of the size a character.
 */
int	mk_svg_fit(int w, int size, const char *s);

/* Vertical text (an axis label), centred at (x, y). */
void	mk_svg_vtext(FILE *fp, double x, double y, int size, const char *s);

/* A rectangle: its top left corner (x, y), its width and height. */
struct mk_svg_box {
	double	 x, y, w, h;
};

/* A line from (x1, y1) to (x2, y2). */
struct mk_svg_seg {
	double	 x1, y1, x2, y2;
};

/* A circle (a point of a scatter): centre, radius, colours (stroke may
 * be NULL). */
struct mk_svg_dot {
	double		 x, y, r;
	const char	*fill, *stroke;
};

/* A filled rectangle; tip (printf format, may be NULL) shows on hover. */
void	mk_svg_rect(FILE *fp, struct mk_svg_box b, const char *fill,
	    const char *tip, ...) __attribute__((format(printf, 4, 5)));

/* A circle; tip as above. */
void	mk_svg_circle(FILE *fp, struct mk_svg_dot d, const char *tip, ...)
	    __attribute__((format(printf, 3, 4)));

/* An unfilled rectangle (a mark around something). */
void	mk_svg_frame(FILE *fp, struct mk_svg_box b, const char *stroke,
	    double width);

/* A line. */
void	mk_svg_line(FILE *fp, struct mk_svg_seg s, const char *stroke,
	    double width);

/*
 * Colours as "#rrggbb" into out[8].  mk_svg_ratio: a ratio to a mean,
 * white at 1, blue below (0: full blue), red above (2 and more: full
 * red).  mk_svg_level: t in [0, 1] from pale to dark (a sequential
 * scale).
 */
void	mk_svg_ratio(double r, char *out);
void	mk_svg_level(double t, char *out);

/* A colour bar's scale: from lo to hi, n + 1 ticks, a caption;
 * mk_svg_ratio's colours, or (level) mk_svg_level's with lo and hi at its
 * ends. */
struct mk_svg_scale {
	double		 lo, hi;
	int		 n, level;
	const char	*caption;
};

/* A colour bar in box b, labelled below with its ticks and caption. */
void	mk_svg_scale_bar(FILE *fp, struct mk_svg_box b,
	    const struct mk_svg_scale *s);

#endif
