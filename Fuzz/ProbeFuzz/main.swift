// libFuzzer target: the whole probe (sniff, every container reader, verdict) on arbitrary bytes.
// Built by Fuzz/run.sh.

@_cdecl("LLVMFuzzerTestOneInput")
public func probeFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let facts = try? probeContainer(MemoryByteSource(bytes)) {
        _ = ProbeVerdicts.refusal(for: facts, path: "fuzz.bin")
    }
    return 0
}
