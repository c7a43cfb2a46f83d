import Foundation

/// Why the speech detector's weights can't be used; SpeechSentences says it to a person.
package enum SpeechModelError: Error, Equatable, Sendable {
    /// The weights file is in none of the places looked in (the paths, in order).
    case missing(fileName: String, searched: [String])
    /// The file is there but is not the pinned one: its size or checksum differs, or a tensor the
    /// network needs is absent or has another shape.
    case damaged(path: String, reason: String)
}

/// Silero VAD's tensors, by name, from its ONNX file: the graph's initializers (protobuf:
/// ModelProto.graph = 7, GraphProto.initializer = 5, TensorProto dims = 1, data_type = 2,
/// name = 8, raw_data = 9, little-endian F32), read without an ONNX library.
public struct SileroWeights: Sendable {
    public let tensors: [String: (shape: [Int], values: [Float])]

    /// The tensors the network is written for, with their ONNX names and shapes (checked, so
    /// another model is refused by name).
    package static let shapes: [String: (onnx: String, shape: [Int])] = [
        "stft_conv.weight": ("model.stft.forward_basis_buffer", [258, 1, 256]),
        "conv1.weight": ("model.encoder.0.reparam_conv.weight", [128, 129, 3]), "conv1.bias": ("model.encoder.0.reparam_conv.bias", [128]),
        "conv2.weight": ("model.encoder.1.reparam_conv.weight", [64, 128, 3]), "conv2.bias": ("model.encoder.1.reparam_conv.bias", [64]),
        "conv3.weight": ("model.encoder.2.reparam_conv.weight", [64, 64, 3]), "conv3.bias": ("model.encoder.2.reparam_conv.bias", [64]),
        "conv4.weight": ("model.encoder.3.reparam_conv.weight", [128, 64, 3]), "conv4.bias": ("model.encoder.3.reparam_conv.bias", [128]),
        "lstm_cell.weight_ih": ("model.decoder.rnn.weight_ih", [512, 128]), "lstm_cell.weight_hh": ("model.decoder.rnn.weight_hh", [512, 128]),
        "lstm_cell.bias_ih": ("model.decoder.rnn.bias_ih", [512]), "lstm_cell.bias_hh": ("model.decoder.rnn.bias_hh", [512]),
        "final_conv.weight": ("model.decoder.decoder.2.weight", [1, 128, 1]), "final_conv.bias": ("model.decoder.decoder.2.bias", [1]),
    ]

    /// A protobuf field: its number, and its varint value or its bytes' range.
    private struct Field { var number: Int, varint: UInt64, range: Range<Int> }

    /// The fields of one protobuf message in `bytes[range]`; nil when it is not well formed.
    private static func fields(_ b: [UInt8], _ range: Range<Int>) -> [Field]? {
        var i = range.lowerBound, out: [Field] = []
        func varint() -> UInt64? {
            var v: UInt64 = 0, shift: UInt64 = 0
            while i < range.upperBound, shift < 64 {
                let byte = b[i]; i += 1
                v |= UInt64(byte & 0x7f) << shift
                if byte < 0x80 { return v }
                shift += 7
            }
            return nil
        }
        while i < range.upperBound {
            guard let key = varint() else { return nil }
            let number = Int(key >> 3)
            switch key & 7 {
            case 0: guard let v = varint() else { return nil }; out.append(Field(number: number, varint: v, range: i..<i))
            case 1: guard i + 8 <= range.upperBound else { return nil }; out.append(Field(number: number, varint: 0, range: i..<(i + 8))); i += 8
            case 5: guard i + 4 <= range.upperBound else { return nil }; out.append(Field(number: number, varint: 0, range: i..<(i + 4))); i += 4
            case 2:
                guard let n = varint(), n <= UInt64(range.upperBound - i) else { return nil }
                out.append(Field(number: number, varint: n, range: i..<(i + Int(n)))); i += Int(n)
            default: return nil
            }
        }
        return out
    }

    public init(onnx bytes: [UInt8], path: String) throws {
        func bad(_ why: String) -> SpeechModelError { .damaged(path: path, reason: why) }
        guard let model = Self.fields(bytes, 0..<bytes.count), let graph = model.first(where: { $0.number == 7 }),
              let graphFields = Self.fields(bytes, graph.range) else {
            throw bad("it is not an ONNX model")
        }
        var found: [String: (shape: [Int], type: UInt64, raw: Range<Int>)] = [:]
        for initializer in graphFields where initializer.number == 5 {
            guard let t = Self.fields(bytes, initializer.range) else { throw bad("an initializer of its graph cannot be read") }
            var dims: [Int] = [], type: UInt64 = 0, name = "", raw = 0..<0
            for f in t {
                switch f.number {
                case 1:
                    if f.range.isEmpty { dims.append(Int(f.varint)) }
                    else {
                        // Packed: varints back to back.
                        var v = 0, shift = 0
                        for byte in bytes[f.range] {
                            v |= Int(byte & 0x7f) << shift
                            if byte < 0x80 { dims.append(v); v = 0; shift = 0 } else { shift += 7 }
                        }
                    }
                case 2: type = f.varint
                case 8: name = String(decoding: bytes[f.range], as: UTF8.self)
                case 9: raw = f.range
                default: break
                }
            }
            found[name] = (dims, type, raw)
        }
        var out: [String: (shape: [Int], values: [Float])] = [:]
        for (name, want) in Self.shapes {
            guard let t = found[want.onnx], t.type == 1 else { throw bad("it has no F32 tensor \(want.onnx)") }
            guard t.shape == want.shape else { throw bad("its tensor \(want.onnx) has shape \(t.shape), not \(want.shape)") }
            let count = want.shape.reduce(1, *)
            guard t.raw.count == 4 * count else { throw bad("its tensor \(want.onnx) does not hold \(count) raw floats") }
            let start = t.raw.lowerBound
            let values = bytes.withUnsafeBytes { r in
                (0..<count).map { i in Float(bitPattern: UInt32(littleEndian: r.loadUnaligned(fromByteOffset: start + 4 * i, as: UInt32.self))) }
            }
            out[name] = (want.shape, values)
        }
        tensors = out
    }

    package func values(_ name: String) -> [Float] { tensors[name]?.values ?? [] }
}
