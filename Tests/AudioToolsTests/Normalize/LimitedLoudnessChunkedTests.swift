import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The model replays the limiter a chunk of units at a time, four units to a vector: the loudness
/// bits of the unit-by-unit loop it replaced, across look-aheads (none, whole units, a share of
/// one), rates whose units differ in length, and peaks that end before the look-ahead does.
@Suite struct LimitedLoudnessChunkedTests {
    /// The unit-by-unit replay the chunked one must match bit for bit: hop energies of the
    /// limited output at linear gain `a`.
    static func unitByUnit(_ m: LimitedLoudnessModel, gain a: Double) -> [Double] {
        let energies = m.energyValues(), peaks = m.peakValues()
        let perHop = LimitedLoudnessModel.unitsPerHop
        let hops = energies.count / perHop
        let nominal = max(1, m.hop / perHop)
        let q = m.lookahead / nominal, r = m.lookahead % nominal
        let partial = min(1, (Double(r) + Double(nominal) / 2) / Double(nominal))
        let thr = Double(m.threshold), ov = Double(TruePeakLimiter.releaseOvershoot)
        let decays = (0..<perHop).map { pow(m.releaseCoefficient, Double(LimitedLoudnessModel.unitLength($0, hop: m.hop))) }
        var gains: [Double] = [], minima: [Double] = [], out: [Double] = []
        var depth = 0.0, hopSum = 0.0
        let a2 = a * a
        for j in 0..<(hops * perHop) {
            while gains.count <= j + q {
                let u = gains.count
                depth = (depth + ov) * decays[u % perHop] - ov
                if depth < 0 { depth = 0 }
                if u < peaks.count {
                    let p = Double(peaks[u]) * a
                    if p > thr, 1 - thr / p > depth { depth = 1 - thr / p }
                }
                gains.append(1 - depth)
            }
            var full = gains[j]
            if q > 1 { for k in 1..<q { full = min(full, gains[j + k]) } }
            var mm = full
            if q > 0 { mm = (1 - partial) * full + partial * min(full, gains[j + q]) }
            minima.append(mm)
            var g = 0.0
            for d in 0..<m.smoothing.count { g += m.smoothing[d] * (j >= d ? minima[j - d] : 1) }
            hopSum += Double(energies[j]) * a2 * g * g
            if (j + 1) % perHop == 0 { out.append(hopSum); hopSum = 0 }
        }
        return out
    }

    static func reference(_ m: LimitedLoudnessModel, gainDB: Double) -> Double? {
        let spill = ValueSpill<Double>()
        for e in unitByUnit(m, gain: pow(10, gainDB / 20)) { spill.append(e) }
        return LoudnessMeter.gatedLoudness(LimitedLoudnessModel.GatingBlocks(hopEnergies: spill, hop: m.hop),
                                           relativeGateLU: LoudnessMeter.integratedRelativeGateLU)
    }

    @Test(arguments: [(48_000, 0.003), (48_000, 0.0051), (48_000, 0.0001), (44_100, 0.003), (44_100, 0.0123)])
    func theBitsOfTheUnitByUnitLoop(rate: Int, lookahead: Double) throws {
        let hop = (rate + 5) / 10, hops = 97
        let units = hops * LimitedLoudnessModel.unitsPerHop + 37
        var k = 0
        let energies = LimitedLoudnessFlatTests.column(units, seed: 41) { u in k += 1; return u * 1e-3 * (1 + 0.8 * sin(Double(k) / 700)) }
        // Bursts that need deep limiting, quiet stretches where the gain recovers fully.
        k = 0
        let peaks = LimitedLoudnessFlatTests.column(units, seed: 42) { u in k += 1; return k % 3000 < 400 ? 0.05 * u : 0.1 + 0.9 * u }
        let settings = TruePeakLimiter.Settings(ceilingDBTP: -1, lookaheadSeconds: lookahead, releaseSeconds: 0.05)
        let m = LimitedLoudnessModel(energies: energies, peaks: peaks, hop: hop, sampleRate: rate, limit: true, settings: settings)
        for gainDB in [-12.0, 0, 3.5, 9] {
            let expected = try #require(Self.reference(m, gainDB: gainDB))
            #expect(m.loudness(gainDB: gainDB)?.bitPattern == expected.bitPattern, "gain \(gainDB) dB")
        }
    }

    @Test func theSearchHandsBackTheLoudnessAtTheGainItFound() throws {
        let units = 60 * LimitedLoudnessModel.unitsPerHop
        var k = 0
        let energies = LimitedLoudnessFlatTests.column(units, seed: 51) { u in k += 1; return u * 1e-3 * (1 + 0.8 * sin(Double(k) / 500)) }
        let peaks = LimitedLoudnessFlatTests.column(units, seed: 52) { 0.1 + 0.9 * $0 }
        let m = LimitedLoudnessModel(energies: energies, peaks: peaks, hop: 4800, sampleRate: 48_000, limit: true,
                                     settings: TruePeakLimiter.Settings(ceilingDBTP: -1))
        // On target, out of reach above and below, and with nothing to gate.
        for (target, range) in [(-14.0, 6.0), (-9.0, 6.0), (10.0, 2.0), (-60.0, 2.0)] {
            let both = m.gainAndLoudness(forTarget: target, planGainDB: 0, maxCompensationDB: range)
            #expect(both.gainDB.bitPattern == m.gain(forTarget: target, planGainDB: 0, maxCompensationDB: range).bitPattern)
            #expect(both.loudness?.bitPattern == m.loudness(gainDB: both.gainDB)?.bitPattern, "target \(target)")
        }
        let silent = LimitedLoudnessModel(energies: [Float](repeating: 0, count: units), peaks: [Float](repeating: 0, count: units),
                                          hop: 4800, sampleRate: 48_000, limit: true, settings: TruePeakLimiter.Settings(ceilingDBTP: -1))
        let none = silent.gainAndLoudness(forTarget: -14, planGainDB: 3, maxCompensationDB: 6)
        #expect(none.gainDB == 3 && none.loudness == nil)
    }
}
