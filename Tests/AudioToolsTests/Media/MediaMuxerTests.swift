import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// What ffprobe says becomes streams, and streams become the ffmpeg command that copies all but
/// the re-encoded audio, in the input's order, with their metadata and dispositions.
@Suite struct MediaMuxerTests {
    static let probeJSON = """
    {"streams":[
     {"index":0,"codec_name":"h264","codec_type":"video","disposition":{"default":1,"attached_pic":0},"tags":{"language":"und","handler_name":"VideoHandler"}},
     {"index":1,"codec_name":"aac","codec_type":"audio","sample_rate":"48000","channels":2,"channel_layout":"stereo","bit_rate":"159321","disposition":{"default":1},"tags":{"language":"eng"}},
     {"index":2,"codec_name":"aac","codec_type":"audio","sample_rate":"22050","channels":1,"channel_layout":"mono","bit_rate":"64000","disposition":{"default":0,"comment":1},"tags":{"language":"fra","handler_name":"Director"}},
     {"index":3,"codec_name":"mov_text","codec_type":"subtitle","disposition":{}},
     {"index":4,"codec_name":"bin_data","codec_tag_string":"text","codec_type":"data","disposition":{}}],
     "chapters":[{"id":0},{"id":1}],
     "format":{"format_name":"mov,mp4,m4a,3gp,3g2,mj2","duration":"3.000000","tags":{"title":"Film"}}}
    """

    static func probe() throws -> MediaProbe { MediaProbe.parse(try JSON.parse(probeJSON)) }

    @Test func parsesStreamsAndFindsTheChapterTrack() throws {
        let p = try Self.probe()
        #expect(p.streams.count == 5 && p.audioStreams.map(\.index) == [1, 2])
        #expect(p.audioStreams[1].language == "fra" && p.audioStreams[1].title == "Director")
        #expect(p.audioStreams[0].title == nil)   // no title, and a muxer's own handler name is none
        #expect(p.audioStreams[1].disposition == ["comment"])
        #expect(p.chapterCount == 2 && p.tags["title"] == "Film")
        #expect(p.deliveredStreams.map(\.index) == [0, 1, 2, 3])
    }

    @Test func sameCodecAtLeastTheInputsBitRate() throws {
        let p = try Self.probe()
        let e = try #require(MediaAudioEncoding.same(as: p.audioStreams[0]))
        #expect(e.encoder == "aac" && e.isLossy && e.bitRate == 160_000 && e.sampleRate == 48000 && e.channels == 2)
        #expect(e.lossWords == "AAC re-encoded at 160 kb/s")
        var flac = p.audioStreams[0]; flac.codec = "flac"; flac.bitsPerRawSample = 16
        let f = try #require(MediaAudioEncoding.same(as: flac))
        #expect(!f.isLossy && f.sampleFormat == "s16" && f.ditherBits == 16)
        var dts = p.audioStreams[0]; dts.codec = "dts"
        #expect(MediaAudioEncoding.same(as: dts) == nil)
    }

    @Test func argumentsMapEveryStreamInOrder() throws {
        let p = try Self.probe()
        let e = MediaAudioEncoding.same(as: p.audioStreams[1])!
        let args = MediaMuxer.arguments(input: "in.mp4", probe: p, encodings: [1: e], muxer: "mp4", output: "out.tmp")
        let line = args.joined(separator: " ")
        // One pipe input, for the second audio stream; the first is copied from the file.
        #expect(line.contains("-f f32le -ar 22050 -ac 1 -ch_layout mono -i pipe:3"))
        #expect(line.contains("-map 0:0 -map 0:1 -map 1:a:0 -map 0:3 "))
        #expect(!line.contains("-map 0:4"))   // the chapter track comes from -map_chapters
        #expect(line.contains("-c copy -c:2 aac -b:2 64000"))
        // Every stream's tags and dispositions, not only the re-encoded one's (ffmpeg copies none once one is mapped by hand).
        #expect(line.contains("-map_metadata 0 -map_chapters 0 -map_metadata:s:0 0:s:0 -disposition:0 default -map_metadata:s:1 0:s:1 -disposition:1 default "
                              + "-map_metadata:s:2 0:s:2 -disposition:2 comment -map_metadata:s:3 0:s:3 -disposition:3 0"))
        #expect(args.suffix(3) == ["-f", "mp4", "file:out.tmp"])
    }

    @Test func m4aFromLosslessIsAACAtAFloor() throws {
        var s = try Self.probe().audioStreams[0]
        s.codec = "pcm_s24le"; s.bitRate = 2_304_000
        let aac = try #require(MediaAudioEncoding.m4a("m4a", from: s))
        #expect(aac.encoder == "aac" && aac.bitRate == 256_000)
        let alac = try #require(MediaAudioEncoding.m4a("alac", from: s))
        #expect(alac.encoder == "alac" && alac.bitDepth == 24 && alac.sampleFormat == "s32p")
        #expect(MediaContainer.muxer(formatName: "mov,mp4,m4a,3gp,3g2,mj2", path: "a.m4a") == "ipod")
        #expect(MediaContainer.muxer(formatName: "mov,mp4,m4a,3gp,3g2,mj2", path: "a.MOV") == "mov")
        #expect(MediaContainer.muxer(formatName: "matroska,webm", path: "a.mkv") == "matroska")
        #expect(MediaContainer.muxer(formatName: "wav", path: "a.wav") == nil)
    }

    @Test func anMP4TimecodeTrackIsWrittenAgainByTheMuxer() throws {
        var p = try Self.probe()
        p.streams.append(MediaStream(index: 5, type: "data", codec: nil, codecTag: "tmcd", profile: nil, sampleRate: nil, channels: nil,
                                     channelLayout: nil, bitRate: nil, sampleFormat: nil, bitsPerRawSample: nil,
                                     tags: ["timecode": "00:00:00:00"], disposition: []))
        let e = MediaAudioEncoding.same(as: p.audioStreams[1])!
        let mp4 = MediaMuxer.arguments(input: "in.mp4", probe: p, encodings: [1: e], muxer: "mp4", output: "out.tmp").joined(separator: " ")
        #expect(!mp4.contains("-map 0:5") && mp4.contains("-write_tmcd 1"))
        let mov = MediaMuxer.arguments(input: "in.mov", probe: p, encodings: [1: e], muxer: "mov", output: "out.tmp").joined(separator: " ")
        #expect(mov.contains("-map 0:5") && !mov.contains("-write_tmcd"))
    }
}
