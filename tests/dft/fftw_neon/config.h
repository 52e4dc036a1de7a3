/* config.h — what FFTW's kernel/ifftw.h needs from configure to compile one of its Neon
 * codelets outside FFTW's own build (tests/dft/fftw_neon.c, bench_arm.sh): an aarch64
 * Linux target (LP64), Neon enabled as --enable-neon does. Not FFTW's file; FFTW's source
 * is fetched at bench time (tests/dft/env.sh fftw_source) and never kept here. */
#define HAVE_NEON 1
#define HAVE_ALLOCA_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_STDINT_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_UINTPTR_T 1
#define SIZEOF_DOUBLE 8
#define SIZEOF_FLOAT 4
#define SIZEOF_INT 4
#define SIZEOF_LONG 8
#define SIZEOF_LONG_LONG 8
#define SIZEOF_PTRDIFF_T 8
#define SIZEOF_SIZE_T 8
#define SIZEOF_UNSIGNED_INT 4
#define SIZEOF_UNSIGNED_LONG 8
#define SIZEOF_UNSIGNED_LONG_LONG 8
#define PACKAGE "fftw"
#define PACKAGE_VERSION "3.3.10"
#define VERSION "3.3.10"
#define FFTW_CC "clang"
