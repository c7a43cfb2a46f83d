// The C interface of ctaglib.h over TagLib's format classes. Kept small: which tag holds the
// gain values, and how its fields are read and replaced; the values and their spelling are
// decided by the Swift side (Sources/AudioTools/Tags).
#include "ctaglib.h"

#include <taglib/aifffile.h>
#include <taglib/flacfile.h>
#include <taglib/tfilestream.h>
#include <taglib/id3v2frame.h>
#include <taglib/id3v2header.h>
#include <taglib/id3v2tag.h>
#include <taglib/mp4file.h>
#include <taglib/mp4tag.h>
#include <taglib/mpegfile.h>
#include <taglib/opusfile.h>
#include <taglib/textidentificationframe.h>
#include <taglib/tpropertymap.h>
#include <taglib/vorbisfile.h>
#include <taglib/wavfile.h>
#include <taglib/xiphcomment.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <unistd.h>
#include <string>
#include <utility>
#include <vector>

using namespace TagLib;

namespace {

typedef std::vector<std::pair<std::string, std::string>> Pairs;

std::string utf8(const String &s) { return s.to8Bit(true); }

std::string lower(std::string s) {
    for (auto &c : s) if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    return s;
}

bool sameKey(const std::string &a, const std::string &b) { return lower(a) == lower(b); }

void fill(ctag_list *list, const Pairs &pairs) {
    if (!list) return;
    list->count = pairs.size();
    list->keys = static_cast<char **>(calloc(pairs.size() + 1, sizeof(char *)));
    list->values = static_cast<char **>(calloc(pairs.size() + 1, sizeof(char *)));
    for (size_t i = 0; i < pairs.size(); i++) {
        list->keys[i] = strdup(pairs[i].first.c_str());
        list->values[i] = strdup(pairs[i].second.c_str());
    }
}

void addProperties(Pairs &out, const PropertyMap &map) {
    for (auto it = map.begin(); it != map.end(); ++it)
        out.push_back({utf8(it->first), it->second.isEmpty() ? std::string() : utf8(it->second.front())});
}

void readXiph(Pairs &out, Ogg::XiphComment *x) {
    if (!x) return;
    const Ogg::FieldListMap &m = x->fieldListMap();
    for (auto it = m.begin(); it != m.end(); ++it)
        out.push_back({utf8(it->first), it->second.isEmpty() ? std::string() : utf8(it->second.front())});
}

void readID3(Pairs &out, ID3v2::Tag *t) {
    if (!t) return;
    const ID3v2::FrameList &frames = t->frameList("TXXX");
    for (auto it = frames.begin(); it != frames.end(); ++it) {
        auto *f = dynamic_cast<ID3v2::UserTextIdentificationFrame *>(*it);
        if (!f) continue;
        StringList fields = f->fieldList();  // description first, then the values
        out.push_back({utf8(f->description()), fields.size() > 1 ? utf8(fields[1]) : std::string()});
    }
}

void readMP4(Pairs &out, MP4::Tag *t) {
    if (!t) return;
    const MP4::ItemMap &m = t->itemMap();
    for (auto it = m.begin(); it != m.end(); ++it) {
        std::string key = utf8(it->first);
        if (key.rfind("----:", 0) != 0) continue;
        StringList v = it->second.toStringList();
        out.push_back({key, v.isEmpty() ? std::string() : utf8(v.front())});
    }
}

struct Edit {
    std::vector<std::string> setKeys, setValues, remove;
    bool removes(const std::string &k) const {
        for (auto &r : remove) if (sameKey(r, k)) return true;
        for (auto &s : setKeys) if (sameKey(s, k)) return true;
        return false;
    }
};

void editXiph(Ogg::XiphComment *x, const Edit &e) {
    std::vector<String> drop;
    const Ogg::FieldListMap &m = x->fieldListMap();
    for (auto it = m.begin(); it != m.end(); ++it)
        if (e.removes(utf8(it->first))) drop.push_back(it->first);
    for (auto &k : drop) x->removeFields(k);
    for (size_t i = 0; i < e.setKeys.size(); i++)
        x->addField(String(e.setKeys[i], String::UTF8), String(e.setValues[i], String::UTF8), true);
}

void editID3(ID3v2::Tag *t, const Edit &e) {
    ID3v2::FrameList frames = t->frameList("TXXX");  // a copy: frames are removed below
    for (auto it = frames.begin(); it != frames.end(); ++it) {
        auto *f = dynamic_cast<ID3v2::UserTextIdentificationFrame *>(*it);
        if (f && e.removes(utf8(f->description()))) t->removeFrame(f, true);
    }
    for (size_t i = 0; i < e.setKeys.size(); i++) {
        auto *f = new ID3v2::UserTextIdentificationFrame(String(e.setKeys[i], String::UTF8),
                                                         StringList(String(e.setValues[i], String::UTF8)),
                                                         String::Latin1);
        t->addFrame(f);
    }
}

void editMP4(MP4::Tag *t, const Edit &e) {
    std::vector<String> drop;
    const MP4::ItemMap &m = t->itemMap();
    for (auto it = m.begin(); it != m.end(); ++it)
        if (utf8(it->first).rfind("----:", 0) == 0 && e.removes(utf8(it->first))) drop.push_back(it->first);
    for (auto &k : drop) t->removeItem(k);
    for (size_t i = 0; i < e.setKeys.size(); i++)
        t->setItem(String(e.setKeys[i], String::UTF8), MP4::Item(StringList(String(e.setValues[i], String::UTF8))));
}

// The version to save: the one asked for (3 or 4), else the tag's own (a new tag is 2.4).
ID3v2::Version versionOf(ID3v2::Tag *t, bool present, int asked) {
    if (asked == 3 || asked == 4) return asked == 3 ? ID3v2::v3 : ID3v2::v4;
    return present && t && t->header()->majorVersion() == 3 ? ID3v2::v3 : ID3v2::v4;
}

}  // namespace

namespace {

// Opens a file of one kind by its path or, given one, through a stream over a descriptor.
struct Opener {
    const char *path;
    IOStream *stream;

    std::unique_ptr<FLAC::File> flac() const {
        return std::unique_ptr<FLAC::File>(stream ? new FLAC::File(stream, ID3v2::FrameFactory::instance(), false)
                                                  : new FLAC::File(path, false));
    }
    std::unique_ptr<MPEG::File> mpeg() const {
        return std::unique_ptr<MPEG::File>(stream ? new MPEG::File(stream, ID3v2::FrameFactory::instance(), false)
                                                  : new MPEG::File(path, false));
    }
    template <class F> std::unique_ptr<F> plain() const {
        return std::unique_ptr<F>(stream ? new F(stream, false) : new F(path, false));
    }
};

int readTags(const Opener &o, int kind, ctag_list *store, ctag_list *properties, int *id3_version) {
    Pairs s, p;
    int version = 0;
    try {
        switch (kind) {
        case CTAG_FLAC: {
            auto f = o.flac();
            if (!f->isValid()) return CTAG_INVALID;
            readXiph(s, f->xiphComment(false));
            addProperties(p, f->properties());
            break;
        }
        case CTAG_OGG_VORBIS: {
            auto f = o.plain<Ogg::Vorbis::File>();
            if (!f->isValid()) return CTAG_INVALID;
            readXiph(s, f->tag());
            addProperties(p, f->properties());
            break;
        }
        case CTAG_OPUS: {
            auto f = o.plain<Ogg::Opus::File>();
            if (!f->isValid()) return CTAG_INVALID;
            readXiph(s, f->tag());
            addProperties(p, f->properties());
            break;
        }
        case CTAG_MP3: {
            auto f = o.mpeg();
            if (!f->isValid()) return CTAG_INVALID;
            if (f->hasID3v2Tag()) {
                readID3(s, f->ID3v2Tag(false));
                version = int(f->ID3v2Tag(false)->header()->majorVersion());
            }
            addProperties(p, f->properties());
            break;
        }
        case CTAG_WAV: {
            auto f = o.plain<RIFF::WAV::File>();
            if (!f->isValid()) return CTAG_INVALID;
            if (f->hasID3v2Tag()) {
                readID3(s, f->ID3v2Tag());
                version = int(f->ID3v2Tag()->header()->majorVersion());
            }
            addProperties(p, f->properties());
            break;
        }
        case CTAG_AIFF: {
            auto f = o.plain<RIFF::AIFF::File>();
            if (!f->isValid()) return CTAG_INVALID;
            if (f->hasID3v2Tag()) {
                readID3(s, f->tag());
                version = int(f->tag()->header()->majorVersion());
            }
            addProperties(p, f->properties());
            break;
        }
        case CTAG_MP4: {
            auto f = o.plain<MP4::File>();
            if (!f->isValid()) return CTAG_INVALID;
            readMP4(s, f->tag());
            addProperties(p, f->properties());
            break;
        }
        default:
            return CTAG_UNSUPPORTED;
        }
    } catch (...) {
        return CTAG_INVALID;
    }
    fill(store, s);
    fill(properties, p);
    if (id3_version) *id3_version = version;
    return CTAG_OK;
}

}  // namespace

extern "C" int ctag_read(const char *path, int kind, ctag_list *store, ctag_list *properties, int *id3_version) {
    return readTags(Opener{path, nullptr}, kind, store, properties, id3_version);
}

extern "C" int ctag_read_fd(int fd, int kind, ctag_list *store, ctag_list *properties, int *id3_version) {
    FileStream stream(fd, true);
    if (!stream.isOpen()) {
        close(fd);
        return CTAG_INVALID;
    }
    return readTags(Opener{nullptr, &stream}, kind, store, properties, id3_version);
}

extern "C" int ctag_write(const char *path, int kind,
                          const char *const *keys, const char *const *values, size_t count,
                          const char *const *remove, size_t remove_count, int id3_version) {
    Edit e;
    for (size_t i = 0; i < count; i++) { e.setKeys.push_back(keys[i]); e.setValues.push_back(values[i]); }
    for (size_t i = 0; i < remove_count; i++) e.remove.push_back(remove[i]);
    try {
        switch (kind) {
        case CTAG_FLAC: {
            FLAC::File f(path, false);
            if (!f.isValid()) return CTAG_INVALID;
            editXiph(f.xiphComment(true), e);
            return f.save() ? CTAG_OK : CTAG_SAVE_FAILED;
        }
        case CTAG_OGG_VORBIS: {
            Ogg::Vorbis::File f(path, false);
            if (!f.isValid()) return CTAG_INVALID;
            editXiph(f.tag(), e);
            return f.save() ? CTAG_OK : CTAG_SAVE_FAILED;
        }
        case CTAG_OPUS: {
            Ogg::Opus::File f(path, false);
            if (!f.isValid()) return CTAG_INVALID;
            editXiph(f.tag(), e);
            return f.save() ? CTAG_OK : CTAG_SAVE_FAILED;
        }
        case CTAG_MP3: {
            MPEG::File f(path, false);
            if (!f.isValid()) return CTAG_INVALID;
            bool had = f.hasID3v2Tag();
            ID3v2::Tag *t = f.ID3v2Tag(true);
            ID3v2::Version v = versionOf(t, had, id3_version);
            editID3(t, e);
            return f.save(MPEG::File::ID3v2, File::StripNone, v, File::DoNotDuplicate) ? CTAG_OK : CTAG_SAVE_FAILED;
        }
        case CTAG_WAV: {
            RIFF::WAV::File f(path, false);
            if (!f.isValid()) return CTAG_INVALID;
            bool had = f.hasID3v2Tag();
            ID3v2::Tag *t = f.ID3v2Tag();
            ID3v2::Version v = versionOf(t, had, id3_version);
            editID3(t, e);
            return f.save(RIFF::WAV::File::ID3v2, File::StripNone, v) ? CTAG_OK : CTAG_SAVE_FAILED;
        }
        case CTAG_AIFF: {
            RIFF::AIFF::File f(path, false);
            if (!f.isValid()) return CTAG_INVALID;
            bool had = f.hasID3v2Tag();
            ID3v2::Tag *t = f.tag();
            ID3v2::Version v = versionOf(t, had, id3_version);
            editID3(t, e);
            return f.save(v) ? CTAG_OK : CTAG_SAVE_FAILED;
        }
        case CTAG_MP4: {
            MP4::File f(path, false);
            if (!f.isValid()) return CTAG_INVALID;
            editMP4(f.tag(), e);
            return f.save() ? CTAG_OK : CTAG_SAVE_FAILED;
        }
        default:
            return CTAG_UNSUPPORTED;
        }
    } catch (...) {
        return CTAG_SAVE_FAILED;
    }
}

extern "C" void ctag_list_free(ctag_list *list) {
    if (!list || !list->keys) return;
    for (size_t i = 0; i < list->count; i++) { free(list->keys[i]); free(list->values[i]); }
    free(list->keys);
    free(list->values);
    list->keys = nullptr;
    list->values = nullptr;
    list->count = 0;
}
