#include <opusfile.h>
#include <opus_multistream.h>
#include <string.h>

/* libopusfile decodes every packet with opus_multistream_decode_float, and Debian's libopus (built
   with custom modes) runs its CPU detection, two `cpuid` instructions, each time it sizes a stream
   decoder, which that call does for every packet: under a hypervisor, where `cpuid` traps, that was
   more than half of the decode. Each packet is decoded here instead by the stream decoders inside
   libopusfile's multistream decoder (same state, same resets, same gain, so the same samples bit
   for bit): a mono or stereo link's one stream straight into the output, a surround link's streams
   one by one (each but the last in self-delimited framing, rewritten to the standard one), their
   channels placed by the header's mapping as libopus places them. A packet that doesn't parse, and
   anything unexpected, go back to libopusfile's own call, which then refuses it as before. */

/* One link's layout, copied from its OpusHead when the file is opened. `direct` is 0 when
   libopusfile decodes the link itself, 1 when it is one stream in its natural channel order, and
   2 when it is several streams (surround) whose channels are placed here by the mapping table. */
typedef struct at_opus_link {
    int direct;
    int streams;
    int coupled;
    int channels;
    unsigned char mapping[255];
} at_opus_link;

/* The most samples per channel a packet decodes to (120 ms at 48 kHz), and the room for one
   stream's packet rebuilt in the standard framing (48 frames of at most 1275 bytes, and sizes). */
#define AT_OPUS_MAX_FRAME 5760
#define AT_OPUS_MAX_STREAM_PACKET (2 + 48 * 2 + 48 * 1275)

/* What the decode callback keeps: the multistream decoder it last looked into, for which link,
   and that decoder's stream decoders; room for one stream's samples and packet. */
typedef struct at_opus_direct {
    OpusMSDecoder *multistream;
    int multistream_link;
    OpusDecoder *stream[255];
    const at_opus_link *links;
    int link_count;
    /* Packets decoded here, and by libopusfile's own call. */
    long long direct_packets;
    long long default_packets;
    float buf[2 * AT_OPUS_MAX_FRAME];
    unsigned char packet[AT_OPUS_MAX_STREAM_PACKET];
} at_opus_direct;

/* Fills `out` with link `li`'s layout and how it can be decoded here. */
static inline void at_opus_link_layout(const OggOpusFile *of, int li, at_opus_link *out) {
    const OpusHead *h = op_head(of, li);
    out->direct = 0;
    if (h == NULL || h->stream_count < 1 || h->stream_count > 255 || h->coupled_count < 0
        || h->coupled_count > h->stream_count || h->channel_count < 1 || h->channel_count > 255) return;
    out->streams = h->stream_count;
    out->coupled = h->coupled_count;
    out->channels = h->channel_count;
    for (int c = 0; c < h->channel_count; c++) {
        if (h->mapping[c] != 255 && h->mapping[c] >= h->stream_count + h->coupled_count) return;
        out->mapping[c] = h->mapping[c];
    }
    if (h->stream_count == 1 && h->channel_count == 1) out->direct = h->coupled_count == 0 && h->mapping[0] == 0;
    else if (h->stream_count == 1 && h->channel_count == 2)
        out->direct = h->coupled_count == 1 && h->mapping[0] == 0 && h->mapping[1] == 1;
    else out->direct = 2;
}


/* A frame length as Opus codes it (RFC 6716 section 3.2.1): its value and its bytes, or -1. */
static inline int at_opus_parse_size(const unsigned char *data, int len, int *size) {
    if (len < 1) return -1;
    if (data[0] < 252) { *size = data[0]; return 1; }
    if (len < 2) return -1;
    *size = 4 * data[1] + data[0];
    return 2;
}

/* Parses one self-delimited Opus packet (RFC 6716 appendix B) at the start of `data`, as libopus
   does for every stream of a multistream packet but the last: its TOC, frame sizes and frames,
   and the bytes it takes with its padding. Returns the frame count, or -1 when it is malformed. */
static inline int at_opus_parse_delimited(const unsigned char *data, int len, unsigned char *toc,
                                          int sizes[48], const unsigned char **frames, int *taken) {
    const unsigned char *p = data;
    int count, cbr = 0, pad = 0, n, last, rest;
    if (len < 1) return -1;
    *toc = *p++;
    len--;
    rest = len;
    if ((*toc & 3) == 0) count = 1;
    else if ((*toc & 3) == 1) { count = 2; cbr = 1; }
    else if ((*toc & 3) == 2) {
        count = 2;
        if ((n = at_opus_parse_size(p, len, &sizes[0])) < 0) return -1;
        p += n; len -= n;
        if (sizes[0] > len) return -1;
        rest = len - sizes[0];
    } else {
        int flags;
        if (len < 1) return -1;
        flags = *p++;
        len--;
        count = flags & 0x3F;
        if (count < 1 || opus_packet_get_samples_per_frame(data, 48000) * count > AT_OPUS_MAX_FRAME) return -1;
        if (flags & 0x40) {
            int b;
            do {
                if (len <= 0) return -1;
                b = *p++;
                len--;
                len -= b == 255 ? 254 : b;
                pad += b == 255 ? 254 : b;
            } while (b == 255);
        }
        if (len < 0) return -1;
        cbr = !(flags & 0x80);
        rest = len;
        if (!cbr) {
            for (int i = 0; i < count - 1; i++) {
                if ((n = at_opus_parse_size(p, len, &sizes[i])) < 0) return -1;
                p += n; len -= n;
                if (sizes[i] > len) return -1;
                rest -= n + sizes[i];
            }
            if (rest < 0) return -1;
        }
    }
    /* The self-delimiting size: the last frame's (every frame's when they are of one size). */
    if ((n = at_opus_parse_size(p, len, &last)) < 0) return -1;
    p += n; len -= n;
    if (last > len) return -1;
    if (cbr) {
        if (last * count > len) return -1;
        for (int i = 0; i < count - 1; i++) sizes[i] = last;
    } else if (n + last > rest) return -1;
    sizes[count - 1] = last;
    *frames = p;
    for (int i = 0; i < count; i++) p += sizes[i];
    *taken = (int)(p - data) + pad;
    return count;
}

/* Writes the frames of a parsed packet as one standard packet (code 3, VBR, no padding): the
   same TOC configuration and frames, so the stream's decoder decodes it exactly as the original. */
static inline int at_opus_standard_packet(unsigned char *out, unsigned char toc, int count,
                                          const int *sizes, const unsigned char *frames) {
    unsigned char *p = out;
    *p++ = (unsigned char)(toc | 3);
    *p++ = (unsigned char)(0x80 | count);
    for (int i = 0; i < count - 1; i++) {
        if (sizes[i] < 252) *p++ = (unsigned char)sizes[i];
        else {
            int lo = 252 + ((sizes[i] - 252) & 3);
            *p++ = (unsigned char)lo;
            *p++ = (unsigned char)((sizes[i] - lo) >> 2);
        }
    }
    int total = 0;
    for (int i = 0; i < count; i++) total += sizes[i];
    memcpy(p, frames, (size_t)total);
    return (int)(p - out) + total;
}

/* Decodes a surround packet stream by stream with the multistream decoder's own stream decoders,
   placing each stream's channels as the mapping says (a silent channel, 255, gets zeros), as
   opus_multistream_decode_float does. Every stream is parsed before any is decoded, so a packet
   that doesn't parse goes back to libopusfile untouched (returns 1). */
static inline int at_opus_decode_streams(at_opus_direct *d, const at_opus_link *l, const ogg_packet *op,
                                         float *pcm, int nsamples, int *result) {
    const unsigned char *data = op->packet;
    int len = (int)op->bytes;
    unsigned char tocs[255];
    int counts[255], offsets[255], lengths[255];
    for (int s = 0; s < l->streams; s++) {
        if (len < 1) return 1;
        if (s == l->streams - 1) {
            offsets[s] = (int)(data - op->packet); lengths[s] = len; counts[s] = 0;
        } else {
            int sizes[48], taken;
            const unsigned char *frames;
            int count = at_opus_parse_delimited(data, len, &tocs[s], sizes, &frames, &taken);
            if (count < 1 || taken > len) return 1;
            if (opus_packet_get_samples_per_frame(data, 48000) * count != nsamples) return 1;
            offsets[s] = (int)(data - op->packet); lengths[s] = taken; counts[s] = count;
            data += taken;
            len -= taken;
        }
    }
    if (opus_packet_get_nb_samples(data, len, 48000) != nsamples) return 1;
    for (int s = 0; s < l->streams; s++) {
        const unsigned char *packet = op->packet + offsets[s];
        int plen = lengths[s];
        if (s < l->streams - 1) {
            int sizes[48], taken;
            const unsigned char *frames;
            unsigned char toc;
            int count = at_opus_parse_delimited(packet, plen, &toc, sizes, &frames, &taken);
            plen = at_opus_standard_packet(d->packet, toc, count, sizes, frames);
            packet = d->packet;
        }
        int n = opus_decode_float(d->stream[s], packet, plen, d->buf, nsamples, 0);
        if (n < 0) { *result = n; return 0; }
        if (n != nsamples) { *result = OPUS_INVALID_PACKET; return 0; }
        int width = s < l->coupled ? 2 : 1;
        /* The usual case, a coupled stream's two channels each in one place: one pass. */
        int left = -1, right = -1, lefts = 0, rights = 0;
        for (int c = 0; c < l->channels && s < l->coupled; c++) {
            if (l->mapping[c] == 2 * s) { left = c; lefts++; }
            else if (l->mapping[c] == 2 * s + 1) { right = c; rights++; }
        }
        if (lefts == 1 && rights == 1) {
            float *o = pcm;
            for (int i = 0; i < nsamples; i++, o += l->channels) { o[left] = d->buf[2 * i]; o[right] = d->buf[2 * i + 1]; }
            continue;
        }
        for (int c = 0; c < l->channels; c++) {
            int m = l->mapping[c], from;
            if (s < l->coupled) {
                if (m == 2 * s) from = 0; else if (m == 2 * s + 1) from = 1; else continue;
            } else if (m == s + l->coupled) from = 0;
            else continue;
            for (int i = 0; i < nsamples; i++) pcm[i * l->channels + c] = d->buf[i * width + from];
        }
    }
    for (int c = 0; c < l->channels; c++) {
        if (l->mapping[c] != 255) continue;
        for (int i = 0; i < nsamples; i++) pcm[i * l->channels + c] = 0;
    }
    *result = 0;
    return 0;
}

/* An op_decode_cb_func: decodes `op` with the link's stream decoders when its link allows it. */
static inline int at_opus_direct_decode(void *ctx, OpusMSDecoder *ms, void *pcm, const ogg_packet *op,
                                        int nsamples, int nchannels, int format, int li) {
    at_opus_direct *d = (at_opus_direct *)ctx;
    const at_opus_link *l = li >= 0 && li < d->link_count ? &d->links[li] : NULL;
    if (format != OP_DEC_FORMAT_FLOAT || l == NULL || !l->direct || op->bytes < 1
        || nchannels != l->channels || nsamples < 1 || nsamples > AT_OPUS_MAX_FRAME) {
        d->default_packets++;
        return OP_DEC_USE_DEFAULT;
    }
    if (ms != d->multistream || li != d->multistream_link) {
        d->multistream = NULL;
        for (int s = 0; s < l->streams; s++) {
            OpusDecoder *st = NULL;
            if (opus_multistream_decoder_ctl(ms, OPUS_MULTISTREAM_GET_DECODER_STATE(s, &st)) != OPUS_OK || st == NULL) {
                d->default_packets++;
                return OP_DEC_USE_DEFAULT;
            }
            d->stream[s] = st;
        }
        d->multistream = ms;
        d->multistream_link = li;
    }
    if (l->direct == 2) {
        int result;
        if (at_opus_decode_streams(d, l, op, (float *)pcm, nsamples, &result)) {
            d->default_packets++;
            return OP_DEC_USE_DEFAULT;
        }
        d->direct_packets++;
        return result;
    }
    int n = opus_decode_float(d->stream[0], op->packet, (opus_int32)op->bytes, (float *)pcm, nsamples, 0);
    d->direct_packets++;
    if (n < 0) return n;
    return n == nsamples ? 0 : OPUS_INVALID_PACKET;
}
