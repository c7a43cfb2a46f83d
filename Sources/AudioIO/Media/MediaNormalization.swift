import AudioSignal
import Foundation

/// lufs-normalize for a media file written back in its own container: each chosen audio stream's
/// gain planned from its measurement (the one given, or measured here through ffmpeg), its chain
/// decided, and MediaNormalizer run over them all. Numbers in, numbers out: what a record says
/// and how it is written are the tool's.
public enum MediaNormalization {
    public struct Settings {
        public var targetLUFS: Double
        public var ceilingDBTP: Double
        public var peakMode: PeakMode
        public var fadeInSeconds: Double
        public var fadeOutSeconds: Double
        public var fadeCurve: FadeCurve
        /// Limiter margin under the ceiling, dB.
        public var limiterMarginDB: Double
        /// Added to a measured peak under `reduce` (a recorded peak is rounded), dB.
        public var roundingAllowanceDB: Double
        public var maxPasses: Int
        public var maxCompensationDB: Double
        /// `--codec-peak`: which limit gives way where the target and the ceiling can't both hold.
        public var rule: CodecPeakRule = .hold

        public init(targetLUFS: Double, ceilingDBTP: Double, peakMode: PeakMode, fadeInSeconds: Double, fadeOutSeconds: Double,
                    fadeCurve: FadeCurve, limiterMarginDB: Double, roundingAllowanceDB: Double, maxPasses: Int,
                    maxCompensationDB: Double) {
            self.targetLUFS = targetLUFS; self.ceilingDBTP = ceilingDBTP; self.peakMode = peakMode
            self.fadeInSeconds = fadeInSeconds; self.fadeOutSeconds = fadeOutSeconds; self.fadeCurve = fadeCurve
            self.limiterMarginDB = limiterMarginDB; self.roundingAllowanceDB = roundingAllowanceDB
            self.maxPasses = maxPasses; self.maxCompensationDB = maxCompensationDB
        }
    }

    /// What is known of one stream before it is normalised: the layout to weight it with, and its
    /// integrated loudness and true peak when a measurement of the file as it is was given.
    public struct Given {
        public var layout: ChannelLayout
        public var measured: (integrated: Double?, truePeak: Double?)?
        /// False when `layout` is only the channel count's guess: the positions ffmpeg decodes
        /// for the stream then weight it, as lufs-measure does.
        public var layoutStated: Bool
        public init(layout: ChannelLayout, measured: (integrated: Double?, truePeak: Double?)?, layoutStated: Bool = true) {
            self.layout = layout; self.measured = measured; self.layoutStated = layoutStated
        }
    }

    /// Why a media file can't be normalised in its own container: facts only.
    public enum Refusal: Error, Equatable, Sendable {
        /// ffmpeg states a media file's length only roughly, so a fade-out can't be placed.
        case fadeOutNeedsExactLength
    }

    public struct Outcome {
        /// Each chosen stream's source loudness and true peak, and whether it was measured here.
        public var sources: [Int: (lufs: Double?, tp: Double?, here: Bool)]
        public var gains: [Int: NormalizeGainPlan]
        public var streams: [MediaNormalizer.StreamResult]
        public var encodes: Int
    }

    /// Normalises the `chosen` audio streams (ordinals among the file's audio streams) of the file
    /// at `path` into `destination`, re-encoded as `encodings` says, `delivered` streams kept.
    /// `given` is asked for each stream in turn (it may refuse a stale measurement).
    public static func run(path: String, probe: MediaProbe, delivered: [MediaStream], chosen: [Int],
                           encodings: [Int: MediaAudioEncoding], given: (Int, MediaAudioEncoding) throws -> Given,
                           muxer: String, destination: String, overwrite: Bool, settings s: Settings,
                           opened: MediaDecoderHandOff? = nil) throws -> Outcome {
        var jobs: [MediaNormalizer.Job] = []
        var sources: [Int: (lufs: Double?, tp: Double?, here: Bool)] = [:]
        var gains: [Int: NormalizeGainPlan] = [:]
        for k in chosen {
            let e = encodings[k]!
            let g = try given(k, e)
            var measured = g.measured
            var here = false
            var layout = g.layout
            if measured == nil {
                let source = try opened.decoder(path: path, ordinal: k)
                if !g.layoutStated, let names = source.channelMask.flatMap({ ChannelLayout.speakerNames(waveMask: $0, channelCount: e.channels) }) {
                    let r = ChannelLayout.resolve(speakerNames: names, channelCount: e.channels)
                    if r.fromFile { layout = r.layout }
                }
                let meter = LoudnessMeter(sampleRate: e.sampleRate, weights: layout.weights)
                try Decoder.forEachBlock(source) { meter.add($0) }
                let m = meter.finish()
                measured = (m.integratedLUFS, m.truePeakDBTP)
                here = true
            }
            sources[k] = (measured!.0, measured!.1, here)
            var peak = measured!.1 ?? -200
            if s.peakMode == .reduce { peak += s.roundingAllowanceDB }
            let gain = try NormalizeGainPlan(measuredLUFS: measured!.0, measuredTruePeakDBTP: peak, targetLUFS: s.targetLUFS,
                                             ceilingDBTP: s.ceilingDBTP, mode: s.peakMode)
            gains[k] = gain
            if s.fadeOutSeconds > 0 { throw Refusal.fadeOutNeedsExactLength }
            let decision = NormalizeDecision(gain: gain, peakMode: s.peakMode, fadeInSeconds: s.fadeInSeconds, fadeOutSeconds: 0,
                                             fadeCurve: s.fadeCurve, sampleRate: e.sampleRate, ceilingDBTP: s.ceilingDBTP,
                                             marginDB: s.limiterMarginDB, alwaysLimit: e.isLossy, ditherBitDepth: e.ditherBits)
            jobs.append(MediaNormalizer.Job(ordinal: k, encoding: e, plan: decision.plan, compensate: decision.compensate,
                                            targetLUFS: s.targetLUFS, weights: layout.weights, sourceTruePeakDBTP: measured!.1,
                                            sourceLUFS: measured!.0))
        }
        let run = try MediaNormalizer.run(input: path, probe: probe, delivered: delivered, jobs: jobs, muxer: muxer, destination: destination,
                                          overwrite: overwrite,
                                          settings: .init(ceilingDBTP: s.ceilingDBTP, maxPasses: s.maxPasses,
                                                          maxCompensationDB: s.maxCompensationDB,
                                                          steersLoudness: s.peakMode != .reduce, rule: s.rule),
                                          opened: opened)
        return Outcome(sources: sources, gains: gains, streams: run.streams, encodes: run.encodes)
    }
}
