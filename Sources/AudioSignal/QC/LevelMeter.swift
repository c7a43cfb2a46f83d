import Foundation

/// ACX's three level figures, measured in one streaming pass with constant memory: the sample
/// peak (not true peak) with its frame and channel, the whole file's unweighted RMS, and the noise
/// floor, the RMS of the quietest 0.5-s window (ACX Check's definition; windows start every 10 ms).
/// Channels are combined as one signal: the mean square over all channels' samples.
public final class LevelMeter {
    public let sampleRate: Int
    public let channelCount: Int
    /// Length of a noise-floor window, seconds.
    public static let windowSeconds = 0.5
    /// A noise-floor window starts every this many seconds.
    public static let stepSeconds = 0.01

    private let step: Int
    private let stepsPerWindow: Int
    private var frames = 0
    private var total = 0.0
    private var peak: Float = 0
    private var peakFrame = 0
    private var peakChannel = 0
    /// Sum of squares over all channels of the step being filled, and its frames.
    private var current = 0.0
    private var inStep = 0
    /// The last `stepsPerWindow` whole steps' sums (a ring), and how many steps so far.
    private var ring: [Double]
    private var steps = 0
    private var quietest: Double?
    private var quietestStep = 0

    public init(sampleRate: Int, channelCount: Int) {
        self.sampleRate = sampleRate
        self.channelCount = max(channelCount, 1)
        step = max(1, Int((Double(sampleRate) * Self.stepSeconds).rounded()))
        stepsPerWindow = max(1, Int((Self.windowSeconds / Self.stepSeconds).rounded()))
        ring = [Double](repeating: 0, count: stepsPerWindow)
    }

    /// Feeds the next frames.
    public func add(_ block: AudioBlock) {
        let n = block.frames
        guard n > 0 else { return }
        var f = 0
        while f < n {
            let m = min(n - f, step - inStep)
            var sum = 0.0
            for c in 0..<min(channelCount, block.channels.count) {
                block.channels[c].withUnsafeBufferPointer { b in
                    let p = b.baseAddress! + f
                    // 8 samples a step: squares summed and magnitudes' maximum, then the rest one by one.
                    var acc8 = SIMD8<Float>(repeating: 0), top8 = acc8
                    var k = 0
                    while k + 8 <= m {
                        let v = UnsafeRawPointer(p + k).loadUnaligned(as: SIMD8<Float>.self)
                        acc8 += v * v
                        let a = QCAnalyser.magnitude(v)
                        top8 = top8.replacing(with: a, where: a .> top8)
                        k += 8
                    }
                    var acc = acc8.sum(), top = top8.max()
                    while k < m {
                        acc += p[k] * p[k]
                        top = max(top, abs(p[k]))
                        k += 1
                    }
                    sum += Double(acc)
                    if top > peak {
                        peak = top
                        for k in 0..<m where abs(p[k]) == top { peakFrame = frames + f + k; break }
                        peakChannel = c
                    }
                }
            }
            current += sum
            inStep += m
            f += m
            if inStep == step { closeStep() }
        }
        frames += n
    }

    private func closeStep() {
        total += current
        ring[steps % stepsPerWindow] = current
        steps += 1
        current = 0
        inStep = 0
        guard steps >= stepsPerWindow else { return }
        let power = ring.reduce(0, +)
        if quietest.map({ power < $0 }) ?? true {
            quietest = power
            quietestStep = steps - stepsPerWindow
        }
    }

    /// The figures, in dBFS (nil for a level of exactly zero, that is digital silence).
    public struct Levels: Equatable, Sendable {
        public var samplePeakDBFS: Double?
        public var samplePeakAtSeconds: Double
        public var samplePeakChannel: Int
        public var rmsDBFS: Double?
        public var noiseFloorDBFS: Double?
        /// Where the quietest window starts; a file shorter than a window is one window from 0.
        public var noiseFloorAtSeconds: Double
        /// Whether the file is shorter than one window, so the noise floor is the whole file's.
        public var shorterThanWindow: Bool
        public var frames: Int
    }

    /// The figures so far (call after the last `add`).
    public func finish() -> Levels {
        let rate = Double(max(sampleRate, 1))
        let whole = total + current
        func dB(_ meanSquare: Double) -> Double? { meanSquare > 0 ? 10 * log10(meanSquare) : nil }
        let perWindow = Double(stepsPerWindow * step * channelCount)
        let short = quietest == nil
        let floorPower = quietest.map { $0 / perWindow } ?? (frames > 0 ? whole / Double(frames * channelCount) : 0)
        return Levels(samplePeakDBFS: peak > 0 ? 20 * log10(Double(peak)) : nil,
                      samplePeakAtSeconds: Double(peakFrame) / rate, samplePeakChannel: peakChannel,
                      rmsDBFS: frames > 0 ? dB(whole / Double(frames * channelCount)) : nil,
                      noiseFloorDBFS: dB(floorPower),
                      noiseFloorAtSeconds: short ? 0 : Double(quietestStep * step) / rate,
                      shorterThanWindow: short, frames: frames)
    }
}
