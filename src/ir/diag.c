/* diag.c — located diagnostics: `file:line:col: message`, the source line, and a caret
 * under the column, as the context's error. The one form every located message of the
 * text layer and the layers above takes (parser, elaborator, kernel front end, target
 * descriptions); their wrappers format nothing of their own.
 */
#include "ast.h"

void tine_vdiag(tine_ctx_t *ctx, const tine_src *src, int line, int col, const char *fmt, va_list ap) {
    tine_buf b = {0};
    tine_buf_printf(&b, "%s:%d:%d: ", src->file, line, col);
    tine_buf_vprintf(&b, fmt, ap);
    /* the offending line and a caret under the column */
    const char *ls = src->text;
    if (src->line_at && line >= 1 && line <= src->nlines) ls += src->line_at[line - 1];
    else
        for (int l = 1; l < line && *ls; ls++)
            if (*ls == '\n') l++;
    const char *le = ls;
    while (*le && *le != '\n') le++;
    tine_buf_putc(&b, '\n');
    for (const char *c = ls; c < le; c++) tine_buf_putc(&b, *c == '\t' ? ' ' : *c);
    tine_buf_putc(&b, '\n');
    for (int i = 1; i < col; i++) tine_buf_putc(&b, ' ');
    tine_buf_putc(&b, '^');
    tine_set_error_str(ctx, b.p);
}

void tine_diag(tine_ctx_t *ctx, const tine_src *src, int line, int col, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    tine_vdiag(ctx, src, line, col, fmt, ap);
    va_end(ap);
}
