import Foundation

/// Where the voice is active in the aligned take, in fixed frames (default 20 ms): frame energy
/// against an adaptive noise floor, with hangover. Streaming: feed blocks in order, read
/// `activity` (one flag per completed frame); deterministic for a given input.
///
/// The floor starts at the first frame's level, drops at once to any quieter frame and rises
/// by `floorRiseDBPerSecond` otherwise; a frame is active when it is `thresholdDB` above the
/// floor and above `absoluteFloorDBFS`; activity is held for `hangoverSeconds` after the last
/// active frame so word endings and short gaps stay ducked.
package final class VoiceActivityDetector {
    public struct Settings: Sendable {
        public var frameSeconds = 0.020
        public var thresholdDB = 9.0
        public var floorRiseDBPerSecond = 3.0
        public var absoluteFloorDBFS = -60.0
        public var hangoverSeconds = 0.25
        public init() {}
    }

    public let sampleRate: Double
    public let settings: Settings
    /// Samples per analysis frame.
    public let frameLength: Int
    /// One flag per completed frame: frame i covers samples [i·frameLength, (i+1)·frameLength).
    public private(set) var activity: [Bool] = []

    private var accumulated = 0.0
    private var filled = 0
    private var floorDB: Double?
    private var hangoverLeft = 0
    private let hangoverFrames: Int

    public init(sampleRate: Double, settings: Settings = Settings()) {
        precondition(sampleRate > 0)
        self.sampleRate = sampleRate
        self.settings = settings
        frameLength = max(1, Int((settings.frameSeconds * sampleRate).rounded()))
        hangoverFrames = Int((settings.hangoverSeconds / settings.frameSeconds).rounded())
    }

    /// Adds the next samples of the (mono) take.
    public func process(_ samples: [Float]) {
        for s in samples {
            accumulated += Double(s) * Double(s)
            filled += 1
            if filled == frameLength { endFrame() }
        }
    }

    /// Closes a final partial frame, if any; call once after the last block.
    public func finish() {
        if filled > 0 { endFrame() }
    }

    private func endFrame() {
        let meanSquare = accumulated / Double(max(filled, 1))
        let level = 10 * log10(max(meanSquare, 1e-20))
        accumulated = 0
        filled = 0
        var floor = floorDB ?? level
        if level < floor { floor = level } else { floor += settings.floorRiseDBPerSecond * settings.frameSeconds }
        floorDB = floor
        let loud = level > floor + settings.thresholdDB && level > settings.absoluteFloorDBFS
        if loud { hangoverLeft = hangoverFrames; activity.append(true) }
        else if hangoverLeft > 0 { hangoverLeft -= 1; activity.append(true) }
        else { activity.append(false) }
    }
}

/// The gain applied to the reference under the voice for vo-align's `--mix`: `duckDB` while the
/// voice is active, 0 dB elsewhere. The duck starts `attackSeconds` before each active stretch
/// (so it is fully down when the voice starts — the mix is made offline) and recovers over
/// `releaseSeconds` after it; transitions follow `curve` (down: d + (1−d)·fadeOut(x), up:
/// d + (1−d)·fadeIn(x), d the duck gain). Overlapping transitions take the lower gain.
/// Random-access by sample range, so it can be applied block by block.
package struct DuckingEnvelope: Sendable {
    public struct Settings: Sendable {
        public var duckDB = -12.0
        public var attackSeconds = 0.050
        public var releaseSeconds = 0.300
        public var curve = FadeCurve.linear
        public init() {}
    }

    public let settings: Settings
    /// Active stretches in samples, [start, end), sorted and disjoint.
    public let segments: [Range<Int>]
    private let attack: Int
    private let release: Int
    private let duck: Double

    /// From a detector's frame flags (`frameLength` samples each) at `sampleRate`.
    public init(activity: [Bool], frameLength: Int, sampleRate: Double, settings: Settings = Settings()) {
        var segs: [Range<Int>] = []
        var start: Int?
        for (i, a) in activity.enumerated() {
            if a, start == nil { start = i }
            if !a, let s = start { segs.append((s * frameLength)..<(i * frameLength)); start = nil }
        }
        if let s = start { segs.append((s * frameLength)..<(activity.count * frameLength)) }
        self.init(segments: segs, sampleRate: sampleRate, settings: settings)
    }

    /// From active stretches given in samples (sorted, disjoint).
    public init(segments: [Range<Int>], sampleRate: Double, settings: Settings = Settings()) {
        self.settings = settings
        self.segments = segments
        attack = max(0, Int((settings.attackSeconds * sampleRate).rounded()))
        release = max(0, Int((settings.releaseSeconds * sampleRate).rounded()))
        duck = pow(10, settings.duckDB / 20)
    }

    /// Gains for reference samples [start, start + count).
    public func gains(from start: Int, count: Int) -> [Float] {
        var out = [Float](repeating: 1, count: count)
        guard count > 0 else { return out }
        let end = start + count
        // First segment whose release may reach into the block.
        var lo = 0, hi = segments.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if segments[mid].upperBound + release <= start { lo = mid + 1 } else { hi = mid }
        }
        var i = lo
        while i < segments.count && segments[i].lowerBound - attack < end {
            let seg = segments[i]
            let from = max(start, seg.lowerBound - attack), to = min(end, seg.upperBound + release)
            if from < to {
                for n in from..<to {
                    let g = gain(n, seg)
                    if g < out[n - start] { out[n - start] = g }
                }
            }
            i += 1
        }
        return out
    }

    private func gain(_ n: Int, _ seg: Range<Int>) -> Float {
        let d = duck
        if n < seg.lowerBound {
            let x = attack > 0 ? Double(n - (seg.lowerBound - attack)) / Double(attack) : 1
            return Float(d + (1 - d) * settings.curve.fadeOut(x))
        }
        if n < seg.upperBound { return Float(d) }
        let x = release > 0 ? Double(n - seg.upperBound) / Double(release) : 1
        return Float(d + (1 - d) * settings.curve.fadeIn(x))
    }
}

/// vo-align's `--mix`: reference·duckGain + voice, block by block.
package enum DuckingMixer {
    /// Mixes equal-length blocks: output channel c = reference[c mod R]·gains + voice[c mod V],
    /// with max(R, V) channels (a mono voice goes into every reference channel). Returns the mix
    /// and its sample peak (|x|, linear; no clipping is applied).
    public static func mix(reference: AudioBlock, voice: AudioBlock, gains: [Float]) -> (block: AudioBlock, peak: Float) {
        precondition(reference.frames == voice.frames && gains.count >= reference.frames)
        let frames = reference.frames
        let channels = max(reference.channelCount, voice.channelCount)
        var out = AudioBlock(channelCount: channels, capacity: frames)
        out.frames = frames
        var peak: Float = 0
        for c in 0..<channels {
            let r = reference.channels[c % reference.channelCount]
            let v = voice.channels[c % voice.channelCount]
            out.channels[c].withUnsafeMutableBufferPointer { o in
                for i in 0..<frames {
                    let y = r[i] * gains[i] + v[i]
                    o[i] = y
                    peak = max(peak, abs(y))
                }
            }
        }
        return (out, peak)
    }
}
