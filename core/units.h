/*
 * units: physical quantities with units, as written in specs and options.
 *
 * Every quantity is stored in SI base units as a double: bytes per second,
 * seconds, watts, bytes, hertz.  Decimal prefixes (KB, MB, GB, TB; kW) are
 * powers of 1000 and binary prefixes (KiB, MiB, GiB, TiB) powers of 1024, as
 * the chapter "Supernodes" uses them.  "bit" and "b" are bits: "400 Gbit/s" = "400 Gb/s" =
 * 50 GB/s.  A missing or unknown unit is an error, never a default.
 */
#ifndef FX_UNITS_H
#define FX_UNITS_H

#include <stddef.h>

typedef enum fx_unit_kind {
	FX_UNIT_NONE = 0,   /* plain number */
	FX_UNIT_BANDWIDTH,  /* bytes per second */
	FX_UNIT_TIME,       /* seconds */
	FX_UNIT_POWER,      /* watts */
	FX_UNIT_SIZE,       /* bytes */
	FX_UNIT_FREQUENCY,  /* hertz */
	FX_UNIT_COMPUTE,    /* floating-point operations per second */
	FX_UNIT_KINDS
} fx_unit_kind;

/* "bandwidth", "time", ... */
const char *fx_unit_kind_name(fx_unit_kind k);
/* An example of a valid value of kind k, for error messages. */
const char *fx_unit_example(fx_unit_kind k);

typedef enum fx_unit_status {
	FX_UNIT_OK = 0,
	FX_UNIT_NOT_A_NUMBER,  /* text does not start with a finite number */
	FX_UNIT_MISSING,       /* a number without a unit */
	FX_UNIT_UNKNOWN,       /* a unit fx does not know */
	FX_UNIT_WRONG_KIND,    /* a known unit of another kind (see *got) */
	FX_UNIT_RANGE          /* a number too large for a double ("1e400") */
} fx_unit_status;

/*
 * Parses text such as "50 GB/s" as a quantity of kind `want`.  On success
 * stores the value in base units in *out; negative zero reads as zero.  On FX_UNIT_WRONG_KIND stores the
 * kind found in *got (may be NULL).  NULL text or out: FX_UNIT_NOT_A_NUMBER.
 */
fx_unit_status fx_unit_parse(const char *text, fx_unit_kind want, double *out,
			     fx_unit_kind *got);

/*
 * The message for a failed fx_unit_parse (st is not FX_UNIT_OK; got as it
 * left it), written once for every caller.  For a spec key (option 0) name
 * is its dotted path: "'fabric.link.bandwidth' needs a unit: '50'
 * (expected a bandwidth such as ...)"; units, when not NULL, replaces
 * "a <kind> such as <example>" where the unit is missing or unknown (a
 * list of the units the key takes).  For a command-line option (option 1)
 * name is the option: "--size: '1024' needs a unit (e.g. ...)".  The
 * caller frees the result.
 */
char *fx_unit_message(fx_unit_status st, const char *text, fx_unit_kind want, fx_unit_kind got,
		      int option, const char *name, const char *units);

/* Formats v (base units of kind k) with a readable prefix: "50 GB/s".
 * Returns buf; NULL when buf is NULL or len 0. */
char *fx_unit_format(double v, fx_unit_kind k, char *buf, size_t len);

#endif
