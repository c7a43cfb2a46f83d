/* Baseline for `make bench`: the same measurement lufs-measure makes (integrated, range,
 * momentary, short-term, sample and true peak), done by libebur128 on libsndfile's decode. */
#include <ebur128.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s FILE\n", argv[0]); return 2; }
    SF_INFO info = {0};
    SNDFILE *f = sf_open(argv[1], SFM_READ, &info);
    if (!f) { fprintf(stderr, "%s\n", sf_strerror(NULL)); return 1; }
    ebur128_state *st = ebur128_init((unsigned) info.channels, (unsigned long) info.samplerate,
        EBUR128_MODE_I | EBUR128_MODE_LRA | EBUR128_MODE_M | EBUR128_MODE_S |
        EBUR128_MODE_SAMPLE_PEAK | EBUR128_MODE_TRUE_PEAK);
    enum { BLOCK = 8192 };
    float *buf = malloc(sizeof(float) * BLOCK * (size_t) info.channels);
    sf_count_t n;
    double mmax = -HUGE_VAL, smax = -HUGE_VAL, v;
    while ((n = sf_readf_float(f, buf, BLOCK)) > 0) {
        ebur128_add_frames_float(st, buf, (size_t) n);
        if (ebur128_loudness_momentary(st, &v) == EBUR128_SUCCESS && v > mmax) mmax = v;
        if (ebur128_loudness_shortterm(st, &v) == EBUR128_SUCCESS && v > smax) smax = v;
    }
    double integrated, range, tp = 0, peak;
    ebur128_loudness_global(st, &integrated);
    ebur128_loudness_range(st, &range);
    for (int c = 0; c < info.channels; c++) {
        ebur128_true_peak(st, (unsigned) c, &peak);
        if (peak > tp) tp = peak;
    }
    printf("%.2f LUFS, LRA %.2f LU, M max %.2f, S max %.2f, TP %.2f dBTP\n",
           integrated, range, mmax, smax, 20 * log10(tp));
    ebur128_destroy(&st);
    free(buf);
    sf_close(f);
    return 0;
}
