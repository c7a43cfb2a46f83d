// KissFFT's float build, configured here rather than by pkg-config's cflags (-D flags there make
// SwiftPM warn on every build): the scalar type and the shared-library declarations it was built with.
#define KISS_FFT_SHARED
#define kiss_fft_scalar float
#include <kissfft/kiss_fftr.h>
