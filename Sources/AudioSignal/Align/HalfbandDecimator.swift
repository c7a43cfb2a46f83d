/// Halves a sample rate cheaply: the binomial low-pass [1, 3, 3, 1]/8 (response cos³(πf/fs)·…,
/// −22 dB at 0.41 of the output rate's Nyquist band edge), keeping every second sample. Used
/// ahead of libsamplerate by the coarse stage of `--start-at auto`, where only 100 Hz to 3.2 kHz
/// counts and what folds into that band from near the old Nyquist is far down; it is not a
/// converter for listening. Streaming: blocks of any length, the output is the same as for the
/// whole signal at once.
package struct HalfbandDecimator: Sendable {
    private var x1: Float = 0, x2: Float = 0, x3: Float = 0
    /// Whether the next input sample is one whose filtered value is kept.
    private var keepNext = true

    public init() {}

    /// Filters and decimates `input`; returns about half as many samples.
    public mutating func process(_ input: [Float]) -> [Float] {
        var out: [Float] = []
        out.reserveCapacity(input.count / 2 + 1)
        var a = x1, b = x2, c = x3, keep = keepNext
        for x in input {
            if keep { out.append((x + 3 * a + 3 * b + c) * 0.125) }
            c = b; b = a; a = x
            keep.toggle()
        }
        x1 = a; x2 = b; x3 = c; keepNext = keep
        return out
    }
}
