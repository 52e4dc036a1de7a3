// cxx_caller.cpp — a C++ user of a generated header: q15_mul.h must declare q15_mul with C
// linkage (an extern "C" guard), or this file compiles and then fails to link.
#include <cstdio>
#include <vector>

#include "q15_mul.h"
#include "reference.h"

extern "C" int cxx_caller_check(void) {
    std::vector<int16_t> a, b, out(256);
    for (int i = 0; i < 256; i++) {
        a.push_back(static_cast<int16_t>(i * 257 - 32768));
        b.push_back(static_cast<int16_t>(32767 - i * 131));
    }
    tine_buffer_t ba = {a.data(), 1, {0}, {256}, {1}}, bb = {b.data(), 1, {0}, {256}, {1}};
    tine_buffer_t bo = {out.data(), 1, {0}, {256}, {1}};
    if (q15_mul(&ba, &bb, 100, &bo) != 0) {
        std::printf("C++: q15_mul refused its buffers\n");
        return 1;
    }
    int bad = 0;
    for (int i = 0; i < 256; i++) bad += out[i] != ref_q15_mul(a[i], b[i], 100);
    std::printf("C++: q15_mul from C++, %s\n", bad ? "WRONG" : "every element as the reference");
    return bad != 0;
}
