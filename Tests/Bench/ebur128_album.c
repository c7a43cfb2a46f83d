/* Reference for album loudness: libebur128's ebur128_loudness_global_multiple and
 * ebur128_loudness_range_multiple over several files (decoded by libsndfile), one state per
 * file, gated as one programme. Prints "integrated range" in LUFS and LU, two decimals. */
#include <ebur128.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s FILE...\n", argv[0]); return 2; }
    size_t n = (size_t) argc - 1;
    ebur128_state **states = calloc(n, sizeof *states);
    enum { BLOCK = 8192 };
    for (size_t i = 0; i < n; i++) {
        SF_INFO info = {0};
        SNDFILE *f = sf_open(argv[i + 1], SFM_READ, &info);
        if (!f) { fprintf(stderr, "%s: %s\n", argv[i + 1], sf_strerror(NULL)); return 1; }
        states[i] = ebur128_init((unsigned) info.channels, (unsigned long) info.samplerate,
                                 EBUR128_MODE_I | EBUR128_MODE_LRA);
        float *buf = malloc(sizeof(float) * BLOCK * (size_t) info.channels);
        sf_count_t got;
        while ((got = sf_readf_float(f, buf, BLOCK)) > 0) ebur128_add_frames_float(states[i], buf, (size_t) got);
        free(buf);
        sf_close(f);
    }
    double integrated, range;
    if (ebur128_loudness_global_multiple(states, n, &integrated) != EBUR128_SUCCESS) return 1;
    if (ebur128_loudness_range_multiple(states, n, &range) != EBUR128_SUCCESS) return 1;
    printf("%.2f %.2f\n", integrated, range);
    for (size_t i = 0; i < n; i++) ebur128_destroy(&states[i]);
    free(states);
    return 0;
}
