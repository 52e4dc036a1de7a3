/* camera.c — (being written) */
#include "cases.h"

const bench_entry camera_entries[] = {{0}};
