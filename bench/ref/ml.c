/* ml.c — (being written) */
#include "cases.h"

const bench_entry ml_entries[] = {{0}};
