#include <opusfile.h>
#include <opus_multistream.h>

/* libopusfile decodes every packet with opus_multistream_decode_float, and Debian's libopus (built
   with custom modes) runs its CPU detection, two `cpuid` instructions, each time it sizes a stream
   decoder, which that call does for every packet: under a hypervisor, where `cpuid` traps, that was
   more than half of the decode. A link that is one Opus stream in its natural channel order is
   decoded here instead by that stream's own decoder, the one inside libopusfile's multistream
   decoder (same state, same resets, same gain, so the same samples bit for bit); other links, and
   anything unexpected, go back to libopusfile's own call. */

/* What the decode callback keeps: the multistream decoder it last looked into and its stream. */
typedef struct at_opus_direct {
    OpusMSDecoder *multistream;
    OpusDecoder *stream;
    /* Per link: 1 when the link is one stream whose channels come out in order. */
    const unsigned char *direct_links;
    int link_count;
    /* Packets decoded here, and by libopusfile's own call. */
    long long direct_packets;
    long long default_packets;
} at_opus_direct;

/* Whether link `li` of `of` can be decoded by its single stream's decoder: one stream, coupled
   for two channels, and the mapping the identity (the stream's channels are the output's). */
static inline int at_opus_link_is_direct(const OggOpusFile *of, int li) {
    const OpusHead *h = op_head(of, li);
    if (h == NULL || h->stream_count != 1) return 0;
    if (h->channel_count == 1) return h->coupled_count == 0 && h->mapping[0] == 0;
    if (h->channel_count == 2) return h->coupled_count == 1 && h->mapping[0] == 0 && h->mapping[1] == 1;
    return 0;
}

/* An op_decode_cb_func: decodes `op` with the stream's decoder when its link allows it. */
static inline int at_opus_direct_decode(void *ctx, OpusMSDecoder *ms, void *pcm, const ogg_packet *op,
                                        int nsamples, int nchannels, int format, int li) {
    at_opus_direct *d = (at_opus_direct *)ctx;
    if (format != OP_DEC_FORMAT_FLOAT || li < 0 || li >= d->link_count || !d->direct_links[li]
        || op->bytes < 1 || nchannels < 1 || nchannels > 2) {
        d->default_packets++;
        return OP_DEC_USE_DEFAULT;
    }
    if (ms != d->multistream) {
        OpusDecoder *s = NULL;
        if (opus_multistream_decoder_ctl(ms, OPUS_MULTISTREAM_GET_DECODER_STATE(0, &s)) != OPUS_OK || s == NULL) {
            d->default_packets++;
            return OP_DEC_USE_DEFAULT;
        }
        d->multistream = ms;
        d->stream = s;
    }
    int n = opus_decode_float(d->stream, op->packet, (opus_int32)op->bytes, (float *)pcm, nsamples, 0);
    d->direct_packets++;
    if (n < 0) return n;
    return n == nsamples ? 0 : OPUS_INVALID_PACKET;
}
