// libFuzzer target: the ISO/QuickTime box walker on arbitrary bytes. Built by Fuzz/run.sh.

@_cdecl("LLVMFuzzerTestOneInput")
public func boxParserFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let src = MemoryByteSource(bytes)
    if let (s, _) = try? readMP4Structure(src) {
        _ = s.tracks.count
    }
    return 0
}
