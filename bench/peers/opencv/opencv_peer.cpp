/* opencv_peer.cpp — the OpenCV peer of `tine bench` (peer.h): the image kernels as an image
 * engineer writes them with OpenCV 4's imgproc, on the benchmark's own buffers.
 *
 * OpenCV is one library for every tine row: it picks its instructions (SSE4.1, AVX2,
 * AVX-512) when it runs, so each kernel has one entry, for every row. Its functions run
 * single-threaded (cv::setNumThreads(0)) on Mat headers over the case's buffers, and
 * write into the output buffer in place: run() fails if OpenCV ever allocated instead.
 *
 * Where the kernel reads a margin around the image (gaussian3x3, gaussian7x7, blur3x3),
 * the input Mat is the image without it and OpenCV replicates the image's edge there
 * (a Mat cut out of a larger one would have OpenCV read the margin, but it then leaves
 * its fixed-point GaussianBlur for a float one); the output's frame of the kernel's
 * radius is left out of the comparison. The other kernels replicate edges (edge()) as
 * BORDER_REPLICATE does.
 */
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "../peer.h"

namespace {

struct kernel_def {
    int bits;       /* the element size of the input and output */
    int origin;     /* the input element under the output's (0, 0) is (origin, origin) */
    void (*run)(peer_call *c);
};

}  // namespace

struct peer_call {
    const kernel_def *k;
    cv::Mat in, out, mask;   /* mask: filter2D's kernel */
    cv::Mat gx, gy, ax, ay;  /* Sobel's intermediates, allocated once at bind */
};

namespace {

void gaussian(peer_call *c, int n, double sigma) {
    cv::GaussianBlur(c->in, c->out, cv::Size(n, n), sigma, sigma, cv::BORDER_REPLICATE);
}

void gaussian3x3(peer_call *c) { gaussian(c, 3, 0); }
void gaussian5x5(peer_call *c) { gaussian(c, 5, 0); }
/* OpenCV's own 7-tap kernel (sigma 0) is not the binomial one ([1 3.5 7 9 7 3.5 1] / 32);
 * a Gaussian of the binomial's variance, 6/4, is the nearest a user gets */
void gaussian7x7(peer_call *c) { gaussian(c, 7, std::sqrt(1.5)); }
void blur3x3(peer_call *c) { cv::blur(c->in, c->out, cv::Size(3, 3), cv::Point(-1, -1), cv::BORDER_REPLICATE); }
void dilate3x3(peer_call *c) { cv::dilate(c->in, c->out, cv::Mat(), cv::Point(-1, -1), 1, cv::BORDER_REPLICATE); }
void median3x3(peer_call *c) { cv::medianBlur(c->in, c->out, 3); }

/* The kernel's |vertical| + |horizontal| Sobel response saturated to u8: convertScaleAbs
 * saturates each magnitude at 255 and add saturates their sum, which is the same value. */
void sobel3x3(peer_call *c) {
    cv::Sobel(c->in, c->gx, CV_16S, 1, 0, 3, 1, 0, cv::BORDER_REPLICATE);
    cv::Sobel(c->in, c->gy, CV_16S, 0, 1, 3, 1, 0, cv::BORDER_REPLICATE);
    cv::convertScaleAbs(c->gx, c->ax);
    cv::convertScaleAbs(c->gy, c->ay);
    cv::add(c->ax, c->ay, c->out);
}

void conv3x3(peer_call *c) { cv::filter2D(c->in, c->out, CV_8U, c->mask, cv::Point(-1, -1), 0, cv::BORDER_REPLICATE); }

const kernel_def GAUSSIAN3 = {8, 0, gaussian3x3}, GAUSSIAN5 = {8, 0, gaussian5x5}, GAUSSIAN7 = {8, 0, gaussian7x7},
                 BLUR = {16, 1, blur3x3}, DILATE = {8, 0, dilate3x3}, MEDIAN = {8, 0, median3x3},
                 SOBEL = {8, 0, sobel3x3}, CONV16 = {8, 0, conv3x3}, CONV32 = {8, 0, conv3x3};

int runs_here(const peer_entry *) { return 1; }
double compile_ms(const peer_entry *) { return -1; } /* a prebuilt library */

void unbind(peer_call *c) { delete c; }

peer_call *bind(const peer_entry *e, const bench_case *bc, void *out, char *err, size_t n) {
    static bool single = (cv::setNumThreads(0), true); /* sequential: one thread, as every peer */
    (void)single;
    const kernel_def *k = static_cast<const kernel_def *>(e->impl);
    const ref_buffer *in = &bc->in[0], *o = &bc->out;
    if (bc->ninputs < 1 || strcmp(bc->in_names[0], "in") || in->dims != 2 || o->dims != 2 || bc->in_bits[0] != k->bits ||
        bc->out_bits != k->bits) {
        snprintf(err, n, "%s: the case is not a %d-bit image in, out", e->kernel, k->bits);
        return nullptr;
    }
    int w = (int)o->extent[0], h = (int)o->extent[1], bytes = k->bits / 8, type = k->bits == 8 ? CV_8UC1 : CV_16UC1;
    if (in->min[0] > k->origin || in->min[1] > k->origin || in->min[0] + in->extent[0] < k->origin + w ||
        in->min[1] + in->extent[1] < k->origin + h) {
        snprintf(err, n, "%s: the input does not cover the output", e->kernel);
        return nullptr;
    }
    peer_call *c = new peer_call();
    c->k = k;
    unsigned char *at = static_cast<unsigned char *>(in->data) +
                        ((k->origin - in->min[0]) + (k->origin - in->min[1]) * in->stride[1]) * bytes;
    c->in = cv::Mat(h, w, type, at, (size_t)(in->stride[1] * bytes));
    c->out = cv::Mat(h, w, type, out, (size_t)(o->stride[1] * bytes));
    if (k == &SOBEL) {
        c->gx.create(h, w, CV_16S);
        c->gy.create(h, w, CV_16S);
        c->ax.create(h, w, CV_8U);
        c->ay.create(h, w, CV_8U);
    } else if (k == &CONV16) { /* the kernel's mask m(dx + 1, dy + 1), scaled by its >> 4 */
        if (bc->ninputs != 2 || bc->in_bits[1] != 8 || bc->in[1].extent[0] != 3 || bc->in[1].extent[1] != 3) {
            snprintf(err, n, "%s: the case has no 3x3 i8 mask", e->kernel);
            delete c;
            return nullptr;
        }
        cv::Mat(3, 3, CV_8SC1, bc->in[1].data, (size_t)bc->in[1].stride[1]).convertTo(c->mask, CV_32F, 1.0 / 16);
    } else if (k == &CONV32) { /* the kernel's constant weights dy + 3 dx + 8, scaled by its >> 4 */
        c->mask.create(3, 3, CV_32F);
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) c->mask.at<float>(dy + 1, dx + 1) = (float)(dy + 3 * dx + 8) / 16;
    }
    return c;
}

int run(peer_call *c) {
    const void *before = c->out.data;
    c->k->run(c);
    return c->out.data == before ? 0 : 1; /* OpenCV reallocated: the result is not in the buffer */
}

#define ENTRY(kernel, def, differs, tolerance, frame)                                                            \
    {kernel, nullptr, "OpenCV " CV_VERSION, runs_here, compile_ms, bind, run, unbind, &def, differs, tolerance, \
     {frame, frame, 0, 0}}

const peer_entry entries[] = {
    ENTRY("gaussian3x3", GAUSSIAN3, "GaussianBlur 3x3; border: OpenCV replicates the edge where the kernel reads its margin",
          0, 1),
    ENTRY("gaussian5x5", GAUSSIAN5, "GaussianBlur 5x5 rounds to nearest where the kernel floors (c >> 8)", 1, 0),
    ENTRY("gaussian7x7", GAUSSIAN7,
          "GaussianBlur 7x7 sigma sqrt(1.5) (OpenCV's 7-tap table is not binomial): weights [4 22 60 84 60 22 4] / "
          "256 (up to 6.5 from the binomial's on u8 data), rounded; border: OpenCV replicates the edge where the "
          "kernel reads its margin",
          8, 3),
    ENTRY("conv3x3a16", CONV16,
          "filter2D with mask/16 in float, rounded; the kernel sums in wrapping i16 and floors (>> 4), so random masks "
          "that overflow i16 differ anywhere",
          255, 0),
    ENTRY("conv3x3a32", CONV32, "filter2D with the weights/16 in float, rounded where the kernel floors (>> 4)", 1, 0),
    ENTRY("dilate3x3", DILATE, nullptr, 0, 0),
    ENTRY("median3x3", MEDIAN, nullptr, 0, 0),
    ENTRY("sobel3x3", SOBEL, nullptr, 0, 0),
    ENTRY("blur3x3", BLUR,
          "blur 3x3: one rounded mean of nine where the kernel divides each sum of three by 3, truncating, in wrapping "
          "u16; border: OpenCV replicates the edge where the kernel reads its margin",
          65535, 1),
    {}};

}  // namespace

extern "C" const peer_entry *tine_peer_entries(void) { return entries; }
