/* retarget.h — C written with one instruction set's intrinsics, rewritten for another
 * (src/retarget/retarget.c). */
#ifndef TINE_RETARGET_H
#define TINE_RETARGET_H

#include "../internal.h"

/* tine_retarget (tine.h) is this module's entry point. */

#endif
