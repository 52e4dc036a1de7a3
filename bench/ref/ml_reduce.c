/* ml_reduce.c — (being written) */
#include "cases.h"

const bench_entry ml_reduce_entries[] = {{0}};
