import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner
@Test func blockShape() { let b = AudioBlock(channelCount: 2, capacity: 8); #expect(b.channelCount == 2 && b.frames == 0) }
