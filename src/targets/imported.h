/* imported.h — calls of imported entries (x86.gen.isa) from a lane-generic semantics
 * (imported.c); private to src/targets. */
#ifndef TINE_IMPORTED_H
#define TINE_IMPORTED_H

#include "../ir/elab.h"

typedef struct tine_imported tine_imported;

/* A call of an imported entry by name (mm_adds_epi8(a, b)) in the semantics being
 * elaborated: true when `a` names one (*out: its semantics at the call's lanes, or an
 * error); false otherwise. *imp is the context's index, built on the first call;
 * fixed_hooks are those the imported entries' own semantics are elaborated with. */
bool tine_imported_call(tine_elab *el, const tine_ast *a, int lanes, tine_elab_val *out, tine_imported **imp,
                        const tine_elab_hooks *fixed_hooks);
void tine_imported_free(tine_imported *im);

/* A fixed entry's operand type: an integer type, TxN or boolxN. */
bool tine_isa_fixed_type(const char *s, tine_type_t *out);

#endif
