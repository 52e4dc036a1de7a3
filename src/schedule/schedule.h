/* schedule.h — placeholder until the scheduler lands (the dependence graph's shape). */
#ifndef TINE_SCHEDULE_H
#define TINE_SCHEDULE_H
#include <stdbool.h>
#include <stdint.h>
typedef enum { TINE_SCHED_CONST, TINE_SCHED_LOAD, TINE_SCHED_OP, TINE_SCHED_STORE } tine_sched_kind;
typedef struct {
    int n;
    const uint8_t *kind;
    const int *op_start;
    const int *ops;
} tine_sched_dag;
typedef enum { TINE_SCHED_NONE, TINE_SCHED_FFTW, TINE_SCHED_LIST, TINE_SCHED_AUTO } tine_sched_method;
typedef struct {
    int max_live_before, max_live_after;
} tine_sched_stats;
int tine_sched_run(const tine_sched_dag *d, tine_sched_method m, const int *in_order, int *order, tine_sched_stats *st);
#endif
