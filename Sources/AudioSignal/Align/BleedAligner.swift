import Foundation

/// Finds where a voiceover take was performed against its backing track, from the backing that
/// bleeds into the take (headphone leak, room speakers): the record latency at the start of the
/// take, the clock drift between the two devices, how loud the bleed is, and how sure it is.
///
/// Method: GCC-PHAT (whitened cross-correlation) between windows of the take and the matching
/// reference segments widened by the maximum lag, refined to a fraction of a sample; a robust
/// line through the window offsets gives latency at take frame 0 and drift. When drift smears
/// the windows' peaks, the reference windows are warped by the first drift estimate and
/// measured again.
///
/// Sign convention: positive latency means the take is late — reference content at reference
/// time t appears in the take at t + latency. Both signals are mono at the take's rate.
public final class BleedAligner {
    /// Tunables; the defaults are what vo-align uses.
    public struct Settings: Sendable {
        /// Lags searched: [−maxLag, +maxLag].
        public var maxLagSeconds = 1.0
        /// Length of each take window analysed.
        public var windowSeconds = 10.0
        /// Shortest window used when the take is too short for three full windows.
        public var minWindowSeconds = 3.0
        /// Most windows analysed, spread evenly across the whole take (drift needs two or more).
        public var maxWindows = 7
        /// Whitened band: bins outside it get no weight (mains hum below, codec cut-off above);
        /// the top is also capped at 0.4 × the sample rate.
        public var bandLowHz = 100.0
        /// The top of the whitened band, Hz.
        public var bandHighHz = 16_000.0
        /// PHAT-β: the cross-spectrum is divided by |X·conj(Y)|^β (1 = full whitening).
        public var whiteningExponent = 1.0
        /// Divide the take by its local level (~20 ms) before correlating, so the voice's pauses,
        /// where the bleed is clearest, count as much as its loud stretches.
        public var levelWeighting = true
        /// The whitening divides by |X·conj(Y)| averaged over ±this many Hz (0 = plain PHAT).
        public var whiteningSmoothingHz = 10.0
        /// Regularisation added to |X·conj(Y)| before whitening, relative to its in-band mean.
        public var whiteningFloor = 1e-2
        /// Half-width of the zone around the peak ignored when looking for the second peak and
        /// the noise level: the main lobe and early room reflections (capped at maxLag/2).
        public var exclusionSeconds = 0.030
        /// Window verdicts: detection below this is `noBleed`; confidence below
        /// `acceptConfidence` is `lowConfidence`; otherwise the window is accepted.
        public var noBleedDetection = 0.5
        /// Confidence a window needs to be accepted (see `noBleedDetection`).
        public var acceptConfidence = 0.5
        /// Windows whose offset is further than this from the fitted line are outliers.
        public var outlierToleranceSeconds = 0.0005
        /// Drift beyond this is treated as disagreement between windows, not as drift.
        public var maxDriftPPM = 1000.0
        /// Warp the reference by the measured drift and measure again when drift would smear a
        /// window's peak by more than `rewarpSmearSamples`.
        public var rewarpSmearSamples = 0.5
        /// The defaults, vo-align's; change fields after making it.
        public init() {}
    }

    /// How the correlation peak of one window compares with the rest of the correlation.
    ///
    /// With c(τ) the whitened correlation over the searched lags, p = |c| at the (refined) peak,
    /// p₂ = the largest |c| more than `exclusionSeconds` from the peak, σ = RMS of c over those
    /// same lags and M their number:
    /// - `peakToNoise` z = p / σ; `expectedNoiseMax` = √(2·ln M) is about where the largest of M
    ///   noise-like values lands;
    /// - `detection` = clamp((z / √(2·ln M) − 1), 0, 1): 0 when the peak is no higher than noise
    ///   would reach, 1 when it is twice as high;
    /// - `peakRatio` = p₂ / p and `uniqueness` = clamp(2·(1 − p₂/p), 0, 1): 0 when another peak is
    ///   as high (a repeating loop), 1 when every other peak is at most half the main one;
    /// - `confidence` = min(detection, uniqueness), in 0…1.
    public struct PeakMetrics: Sendable, Equatable {
        /// p: |c| at the refined peak.
        public var peak: Double
        /// p₂: the largest |c| outside the excluded zone around the peak.
        public var secondPeak: Double
        /// σ: RMS of c over the lags outside that zone.
        public var noiseRMS: Double
        /// M: the number of those lags.
        public var noiseLagCount: Int
        /// z = p / σ.
        public var peakToNoise: Double
        /// √(2·ln M): about where the largest of M noise-like values lands.
        public var expectedNoiseMax: Double
        /// How far the peak stands above noise, 0…1.
        public var detection: Double
        /// p₂ / p.
        public var peakRatio: Double
        /// How far the peak stands above every other peak, 0…1.
        public var uniqueness: Double
        /// min(detection, uniqueness), 0…1.
        public var confidence: Double
        /// The window's judgement from these numbers and the settings' thresholds.
        public var verdict: Verdict

        package init(peak: Double, secondPeak: Double, noiseRMS: Double, noiseLagCount: Int, settings: Settings) {
            self.peak = peak
            self.secondPeak = secondPeak
            self.noiseRMS = noiseRMS
            self.noiseLagCount = noiseLagCount
            peakToNoise = noiseRMS > 0 ? peak / noiseRMS : 0
            expectedNoiseMax = (2 * log(Double(max(noiseLagCount, 2)))).squareRoot()
            detection = min(max(peakToNoise / expectedNoiseMax - 1, 0), 1)
            peakRatio = peak > 0 ? secondPeak / peak : 1
            uniqueness = min(max(2 * (1 - peakRatio), 0), 1)
            confidence = min(detection, uniqueness)
            if !(detection >= settings.noBleedDetection) { verdict = .noBleed }
            else if confidence < settings.acceptConfidence { verdict = .lowConfidence }
            else { verdict = .accepted }
        }
    }

    /// A window's (or the whole alignment's) judgement.
    public enum Verdict: Sendable, Equatable {
        /// The peak stands out and nothing else comes close.
        case accepted
        /// A trace of the reference, but other peaks are comparable (or windows disagree).
        case lowConfidence
        /// The correlation is noise-like: no trace of the reference.
        case noBleed
    }

    /// What one window found.
    public struct WindowEstimate: Sendable {
        /// First take frame of the window and its length.
        public var takeStart: Int
        /// The window's length, frames.
        public var frames: Int
        /// Offset of the reference inside the take at the window's centre, in take samples.
        public var lagSamples: Double
        /// How the window's correlation peak stands out.
        public var metrics: PeakMetrics
        /// Least-squares gain of the reference at that lag, and the energies it splits the take into.
        public var gain: Double
        /// Energy of the take explained by the reference at that gain and lag (the bleed).
        public var bleedEnergy: Double
        /// Energy of the rest of the take (voice, noise).
        public var residualEnergy: Double
        /// Centre of the window, in take frames.
        public var centre: Double { Double(takeStart) + Double(frames) / 2 }
    }

    /// An accepted alignment.
    public struct Alignment: Sendable {
        /// Offset of the reference inside the take at take frame 0 (positive: take late).
        public var latencySeconds: Double
        /// The same offset in take samples (fractional).
        public var latencySamples: Double
        /// Clock drift: how many parts per million the offset grows per take sample (positive:
        /// the take runs long against the reference). Nil when fewer than two windows agree.
        public var driftPPM: Double?
        /// Standard error of the drift from the line fit (nil with fewer than three windows).
        public var driftUncertaintyPPM: Double?
        /// Mean confidence of the windows that agree × the fraction of the windows showing the
        /// backing that agree (`agreeing` of `withBacking`).
        public var confidence: Double
        /// Energy of the reference component over the rest of the take (voice, noise), in dB;
        /// negative: under the voice. Counts the direct path only (reflections are "rest").
        public var bleedDB: Double
        /// Polarity of the bleed (−1 when the reference appears inverted).
        public var polarity: Double
        /// Accepted windows on the fitted line, and all windows analysed.
        public var inlierCount: Int
        /// Every window analysed, in take order.
        public var windows: [WindowEstimate]
        /// Windows that show the backing (accepted or ambiguous) and agree with the placement, in
        /// order (see WindowAgreement), and all windows that show the backing.
        public var agreeing: Int
        /// All windows that show the backing.
        public var withBacking: Int

        /// Ratio to resample the take by (output/input) to put it on the reference's clock:
        /// take sample n belongs at reference time (1 − drift)·n − latency, so after resampling
        /// by this ratio the take only needs shifting earlier by `latencySamples`.
        public var takeResampleRatio: Double { 1 - (driftPPM ?? 0) * 1e-6 }

        /// Offset of the reference at take frame `frame`, in take samples.
        public func lagSamples(atTakeFrame frame: Double) -> Double {
            latencySamples + (driftPPM ?? 0) * 1e-6 * frame
        }
    }

    /// A refusal: no offset is given because the evidence doesn't support one.
    public struct Refusal: Sendable {
        /// Why no offset is given.
        public enum Reason: Sendable, Equatable {
            /// No window shows a trace of the reference.
            case noBleed
            /// Traces, but ambiguous (comparable peaks, e.g. a repeating loop) or windows disagree.
            case lowConfidence
        }
        /// Why no offset is given.
        public var reason: Reason
        /// The best window's confidence and peak metrics, for the message.
        public var confidence: Double
        /// The best window's peak metrics (nil when no window was analysed).
        public var bestMetrics: PeakMetrics?
        /// Windows accepted on their own, and all windows analysed.
        public var acceptedCount: Int
        /// Every window analysed, in take order.
        public var windows: [WindowEstimate]
        /// When windows that show the backing disagree (no placement has a clear, ordered
        /// majority): the places they agree on, most windows first, as lags at take frame 0.
        public var places: [WindowAgreement.Place] = []
        /// The windows that show the backing (accepted or ambiguous), when `places` is given.
        public var withBacking = 0
    }

    /// What `align` found: an alignment, or a refusal saying why there is none.
    public enum Outcome: Sendable {
        /// The take's latency (and drift) against the reference.
        case aligned(Alignment)
        /// No offset: the evidence doesn't support one.
        case refused(Refusal)
    }

    /// The sample rate of both signals, Hz.
    public let sampleRate: Double
    /// The tunables this aligner uses.
    public let settings: Settings
    private let correlator = WindowCorrelator()

    /// Converts the reference to the take's clock when they drift (libsamplerate's fastest sinc
    /// in the tools).
    private let converter: MakeSampleRateConverter

    /// An aligner for mono signals at `sampleRate`. `align` calls `converter` only when the
    /// drift it measures moves the lag by more than `rewarpSmearSamples` over one window (about
    /// 1 ppm with 10 s windows at 48 kHz): it then warps the reference by that drift and
    /// measures again. A take recorded on the reference's clock (played and recorded by one
    /// device) measures far less, so a program without a converter may pass one that throws:
    /// a take that does drift then makes `align` throw that error instead of answering.
    public init(sampleRate: Double, settings: Settings = Settings(), converter: @escaping MakeSampleRateConverter) {
        precondition(sampleRate > 0)
        self.sampleRate = sampleRate
        self.settings = settings
        self.converter = converter
    }

    /// Estimates where `reference` sits inside `take` (both mono at `sampleRate`).
    /// Throws only what the signals' `read` throws.
    public func align(reference: AlignmentSignal, take: AlignmentSignal) throws -> Outcome {
        let takeFrames = take.frameCount
        let maxLag = max(1, Int((settings.maxLagSeconds * sampleRate).rounded()))
        guard takeFrames >= 16, reference.frameCount > 0 else {
            return .refused(Refusal(reason: .noBleed, confidence: 0, bestMetrics: nil, acceptedCount: 0, windows: []))
        }
        let starts = windowStarts(takeFrames: takeFrames)
        var windows = try starts.map { start in
            try measure(take: take, reference: reference, start: start.start, frames: start.frames,
                        maxLag: maxLag, warp: nil)
        }
        var outcome = judge(windows)
        // Drift smears each window's peak over drift·window samples: warp and measure again.
        var lastDrift = 0.0
        for _ in 0..<2 {
            guard case .aligned(let a) = outcome, let drift = a.driftPPM else { break }
            let change = abs(drift - lastDrift) * 1e-6 * Double(starts[0].frames)
            guard change > settings.rewarpSmearSamples else { break }
            lastDrift = drift
            windows = try starts.map { start in
                try measure(take: take, reference: reference, start: start.start, frames: start.frames,
                            maxLag: maxLag, warp: (a.latencySamples, drift * 1e-6))
            }
            outcome = judge(windows)
        }
        return outcome
    }

    /// Even spread of windows across the take: as many as fit (up to `maxWindows`), shorter
    /// windows for short takes so that there are three when possible.
    package func windowStarts(takeFrames: Int) -> [(start: Int, frames: Int)] {
        var w = Int(settings.windowSeconds * sampleRate)
        if takeFrames < 3 * w { w = max(Int(settings.minWindowSeconds * sampleRate), takeFrames / 3) }
        w = min(w, takeFrames)
        let count = max(1, min(settings.maxWindows, takeFrames / w))
        if count == 1 { return [((takeFrames - w) / 2, w)] }
        return (0..<count).map { i in (Int((Double(i) * Double(takeFrames - w) / Double(count - 1)).rounded()), w) }
    }

    /// Measures one window; `warp` (latency at frame 0, drift as a fraction) pre-warps the
    /// reference so the remaining drift inside the window is negligible.
    package func measure(take: AlignmentSignal, reference: AlignmentSignal, start: Int, frames: Int,
                 maxLag: Int, warp: (latency: Double, drift: Double)?) throws -> WindowEstimate {
        let takeWindow = try take.readPadded(from: start, count: frames)
        let margin = 64
        let outCount = frames + 2 * maxLag + 2 * margin
        guard let warp else {
            let refStart = start - maxLag - margin
            let ref = try reference.readPadded(from: refStart, count: outCount)
            return correlator.analyse(take: takeWindow, takeStart: start, reference: ref,
                                      referenceStart: Double(refStart), maxLag: maxLag,
                                      sampleRate: sampleRate, settings: settings)
        }
        // Reference in take coordinates: r'(j) = ref(A + (1−b)(j − A)), A = centre − predicted lag,
        // so the reference runs at the take's clock around this window.
        let b = warp.drift
        let centre = Double(start) + Double(frames) / 2
        let anchor = centre - (warp.latency + b * centre)
        let firstJ = Double(start - maxLag - margin)
        let i0 = Int((anchor + (1 - b) * (firstJ - anchor)).rounded(.down)) - 8
        let inCount = Int((Double(outCount) * (1 - b)).rounded(.up)) + 16
        let raw = try reference.readPadded(from: i0, count: inCount)
        let warped = try converter(1 / (1 - b), 1).convertWhole(raw)
        // Output sample q is ref(i0 + q(1−b)), i.e. take coordinate j = A + (i0 − A)/(1−b) + q.
        let refStart = anchor + (Double(i0) - anchor) / (1 - b)
        return correlator.analyse(take: takeWindow, takeStart: start, reference: warped,
                                  referenceStart: refStart, maxLag: maxLag,
                                  sampleRate: sampleRate, settings: settings)
    }

    /// Combines window estimates: robust line through the accepted windows' offsets.
    package func judge(_ windows: [WindowEstimate]) -> Outcome {
        let accepted = windows.filter { $0.metrics.verdict == .accepted }
        let ambiguous = windows.filter { $0.metrics.verdict == .lowConfidence }
        let best = windows.max { $0.metrics.confidence < $1.metrics.confidence }
        func refuse(_ reason: Refusal.Reason) -> Outcome {
            .refused(Refusal(reason: reason, confidence: best?.metrics.confidence ?? 0,
                             bestMetrics: best?.metrics, acceptedCount: accepted.count, windows: windows))
        }
        if accepted.isEmpty { return refuse(ambiguous.isEmpty ? .noBleed : .lowConfidence) }
        if accepted.count < ambiguous.count { return refuse(.lowConfidence) }

        let tol = settings.outlierToleranceSeconds * sampleRate
        let maxSlope = settings.maxDriftPPM * 1e-6
        let xs = accepted.map(\.centre), ys = accepted.map(\.lagSamples)
        var inliers: [Int]
        var slope = 0.0, intercept: Double
        if accepted.count == 1 {
            inliers = [0]
            intercept = ys[0]
        } else {
            // Median of pairwise slopes (Theil–Sen), then the points near that line.
            var slopes: [Double] = []
            for i in 0..<xs.count { for j in (i + 1)..<xs.count where xs[j] != xs[i] {
                slopes.append((ys[j] - ys[i]) / (xs[j] - xs[i]))
            } }
            let s0 = median(slopes)
            let i0 = median(zip(xs, ys).map { $1 - s0 * $0 })
            inliers = (0..<xs.count).filter { abs(ys[$0] - (i0 + s0 * xs[$0])) <= tol }
            if inliers.count >= 2 {
                (intercept, slope) = lineFit(inliers.map { xs[$0] }, inliers.map { ys[$0] })
                inliers = (0..<xs.count).filter { abs(ys[$0] - (intercept + slope * xs[$0])) <= tol }
                if inliers.count >= 2 {
                    (intercept, slope) = lineFit(inliers.map { xs[$0] }, inliers.map { ys[$0] })
                }
            } else {
                intercept = i0
            }
        }
        if 2 * inliers.count < accepted.count || inliers.isEmpty || abs(slope) > maxSlope {
            return refuse(.lowConfidence)
        }
        if inliers.count == 1 {
            // A lone window: no drift, offset from that window alone.
            let only = accepted[inliers[0]]
            intercept = only.lagSamples
            slope = 0
        }
        // Every window that shows the backing has its say: the line must have a clear majority.
        let shown = windows.filter { $0.metrics.verdict != .noBleed }
        let points = shown.map { LatencySegments.Point(x: $0.centre, y: $0.lagSamples) }
        let tally = WindowAgreement.tally(points, intercepts: [intercept], slope: slope, tolerance: tol)
        guard tally.stands else {
            var r = Refusal(reason: .lowConfidence, confidence: best?.metrics.confidence ?? 0, bestMetrics: best?.metrics,
                            acceptedCount: accepted.count, windows: windows)
            r.places = WindowAgreement.places(points, slope: slope, tolerance: tol)
            r.withBacking = shown.count
            return .refused(r)
        }
        let agreeingConfidence = tally.agreeing.reduce(0) { $0 + shown[$1].metrics.confidence } / Double(tally.agreeing.count)
        var uncertainty: Double?
        if inliers.count >= 3 {
            let px = inliers.map { xs[$0] }, py = inliers.map { ys[$0] }
            let mx = px.reduce(0, +) / Double(px.count)
            let sxx = px.reduce(0) { $0 + ($1 - mx) * ($1 - mx) }
            let sse = zip(px, py).reduce(0) { $0 + pow($1.1 - (intercept + slope * $1.0), 2) }
            if sxx > 0 { uncertainty = (sse / Double(px.count - 2) / sxx).squareRoot() * 1e6 }
        }
        let on = inliers.map { accepted[$0] }
        let bleed = on.reduce(0) { $0 + $1.bleedEnergy }, rest = on.reduce(0) { $0 + $1.residualEnergy }
        let polaritySum = on.reduce(0) { $0 + $1.gain }
        return .aligned(Alignment(
            latencySeconds: intercept / sampleRate, latencySamples: intercept,
            driftPPM: inliers.count >= 2 ? slope * 1e6 : nil,
            driftUncertaintyPPM: uncertainty,
            confidence: agreeingConfidence * Double(tally.agreeing.count) / Double(shown.count),
            bleedDB: 10 * log10(max(bleed, 1e-30) / max(rest, 1e-30)),
            polarity: polaritySum < 0 ? -1 : 1,
            inlierCount: on.count, windows: windows, agreeing: tally.agreeing.count, withBacking: shown.count))
    }

    private func median(_ v: [Double]) -> Double {
        let s = v.sorted()
        guard !s.isEmpty else { return 0 }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    /// Least-squares line y = a + b·x.
    private func lineFit(_ x: [Double], _ y: [Double]) -> (Double, Double) {
        let n = Double(x.count)
        let mx = x.reduce(0, +) / n, my = y.reduce(0, +) / n
        var sxy = 0.0, sxx = 0.0
        for i in 0..<x.count { sxy += (x[i] - mx) * (y[i] - my); sxx += (x[i] - mx) * (x[i] - mx) }
        let b = sxx > 0 ? sxy / sxx : 0
        return (my - b * mx, b)
    }
}
