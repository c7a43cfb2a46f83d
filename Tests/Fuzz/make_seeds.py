#!/usr/bin/env python3
"""Writes tiny hand-built seed files (one per structure the parsers know) into Tests/Fuzz/seeds/."""
import os, struct

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds")
os.makedirs(out, exist_ok=True)

def box(t, payload=b""):
    return struct.pack(">I", 8 + len(payload)) + t + payload

def full(t, payload=b"", v=0):
    return box(t, bytes([v, 0, 0, 0]) + payload)

def audio_entry(fourcc, children=b"", rate=44100, ch=2):
    body = b"\0" * 6 + struct.pack(">H", 1) + b"\0" * 8 + struct.pack(">HHHH", ch, 16, 0, 0) + struct.pack(">I", rate << 16)
    return box(fourcc, body + children)

def esds():
    asc = bytes([0x12, 0x10])  # AAC LC, 44100, stereo
    dsi = bytes([5, len(asc)]) + asc
    dcd = bytes([4, 13 + len(dsi), 0x40, 0x15]) + b"\0" * 11 + dsi
    es = bytes([3, 3 + len(dcd)]) + b"\0\x01\0" + dcd
    return full(b"esds", es)

def trak(handler, entry):
    stsd = full(b"stsd", struct.pack(">I", 1) + entry)
    stbl = box(b"stbl", stsd)
    minf = box(b"minf", stbl)
    hdlr = full(b"hdlr", b"\0" * 4 + handler + b"\0" * 12 + b"\0")
    mdhd = full(b"mdhd", struct.pack(">IIII", 0, 0, 44100, 441000) + b"\0" * 4)
    return box(b"trak", box(b"mdia", mdhd + hdlr + minf))

def ilst():
    def item(t, data, kind=1):
        return box(t, box(b"data", struct.pack(">II", kind, 0) + data))
    return box(b"udta", full(b"meta", full(b"hdlr", b"\0" * 4 + b"mdirappl" + b"\0" * 9) +
               box(b"ilst", item(b"\xa9nam", b"Title") + item(b"\xa9ART", b"Artist") +
                   item(b"trkn", b"\0\0\0\x03\0\x0c\0\0", 0) + item(b"gnre", b"\0\x12", 0))))

def mp4(brand, traks, extra=b""):
    return box(b"ftyp", brand + b"\0\0\0\0" + brand + b"isom") + box(b"moov", traks + ilst()) + extra + box(b"mdat", b"\0" * 16)

sinf_itun = box(b"sinf", box(b"frma", b"mp4a") + full(b"schm", b"itun" + b"\0\0\0\1") + box(b"schi", b""))
sinf_cenc = box(b"sinf", box(b"frma", b"mp4a") + full(b"schm", b"cenc" + b"\0\1\0\0") + box(b"schi", b""))
seeds = {
    "m4a.m4a": mp4(b"M4A ", trak(b"soun", audio_entry(b"mp4a", esds()))),
    "m4p.m4a": mp4(b"M4P ", trak(b"soun", audio_entry(b"drms", esds() + sinf_itun))),
    "cenc.mp4": mp4(b"isom", trak(b"soun", audio_entry(b"enca", esds() + sinf_cenc))),
    "alac.m4a": mp4(b"M4A ", trak(b"soun", audio_entry(b"alac", full(b"alac", struct.pack(">IBBBBBBHIII", 4096, 0, 24, 40, 10, 14, 2, 255, 0, 0, 96000))))),
    "av.mov": mp4(b"qt  ", trak(b"vide", box(b"avc1", b"\0" * 78)) + trak(b"soun", audio_entry(b"sowt"))),
}

def syncsafe(n):
    return bytes([(n >> 21) & 127, (n >> 14) & 127, (n >> 7) & 127, n & 127])

def id3(ver, frames):
    return b"ID3" + bytes([ver, 0, 0]) + syncsafe(len(frames)) + frames

def frame(ver, fid, enc, text):
    body = bytes([enc]) + text
    size = syncsafe(len(body)) if ver == 4 else struct.pack(">I", len(body))
    return fid + size + b"\0\0" + body

mpeg_frame = b"\xff\xfb\x90\x64" + b"\0" * 413  # MPEG-1 L3 128k 44.1k: 417 bytes
seeds["v23.mp3"] = id3(3, frame(3, b"TIT2", 1, b"\xff\xfeT\0i\0\0\0") + frame(3, b"TCON", 0, b"(17)")) + mpeg_frame * 2
seeds["v24.mp3"] = id3(4, frame(4, b"TIT2", 3, "Tìtle".encode()) + frame(4, b"TRCK", 2, b"\0\x31")) + mpeg_frame * 2

def le(n, w=4):
    return n.to_bytes(w, "little")
info = b"INFO" + b"INAM" + le(6) + b"Title\0" + b"IART" + le(3) + b"Art\0"
wav = b"WAVE" + b"fmt " + le(16) + le(1, 2) + le(2, 2) + le(44100) + le(176400) + le(4, 2) + le(16, 2) + b"data" + le(8) + b"\0" * 8 + b"LIST" + le(len(info)) + info
seeds["info.wav"] = b"RIFF" + le(len(wav)) + wav

vc = le(4) + b"test" + le(2) + le(11) + b"TITLE=Song!" + le(8) + b"ARTIST=A"
streaminfo = b"\x10\x00\x10\x00" + b"\0" * 6 + bytes([0x0A, 0xC4, 0x42, 0xF0]) + b"\0\0\xac\x44" + b"\0" * 16
seeds["vc.flac"] = b"fLaC" + bytes([0, 0, 0, 34]) + streaminfo + bytes([0x84]) + len(vc).to_bytes(3, "big") + vc

def ogg_page(seq, packet, flags=0):
    lacing = bytes([255] * (len(packet) // 255) + [len(packet) % 255])
    return b"OggS\0" + bytes([flags]) + b"\0" * 8 + le(1) + le(seq) + b"\0" * 4 + bytes([len(lacing)]) + lacing + packet
seeds["tags.opus"] = ogg_page(0, b"OpusHead\x01\x02\0\0" + le(48000) + b"\0\0\0", 2) + ogg_page(1, b"OpusTags" + vc)

def ebml(id_bytes, payload):
    return id_bytes + bytes([0x80 | len(payload)]) + payload if len(payload) < 127 else id_bytes + b"\x40" + bytes([len(payload)]) + payload
mkv_tracks = ebml(b"\x16\x54\xae\x6b", ebml(b"\xae", ebml(b"\x83", b"\x02") + ebml(b"\x86", b"A_OPUS") + ebml(b"\xe1", ebml(b"\x9f", b"\x02"))))
seeds["audio.webm"] = ebml(b"\x1a\x45\xdf\xa3", ebml(b"\x42\x82", b"webm")) + ebml(b"\x18\x53\x80\x67", mkv_tracks)
# Matroska with segment Info (title, duration) and Tags found through the SeekHead after a Cluster.
def simple_tag(name, value):
    return ebml(b"\x67\xc8", ebml(b"\x45\xa3", name) + ebml(b"\x44\x87", value))
mkv_info = ebml(b"\x15\x49\xa9\x66", ebml(b"\x2a\xd7\xb1", b"\x0f\x42\x40") + ebml(b"\x44\x89", struct.pack(">d", 3000.0)) + ebml(b"\x7b\xa9", b"Info Title"))
mkv_tags = ebml(b"\x12\x54\xc3\x67", ebml(b"\x73\x73", ebml(b"\x63\xc0", ebml(b"\x68\xca", b"\x32")) + simple_tag(b"ARTIST", b"Someone") + simple_tag(b"ALBUM", b"Record")))
mkv_cluster = ebml(b"\x1f\x43\xb6\x75", ebml(b"\xe7", b"\x00"))
def mkv_body(tags_at):
    seek = ebml(b"\x11\x4d\x9b\x74", ebml(b"\x4d\xbb", ebml(b"\x53\xab", b"\x12\x54\xc3\x67") + ebml(b"\x53\xac", struct.pack(">H", tags_at))))
    return seek
body0 = mkv_body(0)
body = mkv_body(len(body0) + len(mkv_info) + len(mkv_tracks) + len(mkv_cluster)) + mkv_info + mkv_tracks + mkv_cluster + mkv_tags
seeds["tags.mka"] = ebml(b"\x1a\x45\xdf\xa3", ebml(b"\x42\x82", b"matroska")) + b"\x18\x53\x80\x67\x01\xff\xff\xff\xff\xff\xff\xff" + body
# QuickTime metadata: keys + ilst items indexed by key.
def mdta_meta():
    keys = [b"com.apple.quicktime.title", b"com.apple.quicktime.artist"]
    kb = full(b"keys", struct.pack(">I", len(keys)) + b"".join(struct.pack(">I", 8 + len(k)) + b"mdta" + k for k in keys))
    items = b"".join(box(struct.pack(">I", i + 1), box(b"data", struct.pack(">II", 1, 0) + v)) for i, v in enumerate([b"Key Title", b"Key Artist"]))
    return box(b"meta", full(b"hdlr", b"\0" * 4 + b"mdta" + b"\0" * 13) + kb + box(b"ilst", items))
seeds["mdta.mov"] = box(b"ftyp", b"qt  \0\0\0\0qt  ") + box(b"moov", trak(b"soun", audio_entry(b"sowt")) + mdta_meta()) + box(b"mdat", b"\0" * 16)

for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as fh:
        fh.write(data)
print(len(seeds), "seeds")
