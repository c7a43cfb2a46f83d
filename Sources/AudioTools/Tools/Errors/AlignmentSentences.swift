import Foundation

extension BleedAligner.Refusal.Reason {
    /// The record's error code for an alignment refused for this reason.
    public var errorCode: ErrorCode { self == .noBleed ? .noBleed : .lowConfidence }
}
