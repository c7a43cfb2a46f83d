#define kiss_fft_scalar float
#include <kiss_fftr.h>
