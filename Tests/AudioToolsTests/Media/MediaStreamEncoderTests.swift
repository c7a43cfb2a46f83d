import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// AAC streams of an MP4, MOV or M4A are encoded apart, each by an ffmpeg of its own into an MP4,
/// and the muxer copies them from those files; other codecs and containers keep the encode in
/// the muxer.
@Suite struct MediaStreamEncoderTests {
    @Test func onlyAACIntoTheMP4FamilyIsEncodedApart() throws {
        let p = try MediaMuxerTests.probe()
        let aac = try #require(MediaAudioEncoding.same(as: p.audioStreams[0]))
        var flacStream = p.audioStreams[0]; flacStream.codec = "flac"; flacStream.bitsPerRawSample = 16
        let flac = try #require(MediaAudioEncoding.same(as: flacStream))
        #expect(MediaStreamEncoder.applies(encodings: [aac, aac], muxer: "mp4"))
        #expect(MediaStreamEncoder.applies(encodings: [aac], muxer: "mov") && MediaStreamEncoder.applies(encodings: [aac], muxer: "ipod"))
        #expect(!MediaStreamEncoder.applies(encodings: [aac], muxer: "matroska"))
        #expect(!MediaStreamEncoder.applies(encodings: [aac, flac], muxer: "mov"))
        #expect(!MediaStreamEncoder.applies(encodings: [], muxer: "mp4"))
    }

    @Test func theEncoderReadsItsPipeAndWritesAnMP4() throws {
        let p = try MediaMuxerTests.probe()
        let e = try #require(MediaAudioEncoding.same(as: p.audioStreams[1]))
        let line = MediaStreamEncoder.arguments(encoding: e, output: "a.m4a").joined(separator: " ")
        #expect(line == "-nostdin -v error -y -f f32le -ar 22050 -ac 1 -ch_layout mono -i pipe:3 -map 0:a:0 -c:a aac -b:a 64000 -f mp4 file:a.m4a")
    }

    @Test func theMuxerCopiesStreamsEncodedApartFromTheirFiles() throws {
        let p = try MediaMuxerTests.probe()
        let args = MediaMuxer.arguments(input: "in.mp4", probe: p, encodings: [:], copied: [1: "b.m4a", 0: "a.m4a"], muxer: "mp4", output: "out.tmp")
        let line = args.joined(separator: " ")
        // No pipe: each encoded stream is an input file of its own, in the streams' order, copied.
        #expect(!line.contains("pipe:"))
        #expect(line.contains("-i file:in.mp4 -i file:a.m4a -i file:b.m4a "))
        #expect(line.contains("-map 0:0 -map 1:a:0 -map 2:a:0 -map 0:3 "))
        #expect(line.contains("-c copy -map_metadata 0"))
        #expect(!line.contains("-c:1") && !line.contains("-b:"))
        // Tags and dispositions still come from the input file's streams.
        #expect(line.contains("-map_metadata:s:1 0:s:1 -disposition:1 default -map_metadata:s:2 0:s:2 -disposition:2 comment"))
    }
}
