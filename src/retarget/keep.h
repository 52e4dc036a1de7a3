/* keep.h — functions kept as written (keep.c), for retarget.c. */
#ifndef TINE_RETARGET_KEEP_H
#define TINE_RETARGET_KEEP_H

#include "region.h"

typedef struct {
    char **names;          /* the intrinsics the kept functions call */
    int nnames, capnames;
    char **helpers;        /* the helpers on vectors they call, kept too */
    int nhelpers, caphelpers;
    tine_buf notes;        /* per function kept, why, located */
    tine_cpos first;       /* the first kept function */
    bool have_first;
} keep_state;

/* After r failed to rewrite fn: true if fn can be kept as written (r's failure cleared,
 * its intrinsics and helpers added to ks, a note), false with a located error if not. */
bool rt_keep(rt *r, const tine_cfunc *fn, keep_state *ks);
bool rt_kept_helper(const keep_state *ks, const char *name);
void rt_keep_free(keep_state *ks);

#endif
