import AudioSignal
import Foundation

/// Where the start and the claimed latency of one take come from: its input record (a
/// recorder's log) overrides the run's options (vo-align reads them).
package struct VoAlignGiven {
    package enum Start { case seconds(Double), auto }
    package var start: Start
    package var startOrigin: String       // "record", "option", "default" ("found" once auto has run)
    package var claimMS: Double?
    package var claimOrigin: String?      // "record" or "option"

    /// Whether the claim came from the take's record (else from the options).
    package var claimFromRecord: Bool { claimOrigin == "record" }

    /// Each stored property, as the synthesised initializer takes them (callable from the other targets).
    package init(start: Start, startOrigin: String, claimMS: Double? = nil, claimOrigin: String? = nil) {
        self.start = start
        self.startOrigin = startOrigin
        self.claimMS = claimMS
        self.claimOrigin = claimOrigin
    }
}

/// What was found for one take: D always; L and S where they can be told apart.
package struct VoAlignPlacement {
    package var method: String                  // "bleed" or "known"
    package var latency: Double?                // L in take frames (exact)
    package var start: Int?                     // S in take frames
    package var delay: Double                   // D = L − S (exact)
    package var segments: [(from: Int, delay: Double, confidence: Double?, windows: Int?)]
    package var measured: BleedAligner.Alignment?
    package var startOrigin: String
    package var latencyOrigin: String?
    package var claimChecked: Bool?
}

/// Places takes on the reference timeline: from the bleed of `reference` in each (checking a
/// claimed latency against it), or, without a reference, from the claimed latency alone.
package struct TakePlacer {
    package let reference: VoAlignAudioFile?
    package let settings: BleedAligner.Settings
    /// A found latency below this confidence is refused (or, with a claim, left unchecked).
    package let minConfidence: Double
    /// How far a claimed latency may be from the measured one, ms.
    package let toleranceMS: Double

    package static let coarseRate = 8000
    /// The coarse stage correlates at most this much of the take (its middle).
    package static let coarseTakeSeconds = 60.0

    /// Finds (or takes as given) where `take` goes on the reference timeline; `notes` gets what
    /// the numbers alone don't say. Throws an AlignmentError, or the error of a file it reads.
    package func place(_ take: VoAlignAudioFile, given: VoAlignGiven, notes: inout [PlacementNote]) throws -> VoAlignPlacement {
        let rate = take.rate, path = take.original
        func known(_ ms: Double, start: Int, origin: String) -> VoAlignPlacement {
            let l = (ms * Double(rate) / 1000).rounded()
            if abs(l / Double(rate) * 1000 - ms) > 1e-9 { notes.append(.claimRounded(ms: ms, rate: rate)) }
            let d = l - Double(start)
            return VoAlignPlacement(method: "known", latency: l, start: start, delay: d, segments: [(0, d, nil, nil)],
                                    measured: nil, startOrigin: given.startOrigin, latencyOrigin: origin, claimChecked: false)
        }
        guard let ref = reference else {
            guard let claim = given.claimMS, case .seconds(let s) = given.start else {
                throw AlignmentError.nothingToPlaceBy(take: path)
            }
            notes.append(.latencyGiven(claimFromRecord: given.claimFromRecord))
            return known(claim, start: Int((s * Double(rate)).rounded()), origin: given.claimOrigin!)
        }
        var offset: Int
        var auto = false
        switch given.start {
        case .auto:
            auto = true
            offset = try coarsePosition(take: take, reference: ref)
        case .seconds(let s):
            offset = Int((s * Double(rate)).rounded())
            if s * Double(ref.rate) >= Double(ref.frames) {
                throw AlignmentError.startPastEnd(take: path, reference: ref.original, startSeconds: s,
                                                  startFromRecord: given.startOrigin == "record",
                                                  referenceSeconds: Double(ref.frames) / Double(ref.rate))
            }
        }
        let refSignal = try VoAlignFileSignal(path: ref.path, targetRate: rate, offset: offset)
        let takeSignal = try VoAlignFileSignal(path: take.path, targetRate: rate)
        let outcome = try BleedAligner(sampleRate: Double(rate), settings: settings, converter: Resampler.fastest).alignSegments(reference: refSignal, take: takeSignal)
        let found: BleedAligner.Segmented
        switch outcome {
        case .refused(let r):
            if let claim = given.claimMS, !auto {
                notes.append(.claimUnchecked(claimFromRecord: given.claimFromRecord, why: r.reason == .noBleed ? .noBleed : .noSingleOffset))
                return known(claim, start: offset, origin: given.claimOrigin!)
            }
            // Nothing near the start: a take full of bleed recorded later in the backing looks just
            // like one recorded on headphones there, so the whole backing is searched before saying so.
            if !auto, r.reason == .noBleed, r.places.isEmpty, case .seconds(let startSeconds) = given.start,
               case .at(let p) = try locate(take: take, reference: ref),
               Double(abs(p - offset)) > settings.maxLagSeconds * Double(rate) {
                throw AlignmentError.elsewhere(take: path, reference: ref.original, startSeconds: startSeconds,
                                               startOrigin: given.startOrigin, maxLagMS: settings.maxLagSeconds * 1000,
                                               foundSeconds: Double(p) / Double(rate))
            }
            throw refusal(r, take: path, reference: ref.original, given: given, offset: offset, rate: rate)
        case .aligned(let s):
            if s.alignment.confidence < minConfidence {
                if let claim = given.claimMS, !auto {
                    notes.append(.claimUnchecked(claimFromRecord: given.claimFromRecord,
                                                 why: .belowConfidence(s.alignment.confidence, required: minConfidence)))
                    return known(claim, start: offset, origin: given.claimOrigin!)
                }
                throw AlignmentError.belowConfidence(take: path, reference: ref.original, confidence: s.alignment.confidence,
                                                     required: minConfidence, agreeing: s.alignment.agreeing,
                                                     windows: s.alignment.withBacking, searchedWhole: auto)
            }
            found = s
        }
        // The reference was read from `offset` on: what the aligner finds is D + offset.
        let a = found.alignment
        let delay = a.latencySamples - Double(offset)
        var p = VoAlignPlacement(method: "bleed", latency: nil, start: nil, delay: delay,
                                 segments: found.segments.map { ($0.from, $0.latencySamples - Double(offset), $0.confidence, $0.windows) },
                                 measured: a, startOrigin: given.startOrigin, latencyOrigin: nil, claimChecked: nil)
        if auto {
            p.startOrigin = "found"
            if let claim = given.claimMS {
                // D is measured; with the claimed L, S = L − D.
                let l = (claim * Double(rate) / 1000).rounded()
                p.latency = l
                p.start = Int((l - delay).rounded())
                p.latencyOrigin = given.claimOrigin
                p.claimChecked = false
                notes.append(.startFoundFromClaim(claimFromRecord: given.claimFromRecord))
            } else {
                notes.append(.startFoundWithoutClaim)
            }
        } else {
            p.latency = a.latencySamples
            p.start = offset
            p.latencyOrigin = "measured"
            if let claim = given.claimMS {
                let measuredMS = a.latencySamples / Double(rate) * 1000
                if abs(measuredMS - claim) > toleranceMS {
                    throw AlignmentError.latencyMismatch(take: path, reference: ref.original, claimMS: claim, measuredMS: measuredMS,
                                                         toleranceMS: toleranceMS, claimFromRecord: given.claimFromRecord)
                }
                p.claimChecked = true
            }
        }
        return p
    }

    /// The coarse stage of --start-at auto: the take's position on the whole reference, in take
    /// frames (the fine stage searches ±--max-latency-ms around it).
    package func coarsePosition(take: VoAlignAudioFile, reference ref: VoAlignAudioFile) throws -> Int {
        switch try locate(take: take, reference: ref) {
        case .at(let p): return p
        case .notFound: throw AlignmentError.notFound(take: take.original, reference: ref.original)
        case .repeats(let places, let count, let atLeast):
            throw AlignmentError.repeats(take: take.original, reference: ref.original, placesSeconds: places, count: count, atLeast: atLeast)
        }
    }

    /// Where the whole-reference search puts the take.
    package enum Located {
        /// One clear place, in take frames (the start that fits).
        case at(Int)
        case notFound
        /// Several places about equally (`placesSeconds` the first of them).
        case repeats(placesSeconds: [Double], count: Int, atLeast: Bool)
    }

    /// The take's position on the whole reference, searched at the coarse rate.
    package func locate(take: VoAlignAudioFile, reference ref: VoAlignAudioFile) throws -> Located {
        let cr = Self.coarseRate
        var coarse: [Float] = []
        try take.forEachCoarseBlock(rate: cr) { coarse += $0 }
        // The middle of a long take is enough to find it, and keeps the search fast.
        let keep = Int(Self.coarseTakeSeconds * Double(cr))
        let skip = coarse.count > keep ? (coarse.count - keep) / 2 : 0
        if skip > 0 { coarse = Array(coarse[skip..<(skip + keep)]) }
        guard !coarse.isEmpty else { return .at(0) }
        var s = TakeLocator.Settings()
        s.leadSeconds = settings.maxLagSeconds + 1
        let locator = TakeLocator(take: coarse, sampleRate: Double(cr), settings: s)
        try ref.forEachCoarseBlock(rate: cr) { locator.add($0) }
        let r = locator.finish()
        guard let best = r.best, r.detection >= s.noBleedDetection else { return .notFound }
        if r.rivals.count >= 2 {
            return .repeats(placesSeconds: r.rivals.prefix(6).map { Double($0.position - skip) / Double(cr) },
                            count: r.rivals.count, atLeast: r.rivals.count >= s.maxCandidates)
        }
        return .at(Int((Double(best.position - skip) * Double(take.rate) / Double(cr)).rounded()))
    }

    /// The aligner's refusal as the take's error.
    /// `offset`: the take frame the reference was read from (the start, or the place found).
    package func refusal(_ r: BleedAligner.Refusal, take: String, reference: String, given: VoAlignGiven,
                 offset: Int, rate: Int) -> AlignmentError {
        let startSeconds: Double
        if case .seconds(let s) = given.start { startSeconds = s } else { startSeconds = 0 }
        var searchedWhole = false
        if case .auto = given.start { searchedWhole = true }
        if !r.places.isEmpty {
            // Latencies from the given start; delays when the start was found.
            let places = r.places.map { (ms: ($0.lag - (searchedWhole ? Double(offset) : 0)) / Double(rate) * 1000, windows: $0.windows) }
            return .windowsDisagree(take: take, reference: reference, places: places, withBacking: r.withBacking,
                                    searchedWhole: searchedWhole, startSeconds: startSeconds)
        }
        return .refused(take: take, reference: reference, reason: r.reason, searchedWhole: searchedWhole, startSeconds: startSeconds,
                        maxLagMS: settings.maxLagSeconds * 1000, confidence: r.confidence, accepted: r.acceptedCount,
                        windows: r.windows.count)
    }

    /// Each stored property, as the synthesised initializer takes them (callable from the other targets).
    package init(reference: VoAlignAudioFile?, settings: BleedAligner.Settings, minConfidence: Double, toleranceMS: Double) {
        self.reference = reference
        self.settings = settings
        self.minConfidence = minConfidence
        self.toleranceMS = toleranceMS
    }
}

/// What vo-align says about how a take was placed, beside the numbers (the words are the tool's).
package enum PlacementNote: Equatable {
    /// The claimed latency was rounded to the nearest frame at `rate`.
    case claimRounded(ms: Double, rate: Int)
    /// No reference: the latency is the claimed one, not measured.
    case latencyGiven(claimFromRecord: Bool)
    /// The bleed could not check the claim, which was used as given.
    case claimUnchecked(claimFromRecord: Bool, why: Unchecked)
    /// The start was found and worked out with the (unchecked) claimed latency.
    case startFoundFromClaim(claimFromRecord: Bool)
    /// The start was found and no latency was claimed: latency and start stay unknown.
    case startFoundWithoutClaim

    package enum Unchecked: Equatable {
        case noBleed
        case noSingleOffset
        case belowConfidence(Double, required: Double)
    }
}

/// Why a take gets no placement: facts only (the sentences are the tool's, in Tools/Errors/).
/// `take` and `reference` are the paths as given.
package enum AlignmentError: Error {
    /// No reference to measure from and no latency claimed.
    case nothingToPlaceBy(take: String)
    /// The given start lies past the reference's end (`referenceSeconds` long).
    case startPastEnd(take: String, reference: String, startSeconds: Double, startFromRecord: Bool, referenceSeconds: Double)
    /// A latency was found, but with less confidence than required (`agreeing` of the `windows`
    /// that show the reference agree).
    case belowConfidence(take: String, reference: String, confidence: Double, required: Double, agreeing: Int, windows: Int,
                         searchedWhole: Bool)
    /// The claimed latency differs from the measured one by more than the tolerance.
    case latencyMismatch(take: String, reference: String, claimMS: Double, measuredMS: Double, toleranceMS: Double, claimFromRecord: Bool)
    /// The whole-reference search (--start-at auto) found no trace of the reference.
    case notFound(take: String, reference: String)
    /// No trace within `maxLagMS` of the start (`startOrigin`: "record", "option" or "default"),
    /// but the whole-reference search finds the take clearly at `foundSeconds` (a start).
    case elsewhere(take: String, reference: String, startSeconds: Double, startOrigin: String, maxLagMS: Double,
                   foundSeconds: Double)
    /// The take fits `count` places (the first of them at `placesSeconds`, take-relative) about equally.
    case repeats(take: String, reference: String, placesSeconds: [Double], count: Int, atLeast: Bool)
    /// The aligner refused: no bleed, or no single offset (searched around `startSeconds`, or,
    /// `searchedWhole`, at the place the whole-reference search found).
    case refused(take: String, reference: String, reason: BleedAligner.Refusal.Reason, searchedWhole: Bool, startSeconds: Double,
                 maxLagMS: Double, confidence: Double, accepted: Int, windows: Int)
    /// The windows that show the reference (`withBacking`) don't back one placement by a clear
    /// majority in take order: the places they agree on, most windows first, as latencies from the
    /// start `startSeconds` (as delays when `searchedWhole`), in ms.
    case windowsDisagree(take: String, reference: String, places: [(ms: Double, windows: Int)], withBacking: Int,
                         searchedWhole: Bool, startSeconds: Double)
}
