/* placeholder until the scheduler lands: the input order */
#include "schedule.h"
#include <string.h>
int tine_sched_run(const tine_sched_dag *d, tine_sched_method m, const int *in_order, int *order, tine_sched_stats *st) {
    (void)m;
    memcpy(order, in_order, sizeof *order * (size_t)d->n);
    if (st) st->max_live_before = st->max_live_after = 0;
    return 0;
}
