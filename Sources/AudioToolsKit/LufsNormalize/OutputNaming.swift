import AudioIO
import Foundation

/// Where lufs-normalize writes each input: `--out-dir`, `--output-template` (`{dir}`, `{stem}`,
/// `{ext}`), both, or `--in-place`. Pure string work, but for `linkInsideOutDir`, which looks.
public struct LufsNormalizeNaming: Equatable, Sendable {
    public var outDir: String?
    public var template: String?
    public var inPlace: Bool
    /// For inputs named on stdin: keep their folders below this one (else only the file name).
    public var relativeTo: String?
    /// The extension `--format` asks for; nil keeps the input's.
    public var formatExtension: String?

    public init(outDir: String?, template: String?, inPlace: Bool, relativeTo: String?, formatExtension: String?) {
        self.outDir = outDir; self.template = template; self.inPlace = inPlace
        self.relativeTo = relativeTo; self.formatExtension = formatExtension
    }

    /// The output path for `input`; `base` is the directory argument it was found under, if any.
    /// Nil when the input lies outside `--relative-to` (the caller refuses it).
    public func output(for input: String, base: String?) -> String? {
        if inPlace { return input }
        let url = URL(fileURLWithPath: input)
        let name = url.lastPathComponent
        let inputExt = url.pathExtension
        let stem = inputExt.isEmpty ? name : String(name.dropLast(inputExt.count + 1))
        let ext = formatExtension ?? inputExt
        // The folder below the root whose structure is kept.
        var relDir: String? = nil
        if let base {
            relDir = Self.relativeDirectory(of: input, below: base)
        } else if let root = relativeTo {
            guard let r = Self.relativeDirectory(of: input, below: root) else { return nil }
            relDir = r
        }
        var path: String
        if let template {
            let dir = outDir != nil ? (relDir ?? ".") : ((input as NSString).deletingLastPathComponent.isEmpty ? "." : (input as NSString).deletingLastPathComponent)
            var t = template
            if ext.isEmpty { t = t.replacingOccurrences(of: ".{ext}", with: "") }
            t = t.replacingOccurrences(of: "{dir}", with: dir)
                .replacingOccurrences(of: "{stem}", with: stem)
                .replacingOccurrences(of: "{ext}", with: ext)
            path = outDir.map { $0 + "/" + t } ?? t
        } else {
            let file = ext.isEmpty ? stem : stem + "." + ext
            let dir = outDir ?? "."
            path = dir + "/" + (relDir.map { $0.isEmpty ? "" : $0 + "/" } ?? "") + file
        }
        return Self.tidy(path)
    }

    /// Whether `template` stays inside `--out-dir`: not absolute, and no `..` component.
    public static func staysInside(_ template: String) -> Bool {
        !template.hasPrefix("/") && !template.split(separator: "/").contains("..")
    }

    /// The first symbolic link below `--out-dir` on the way to `output` (the file itself
    /// included), which is never written through; nil when there is none or no `--out-dir`.
    public func linkInsideOutDir(_ output: String) -> String? {
        guard let outDir, !inPlace else { return nil }
        let root = Self.tidy(outDir)
        guard output.hasPrefix(root == "/" ? "/" : root + "/") else { return nil }
        var path = root
        for part in output.dropFirst(root.count).split(separator: "/") {
            path += (path.hasSuffix("/") ? "" : "/") + part
            var st = stat()
            guard PathBytes.lstat(path, &st) == 0 else { return nil }
            if (st.st_mode & S_IFMT) == S_IFLNK { return path }
        }
        return nil
    }

    /// The folder of `path` relative to `root` ("" directly in it), or nil when it is not below.
    package static func relativeDirectory(of path: String, below root: String) -> String? {
        let p = absolute(path), r = absolute(root)
        let prefix = r.hasSuffix("/") ? r : r + "/"
        guard p.hasPrefix(prefix) else { return nil }
        return (String(p.dropFirst(prefix.count)) as NSString).deletingLastPathComponent
    }

    /// `path` without `.` components or doubled slashes (`..` is kept as written).
    package static func tidy(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        let joined = parts.joined(separator: "/")
        return absolute ? "/" + joined : (joined.isEmpty ? "." : joined)
    }

    /// An absolute, standardised form of `path`, for comparing paths.
    public static func absolute(_ path: String) -> String {
        let p = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return (p as NSString).standardizingPath
    }
}
