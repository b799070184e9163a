/*
 * diag: error reporting with source positions.
 *
 * Library functions never exit.  They return an int (0 = success, non-zero =
 * failure) and add messages to an fx_diag, in the way SQLite collects errors
 * in its parse context, so that one run reports every mistake in a spec.
 * Only main() turns the result into an exit status.
 *
 * Messages follow git's style: lowercase, no full stop, subject in quotes:
 *
 *   specs/x.yaml:12:7: error: unknown key 'radx' in 'fabric' (expected: ...)
 *        radx: 64
 *        ^
 *
 * The caret line is printed when the source text was registered with
 * fx_diag_add_source().  fx_diag owns copies of registered source texts.
 *
 * Every library function that takes an fx_diag accepts NULL for it: the
 * message then goes to stderr, counted nowhere (the return value still says
 * it failed).
 */
#ifndef FX_DIAG_H
#define FX_DIAG_H

#include <stdio.h>

/* Exit statuses of every fabricx command. */
enum {
	FX_EXIT_OK = 0,
	FX_EXIT_INTERNAL = 1,   /* a bug or an environment failure */
	FX_EXIT_INPUT = 2,      /* bad spec, bad option, missing file */
	FX_EXIT_INFEASIBLE = 3, /* the request is valid and proven not to fit */
	FX_EXIT_UNDECIDED = 4   /* not decided within a limit (time, model size):
				 * never reported as infeasible */
};

/* A position in a named source; line and col are 1-based, 0 = unknown. */
typedef struct fx_loc {
	const char *file;
	int line;
	int col;
} fx_loc;

typedef struct fx_diag_source {
	char *name;
	char *text;
} fx_diag_source;

typedef struct fx_diag {
	FILE *out;              /* where messages go; stderr by default; NULL:
				 * counted and kept (first, last), not shown */
	int nerr;               /* errors reported so far */
	int max_shown;          /* stop printing after this many (still counted) */
	int status;             /* exit status the errors call for (FX_EXIT_*) */
	char *last;             /* the last message reported, without position
				 * (explore records it as a section's reason) */
	char *first;            /* the first message counted, without position */
	fx_loc first_loc;       /* its position (file owned here; NULL, 0: unknown) */
	char *first_key;        /* the spec key it is about, or NULL (--json's
				 * error object reports these four) */
	fx_diag_source *src;
	size_t nsrc, capsrc;
} fx_diag;

void fx_diag_init(fx_diag *d);
void fx_diag_release(fx_diag *d);
/* Registers the text of a source so errors in it can show the line.
 * Returns fx_diag's own copy of name, valid until fx_diag_release(); source
 * positions (fx_loc.file) should point to it. */
const char *fx_diag_add_source(fx_diag *d, const char *name, const char *text);

/* Reports a bad-input error (exit status 2) at loc (may be NULL). Returns -1. */
int fx_diag_error(fx_diag *d, const fx_loc *loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Reports an internal error (exit status 1). Returns -1. */
int fx_diag_internal(fx_diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Reports an infeasible request (exit status 3). Returns -1. */
int fx_diag_infeasible(fx_diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Reports a question not decided within a limit (exit status 4). Returns -1. */
int fx_diag_undecided(fx_diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Names the spec key (dotted path) the first message is about, when the
 * message just reported was the first and no key is known yet. */
void fx_diag_key(fx_diag *d, const char *key);
/* Takes from's first message, position and key as to's first when to has
 * none (a command that ran others' diagnostics apart, for --json's error
 * object); counts and statuses stay the caller's. */
void fx_diag_adopt(fx_diag *to, const fx_diag *from);
/* How grave an exit status is: internal 4 > bad input 3 > infeasible 2 >
 * not decided 1 > ok 0.  A run reports the gravest of its messages. */
int fx_diag_gravity(int status);
/* A note attached to the previous message; no count, no status change. */
void fx_diag_note(fx_diag *d, const fx_loc *loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
