import Testing
@testable import AudioTools
@Test func blockShape() { let b = AudioBlock(channelCount: 2, capacity: 8); #expect(b.channelCount == 2 && b.frames == 0) }
