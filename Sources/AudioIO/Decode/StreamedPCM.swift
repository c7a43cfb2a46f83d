import AudioSignal
import CSndfile
import Foundation

/// How PCM samples are laid out in a stream: rate, channels and one sample encoding.
public struct PCMStreamFormat: Equatable, Sendable {
    public enum Encoding: String, CaseIterable, Sendable {
        case u8, s8, s16le, s16be, s24le, s24be, s32le, s32be, f32le, f32be, f64le, f64be
        public var bytes: Int {
            switch self {
            case .u8, .s8: return 1
            case .s16le, .s16be: return 2
            case .s24le, .s24be: return 3
            case .s32le, .s32be, .f32le, .f32be: return 4
            case .f64le, .f64be: return 8
            }
        }
        public var isFloat: Bool { [.f32le, .f32be, .f64le, .f64be].contains(self) }
        package var bigEndian: Bool { rawValue.hasSuffix("be") }
        /// The codec as records name it (SndfileDescription's words).
        package var codec: String {
            switch self {
            case .u8: return "pcm_u8"
            case .s8: return "pcm_s8"
            case .s16le, .s16be: return "pcm_s16"
            case .s24le, .s24be: return "pcm_s24"
            case .s32le, .s32be: return "pcm_s32"
            case .f32le, .f32be: return "pcm_f32"
            case .f64le, .f64be: return "pcm_f64"
            }
        }
        package var sndfileSubtype: Int {
            switch self {
            case .u8: return SF_FORMAT_PCM_U8
            case .s8: return SF_FORMAT_PCM_S8
            case .s16le, .s16be: return SF_FORMAT_PCM_16
            case .s24le, .s24be: return SF_FORMAT_PCM_24
            case .s32le, .s32be: return SF_FORMAT_PCM_32
            case .f32le, .f32be: return SF_FORMAT_FLOAT
            case .f64le, .f64be: return SF_FORMAT_DOUBLE
            }
        }
    }

    public var sampleRate: Int
    public var channelCount: Int
    public var encoding: Encoding
    /// Bytes of samples the header states; nil when it doesn't know (a pipe, a raw stream).
    public var dataBytes: UInt64?
    /// The WAVE_FORMAT_EXTENSIBLE channel mask, when the header has one.
    public var channelMask: UInt32?
    /// "wav", "au" or "raw".
    public var container: String

    public init(sampleRate: Int, channelCount: Int, encoding: Encoding, dataBytes: UInt64? = nil,
                channelMask: UInt32? = nil, container: String) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.encoding = encoding
        self.dataBytes = dataBytes
        self.channelMask = channelMask
        self.container = container
    }

    public var blockAlign: Int { channelCount * encoding.bytes }

    /// `--raw RATE:CHANNELS:FORMAT` (48000:2:s16le); nil when it isn't one.
    public static func raw(_ text: String) -> PCMStreamFormat? {
        let p = text.split(separator: ":", omittingEmptySubsequences: false)
        guard p.count == 3, let rate = Int(p[0]), let ch = Int(p[1]), let e = Encoding(rawValue: String(p[2]).lowercased()),
              (1...64).contains(ch), rate > 0 else { return nil }
        return PCMStreamFormat(sampleRate: rate, channelCount: ch, encoding: e, container: "raw")
    }

    /// The speaker names libsndfile gives a WAVE channel mask: the mask's speakers in bit order,
    /// "?" for channels past them (as SndfileSource.channelName names its codes).
    package static func speakerNames(mask: UInt32, channelCount: Int) -> [String]? {
        guard mask != 0 else { return nil }
        let bits = ["FL", "FR", "FC", "LFE", "BL", "BR", "FLC", "FRC", "BC", "SL", "SR", "TC", "TFL", "TFC", "TFR", "TBL", "TBC", "TBR"]
        var names = bits.indices.filter { mask & (1 << UInt32($0)) != 0 }.map { bits[$0] }
        if names.count > channelCount { names.removeLast(names.count - channelCount) }
        while names.count < channelCount { names.append("?") }
        return names
    }

    /// libsndfile's description of the same encoding, so a piped stream is described as the file is.
    package var sndfileDescription: SndfileDescription {
        let major: Int = container == "au" ? SF_FORMAT_AU : container == "raw" ? SF_FORMAT_RAW
            : (channelMask != nil ? SF_FORMAT_WAVEX : SF_FORMAT_WAV)
        return SndfileDescription(container: container, codec: encoding.codec, bitDepth: encoding.bytes * 8,
                                  isFloat: encoding.isFloat, isLossy: false,
                                  channelNames: channelMask.flatMap { Self.speakerNames(mask: $0, channelCount: channelCount) },
                                  formatCode: Int32(major | encoding.sndfileSubtype))
    }
}

/// What a source read from a stream adds to its record: the bytes read, why it ended, and
/// sentences for what a file's record would not need (a cut-off frame, a stop on a signal).
public protocol StreamedAudio: AnyObject {
    var bytesRead: UInt64 { get }
    var streamNotes: [String] { get }
    /// Whether a signal (SIGINT, SIGTERM) ended the reading.
    var stoppedBySignal: Bool { get }
    /// Whether it read standard input (else a file that was still being written).
    var isPipe: Bool { get }
}

/// PCM samples read from a stream as they arrive (a WAV or AU body, or raw PCM), converted to
/// float exactly as libsndfile converts the same samples from a file (integers × 2^-(bits-1)),
/// so a piped file measures as the file does.
public final class StreamedPCMSource: AudioSource, StreamedAudio {
    public let path: String
    public let format: AudioFormat
    public let layout: PCMStreamFormat
    private let reader: PipeReader
    /// Whether to read the input to its end after the samples (a pipe's writer is not cut off).
    private let drainsAfter: Bool
    public let isPipe: Bool
    private var left: UInt64?
    private var bytes: [UInt8] = []
    private var framesRead = 0
    private var finished = false
    private let startBytes: UInt64
    public private(set) var streamNotes: [String] = []

    public init(path: String, reader: PipeReader, layout: PCMStreamFormat, isPipe: Bool, drainsAfter: Bool) {
        self.path = path
        self.reader = reader
        self.layout = layout
        self.isPipe = isPipe
        self.drainsAfter = drainsAfter
        left = layout.dataBytes
        startBytes = reader.bytesTaken
        format = AudioFormat(sampleRate: layout.sampleRate, channelCount: layout.channelCount,
                             frameCount: layout.dataBytes.map { Int($0 / UInt64(layout.blockAlign)) })
    }

    public var bytesRead: UInt64 { reader.bytesTaken }
    public var stoppedBySignal: Bool { reader.end == .stopped }
    public var decodesCheaply: Bool { true }

    public func read(into block: inout AudioBlock, maxFrames: Int) throws -> Int {
        let ch = layout.channelCount, align = layout.blockAlign
        if block.channels.count != ch { block.channels = Array(repeating: [], count: ch) }
        for c in 0..<ch where block.channels[c].count < maxFrames { block.channels[c] = [Float](repeating: 0, count: maxFrames) }
        block.frames = 0
        guard !finished else { return 0 }
        var want = maxFrames * align
        if let l = left { want = Int(min(UInt64(want), l)) }
        if bytes.count < want { bytes = [UInt8](repeating: 0, count: want) }
        let got = want == 0 ? 0 : bytes.withUnsafeMutableBytes { reader.read(into: $0.baseAddress!, count: want) }
        if let l = left { left = l - UInt64(got) }
        let n = got / align
        if n > 0 { try convert(n, into: &block) }
        block.frames = n
        framesRead += n
        if got < want || left == 0 { end(partial: got % align) }
        return n
    }

    /// Notes what the end of the stream left, and reads past the rest of a pipe.
    private func end(partial: Int) {
        finished = true
        if partial > 0 {
            streamNotes.append("The input ended inside a frame: the last \(partial) byte\(partial == 1 ? "" : "s") (less than one \(layout.blockAlign)-byte frame) were not measured.")
        }
        if let l = left, l > 0, reader.end != .stopped {
            let promised = layout.dataBytes.map { $0 / UInt64(layout.blockAlign) } ?? 0
            streamNotes.append("The input ended after \(framesRead) of the \(promised) frames its header states; what was read is measured.")
        }
        if drainsAfter, left == 0 { reader.drain() }
    }

    private func convert(_ n: Int, into block: inout AudioBlock) throws {
        let ch = layout.channelCount, e = layout.encoding, w = e.bytes
        try bytes.withUnsafeBytes { raw in
            for c in 0..<ch {
                try block.channels[c].withUnsafeMutableBufferPointer { dst in
                    var o = c * w
                    let step = ch * w
                    for i in 0..<n {
                        let v = Self.sample(raw, o, e)
                        if e.isFloat, !v.isFinite { throw DecodeError(path, .nonFiniteSample(channel: c, frame: framesRead + i)) }
                        dst[i] = v
                        o += step
                    }
                }
            }
        }
    }

    /// One sample as libsndfile reads it as float (its normalised integer scale).
    @inline(__always)
    package static func sample(_ p: UnsafeRawBufferPointer, _ o: Int, _ e: PCMStreamFormat.Encoding) -> Float {
        switch e {
        case .u8: return Float(Int(p[o]) - 128) * (1 / 128)
        case .s8: return Float(Int8(bitPattern: p[o])) * (1 / 128)
        case .s16le: return Float(Int16(littleEndian: p.loadUnaligned(fromByteOffset: o, as: Int16.self))) * (1 / 32768)
        case .s16be: return Float(Int16(bigEndian: p.loadUnaligned(fromByteOffset: o, as: Int16.self))) * (1 / 32768)
        case .s24le:
            let v = Int32(bitPattern: UInt32(p[o]) << 8 | UInt32(p[o + 1]) << 16 | UInt32(p[o + 2]) << 24)
            return Float(v) * (1 / 2147483648)
        case .s24be:
            let v = Int32(bitPattern: UInt32(p[o + 2]) << 8 | UInt32(p[o + 1]) << 16 | UInt32(p[o]) << 24)
            return Float(v) * (1 / 2147483648)
        case .s32le: return Float(Int32(littleEndian: p.loadUnaligned(fromByteOffset: o, as: Int32.self))) * (1 / 2147483648)
        case .s32be: return Float(Int32(bigEndian: p.loadUnaligned(fromByteOffset: o, as: Int32.self))) * (1 / 2147483648)
        case .f32le: return Float(bitPattern: UInt32(littleEndian: p.loadUnaligned(fromByteOffset: o, as: UInt32.self)))
        case .f32be: return Float(bitPattern: UInt32(bigEndian: p.loadUnaligned(fromByteOffset: o, as: UInt32.self)))
        case .f64le: return Float(Double(bitPattern: UInt64(littleEndian: p.loadUnaligned(fromByteOffset: o, as: UInt64.self))))
        case .f64be: return Float(Double(bitPattern: UInt64(bigEndian: p.loadUnaligned(fromByteOffset: o, as: UInt64.self))))
        }
    }

    public func seek(toFrame frame: Int) throws {
        throw DecodeError(path, .cannotSeek(frame: frame))
    }
}
