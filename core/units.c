#include "units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

typedef struct unit {
	const char *name;
	fx_unit_kind kind;
	double factor;   /* base units per one of this unit */
} unit;

#define KI 1024.0
static const unit units[] = {
	/* bandwidth: bytes and bits per second, decimal and binary */
	{"B/s", FX_UNIT_BANDWIDTH, 1},
	{"KB/s", FX_UNIT_BANDWIDTH, 1e3},
	{"kB/s", FX_UNIT_BANDWIDTH, 1e3},
	{"MB/s", FX_UNIT_BANDWIDTH, 1e6},
	{"GB/s", FX_UNIT_BANDWIDTH, 1e9},
	{"TB/s", FX_UNIT_BANDWIDTH, 1e12},
	{"PB/s", FX_UNIT_BANDWIDTH, 1e15},
	{"KiB/s", FX_UNIT_BANDWIDTH, KI},
	{"MiB/s", FX_UNIT_BANDWIDTH, KI * KI},
	{"GiB/s", FX_UNIT_BANDWIDTH, KI * KI * KI},
	{"TiB/s", FX_UNIT_BANDWIDTH, KI * KI * KI * KI},
	{"bit/s", FX_UNIT_BANDWIDTH, 1 / 8.0},
	{"kbit/s", FX_UNIT_BANDWIDTH, 1e3 / 8},
	{"Mbit/s", FX_UNIT_BANDWIDTH, 1e6 / 8},
	{"Gbit/s", FX_UNIT_BANDWIDTH, 1e9 / 8},
	{"Tbit/s", FX_UNIT_BANDWIDTH, 1e12 / 8},
	{"Pbit/s", FX_UNIT_BANDWIDTH, 1e15 / 8},
	{"b/s", FX_UNIT_BANDWIDTH, 1 / 8.0},
	{"kb/s", FX_UNIT_BANDWIDTH, 1e3 / 8},
	{"Mb/s", FX_UNIT_BANDWIDTH, 1e6 / 8},
	{"Gb/s", FX_UNIT_BANDWIDTH, 1e9 / 8},
	{"Tb/s", FX_UNIT_BANDWIDTH, 1e12 / 8},
	{"Pb/s", FX_UNIT_BANDWIDTH, 1e15 / 8},
	{"Gbps", FX_UNIT_BANDWIDTH, 1e9 / 8},
	{"Tbps", FX_UNIT_BANDWIDTH, 1e12 / 8},
	/* time */
	{"ps", FX_UNIT_TIME, 1e-12},
	{"ns", FX_UNIT_TIME, 1e-9},
	{"us", FX_UNIT_TIME, 1e-6},
	{"\xce\xbcs", FX_UNIT_TIME, 1e-6},  /* U+03BC Greek mu */
	{"\xc2\xb5s", FX_UNIT_TIME, 1e-6},  /* U+00B5 micro sign */
	{"ms", FX_UNIT_TIME, 1e-3},
	{"s", FX_UNIT_TIME, 1},
	/* power */
	{"mW", FX_UNIT_POWER, 1e-3},
	{"W", FX_UNIT_POWER, 1},
	{"kW", FX_UNIT_POWER, 1e3},
	{"MW", FX_UNIT_POWER, 1e6},
	/* size */
	{"B", FX_UNIT_SIZE, 1},
	{"KB", FX_UNIT_SIZE, 1e3},
	{"kB", FX_UNIT_SIZE, 1e3},
	{"MB", FX_UNIT_SIZE, 1e6},
	{"GB", FX_UNIT_SIZE, 1e9},
	{"TB", FX_UNIT_SIZE, 1e12},
	{"PB", FX_UNIT_SIZE, 1e15},
	{"KiB", FX_UNIT_SIZE, KI},
	{"MiB", FX_UNIT_SIZE, KI * KI},
	{"GiB", FX_UNIT_SIZE, KI * KI * KI},
	{"TiB", FX_UNIT_SIZE, KI * KI * KI * KI},
	/* frequency */
	{"Hz", FX_UNIT_FREQUENCY, 1},
	{"kHz", FX_UNIT_FREQUENCY, 1e3},
	{"MHz", FX_UNIT_FREQUENCY, 1e6},
	{"GHz", FX_UNIT_FREQUENCY, 1e9},

	{"FLOP/s", FX_UNIT_COMPUTE, 1},
	{"GFLOP/s", FX_UNIT_COMPUTE, 1e9},
	{"TFLOP/s", FX_UNIT_COMPUTE, 1e12},
	{"PFLOP/s", FX_UNIT_COMPUTE, 1e15},
};

const char *fx_unit_kind_name(fx_unit_kind k)
{
	static const char *const names[FX_UNIT_KINDS] = {
		"number", "bandwidth", "time", "power", "size", "frequency", "compute rate"};
	return k < FX_UNIT_KINDS ? names[k] : "?";
}

const char *fx_unit_example(fx_unit_kind k)
{
	static const char *const ex[FX_UNIT_KINDS] = {
		"4", "'50 GB/s' or '400 Gbit/s'", "'200 ns' or '0.822 us'",
		"'700 W' or '10.2 kW'", "'48 KiB' or '32 MiB'", "'1.1 GHz'", "'989.4 TFLOP/s'"};
	return k < FX_UNIT_KINDS ? ex[k] : "?";
}

char *fx_unit_message(fx_unit_status st, const char *text, fx_unit_kind want, fx_unit_kind got,
		      int option, const char *name, const char *units)
{
	const char *kind = fx_unit_kind_name(want), *ex = fx_unit_example(want);
	text = text ? text : "(nothing)";
	name = name ? name : "(a value)";
	if (option) {
		switch (st) {
		case FX_UNIT_RANGE:
			return fx_xasprintf("%s: '%s' is out of range", name, text);
		case FX_UNIT_MISSING:
			return fx_xasprintf("%s: '%s' needs a unit (e.g. %s)", name, text, ex);
		case FX_UNIT_WRONG_KIND:
			return fx_xasprintf("%s: '%s' is a %s, expected a %s (e.g. %s)", name, text,
					    fx_unit_kind_name(got), kind, ex);
		default:
			return fx_xasprintf("%s: '%s' is not a %s (e.g. %s)", name, text, kind, ex);
		}
	}
	char *what = fx_xasprintf("a %s such as %s", kind, ex), *msg;
	const char *expected = units ? units : what;
	switch (st) {
	case FX_UNIT_MISSING:
		msg = fx_xasprintf("'%s' needs a unit: '%s' (expected %s)", name, text, expected);
		break;
	case FX_UNIT_UNKNOWN:
		msg = fx_xasprintf("'%s' has an unknown unit in '%s' (expected %s)", name, text, expected);
		break;
	case FX_UNIT_WRONG_KIND:
		msg = fx_xasprintf("'%s' must be a %s, but '%s' is a %s (expected %s)", name, kind, text,
				   fx_unit_kind_name(got), ex);
		break;
	case FX_UNIT_RANGE:
		msg = fx_xasprintf("'%s' is out of range: '%s'", name, text);
		break;
	default:
		msg = fx_xasprintf("'%s' must be %s, got '%s'", name, what, text);
		break;
	}
	free(what);
	return msg;
}

fx_unit_status fx_unit_parse(const char *text, fx_unit_kind want, double *out,
			     fx_unit_kind *got)
{
	char *end;
	if (!text || !out)
		return FX_UNIT_NOT_A_NUMBER;
	while (*text == ' ')
		text++;
	double v = strtod(text, &end);
	if (end == text)
		return FX_UNIT_NOT_A_NUMBER;
	/* decimal numbers only: strtod also takes hex ("0x10"), "nan" and
	 * "infinity" */
	for (const char *c = text; c < end; c++)
		if (!strchr("0123456789+-.eE", *c))
			return FX_UNIT_NOT_A_NUMBER;
	if (!isfinite(v))
		return FX_UNIT_RANGE;  /* digits that overflow a double */
	v += 0.0;  /* -0 is 0: no "-0 ns" in reports */
	const char *u = end;
	while (*u == ' ')
		u++;
	size_t ulen = strlen(u);
	while (ulen > 0 && u[ulen - 1] == ' ')
		ulen--;
	if (ulen == 0) {
		if (want == FX_UNIT_NONE) {
			*out = v;
			return FX_UNIT_OK;
		}
		return FX_UNIT_MISSING;
	}
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (strlen(units[i].name) != ulen || strncmp(units[i].name, u, ulen) != 0)
			continue;
		if (units[i].kind != want) {
			if (got)
				*got = units[i].kind;
			return FX_UNIT_WRONG_KIND;
		}
		*out = v * units[i].factor;
		return FX_UNIT_OK;
	}
	return FX_UNIT_UNKNOWN;
}

char *fx_unit_format(double v, fx_unit_kind k, char *buf, size_t len)
{
	static const struct { fx_unit_kind k; double f; const char *name; } steps[] = {
		{FX_UNIT_BANDWIDTH, 1e15, "PB/s"}, {FX_UNIT_BANDWIDTH, 1e12, "TB/s"},
		{FX_UNIT_BANDWIDTH, 1e9, "GB/s"}, {FX_UNIT_BANDWIDTH, 1e6, "MB/s"},
		{FX_UNIT_BANDWIDTH, 1e3, "KB/s"}, {FX_UNIT_BANDWIDTH, 1, "B/s"},
		{FX_UNIT_TIME, 1, "s"}, {FX_UNIT_TIME, 1e-3, "ms"},
		{FX_UNIT_TIME, 1e-6, "us"}, {FX_UNIT_TIME, 1e-9, "ns"},
		{FX_UNIT_TIME, 1e-12, "ps"},
		{FX_UNIT_POWER, 1e6, "MW"}, {FX_UNIT_POWER, 1e3, "kW"},
		{FX_UNIT_POWER, 1, "W"}, {FX_UNIT_POWER, 1e-3, "mW"},
		{FX_UNIT_SIZE, KI * KI * KI * KI, "TiB"}, {FX_UNIT_SIZE, KI * KI * KI, "GiB"},
		{FX_UNIT_SIZE, KI * KI, "MiB"}, {FX_UNIT_SIZE, KI, "KiB"},
		{FX_UNIT_SIZE, 1, "B"},
		{FX_UNIT_FREQUENCY, 1e9, "GHz"}, {FX_UNIT_FREQUENCY, 1e6, "MHz"},
		{FX_UNIT_FREQUENCY, 1e3, "kHz"}, {FX_UNIT_FREQUENCY, 1, "Hz"},
	};
	if (!buf || !len)
		return NULL;
	const char *name = "";
	double f = 1;
	int found = 0;
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		if (steps[i].k != k)
			continue;
		name = steps[i].name;
		f = steps[i].f;
		found = 1;
		if (fabs(v) >= steps[i].f * 0.9995)
			break;
	}
	if (!found || v == 0)
		snprintf(buf, len, "%g%s%s", v / f, *name ? " " : "", name);
	else
		snprintf(buf, len, "%.4g %s", v / f, name);
	return buf;
}
