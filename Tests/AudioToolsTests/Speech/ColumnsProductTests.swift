import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The detector's matrix kernel (C) against the Swift SIMD8 loop it replaced, bit for bit: eight
/// lanes of `acc += w * x`, unfused, then the lanes added in order. The detector's probabilities,
/// and so every dialogue span, are unchanged only if these agree exactly.
@Suite struct ColumnsProductTests {
    /// The replaced loop, as it was: four columns sharing each row load, then one at a time with two
    /// accumulators.
    static func reference(_ w: [Float], bias: [Float], rows: Int, stride: Int, columns: [[Float]]) -> [Float] {
        var out = [Float](repeating: 0, count: rows * columns.count)
        func load(_ a: [Float], _ i: Int) -> SIMD8<Float> { SIMD8<Float>(a[i..<(i + 8)]) }
        var t = 0
        while t + 4 <= columns.count {
            for r in 0..<rows {
                var acc = [SIMD8<Float>](repeating: SIMD8<Float>(), count: 4)
                var i = 0
                while i < stride {
                    let v = load(w, r * stride + i)
                    for k in 0..<4 { acc[k] += v * load(columns[t + k], i) }
                    i += 8
                }
                for k in 0..<4 { out[(t + k) * rows + r] = bias[r] + acc[k].sum() }
            }
            t += 4
        }
        while t < columns.count {
            for r in 0..<rows {
                var a0 = SIMD8<Float>(), a1 = SIMD8<Float>()
                var i = 0
                while i + 16 <= stride {
                    a0 += load(w, r * stride + i) * load(columns[t], i)
                    a1 += load(w, r * stride + i + 8) * load(columns[t], i + 8)
                    i += 16
                }
                if i < stride { a0 += load(w, r * stride + i) * load(columns[t], i) }
                out[t * rows + r] = bias[r] + (a0 + a1).sum()
            }
            t += 1
        }
        return out
    }

    @Test(arguments: [(rows: 3, stride: 8, columns: 1), (rows: 5, stride: 24, columns: 4), (rows: 7, stride: 392, columns: 4),
                      (rows: 4, stride: 256, columns: 5), (rows: 2, stride: 40, columns: 2)])
    func sameBitsAsTheSwiftLoop(rows: Int, stride: Int, columns: Int) {
        var rng = SplitMix64(seed: UInt64(rows * 1000 + stride + columns))
        func value() -> Float { Float(Double(rng.next() % 2_000_001) / 1_000_000 - 1) * 3 }
        let w = (0..<(rows * stride)).map { _ in value() }
        let bias = (0..<rows).map { _ in value() }
        let cols = (0..<columns).map { _ in (0..<stride).map { _ in value() } }
        let expected = Self.reference(w, bias: bias, rows: rows, stride: stride, columns: cols)
        var out = [Float](repeating: .nan, count: rows * columns)
        let copies = cols.map { c -> UnsafeMutablePointer<Float> in
            let p = UnsafeMutablePointer<Float>.allocate(capacity: stride)
            p.initialize(from: c, count: stride)
            return p
        }
        defer { copies.forEach { $0.deallocate() } }
        w.withUnsafeBufferPointer { wp in
            bias.withUnsafeBufferPointer { bp in
                out.withUnsafeMutableBufferPointer { op in
                    VectorKernels.columnsProduct(wp.baseAddress!, bias: bp.baseAddress!, rows: rows, stride: stride,
                                                 columns: copies.map { UnsafePointer($0) }, into: op.baseAddress!)
                }
            }
        }
        #expect(out.map(\.bitPattern) == expected.map(\.bitPattern))
    }

    /// A case worked by hand: one row of ones against 1…16 is 136, plus the bias.
    @Test func aRowOfOnesSumsTheColumn() {
        let w = [Float](repeating: 1, count: 16), bias: [Float] = [0.5], column = (1...16).map(Float.init)
        var out: [Float] = [0]
        column.withUnsafeBufferPointer { c in
            VectorKernels.columnsProduct(w, bias: bias, rows: 1, stride: 16, columns: [c.baseAddress!], into: &out)
        }
        #expect(out == [136.5])
    }
}
