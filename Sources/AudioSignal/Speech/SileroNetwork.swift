import Foundation

/// Silero VAD v5's 16 kHz network, re-implemented: each call takes 512 new samples (with the
/// previous call's last 64 as context) and gives the probability that they are speech.
///
/// The layers, as the weights' shapes fix them: the 576 samples reflect-padded by 64 on the right;
/// an STFT as a convolution with a fixed basis (258 × 256, stride 128: four frames of 129 real and
/// 129 imaginary parts) and its magnitude; four convolutions of kernel 3 with ReLU (129→128,
/// 128→64 stride 2, 64→64 stride 2, 64→128); an LSTM cell of 128 carried from chunk to chunk;
/// ReLU, a 1×1 convolution and a sigmoid. Every layer is a matrix times columns: a C kernel with
/// eight lanes of `acc += w * x` (Kernels/VectorKernels).
public final class SileroNetwork {
    public static let chunk = 512
    public static let context = 64
    public static let sampleRate = 16_000

    /// Weight rows padded with zeros to a multiple of 8, one layer each.
    package struct Layer {
        package let rows: Int, width: Int, stride: Int
        package let w: [Float], bias: [Float]
        package init(_ values: [Float], rows: Int, width: Int, bias: [Float]) {
            self.rows = rows
            self.width = width
            stride = (width + 7) / 8 * 8
            var w = [Float](repeating: 0, count: rows * stride)
            for r in 0..<rows { for c in 0..<width { w[r * stride + c] = values[r * width + c] } }
            self.w = w
            self.bias = bias.isEmpty ? [Float](repeating: 0, count: rows) : bias
        }
    }

    /// The weights rearranged for the loops, shared by every file's network.
    public final class Prepared: Sendable {
        package let stft, conv1, conv2, conv3, conv4, lstm: Layer
        package let decoder: [Float], decoderBias: Float

        public init(_ t: SileroWeights) {
            stft = Layer(t.values("stft_conv.weight"), rows: 258, width: 256, bias: [])
            conv1 = Layer(t.values("conv1.weight"), rows: 128, width: 129 * 3, bias: t.values("conv1.bias"))
            conv2 = Layer(t.values("conv2.weight"), rows: 64, width: 128 * 3, bias: t.values("conv2.bias"))
            conv3 = Layer(t.values("conv3.weight"), rows: 64, width: 64 * 3, bias: t.values("conv3.bias"))
            // conv4 sees one time step between two zero pads: only its middle tap counts.
            let c4 = t.values("conv4.weight")
            conv4 = Layer((0..<(128 * 64)).map { c4[$0 * 3 + 1] }, rows: 128, width: 64, bias: t.values("conv4.bias"))
            // The LSTM's two products as one: [W_ih | W_hh] · [x; h] + (b_ih + b_hh).
            let ih = t.values("lstm_cell.weight_ih"), hh = t.values("lstm_cell.weight_hh")
            var both = [Float](repeating: 0, count: 512 * 256)
            for r in 0..<512 {
                for c in 0..<128 { both[r * 256 + c] = ih[r * 128 + c]; both[r * 256 + 128 + c] = hh[r * 128 + c] }
            }
            let bi = t.values("lstm_cell.bias_ih"), bh = t.values("lstm_cell.bias_hh")
            lstm = Layer(both, rows: 512, width: 256, bias: (0..<512).map { bi[$0] + bh[$0] })
            decoder = t.values("final_conv.weight")
            decoderBias = t.values("final_conv.bias").first ?? 0
        }
    }

    package let net: Prepared
    /// 64 samples of context then the chunk, reflect-padded by 64: 640.
    private var input = [Float](repeating: 0, count: 640)
    private var h = [Float](repeating: 0, count: 128), c = [Float](repeating: 0, count: 128)
    // Scratch columns, each padded to its layer's stride.
    private var spectrum = [Float](repeating: 0, count: 258 * 4)
    private var col1 = [Float](repeating: 0, count: 4 * 392), out1 = [Float](repeating: 0, count: 128 * 4)
    private var col2 = [Float](repeating: 0, count: 2 * 384), out2 = [Float](repeating: 0, count: 64 * 2)
    private var col3 = [Float](repeating: 0, count: 192), out3 = [Float](repeating: 0, count: 64)
    private var out4 = [Float](repeating: 0, count: 128)
    private var xh = [Float](repeating: 0, count: 256), gates = [Float](repeating: 0, count: 512)

    public init(_ prepared: Prepared) { net = prepared }

    /// Back to the start of a stream: no context, the LSTM's state zero.
    public func reset() {
        for i in 0..<Self.context { input[i] = 0 }
        for i in 0..<128 { h[i] = 0; c[i] = 0 }
    }

    /// The speech probability of the next 512 samples (16 kHz, full scale ±1).
    public func probability(_ samples: UnsafeBufferPointer<Float>) -> Float {
        precondition(samples.count == Self.chunk)
        let n = Self.context + Self.chunk
        for i in 0..<Self.chunk { input[Self.context + i] = samples[i] }
        for j in 0..<64 { input[n + j] = input[n - 2 - j] }
        // STFT: four frames of 256 at hop 128, magnitude of 129 bins.
        input.withUnsafeBufferPointer { x in
            Self.product(net.stft, columns: [x.baseAddress!, x.baseAddress! + 128, x.baseAddress! + 256, x.baseAddress! + 384],
                         into: &spectrum)
        }
        // im2col for conv1: column t holds x[i][t + k − 1] at i·3 + k.
        for t in 0..<4 {
            for i in 0..<129 {
                for k in 0..<3 {
                    let s = t + k - 1
                    col1[t * 392 + i * 3 + k] = s < 0 || s > 3 ? 0
                        : (spectrum[s * 258 + i] * spectrum[s * 258 + i] + spectrum[s * 258 + 129 + i] * spectrum[s * 258 + 129 + i]).squareRoot()
                }
            }
        }
        Self.layer(net.conv1, col: &col1, columns: 4, into: &out1)
        // conv2, stride 2: column t reads times 2t − 1, 2t, 2t + 1 of conv1's four.
        for t in 0..<2 {
            for i in 0..<128 {
                for k in 0..<3 { let s = 2 * t + k - 1; col2[t * 384 + i * 3 + k] = s < 0 || s > 3 ? 0 : out1[s * 128 + i] }
            }
        }
        Self.layer(net.conv2, col: &col2, columns: 2, into: &out2)
        for i in 0..<64 { col3[i * 3] = 0; col3[i * 3 + 1] = out2[i]; col3[i * 3 + 2] = out2[64 + i] }
        Self.layer(net.conv3, col: &col3, columns: 1, into: &out3)
        Self.layer(net.conv4, col: &out3, columns: 1, into: &out4)
        // LSTM cell (PyTorch's gate order i, f, g, o).
        for i in 0..<128 { xh[i] = out4[i]; xh[128 + i] = h[i] }
        xh.withUnsafeBufferPointer { Self.product(net.lstm, columns: [$0.baseAddress!], into: &gates) }
        var logit = net.decoderBias
        for j in 0..<128 {
            let ig = Self.sigmoid(gates[j]), fg = Self.sigmoid(gates[128 + j])
            let gg = tanh(gates[256 + j]), og = Self.sigmoid(gates[384 + j])
            c[j] = fg * c[j] + ig * gg
            h[j] = og * tanh(c[j])
            logit += net.decoder[j] * max(h[j], 0)
        }
        for i in 0..<Self.context { input[i] = input[Self.chunk + i] }
        return Self.sigmoid(logit)
    }

    @inline(__always) package static func sigmoid(_ x: Float) -> Float { 1 / (1 + exp(-x)) }

    /// `out[t·rows + r] = relu(bias[r] + W[r] · col_t)` over columns laid `stride` apart.
    private static func layer(_ l: Layer, col: inout [Float], columns: Int, into out: inout [Float]) {
        col.withUnsafeBufferPointer { p in
            let base = p.baseAddress!
            product(l, columns: (0..<columns).map { base + $0 * l.stride }, into: &out)
        }
        for i in 0..<(l.rows * columns) { out[i] = max(out[i], 0) }
    }

    /// `out[t·rows + r] = bias[r] + W[r] · columns[t]`; a column's values past the layer's width
    /// must be readable (they meet zero weights). A C kernel, so that debug builds run it optimised.
    package static func product(_ l: Layer, columns: [UnsafePointer<Float>], into out: inout [Float]) {
        l.w.withUnsafeBufferPointer { w in
            l.bias.withUnsafeBufferPointer { b in
                out.withUnsafeMutableBufferPointer { o in
                    VectorKernels.columnsProduct(w.baseAddress!, bias: b.baseAddress!, rows: l.rows, stride: l.stride,
                                                 columns: columns, into: o.baseAddress!)
                }
            }
        }
    }
}
