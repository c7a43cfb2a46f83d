/* A small C interface over TagLib for audio-tools: tags in, tags out.
 *
 * The caller names the container (it has already sniffed the bytes), and TagLib reads or edits
 * the one tag where that format keeps gain values: the Vorbis comment of FLAC, Ogg Vorbis and
 * Opus; the ID3v2 tag of MP3, WAV and AIFF (user text frames, TXXX, keyed by description); the
 * freeform atoms of MP4 ("----:mean:name"). Everything else in the file is left as it is. */
#ifndef CTAGLIB_H
#define CTAGLIB_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ctag_kind {
    CTAG_FLAC = 1,
    CTAG_OGG_VORBIS = 2,
    CTAG_OPUS = 3,
    CTAG_MP3 = 4,
    CTAG_WAV = 5,
    CTAG_AIFF = 6,
    CTAG_MP4 = 7,
};

enum ctag_status {
    CTAG_OK = 0,
    CTAG_UNSUPPORTED = 1, /* a kind this shim doesn't know */
    CTAG_INVALID = 2,     /* TagLib can't parse the file as that kind */
    CTAG_SAVE_FAILED = 3, /* TagLib could not write the tag back (read-only file, I/O error) */
};

/* Key/value pairs, UTF-8, owned by the list; free with ctag_list_free. */
typedef struct ctag_list {
    size_t count;
    char **keys;
    char **values;
} ctag_list;

/* Reads the gain tag's fields (`store`: Vorbis comment fields, TXXX descriptions, or MP4
 * freeform item names, with their first value) and TagLib's generic property map of the file
 * (`properties`: TITLE, ARTIST, ALBUM, ALBUMARTIST, ...). `id3_version` gets the ID3v2 major
 * version (3 or 4) when the file has one, else 0. */
int ctag_read(const char *path, int kind, ctag_list *store, ctag_list *properties, int *id3_version);

/* As ctag_read, through the open descriptor `fd` (read from its start), which it takes over
 * and closes. */
int ctag_read_fd(int fd, int kind, ctag_list *store, ctag_list *properties, int *id3_version);

/* In the gain tag: removes every field whose key equals one of `remove` ignoring ASCII case,
 * then sets each keys[i] = values[i] (removing other-case spellings of it first), and saves
 * the file where it is. An ID3v2 tag (MP3, WAV, AIFF) is saved as version `id3_version` (3 or
 * 4); 0 keeps its version (a new tag is ID3v2.4). Other tags (ID3v1, APE, RIFF INFO) are not
 * touched. */
int ctag_write(const char *path, int kind,
               const char *const *keys, const char *const *values, size_t count,
               const char *const *remove, size_t remove_count, int id3_version);

void ctag_list_free(ctag_list *list);

#ifdef __cplusplus
}
#endif

#endif
