/* qprod.c — Diospyros's QProd benchmark (f32): the product of two rigid motions, each a
 * unit quaternion (x, y, z, w: Eigen's storage order, w last) and a translation, as the
 * SE(3) product of Sophus that Diospyros's kernel reproduces:
 *
 *     r_q = a_q * b_q                       (the Hamilton product)
 *     r_t = a_t + rotate(a_q, b_t)          (b_t rotated by a_q, then a_t added)
 *
 * with the rotation written as Eigen's _transformVector and Diospyros's pointProduct:
 * uv = 2 (q × p), rotate(q, p) = p + w uv + q × uv. The kernel's inputs are Diospyros's
 * four arrays "4, 3, 4, 3".
 *
 * Plain C in the subset `tine vectorize` accepts (static helpers with array arguments,
 * inlined); the same file at clang-19 -O3 -march=native is the "Naive (fixed size)"
 * baseline of `tine bench --vectorize`.
 */

static void qprod_cross(const float lhs[3], const float rhs[3], float result[3]) {
    result[0] = lhs[1] * rhs[2] - lhs[2] * rhs[1];
    result[1] = lhs[2] * rhs[0] - lhs[0] * rhs[2];
    result[2] = lhs[0] * rhs[1] - lhs[1] * rhs[0];
}

/* p rotated by the unit quaternion q */
static void qprod_rotate(const float q[4], const float p[3], float result[3]) {
    float qvec[3];
    for (int i = 0; i < 3; i++)
        qvec[i] = q[i];
    float uv[3];
    qprod_cross(qvec, p, uv);
    for (int i = 0; i < 3; i++)
        uv[i] = uv[i] * 2.0f;
    float qxuv[3];
    qprod_cross(qvec, uv, qxuv);
    for (int i = 0; i < 3; i++)
        result[i] = p[i] + q[3] * uv[i] + qxuv[i];
}

void qprod(const float a_q[4], const float a_t[3], const float b_q[4], const float b_t[3], float r_q[4],
           float r_t[3]) {
    r_q[3] = a_q[3] * b_q[3] - a_q[0] * b_q[0] - a_q[1] * b_q[1] - a_q[2] * b_q[2];
    r_q[0] = a_q[3] * b_q[0] + a_q[0] * b_q[3] + a_q[1] * b_q[2] - a_q[2] * b_q[1];
    r_q[1] = a_q[3] * b_q[1] + a_q[1] * b_q[3] + a_q[2] * b_q[0] - a_q[0] * b_q[2];
    r_q[2] = a_q[3] * b_q[2] + a_q[2] * b_q[3] + a_q[0] * b_q[1] - a_q[1] * b_q[0];

    float rot[3];
    qprod_rotate(a_q, b_t, rot);
    for (int i = 0; i < 3; i++)
        r_t[i] = a_t[i] + rot[i];
}
