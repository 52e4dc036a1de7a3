/* directives.h — the schedule directives of a kernel file, one row each.
 *
 * This table is the single source of what a directive is: its kind (tine_dir_kind), its
 * name, what it applies to, and the shape of its arguments. The parser reads a directive
 * by its shape (parse.c, one routine for all), the printer writes it back by the same
 * shape (directives.c), the automatic scheduler builds directives by kind, and the
 * checker applies each kind in one case of a switch (schedule.c). Adding a directive is
 * a row here and a case there.
 *
 *   X(ENUM, "name", applies-to, argument, ...)
 *
 * applies-to: TINE_DIR_TO_* flags (below). The arguments, in the order they are written:
 *   TD_FUNC              NAME          the function (func)
 *   TD_DOT(what)         '.'           `what` says where it belongs in the error
 *   TD_NAME(slot, what)  NAME          into dim, dim2, at, name or name2
 *   TD_INT(slot, lo, hi, what)  INT    into n or n2, from lo to hi
 *   TD_WIDTH             INT | natural a vector width into n (natural: 0)
 *   TD_ACC               ('acc' INT)?  a reduction's accumulator lanes into n2
 *   TD_MODE              auto | always | never, into n (as tine_partition_mode numbers them)
 *   TD_AGAIN(what)       NAME          the function again (fuse f.y f.z): it must be func
 *   TD_LOOPS             (f.NAME)+     reorder's loops into dims, two or more, innermost first
 * The rows are in the order the "unknown directive" error lists them.
 */
#ifndef TINE_DIRECTIVES_H
#define TINE_DIRECTIVES_H

#define TD_LOOP_DOT TD_DOT("between the function and its loop, as in out.y")
/* f.x, a loop of f; g.y, the loop of stage g that f is computed or stored at */
#define TD_F_X TD_FUNC, TD_DOT("between the function and its coordinate, as in out.x"), TD_NAME(DIM, "a coordinate")
#define TD_G_Y                                                                                                         \
    TD_NAME(AT, "the stage it is computed in, as in out.y"),                                                           \
        TD_DOT("between the stage and its coordinate, as in out.y"), TD_NAME(DIM, "a coordinate")
#define TD_SIZE (1 << 20) /* tile sizes and split factors */

#define TINE_DIRECTIVES(X)                                                                                             \
    X(VECTORIZE, "vectorize", TINE_DIR_TO_LOOP | TINE_DIR_TO_REDUCTION, TD_F_X, TD_WIDTH, TD_ACC)                      \
    X(UNROLL, "unroll", TINE_DIR_TO_LOOP, TD_F_X, TD_INT(N, 1, 64, "the unroll factor"))                               \
    X(TILE, "tile", TINE_DIR_TO_NEST, TD_FUNC, TD_NAME(DIM, "the first coordinate"),                                   \
      TD_NAME(DIM2, "the second coordinate"), TD_INT(N, 1, TD_SIZE, "the first tile size"),                            \
      TD_INT(N2, 1, TD_SIZE, "the second tile size"))                                                                  \
    X(SPLIT, "split", TINE_DIR_TO_NEST, TD_FUNC, TD_LOOP_DOT, TD_NAME(DIM, "the loop to split"),                       \
      TD_NAME(NAME, "the outer loop's name"), TD_NAME(NAME2, "the inner loop's name"),                                 \
      TD_INT(N, 1, TD_SIZE, "the split factor"))                                                                       \
    X(FUSE, "fuse", TINE_DIR_TO_NEST, TD_FUNC, TD_LOOP_DOT, TD_NAME(DIM, "the inner loop to fuse"),                    \
      TD_AGAIN("the function again, as in fuse out.y out.z yz"),                                                       \
      TD_DOT("between the function and its loop, as in out.z"), TD_NAME(DIM2, "the outer loop to fuse"),               \
      TD_NAME(NAME, "the fused loop's name"))                                                                          \
    X(REORDER, "reorder", TINE_DIR_TO_NEST, TD_LOOPS)                                                                  \
    X(INLINE, "inline", TINE_DIR_TO_FUNC, TD_FUNC)                                                                     \
    X(MATERIALIZE, "materialize", TINE_DIR_TO_FUNC, TD_FUNC)                                                           \
    X(COMPUTE_ROOT, "compute_root", TINE_DIR_TO_FUNC, TD_FUNC)                                                         \
    X(COMPUTE_AT, "compute_at", TINE_DIR_TO_FUNC, TD_FUNC, TD_G_Y)                                                     \
    X(STORE_AT, "store_at", TINE_DIR_TO_FUNC, TD_FUNC, TD_G_Y)                                                         \
    X(STORE_AS, "store_as", TINE_DIR_TO_FUNC, TD_FUNC,                                                                 \
      TD_NAME(NAME, "the element type its buffer stores, as in store_as f i16"))                                       \
    X(PARALLEL, "parallel", TINE_DIR_TO_LOOP, TD_F_X)                                                                  \
    X(PARTITION, "partition", TINE_DIR_TO_LOOP, TD_F_X, TD_MODE)

typedef enum {
#define TINE_DIR_ENUM_(e, name, applies, ...) TINE_DIR_##e,
    TINE_DIRECTIVES(TINE_DIR_ENUM_)
#undef TINE_DIR_ENUM_
    TINE_DIR_COUNT
} tine_dir_kind;

/* What a directive applies to (flags): the function as a whole (where it is computed and
 * stored); one loop of it, f.x (a coordinate's, or a loop of its reshaped nest); its loop
 * nest, reshaped; a loop reduction's variable, f.k. */
enum { TINE_DIR_TO_FUNC = 1, TINE_DIR_TO_LOOP = 2, TINE_DIR_TO_NEST = 4, TINE_DIR_TO_REDUCTION = 8 };

/* One argument of a directive's shape: how it is written (tag), the field of the
 * directive it sets (slot), an integer's range, and what the parser's error calls it. */
typedef enum { TINE_DA_NAME, TINE_DA_DOT, TINE_DA_INT, TINE_DA_WIDTH, TINE_DA_ACC, TINE_DA_MODE, TINE_DA_AGAIN, TINE_DA_LOOPS } tine_darg_tag;
typedef enum { TINE_DS_NONE, TINE_DS_FUNC, TINE_DS_DIM, TINE_DS_DIM2, TINE_DS_AT, TINE_DS_NAME, TINE_DS_NAME2, TINE_DS_N, TINE_DS_N2 } tine_darg_slot;
typedef struct {
    tine_darg_tag tag;
    tine_darg_slot slot;
    int lo, hi;
    const char *what;
} tine_darg;

#define TD_FUNC {TINE_DA_NAME, TINE_DS_FUNC, 0, 0, "a function name"}
#define TD_DOT(what) {TINE_DA_DOT, TINE_DS_NONE, 0, 0, what}
#define TD_NAME(slot, what) {TINE_DA_NAME, TINE_DS_##slot, 0, 0, what}
#define TD_INT(slot, lo, hi, what) {TINE_DA_INT, TINE_DS_##slot, lo, hi, what}
#define TD_WIDTH {TINE_DA_WIDTH, TINE_DS_N, 1, TINE_MAX_LANES, "the vector width"}
#define TD_ACC {TINE_DA_ACC, TINE_DS_N2, 1, TINE_MAX_LANES, "the accumulator's lanes"}
#define TD_MODE {TINE_DA_MODE, TINE_DS_N, 0, 2, "the partition mode (auto, always or never)"}
#define TD_AGAIN(what) {TINE_DA_AGAIN, TINE_DS_NONE, 0, 0, what}
#define TD_LOOPS {TINE_DA_LOOPS, TINE_DS_NONE, 0, 0, "a loop"}

enum { TINE_DARGS_MAX = 7 };
typedef struct {
    const char *name;
    int applies;                   /* TINE_DIR_TO_* */
    tine_darg args[TINE_DARGS_MAX]; /* the shape; the first with what == NULL ends it */
} tine_dir_info;

/* The row of kind k. */
static inline const tine_dir_info *tine_dir_info_of(tine_dir_kind k) {
    static const tine_dir_info rows[] = {
#define TINE_DIR_ROW_(e, name, applies, ...) {name, applies, {__VA_ARGS__}},
        TINE_DIRECTIVES(TINE_DIR_ROW_)
#undef TINE_DIR_ROW_
    };
    return &rows[k];
}

static inline const char *tine_dir_name(tine_dir_kind k) { return tine_dir_info_of(k)->name; }

/* The partition modes' names, as tine_partition_mode (stmt.h) numbers them. */
static inline const char *tine_dir_mode_name(int mode) {
    static const char *const modes[] = {"auto", "always", "never"};
    return modes[mode];
}

#endif
