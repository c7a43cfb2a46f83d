import COpusFile
import Foundation

/// Which libopus and libopusfile this process decodes Opus with, for the decoder signature:
/// libopus's version string, and each library's loaded file (path, size, modification time,
/// from the process's memory map), since libopusfile states no version at run time and a
/// distribution's rebuild may keep the version string while changing the decoder.
package enum OpusLibraries {
    /// `libopus=libopus 1.3.1@/usr/lib/…/libopus.so.0.8.0@383424/1675000000000000000;libopusfile=…`.
    package static let signature: String = {
        let objects = loadedObjects()
        func stamp(_ prefix: String) -> String {
            guard let p = objects.first(where: { ($0.split(separator: "/").last ?? "").hasPrefix(prefix) }),
                  let st = FileStamp.of(p) else { return "unknown" }
            return "\(p)@\(st.sizeBytes)/\(st.modifiedNanoseconds)"
        }
        return "libopus=" + String(cString: opus_get_version_string()) + "@" + stamp("libopus.so")
            + ";libopusfile=" + stamp("libopusfile.so")
    }()

    /// The paths of the files mapped into this process (shared libraries among them), in order.
    package static func loadedObjects() -> [String] {
        // Read to the end by hand: the file states a size of 0, which whole-file readers trust.
        let fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        let maps = String(decoding: bytes, as: UTF8.self)
        var seen = Set<String>(), out: [String] = []
        for line in maps.split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/") else { continue }
            let path = String(line[slash...])
            if seen.insert(path).inserted { out.append(path) }
        }
        return out
    }
}
