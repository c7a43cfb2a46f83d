import CTagLib
import Foundation

/// TagLib (through the CTagLib shim) on one file: the fields of the tag that holds gain values,
/// the file's generic tags, and edits of that tag. C types stay in here.
public enum TagLibFile {
    public struct Contents: Sendable {
        /// The gain tag's fields in file order: Vorbis comment fields, TXXX descriptions, or
        /// MP4 freeform atom names, each with its first value.
        public var fields: [(key: String, value: String)]
        /// TagLib's generic property map (TITLE, ARTIST, ALBUM, ALBUMARTIST, ...), first values.
        public var properties: [String: String]
        /// The ID3v2 major version (3 or 4) of a file that has an ID3v2 tag.
        public var id3Version: Int?
    }

    /// The containers whose tags TagLib edits here; the raw values are the tag formats' names.
    public enum Container: String, Sendable {
        case flac, oggVorbis = "ogg-vorbis", opus, mp3, wav, aiff, mp4
    }

    package static func kind(_ f: Container) -> Int32 {
        switch f {
        case .flac: return Int32(CTAG_FLAC.rawValue)
        case .oggVorbis: return Int32(CTAG_OGG_VORBIS.rawValue)
        case .opus: return Int32(CTAG_OPUS.rawValue)
        case .mp3: return Int32(CTAG_MP3.rawValue)
        case .wav: return Int32(CTAG_WAV.rawValue)
        case .aiff: return Int32(CTAG_AIFF.rawValue)
        case .mp4: return Int32(CTAG_MP4.rawValue)
        }
    }

    package static func pairs(_ l: ctag_list) -> [(key: String, value: String)] {
        (0..<l.count).map { i in (String(cString: l.keys[i]!), String(cString: l.values[i]!)) }
    }

    public static func read(_ path: String, container format: Container) throws -> Contents {
        try read(path, format: format) { ctag_read(path, kind(format), &$0, &$1, &$2) }
    }

    /// As `read(_:container:)`, through the descriptor `file` already holds (TagLib reads a
    /// duplicate of it, so the path is not opened again).
    public static func read(_ file: FileByteSource, container format: Container) throws -> Contents {
        try read(file.path, format: format) { ctag_read_fd(file.duplicateDescriptor(), kind(format), &$0, &$1, &$2) }
    }

    private static func read(_ path: String, format: Container,
                             _ call: (inout ctag_list, inout ctag_list, inout Int32) -> Int32) throws -> Contents {
        var store = ctag_list(), props = ctag_list()
        var version: Int32 = 0
        let status = call(&store, &props, &version)
        defer { ctag_list_free(&store); ctag_list_free(&props) }
        guard status == Int32(CTAG_OK.rawValue) else { throw failure(status, path: path, format: format, writing: false) }
        var p: [String: String] = [:]
        for (k, v) in pairs(props) where p[k] == nil { p[k] = v }
        return Contents(fields: pairs(store), properties: p, id3Version: version > 0 ? Int(version) : nil)
    }

    /// Sets `fields` (replacing any spelling of the same keys) and deletes `removing` in the gain
    /// tag, saving the file where it is; an ID3v2 tag as version `id3Version` (3 or 4), or as it
    /// was when nil. Call it on a copy (see `FileReplacement`).
    public static func write(_ path: String, container format: Container, fields: [(key: String, value: String)], removing: [String],
                             id3Version: Int? = nil) throws {
        let keys = fields.map { strdup($0.key) }, values = fields.map { strdup($0.value) }, gone = removing.map { strdup($0) }
        defer { (keys + values + gone).forEach { free($0) } }
        let k = keys.map { UnsafePointer<CChar>($0) }, v = values.map { UnsafePointer<CChar>($0) }, r = gone.map { UnsafePointer<CChar>($0) }
        let status = k.withUnsafeBufferPointer { kp in
            v.withUnsafeBufferPointer { vp in
                r.withUnsafeBufferPointer { rp in
                    ctag_write(path, kind(format), kp.baseAddress, vp.baseAddress, fields.count, rp.baseAddress, removing.count,
                               Int32(id3Version ?? 0))
                }
            }
        }
        guard status == Int32(CTAG_OK.rawValue) else { throw failure(status, path: path, format: format, writing: true) }
    }

    package static func failure(_ status: Int32, path: String, format: Container, writing: Bool) -> TagFileError {
        if status == Int32(CTAG_SAVE_FAILED.rawValue) { return TagFileError(path, .saveFailed(format)) }
        return TagFileError(path, .notReadableAs(format, writing: writing))
    }
}

/// Why a file's tags couldn't be read or rewritten, as facts; IOSentences says them to a person.
public struct TagFileError: Error, Equatable, Sendable {
    public var path: String
    public var problem: Problem

    public init(_ path: String, _ problem: Problem) {
        self.path = path
        self.problem = problem
    }

    /// The step of a safe rewrite that the system refused.
    public enum Step: Equatable, Sendable {
        case opening, examining, makingCopy, copying, replacing
    }

    public enum Problem: Equatable, Sendable {
        /// TagLib couldn't save the tag.
        case saveFailed(TagLibFile.Container)
        /// TagLib can't parse the file as this container, for reading or writing its tags.
        case notReadableAs(TagLibFile.Container, writing: Bool)
        /// The file (`fileLocked`) or its folder can't be written.
        case readOnly(fileLocked: Bool)
        case systemRefused(Step, errno: Int32)
    }
}

/// Rewrites a file through a complete copy renamed over it: a crash or kill at any moment leaves
/// either the old file or the new one. The copy is a reflink (FICLONE) where the file system has
/// it, so only the changed blocks take new space; it keeps the original's owner, mode and
/// extended attributes (FileAttributes). A link is kept, and the file it points to rewritten.
public enum FileReplacement {
    /// Linux's FICLONE ioctl, _IOW(0x94, 9, int).
    package static let ficlone: UInt = 0x4004_9409

    /// Copies `path` next to itself, lets `edit` change the copy, then renames it over `path`.
    /// Returns whether the copy was a reflink.
    @discardableResult
    public static func rewrite(_ path: String, edit: (String) throws -> Void) throws -> Bool {
        let target = FileAttributes.linkTarget(path)
        let dir = PathBytes.directoryName(target)
        var mode = stat()
        // A file with no owner write permission is read-only on purpose, even to root.
        let fileLocked = access(target, W_OK) != 0 || (stat(target, &mode) == 0 && mode.st_mode & S_IWUSR == 0)
        if fileLocked || access(dir, W_OK) != 0 {
            throw TagFileError(path, .readOnly(fileLocked: fileLocked))
        }
        let src = open(target, O_RDONLY | O_CLOEXEC)
        guard src >= 0 else { throw ioError(path, .opening) }
        defer { close(src) }
        var st = stat()
        guard fstat(src, &st) == 0 else { throw ioError(path, .examining) }
        AtomicOutput.removeAbandonedPartials(in: dir)
        let tmp = dir + "/." + PathBytes.baseName(target) + ".tags" + TemporaryFiles.nameSuffix()
        TemporaryFiles.register(tmp)
        defer { TemporaryFiles.unregister(tmp) }
        // Only the owner may read the copy until it has the original's attributes.
        let dst = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st.st_mode & 0o600)
        guard dst >= 0 else { throw ioError(path, .makingCopy) }
        var done = false
        defer { if !done { unlink(tmp) } }
        var reflinked = false
        do {
            defer { close(dst) }
            if ioctl(dst, ficlone, src) == 0 {
                reflinked = true
            } else {
                try copyBytes(from: src, to: dst, path: path)
            }
            FileAttributes(of: target)?.apply(to: dst)
        }
        try edit(tmp)
        let fd = open(tmp, O_RDONLY | O_CLOEXEC)
        if fd >= 0 { fsync(fd); close(fd) }
        guard rename(tmp, target) == 0 else { throw ioError(path, .replacing) }
        done = true
        let d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if d >= 0 { fsync(d); close(d) }
        return reflinked
    }

    package static func copyBytes(from src: Int32, to dst: Int32, path: String) throws {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        lseek(src, 0, SEEK_SET)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(src, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; throw ioError(path, .copying) }
            if n == 0 { return }
            var off = 0
            while off < n {
                let w = buffer.withUnsafeBytes { Glibc.write(dst, $0.baseAddress! + off, n - off) }
                if w < 0 { if errno == EINTR { continue }; throw ioError(path, .copying) }
                off += w
            }
        }
    }

    /// The failed `step`, with the system's reason (errno as the step left it).
    package static func ioError(_ path: String, _ step: TagFileError.Step) -> TagFileError {
        TagFileError(path, .systemRefused(step, errno: errno))
    }
}
