/// Where a `ValueSpill` keeps the values past its first chunk: bytes written once, at increasing
/// offsets, and read back. The signal library has no storage of its own and keeps everything in
/// memory; a program that measures hours of audio installs one (the tools install an unlinked
/// temporary file, AudioIO's `TemporarySpillFile`).
package protocol SpillStorage: AnyObject {
    /// `count` bytes written at `offset`; false when they couldn't be (a full disk), and the
    /// spill then brings everything back to memory.
    func write(_ bytes: UnsafeRawPointer, count: Int, at offset: Int) -> Bool
    /// `count` bytes read back from `offset`; false when they couldn't be.
    func read(into bytes: UnsafeMutableRawPointer, count: Int, at offset: Int) -> Bool
}

/// The storage each new spill gets when its first chunk is full; set once, before any work.
package enum SpillStorageMaker {
    /// nil (the default), or a maker returning nil, keeps a spill's values in memory.
    nonisolated(unsafe) public static var make: (() -> (any SpillStorage)?)?
}
