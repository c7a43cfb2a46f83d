/// MPEG-1/2/2.5 Layer III: every granule's and channel's `global_gain` (8 bits of the side
/// information; one step is 2^(1/4) in amplitude, 1.505 dB, "1.5 dB" in mp3gain's words) moved by the same number of steps.
/// ID3v2 at the start, the Xing/Info/VBRI frame, Lyrics3 and ID3v1 at the end are kept byte for
/// byte; the APEv2 tag at the end gets mp3gain's MP3GAIN_UNDO and MP3GAIN_MINMAX items, so
/// `mp3gain -u` restores the original, and an undo record already there is added to.
public enum MP3GlobalGain {
    /// One step: the decoder scales by 2^(global_gain/4), so 20·log10(2^(1/4)) = 5·log10(2) dB.
    public static let stepDB = 5 * 0.30102999566398119521

    /// What was changed.
    public struct Result: Sendable {
        public var bytes: [UInt8]
        /// Audio frames changed (the Xing/Info frame not counted).
        public var frames: Int
        /// global_gain over the file before and after.
        public var minGain: Int
        public var maxGain: Int
        /// mp3gain's undo record found in the file (left, right steps), and the one written.
        public var previousUndo: (left: Int, right: Int)?
        public var undo: (left: Int, right: Int)
    }

    /// What a change did: the facts of `Result`, without the bytes.
    public struct Change: Sendable {
        public var frames: Int
        public var minGain: Int
        public var maxGain: Int
        public var previousUndo: (left: Int, right: Int)?
        public var undo: (left: Int, right: Int)
    }

    /// The layout of a file: where the frames are and the tag at the end.
    package struct Layout {
        package var audioStart: Int
        package var audioEnd: Int
        /// The APEv2 tag's bytes (header, if any, to footer), nil without one.
        package var ape: Range<Int>?
    }

    /// `bytes` (a whole MP3 file) with every global_gain moved by `steps`; throws when one would
    /// leave 0…255 or a frame is not where the previous one says. `window`: as in `change`.
    public static func apply(_ bytes: [UInt8], steps: Int, window: Int = Self.window) throws(BitstreamGainError) -> Result {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 256)
        let c: Change
        do {
            c = try change(size: bytes.count, steps: steps, window: window, read: { offset, into in
                for i in 0..<into.count { into[i] = bytes[offset + i] }
            }, write: { out.append(contentsOf: $0) })
        } catch let e as BitstreamGainError {
            throw e
        } catch {
            preconditionFailure("reading an array does not fail")
        }
        return Result(bytes: out, frames: c.frames, minGain: c.minGain, maxGain: c.maxGain,
                      previousUndo: c.previousUndo, undo: c.undo)
    }

    /// Bytes read, changed and handed on at a time: big enough that a write costs little more
    /// than its copy, small enough to stay in the processor's cache from the read to the write
    /// (and to fault in: a fresh buffer's every page is a fault, 256 of them for a mebibyte).
    public static let window = 256 << 10

    /// Changes a file of `size` bytes that `read(offset, buffer)` fills buffers from (exactly, or
    /// throwing): every global_gain moved by `steps`, mp3gain's items written in the APEv2 tag.
    /// The file is read once, a window at a time; each window's frames are changed in it and, when
    /// `write` is given, the window is handed to it, so the output is made in the same pass, in
    /// order, and the file is never held whole. Throws a BitstreamGainError (or the reader's or the
    /// writer's error) at the first frame it can't change: what was written by then must be dropped.
    /// `undoing`: the change is the file's undo record applied, so mp3gain's items are removed
    /// instead (and the APEv2 tag with them when it holds nothing else).
    public static func change(size: Int, steps: Int, undoing: Bool = false, window: Int = Self.window,
                              read: (Int, UnsafeMutableBufferPointer<UInt8>) throws -> Void,
                              write: ((UnsafeRawBufferPointer) throws -> Void)?) throws -> Change {
        func bytes(_ r: Range<Int>) throws -> [UInt8] {
            var b = [UInt8](repeating: 0, count: r.count)
            try b.withUnsafeMutableBufferPointer { try read(r.lowerBound, $0) }
            return b
        }
        let layout = try locate(size: size, bytes)
        // The tag first (a few bytes): a malformed one is refused before any frame is read.
        var tag = try layout.ape.map { r throws in try APEv2Tag(try bytes(r), offset: r.lowerBound) } ?? APEv2Tag()
        let tagAt = layout.ape?.lowerBound ?? layout.audioEnd
        let tagEnd = layout.ape?.upperBound ?? layout.audioEnd

        // Everything before the tag, the frames changed as they pass. A window ends early at a
        // frame whose header and side information it doesn't hold whole; the next starts there.
        var scan = FrameScan(steps: steps, audioEnd: layout.audioEnd, size: size, next: layout.audioStart)
        var buffer = [UInt8](repeating: 0, count: min(max(window, FrameScan.margin), max(size, 1)))
        try buffer.withUnsafeMutableBufferPointer { buf in
            var at = 0
            while at < tagAt {
                let w = UnsafeMutableBufferPointer(rebasing: buf[0..<(min(size, at + buf.count) - at)])
                try read(at, w)
                let done = min(tagAt, try scan.scan(w, at: at))
                try write?(UnsafeRawBufferPointer(start: w.baseAddress, count: done - at))
                at = done
            }
        }
        if scan.frames == 0 { throw BitstreamGainError.unsupportedFormat("MP3 without Layer III frames") }

        // The tag: other items kept in order, then MP3GAIN_MINMAX and MP3GAIN_UNDO as mp3gain
        // writes them; then what follows it (Lyrics3, ID3v1) as it is.
        let previous = tag.mp3gainUndo
        let undo = undoing ? (left: 0, right: 0) : Self.undo(after: previous, steps: steps)
        tag.mp3gainMinMax = undoing ? nil : (scan.minGain, scan.maxGain)
        tag.mp3gainUndo = undoing ? nil : (undo.left, undo.right, previous?.wrap ?? false)
        if let write {
            if !undoing || !tag.others.isEmpty { try tag.bytes().withUnsafeBytes { try write($0) } }
            if tagEnd < size { try bytes(tagEnd..<size).withUnsafeBytes { try write($0) } }
        }
        return Change(frames: scan.frames, minGain: scan.minGain, maxGain: scan.maxGain,
                      previousUndo: previous.map { ($0.left, $0.right) }, undo: undo)
    }

    /// What `change` would do to the file whose bytes are all of `file` (a read-only mapping), in
    /// one pass that changes and writes nothing: the same walk, checks, refusals and facts (--dry-run).
    public static func plan(_ file: UnsafeRawBufferPointer, steps: Int) throws -> Change {
        let layout = try locate(size: file.count) { Array(file[$0]) }
        let tag = try layout.ape.map { r throws in try APEv2Tag(Array(file[r]), offset: r.lowerBound) } ?? APEv2Tag()
        var scan = FrameScan(steps: steps, audioEnd: layout.audioEnd, size: file.count, next: layout.audioStart, writes: false)
        _ = try scan.scan(readOnly: file, at: 0)
        if scan.frames == 0 { throw BitstreamGainError.unsupportedFormat("MP3 without Layer III frames") }
        let previous = tag.mp3gainUndo
        return Change(frames: scan.frames, minGain: scan.minGain, maxGain: scan.maxGain, previousUndo: previous.map { ($0.left, $0.right) },
                      undo: undo(after: previous, steps: steps))
    }

    /// mp3gain's undo record in the APEv2 tag of a file of `size` bytes read through `read`
    /// (left, right steps, wrapping), nil when it has none.
    public static func undoRecord(size: Int, _ read: (Range<Int>) throws -> [UInt8]) throws -> (left: Int, right: Int, wrap: Bool)? {
        let layout = try locate(size: size, read)
        guard let r = layout.ape else { return nil }
        return try APEv2Tag(try read(r), offset: r.lowerBound).mp3gainUndo
    }

    /// The undo record after moving `steps` over what an earlier undo record (nil: none) undoes.
    package static func undo(after previous: (left: Int, right: Int, wrap: Bool)?, steps: Int) -> (left: Int, right: Int) {
        ((previous?.left ?? 0) - steps, (previous?.right ?? 0) - steps)
    }

    /// The same layout of a file held in memory (an ADTS stream is walked whole).
    package static func locate(_ b: [UInt8]) throws(BitstreamGainError) -> Layout {
        do { return try locate(size: b.count) { Array(b[$0]) } }
        catch let e as BitstreamGainError { throw e }
        catch { throw .malformed(what: "tag layout", offset: 0) }
    }

    /// The ID3v2 tag at the start, and ID3v1, Lyrics3 v2 and APEv2 at the end in any order, in a
    /// file of `size` bytes read through `read`.
    package static func locate(size: Int, _ read: (Range<Int>) throws -> [UInt8]) throws -> Layout {
        var start = 0
        while start + 10 <= size {
            let b = try read(start..<(start + 10))
            guard b[0] == 0x49, b[1] == 0x44, b[2] == 0x33 else { break }
            let tagSize = (Int(b[6] & 0x7F) << 21) | (Int(b[7] & 0x7F) << 14) | (Int(b[8] & 0x7F) << 7) | Int(b[9] & 0x7F)
            start += 10 + tagSize + (b[5] & 0x10 != 0 ? 10 : 0)
        }
        // Padding some taggers leave after ID3v2.
        padding: while start < size {
            let b = try read(start..<min(size, start + 4096))
            for byte in b {
                if byte != 0 { break padding }
                start += 1
            }
        }
        var end = size
        var ape: Range<Int>?
        while true {
            let before = end
            if end - 128 >= start, try read((end - 128)..<(end - 125)) == Array("TAG".utf8) { end -= 128 }
            if end - 15 >= start {
                let b = try read((end - 15)..<end)
                if Array(b[6...]) == Array("LYRICS200".utf8), let n = Int(String(decoding: b[0..<6], as: UTF8.self)), end - 15 - n >= start {
                    end -= 15 + n
                }
            }
            if ape == nil, end - 32 >= start {
                let b = try read((end - 32)..<end)
                if Array(b[0..<8]) == Array("APETAGEX".utf8) {
                    let length = Int(OggPage.readLE(b, 12, 4))
                    let flags = UInt32(OggPage.readLE(b, 20, 4))
                    let from = end - length - (flags & 0x8000_0000 != 0 ? 32 : 0)
                    guard length >= 32, from >= start else { throw BitstreamGainError.malformed(what: "APEv2 tag", offset: end - 32) }
                    ape = from..<end
                    end = from
                }
            }
            if end == before { break }
        }
        return Layout(audioStart: start, audioEnd: end, ape: ape)
    }
}
