import AudioSignal
import Foundation

/// The limiter analysis of one source kept between runs (LimiterAnalysisCache), as the writer
/// uses it: read only when a pass would otherwise make it, and a fresh one kept for the next run.
/// Only an analysis of the source itself qualifies, with the limiter on and no fades, so what it
/// gives is what `NormalizePipeline.analyse` would have made, bit for bit.
public final class StoredLimiterAnalysis {
    private let load: (TruePeakLimiter.Settings) -> LimitedLoudnessModel?
    private let keep: (LimitedLoudnessModel) -> Void
    private var kept = false

    public init(load: @escaping (TruePeakLimiter.Settings) -> LimitedLoudnessModel?, keep: @escaping (LimitedLoudnessModel) -> Void) {
        self.load = load
        self.keep = keep
    }

    package static func applies(to plan: NormalizePlan) -> Bool {
        plan.limit && plan.fadeInFrames == 0 && plan.fadeOutFrames == 0
    }

    /// The kept analysis as the model `analyse(plan, …)` gives, or nil.
    package func model(for plan: NormalizePlan) -> LimitedLoudnessModel? {
        guard Self.applies(to: plan) else { return nil }
        var timing = plan.limiterTiming
        timing.ceilingDBTP = plan.ceilingDBTP
        guard let m = load(timing) else { return nil }
        kept = true
        return m
    }

    /// Keeps `model` when `analyse(plan, …)` made it and none is kept yet.
    package func keep(_ model: LimitedLoudnessModel?, madeFor plan: NormalizePlan) {
        guard !kept, let model, Self.applies(to: plan), model.analysedGainDB == 0, model.limit else { return }
        keep(model)
        kept = true
    }
}
