/*
 * docs/example_space.c: one point of a design space, evaluated through the
 * library.  Loads the spec, reads its `space:` block, evaluates point
 * POINT and prints each metric named after it as the results name it
 * (docs/output.md, docs/spaces.md), e.g.
 * collectives[pattern=all-to-all].time_s -- the numbers the point's row of
 * `fabricx explore SPEC`'s points.csv holds.
 *
 *   cc -o example_space docs/example_space.c $(pkg-config --cflags --libs fabricx)
 *   ./example_space specs/spaces/torus-growth.yaml 1 devices \
 *       'collectives[pattern=all-to-all].time_s'
 */
#include <fabricx.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: %s SPEC POINT METRIC...\n", argv[0]);
		return 2;
	}
	fx_igraph_quiet();  /* igraph's errors back as return codes */
	fx_diag d;
	fx_diag_init(&d);
	fx_design ds;
	fx_space s = {0};
	int status = 0, present = 0;
	if (fx_design_load(&ds, argv[1], NULL, 0, NULL, &d) ||
	    fx_space_parse(&s, &ds.spec, &d, &present)) {
		status = d.status;
		goto out;
	}
	char *end;
	unsigned long long i = strtoull(argv[2], &end, 10);
	if (!present || *end || argv[2][0] == '-' || i >= fx_space_count(&s)) {
		fprintf(stderr, "%s: %s has no point %s\n", argv[0], argv[1], argv[2]);
		status = 2;
		goto out;
	}
	/* the metrics to read; the spec is read again from its path, with the
	 * point's overrides applied */
	fx_space_eval ev = {.spec_path = argv[1], .space = &s, .names = argv + 3,
			    .nnames = (size_t)argc - 3, .time_limit = 60};
	fx_space_pt pt;
	if (fx_space_evaluate(&ev, i, &pt, &d)) {
		status = d.status;
		goto out;
	}
	printf("point %llu: %s%s%s\n", i, fx_space_status_name(pt.status),
	       pt.reason ? ": " : "", pt.reason ? pt.reason : "");
	for (size_t k = 0; k < ev.nnames; k++)
		printf("%s %.17g\n", ev.names[k], pt.m[k]);
	fx_space_pt_release(&pt);
out:
	fx_space_release(&s);
	fx_design_release(&ds);
	fx_diag_release(&d);
	return status;
}
