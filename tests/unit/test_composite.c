/* Composite fabrics: scale-up domains joined by a scale-out network. */
#include "helpers.h"

Suite *suite_composite(void)
{
	Suite *s = suite_create("composite");
	TCase *tc = tcase_create("composite");
	suite_add_tcase(s, tc);
	return s;
}
