// libFuzzer target: ID3v2/ID3v1, Vorbis comments and RIFF INFO on arbitrary bytes.
// Built by Fuzz/run.sh.

@_cdecl("LLVMFuzzerTestOneInput")
public func id3Fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let src = MemoryByteSource(bytes)
    _ = try? readID3v2(src)
    _ = try? readID3v1(src)
    _ = VorbisComment.parse(bytes)
    _ = ProbeChunkReaders.riffInfo(bytes[...])
    if let g = String(validating: bytes.prefix(64), as: UTF8.self) { _ = ID3Genres.resolve(g) }
    return 0
}
