import Foundation
import Testing
@testable import AudioSignal

/// ACX's level figures and the level gates on signals whose answers are known exactly.
@Suite struct LevelMeterTests {
    static let rate = 48000

    static func measure(_ channels: [[Float]], block: Int = 1000) -> LevelMeter.Levels {
        let m = LevelMeter(sampleRate: rate, channelCount: channels.count)
        var i = 0
        while i < channels[0].count {
            let n = min(block, channels[0].count - i)
            m.add(AudioBlock(channels: channels.map { Array($0[i..<(i + n)]) }, frames: n))
            i += n
        }
        return m.finish()
    }

    /// A sine of a whole number of cycles: its RMS is its peak less 3.01 dB (20·log10 √2).
    @Test func aSinesRMSIsItsPeakLessThreeDecibels() throws {
        let amplitude = 0.5
        let x = (0..<Self.rate * 2).map { Float(amplitude * sin(2 * .pi * 1000 * Double($0) / Double(Self.rate))) }
        let l = Self.measure([x])
        let peak = try #require(l.samplePeakDBFS), rms = try #require(l.rmsDBFS)
        #expect(abs(peak - 20 * log10(amplitude)) < 0.001)
        #expect(abs(rms - (20 * log10(amplitude) - 10 * log10(2))) < 0.001)
    }

    /// The sample peak's frame and channel: the first largest sample.
    @Test func thePeakIsFoundAtItsFrameAndChannel() {
        var a = [Float](repeating: 0.1, count: Self.rate * 3), b = a
        b[Self.rate + 1234] = -0.9
        a[2 * Self.rate] = 0.9
        let l = Self.measure([a, b], block: 777)
        #expect(l.samplePeakChannel == 1)
        #expect(abs(l.samplePeakAtSeconds - Double(Self.rate + 1234) / Double(Self.rate)) < 1e-9)
        #expect(abs((l.samplePeakDBFS ?? 0) - 20 * log10(Double(Float(0.9)))) < 1e-6)
    }

    /// Constant 0.1 with a 1-s stretch at 0.001 from 2.0 s: the quietest 0.5 s lies in it, at
    /// -60 dBFS, and starts at 2.0 s (the first such window on the 10-ms grid).
    @Test func theQuietestHalfSecondIsTheNoiseFloor() throws {
        var x = [Float](repeating: 0.1, count: Self.rate * 5)
        for k in (2 * Self.rate)..<(3 * Self.rate) { x[k] = 0.001 }
        let l = Self.measure([x, x])
        let floor = try #require(l.noiseFloorDBFS)
        #expect(abs(floor - -60) < 0.01)
        #expect(abs(l.noiseFloorAtSeconds - 2.0) < 1e-9)
        #expect(!l.shorterThanWindow)
        // The whole file: 4 s at -20 dBFS and 1 s at -60 dBFS, mean square (4·0.01 + 1e-6)/5.
        #expect(abs((l.rmsDBFS ?? 0) - 10 * log10((4 * 0.01 + 1e-6) / 5)) < 0.001)
    }

    /// A file shorter than a window is one window; digital silence has no level.
    @Test func shortFilesAndSilence() {
        let short = Self.measure([[Float](repeating: 0.01, count: Self.rate / 4)])
        #expect(short.shorterThanWindow && abs((short.noiseFloorDBFS ?? 0) - -40) < 0.001)
        let silent = Self.measure([[Float](repeating: 0, count: Self.rate)])
        #expect(silent.samplePeakDBFS == nil && silent.rmsDBFS == nil && silent.noiseFloorDBFS == nil)
    }

    /// The DC offset of a constant: 0.01 is -40 dBFS; the gate names the channel over the limit.
    @Test func aConstantOffsetFailsTheDCGate() {
        let n = Self.rate
        let a = QCAnalyser(sampleRate: Self.rate, channelCount: 2, frontPair: (0, 1))
        let x = (0..<n).map { Float(0.3 * sin(2 * .pi * 100 * Double($0) / Double(Self.rate))) }
        a.add(AudioBlock(channels: [x.map { $0 + 0.01 }, x], frames: n))
        let r = a.finish()
        #expect(abs((r.dcOffsetDBFS[0] ?? 0) - -40) < 0.01)
        let faults = QCGate(maxDCOffsetDBFS: -50).levelFaults(r)
        #expect(faults.count == 1 && faults.first?.kind == .dcOffset && faults.first?.channels.map(\.channel) == [0])
        #expect(QCGate(maxDCOffsetDBFS: -30).levelFaults(r).isEmpty)
    }

    /// The acx preset holds ACX's three level rules; a file inside them passes, one outside each
    /// fails with the figure.
    @Test func theACXPresetGatesACXsLevels() throws {
        let acx = try #require(QCGate.presets.first { $0.name == "acx" }?.gate)
        #expect(acx.maxSamplePeakDBFS == -3 && acx.minRMSDBFS == -23 && acx.maxRMSDBFS == -18 && acx.maxNoiseFloorDBFS == -60)
        func result(_ l: LevelMeter.Levels) -> QCAnalyser.Result {
            var r = QCAnalyser(sampleRate: Self.rate, channelCount: 1, frontPair: nil).finish()
            r.levels = l
            return r
        }
        let good = LevelMeter.Levels(samplePeakDBFS: -4, samplePeakAtSeconds: 1, samplePeakChannel: 0, rmsDBFS: -20,
                                     noiseFloorDBFS: -65, noiseFloorAtSeconds: 2, shorterThanWindow: false, frames: 1)
        #expect(acx.levelFaults(result(good)).isEmpty)
        var bad = good
        bad.samplePeakDBFS = -1; bad.rmsDBFS = -25; bad.noiseFloorDBFS = -50
        let kinds = acx.levelFaults(result(bad)).map(\.kind)
        #expect(kinds == [.samplePeak, .rmsLow, .noiseFloor])
        bad.rmsDBFS = -10
        #expect(acx.levelFaults(result(bad)).map(\.kind).contains(.rmsHigh))
    }

    /// --max-lra: a range over the limit fails with its figure; one under passes; a file under
    /// 3 s has none and fails; silence has none and passes.
    @Test func theLoudnessRangeGate() {
        func m(_ lra: Double?, seconds: Int) -> LoudnessMeasurement {
            LoudnessMeasurement(integratedLUFS: -20, loudnessRangeLU: lra, momentaryMaxLUFS: nil, shortTermMaxLUFS: nil,
                                samplePeaks: [], truePeaks: [],
                                frames: seconds * Self.rate, sampleRate: Self.rate)
        }
        let g = LoudnessGate(maxLoudnessRangeLU: 8)
        #expect(!g.isEmpty)
        #expect(g.rangeFault(m(9.5, seconds: 10)) == .over(rangeLU: 9.5, limitLU: 8))
        #expect(g.rangeFault(m(7, seconds: 10)) == nil)
        #expect(g.rangeFault(m(nil, seconds: 2)) == .tooShort(limitLU: 8))
        #expect(g.rangeFault(m(nil, seconds: 10)) == nil)
    }
}
