/* retarget_check.h — `tine retarget --check` (tools/retarget_check.c). */
#ifndef TINE_TOOLS_RETARGET_CHECK_H
#define TINE_TOOLS_RETARGET_CHECK_H

#include "cli.h"

/* Runs the file's callable functions as written (src_text, for --from) and as rewritten
 * (out_text, for --to) on the same inputs; 0 when every call agrees, else 1 after saying
 * where they first differ. */
int retarget_check(const options *o, const char *src_text, const char *out_text);

#endif
