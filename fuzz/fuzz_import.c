/*
 * Fuzz target: the importers (interop/import*.c, interop/xml.c).  An
 * input's first byte picks the format: below 250 byte % 5 of graphml, gml,
 * ns3, simai, booksim (what the older inputs of the corpus mean), 254
 * simgrid (no older input starts so), other bytes from 250 nccl-topo
 * (even) or nvidia-smi (odd);
 * the rest is the file, written to a scratch file and imported, the spec
 * written to /dev/null once fabricx has loaded it back (so the reader, the
 * spec writer and the loader all meet what the fuzzer makes).
 *
 * Built by `make fuzz FUZZ_TARGET=import`; replayed by fuzz/replay.c
 * (fuzz/corpus-import, fuzz/regress-import) in `make san-check`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../core/diag.h"
#include "../fabric/fabric.h"
#include "../interop/interop.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const formats[] = {"graphml", "gml", "ns3", "simai", "booksim"};
static const char *const nvidia[] = {"nccl-topo", "nvidia-smi"};
static const char *const late[] = {"simgrid"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	static FILE *sink;
	if (!*path) {
		fx_igraph_quiet();
		snprintf(path, sizeof path, "/tmp/fabricx-fuzz-import-%ld", (long)getpid());
		sink = fopen("/dev/null", "w");
		if (!sink)
			abort();
	}
	if (size < 1)
		return 0;
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data + 1, 1, size - 1, f);
	fclose(f);
	fx_diag d;
	fx_diag_init(&d);
	d.max_shown = 0;   /* messages are counted, not printed */
	fx_import_opts o = {.bandwidth = 25e9, .latency = 200e-9};
	fx_import_info info;
	const char *fmt = data[0] < 250 ? formats[data[0] % 5] : data[0] == 254 ? late[0]
			: nvidia[data[0] % 2];
	(void)fx_import(path, fmt, "fuzz", &o, sink, &info, &d);
	fx_import_info_release(&info);
	fx_diag_release(&d);
	remove(path);
	return 0;
}
