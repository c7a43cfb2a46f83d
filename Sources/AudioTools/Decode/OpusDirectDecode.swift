import COpusFile

/// libopusfile's decode callback, set up for one open file: packets of a link that is a single
/// Opus stream in its natural order (every mono and stereo Opus file) are decoded by that
/// stream's own decoder inside libopusfile's, which skips the per-packet CPU detection of
/// `opus_multistream_decode_float` in Debian's libopus (more than half the decode's time under a
/// hypervisor). The samples are bit for bit the same: the state, resets and gain are libopusfile's.
/// Surround links (several streams) are still decoded by libopusfile's own call.
final class OpusDirectDecode {
    private let state: UnsafeMutablePointer<at_opus_direct>
    private let links: UnsafeMutableBufferPointer<UInt8>

    /// Installs the callback on `handle`, whose links are read now; it must stay alive as long
    /// as `handle` is open.
    init(handle: OpaquePointer, linkCount: Int) {
        links = .allocate(capacity: max(linkCount, 1))
        links.initialize(repeating: 0)
        for li in 0..<linkCount { links[li] = at_opus_link_is_direct(handle, Int32(li)) != 0 ? 1 : 0 }
        state = .allocate(capacity: 1)
        state.initialize(to: at_opus_direct(multistream: nil, stream: nil, direct_links: UnsafePointer(links.baseAddress!),
                                            link_count: Int32(linkCount), direct_packets: 0, default_packets: 0))
        op_set_decode_callback(handle, at_opus_direct_decode, UnsafeMutableRawPointer(state))
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
        links.deallocate()
    }

    /// Packets decoded by a stream's own decoder, and by libopusfile's call, so far.
    var directPackets: Int { Int(state.pointee.direct_packets) }
    var defaultPackets: Int { Int(state.pointee.default_packets) }
}
