/* directives.c — schedule directives as .tine text: the printer of the directive table
 * (directives.h). Each directive is written back by the shape it was parsed by, so what
 * `tine compile --emit schedule` prints parses again to the same directives. */
#include "../ir/ast.h"

/* The directives as .tine text: `schedule`, then one directive a line. */
void tine_schedule_print(const tine_kernel_ast *k, tine_buf *b) {
    tine_buf_puts(b, "schedule\n");
    tine_schedule_print_on(k, NULL, b);
}

void tine_schedule_print_on(const tine_kernel_ast *k, const char *on, tine_buf *b) {
    for (int i = 0; i < k->nsched; i++) {
        const tine_kdirective *s = &k->sched[i];
        if (on ? !s->on || strcmp(s->on, on) : s->on != NULL) continue;
        tine_directive_print(s, b);
        tine_buf_puts(b, "\n");
    }
}

void tine_directive_print(const tine_kdirective *s, tine_buf *b) {
    const tine_dir_info *info = tine_dir_info_of(s->kind);
    tine_kdirective *w = (tine_kdirective *)s; /* the slots are only read */
    tine_buf_puts(b, info->name);
    bool glued = false; /* just after a '.': no space */
    for (int i = 0; i < TINE_DARGS_MAX && info->args[i].what; i++) {
        const tine_darg *a = &info->args[i];
        const char *sep = glued ? "" : " ";
        glued = false;
        switch (a->tag) {
        case TINE_DA_NAME: tine_buf_printf(b, "%s%s", sep, *tine_dir_slot_name(w, a->slot)); break;
        case TINE_DA_DOT:
            tine_buf_putc(b, '.');
            glued = true;
            break;
        case TINE_DA_INT: tine_buf_printf(b, "%s%d", sep, *tine_dir_slot_int(w, a->slot)); break;
        case TINE_DA_WIDTH:
            if (s->n) tine_buf_printf(b, " %d", s->n);
            else tine_buf_puts(b, " natural");
            break;
        case TINE_DA_ACC:
            if (s->n2) tine_buf_printf(b, " acc %d", s->n2);
            break;
        case TINE_DA_MODE: tine_buf_printf(b, " %s", tine_dir_mode_name(s->n)); break;
        case TINE_DA_AGAIN: tine_buf_printf(b, " %s", s->func); break;
        case TINE_DA_LOOPS:
            for (int j = 0; j < s->ndims; j++) tine_buf_printf(b, " %s.%s", s->func, s->dims[j]);
            break;
        }
    }
}
