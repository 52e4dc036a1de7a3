/* asm_loops.h — the loops of a kernel's assembly and llvm-mca's estimate of them
 * (tools/asm_loops.c), for `tine bench` on AArch64 rows (bench_mca.c) and `tine report`.
 */
#ifndef TINE_ASM_LOOPS_H
#define TINE_ASM_LOOPS_H

#include <stdbool.h>

/* The two assembly dialects LLVM prints for tine's targets: AArch64 ("//" comments) and
 * x86-64 in AT&T syntax ("#" comments). */
typedef enum { ASM_ARM, ASM_X86 } asm_isa;

typedef struct {
    char id[24];      /* "BB0_47", or "" for a fall-through or entry block */
    char name[96];    /* the IR block's name ("out.x.vec.body.us.i"), or "" */
    char loop[24];    /* the innermost loop's header id, or "" outside loops */
    bool inner_head;  /* the header of an innermost loop */
    char parents[8][24];
    int nparents;
    int first, count; /* its instructions: ins[first .. first + count) */
} asm_block;

typedef struct {
    asm_isa isa;
    char **ins;  /* the instructions, comments stripped */
    bool *spill; /* LLVM's comment calls the instruction a spill (`// 32-byte Folded Spill`) */
    int nins;
    asm_block *b;
    int nb;
} asm_text;

typedef struct {
    char head[24], name[96];
    int blocks[64], nblocks;
    int ins, vec, wide, stored; /* instructions, vector ones, whole-register ones, bytes stored, per iteration */
} asm_loop;

/* Splits LLVM's verbose assembly into blocks and instructions. */
void asm_parse(const char *text, asm_isa isa, asm_text *a);
void asm_free(asm_text *a);
/* Every innermost loop of a into out (at most max); *steady: how many are steady-state
 * candidates (those first: see asm_loops.c). */
int asm_find_loops(const asm_text *a, asm_loop *out, int max, int *steady);
/* The dominant loop among ls (the one named same_name when there is one); -1 when there
 * is no loop. */
int asm_pick_loop(const asm_loop *ls, int n, int steady, const char *same_name);
/* llvm-mca's program: $TINE_LLVM_MCA, else llvm-mca-19. */
const char *asm_mca_path(void);
/* The CPU whose model llvm-mca uses for an x86 target (the report says which). */
#define ASM_X86_CPU "znver4"
/* Cycles per iteration of the loop's instructions on cpu, as llvm-mca estimates them;
 * negative after a message on stderr naming `what`. */
double asm_mca_cycles(const asm_text *a, const asm_loop *l, const char *cpu, const char *what);

#endif
