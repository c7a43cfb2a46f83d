import COpusFile

/// libopusfile's decode callback, set up for one open file: each packet is decoded by the stream
/// decoders inside libopusfile's multistream decoder (one for mono and stereo, several for
/// surround, their channels placed by the header's mapping), which skips the per-packet CPU
/// detection of `opus_multistream_decode_float` in Debian's libopus (more than half the decode's
/// time under a hypervisor). The samples are bit for bit the same: the state, resets and gain are
/// libopusfile's. A packet that doesn't parse is left to libopusfile's own call.
package final class OpusDirectDecode {
    private let state: UnsafeMutablePointer<at_opus_direct>
    private let links: UnsafeMutableBufferPointer<at_opus_link>

    /// Installs the callback on `handle`, whose links are read now; it must stay alive as long
    /// as `handle` is open.
    package init(handle: OpaquePointer, linkCount: Int) {
        links = .allocate(capacity: max(linkCount, 1))
        links.initialize(repeating: at_opus_link())
        for li in 0..<linkCount { at_opus_link_layout(handle, Int32(li), links.baseAddress! + li) }
        // Zeroed in place: the state holds the sample and packet buffers (about 100 kB).
        let raw = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<at_opus_direct>.size,
                                                   alignment: MemoryLayout<at_opus_direct>.alignment)
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<at_opus_direct>.size)
        state = raw.bindMemory(to: at_opus_direct.self, capacity: 1)
        state.pointee.links = UnsafePointer(links.baseAddress!)
        state.pointee.link_count = Int32(linkCount)
        state.pointee.multistream_link = -1
        op_set_decode_callback(handle, at_opus_direct_decode, UnsafeMutableRawPointer(state))
    }

    deinit {
        UnsafeMutableRawPointer(state).deallocate()
        links.deallocate()
    }

    /// Packets decoded by a stream's own decoder, and by libopusfile's call, so far.
    package var directPackets: Int { Int(state.pointee.direct_packets) }
    package var defaultPackets: Int { Int(state.pointee.default_packets) }
}
