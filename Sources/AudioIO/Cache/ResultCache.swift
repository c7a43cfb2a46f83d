import AudioSignal
import Foundation

/// Results kept between runs in one SQLite file, keyed by file identity and settings.
///
/// An entry is reused only when the file is provably the one it was computed from — same path,
/// device, inode, size, modification and inode change times (ns) — and it was written by this
/// audio-tools version under the same settings (`kind` plus the options that change the result).
/// Anything else is a miss, and the fresh result replaces the entry. Every value carries a
/// checksum, checked on every read: a value damaged on disk is a miss, and its row is dropped. The cache is an accelerator, never a source of
/// truth: whatever goes wrong with it (damaged, foreign, read-only, locked for too long) is said
/// once on stderr and the run goes on without it, with the same output.
///
/// Several processes may share one file: it is in WAL mode, writers take the lock up front and
/// wait on a busy timeout. Within a process each worker thread borrows a connection of its own from
/// a small pool, so lookups on several threads don't wait for each other.
public final class ResultCache {
    /// The file, as the user named it.
    public let path: String
    /// Written into the database header (`PRAGMA application_id`): "ATC1".
    package static let applicationID: Int64 = 0x4154_4331
    /// The layout of the tables; a file with another one is moved aside, never read.
    /// 2: the inode change time and each value's checksum.
    package static let formatVersion: Int64 = 2
    /// A file modified this recently may still be being written (and a second write within the
    /// file system's timestamp granularity would keep its mtime): it is not stored.
    package static let settleNanoseconds: Int64 = 2_000_000_000

    /// Guards the pool and the flags below (never held during an SQLite call).
    private let lock = NSLock()
    private var idle: [Session] = []
    private var stopped = false
    /// The version string entries are keyed on.
    package let version: String
    /// Says what went wrong with the cache (the caller's warning line on stderr).
    package let warn: (String) -> Void

    /// One connection with its prepared statements, used by one thread at a time.
    package final class Session {
        package let db: SQLiteConnection
        package let select: SQLiteStatement
        package let selectRowID: SQLiteStatement
        package let store: SQLiteStatement
        package let drop: SQLiteStatement
        package let byID: SQLiteStatement
        package let begin: SQLiteStatement
        package let commit: SQLiteStatement
        /// Lookups in the read transaction held open (0: none is).
        package var readsInTransaction = 0

        /// A run of hits shares one read transaction (up to this many lookups), instead of SQLite
        /// taking and dropping its locks for each: a miss, a write or the end closes it.
        package static let readsPerTransaction = 256

        /// When the open read transaction began (monotonic ns).
        package var readingSince: UInt64 = 0
        /// How long one is kept: past that, the next lookup starts a fresh snapshot (a session
        /// can sit in the pool while its thread decodes a long file).
        package static let readNanoseconds: UInt64 = 100_000_000

        /// Opens the shared read transaction when none is open (or the open one is old).
        package func beginReading() throws {
            if readsInTransaction > 0, Clock.monotonicNanoseconds() - readingSince > Self.readNanoseconds {
                try endReading()
            }
            guard readsInTransaction == 0 else { return }
            try begin.with([]) { _ = try $0.step() }
            readingSince = Clock.monotonicNanoseconds()
        }

        /// Ends the read transaction, if one is open.
        package func endReading() throws {
            guard readsInTransaction > 0 else { return }
            readsInTransaction = 0
            try commit.with([]) { _ = try $0.step() }
        }

        package init(_ db: SQLiteConnection) throws {
            self.db = db
            begin = try db.prepare("BEGIN")
            commit = try db.prepare("COMMIT")
            select = try db.prepare("""
            SELECT device, inode, size, mtime_ns, ctime_ns, version, rowid, checksum, value, library_id FROM entries
            WHERE path = ?1 AND kind = ?2 AND settings = ?3
            """)
            selectRowID = try db.prepare("""
            SELECT device, inode, size, mtime_ns, ctime_ns, version, rowid, checksum FROM entries
            WHERE path = ?1 AND kind = ?2 AND settings = ?3
            """)
            store = try db.prepare("""
            INSERT OR REPLACE INTO entries (path, kind, settings, device, inode, size, mtime_ns, ctime_ns, version, library_id,
                                            checksum, value, written)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
            """)
            drop = try db.prepare("DELETE FROM entries WHERE rowid = ?1")
            byID = try db.prepare("""
            SELECT path, device, inode, size, mtime_ns, ctime_ns FROM entries
            WHERE library_id = ?1 AND kind = ?2 AND settings = ?3 AND version = ?4 ORDER BY path
            """)
        }
    }

    private init(path: String, db: SQLiteConnection, version: String, warn: @escaping (String) -> Void) throws {
        self.path = path
        self.version = version
        self.warn = warn
        idle = [try Session(db)]
    }

    /// Runs `body` with a connection of this thread's own (one from the pool, or a new one);
    /// nil once the cache has stopped working. SQLite errors end up in `failed`.
    private func withSession<R>(_ body: (Session) throws -> R) -> R? {
        lock.lock()
        if stopped { lock.unlock(); return nil }
        var session = idle.popLast()
        lock.unlock()
        do {
            if session == nil {
                let db = try SQLiteConnection(path: path, create: false)
                try db.execute("PRAGMA synchronous = NORMAL")
                session = try Session(db)
            }
            let r = try body(session!)
            lock.lock()
            if stopped { session!.db.close() } else { idle.append(session!) }
            lock.unlock()
            return r
        } catch let e as SQLiteError {
            lock.lock()
            session?.db.close()
            failed(e)
            lock.unlock()
            return nil
        } catch {
            lock.lock()
            if let session { idle.append(session) }
            lock.unlock()
            return nil
        }
    }

    // MARK: - Opening

    /// Opens (or creates) the cache at `path`. Returns nil, having said why on stderr, when it
    /// can't be used; a damaged, foreign or newer-format file is moved aside and a new one started.
    /// `version` keys the entries (the program's version); `warn` is handed every sentence about
    /// the cache, now and later in the run.
    public static func open(path: String, version: String, warn: @escaping (String) -> Void) -> ResultCache? {
        open(path: path, version: version, warn: warn, mayMoveAside: true)
    }

    /// How long opening keeps retrying while other processes hold the file (setting it up,
    /// switching it to WAL, recovering it): the same as the busy timeout of every later statement.
    package static let openDeadlineNanoseconds: Int64 = 15_000_000_000
    /// The busy timeout of every statement once the cache is open (docs/cache.md: 15 seconds).
    package static let busyTimeoutMilliseconds: Int32 = 15_000

    /// The busy timeout for an attempt to open `remaining` nanoseconds before the deadline: the
    /// time left, at least 1 ms, so the attempts together wait 15 s, not 15 s and then 15 s more.
    package static func openingBusyTimeout(remainingNanoseconds remaining: Int64) -> Int32 {
        Int32(clamping: max(1, min(Int64(busyTimeoutMilliseconds), remaining / 1_000_000)))
    }

    private static func open(path: String, version: String, warn: @escaping (String) -> Void, mayMoveAside: Bool) -> ResultCache? {
        let deadline = nowNanoseconds() + openDeadlineNanoseconds
        var attempt = 0
        while true {
            let remaining = deadline - nowNanoseconds()
            switch attemptOpen(path: path, version: version, warn: warn, mayMoveAside: mayMoveAside, lastTry: remaining <= 0,
                               busyMilliseconds: openingBusyTimeout(remainingNanoseconds: remaining)) {
            case .opened(let c): return c
            case .unusable: return nil
            case .busy:
                attempt += 1
                usleep(UInt32(min(100_000, 5_000 * attempt)) + UInt32.random(in: 0..<5_000))
            }
        }
    }

    private enum Attempt { case opened(ResultCache), unusable, busy }

    private static func attemptOpen(path: String, version: String, warn: @escaping (String) -> Void, mayMoveAside: Bool, lastTry: Bool,
                                    busyMilliseconds: Int32) -> Attempt {
        func done(_ c: ResultCache?) -> Attempt { c.map { .opened($0) } ?? .unusable }
        let name = PathBytes.quotedName(path)
        let before = FileStamp.of(path)
        var st = stat()
        if stat(path, &st) == 0, (st.st_mode & S_IFMT) != S_IFREG {
            warn("can't use the cache \(name): it is not a regular file; running without it.")
            return .unusable
        }
        let db: SQLiteConnection
        do {
            db = try SQLiteConnection(path: path, busyTimeoutMilliseconds: busyMilliseconds)
        } catch let e as SQLiteError {
            if e.kind == .busy, !lastTry { return .busy }
            warn("can't use the cache \(name): \(describeOpenFailure(e, path: path)); running without it.")
            return .unusable
        } catch { return .unusable }
        if db.isReadOnly {
            db.close()
            warn("can't use the cache \(name): the file is write-protected; running without it.")
            return .unusable
        }
        do {
            switch try inspect(db) {
            case .usable, .fresh:
                break
            case .foreign:
                db.close()
                return done(mayMoveAside ? moveAside(path, before: before, version: version, warn: warn,
                                                     why: "is an SQLite database of another program") : nil)
            case .otherFormat(let v):
                db.close()
                let why = v > formatVersion ? "was written by a newer audio-tools (cache format \(v); this one writes \(formatVersion))"
                                            : "has an old cache format (\(v); this one writes \(formatVersion))"
                return done(mayMoveAside ? moveAside(path, before: before, version: version, warn: warn, why: why) : nil)
            }
            // WAL lets readers and one writer work at once; NORMAL syncs only at checkpoints (a
            // crash may lose the newest entries, never corrupt the file: it is only a cache).
            // Another process holding the file keeps the switch from happening: wait for it.
            let mode: String? = try {
                let m = try db.prepare("PRAGMA journal_mode = WAL")
                defer { m.reset() }
                return try m.step() ? m.text(0)?.lowercased() : nil
            }()
            guard mode == "wal" else {
                db.close()
                if !lastTry { return .busy }
                warn("can't use the cache \(name): it can't be switched to WAL mode, which sharing it between processes needs (is it on a network file system?); running without it.")
                return .unusable
            }
            try db.execute("PRAGMA synchronous = NORMAL")
            try db.immediateTransaction {
                // Checked again under the write lock: another process may have set it up meanwhile.
                switch try inspect(db) {
                case .fresh:
                    try db.execute("""
                        PRAGMA application_id = \(applicationID);
                        PRAGMA user_version = \(formatVersion);
                        CREATE TABLE IF NOT EXISTS entries (
                            path TEXT NOT NULL, kind TEXT NOT NULL, settings TEXT NOT NULL,
                            device INTEGER NOT NULL, inode INTEGER NOT NULL, size INTEGER NOT NULL,
                            mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL, version TEXT NOT NULL, library_id TEXT,
                            checksum INTEGER NOT NULL, value TEXT NOT NULL, written INTEGER NOT NULL,
                            UNIQUE (path, kind, settings));
                        CREATE INDEX IF NOT EXISTS entries_by_library_id ON entries (library_id) WHERE library_id IS NOT NULL;
                        """)
                case .usable: break
                case .foreign, .otherFormat: throw SQLiteError(code: 5, message: "the file changed while it was opened")  // busy: look again
                }
            }
            db.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
            return .opened(try ResultCache(path: path, db: db, version: version, warn: warn))
        } catch let e as SQLiteError {
            db.close()
            switch e.kind {
            case .damaged:
                return done(mayMoveAside ? moveAside(path, before: before, version: version, warn: warn,
                                                     why: "is damaged or not an SQLite database (\(e.message))") : nil)
            case .busy where !lastTry:
                return .busy
            default:
                warn("can't use the cache \(name): \(describeOpenFailure(e, path: path)); running without it.")
                return .unusable
            }
        } catch {
            db.close()
            return .unusable
        }
    }

    private enum Inspection { case fresh, usable, foreign, otherFormat(Int64) }

    /// What the file is, read without changing it.
    private static func inspect(_ db: SQLiteConnection) throws -> Inspection {
        // One read transaction, so the three answers are of one state of the file: read apart, a
        // process setting the file up in between made a half-made cache look like another
        // program's (application id not yet set, its tables already there).
        let own = db.isAutocommit
        if own { try db.execute("BEGIN") }
        defer { if own { try? db.execute("COMMIT") } }
        let app = try db.integer("PRAGMA application_id") ?? 0
        let format = try db.integer("PRAGMA user_version") ?? 0
        let objects = try db.integer("SELECT count(*) FROM sqlite_master") ?? 0
        if app == 0 && format == 0 && objects == 0 { return .fresh }
        guard app == applicationID else { return .foreign }
        guard format == formatVersion else { return .otherFormat(format) }
        return .usable
    }

    private static func describeOpenFailure(_ e: SQLiteError, path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        let dir = folder.isEmpty ? "." : folder
        var st = stat()
        if stat(dir, &st) != 0 { return "its folder \(PathBytes.quotedName(dir)) doesn't exist" }
        if access(dir, W_OK) != 0 { return "its folder \(PathBytes.quotedName(dir)) is read-only (SQLite needs to write beside the file)" }
        switch e.kind {
        case .busy: return "another process has held it locked for too long (\(e.message))"
        case .readOnly: return "it can't be written (\(e.message))"
        case .full: return "the disk is full"
        default: return e.message
        }
    }

    /// Renames an unusable cache file (and its WAL and shared-memory files) out of the way, so
    /// nothing in it is lost, and starts a new one in its place.
    private static func moveAside(_ path: String, before: FileStamp?, version: String, warn: @escaping (String) -> Void, why: String) -> ResultCache? {
        let name = PathBytes.quotedName(path)
        // Another process may already have replaced it: only the file that was judged moves.
        let now = FileStamp.of(path)
        if now == nil || now?.inode != before?.inode || now?.device != before?.device {
            return open(path: path, version: version, warn: warn, mayMoveAside: false)
        }
        let aside = asideName(path)
        guard rename(path, aside) == 0 else {
            warn("the cache \(name) \(why), and it can't be moved aside (\(String(cString: strerror(errno)))); running without it.")
            return nil
        }
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            _ = rename(path + suffix, aside + suffix)
        }
        warn("the cache \(name) \(why): moved it aside to \(PathBytes.quotedName(aside)) and started a new one.")
        return open(path: path, version: version, warn: warn, mayMoveAside: false)
    }

    // MARK: - Entries

    /// A stored result.
    public struct Hit {
        public var value: String
        /// The song's library id, when the entry recorded one.
        public var libraryID: String?
    }

    /// The entry for `path` under `kind` and `settings`, when it was computed from the file
    /// `stamp` describes by this version; nil otherwise.
    public func lookup(kind: String, settings: String, path: String, stamp: FileStamp) -> Hit? {
        lookupRow(kind: kind, settings: settings, path: path, stamp: stamp) { s, _ in
            guard let value = s.text(8) else { return nil }
            guard s.int64(7) == Self.checksum(value) else { throw Damaged() }
            return Hit(value: value, libraryID: s.isNull(9) ? nil : s.text(9))
        }
    }

    /// An entry stored as bytes, under the same rules as `lookup`, handed to `read` in place (a
    /// large value is read a piece at a time, never held whole); nil for a miss or when `read`
    /// gives nil. `read` must read the bytes in order, start to end: the checksum kept after them
    /// is checked as they go, and a value that doesn't match is a miss (its row dropped).
    public func readBytes<T>(kind: String, settings: String, path: String, stamp: FileStamp,
                             _ read: (CheckedBlob) throws -> T?) -> T? {
        lookupRow(kind: kind, settings: settings, path: path, stamp: stamp, statement: \.selectRowID) { s, db in
            guard s.int64(7) == Self.bytesChecksumMark else { throw Damaged() }
            let blob = try CheckedBlob(reading: try db.openBlob(table: "entries", column: "value", rowid: s.int64(6), writable: false))
            let value = try read(blob)
            guard blob.verified else { throw Damaged() }
            return value
        }
    }

    /// The checksum of a text value: XXH64 of its UTF-8 bytes.
    package static func checksum(_ value: String) -> Int64 {
        var v = value
        return v.withUTF8 { Int64(bitPattern: XXHash64.hash(UnsafeRawBufferPointer($0), seed: 0)) }
    }

    /// The `checksum` of a row whose value is bytes: theirs is kept after them, in the value.
    package static let bytesChecksumMark: Int64 = -1

    /// A value that doesn't match its checksum: a miss, and its row is dropped.
    package struct Damaged: Error {}

    /// A value kept as bytes, read or written in place in order, its checksum (XXH64, 8 bytes
    /// little-endian after the `count` bytes of the value) made or checked as it goes: so an
    /// hour's analysis is never held whole to be checked.
    public final class CheckedBlob {
        package let blob: SQLiteBlob
        /// The value's bytes, without the checksum after them.
        public let count: Int
        private var hash = XXHash64.Pair(seedA: 0, seedB: 0)
        /// Where the next read or write must start for the checksum to follow.
        private var next = 0
        private var inOrder = true

        package init(reading blob: SQLiteBlob) throws {
            guard blob.count >= 8 else { throw Damaged() }
            self.blob = blob
            count = blob.count - 8
        }

        package init(writing blob: SQLiteBlob) {
            self.blob = blob
            count = blob.count - 8
        }

        private func follow(_ p: UnsafeRawPointer, _ n: Int, at offset: Int) {
            guard inOrder, offset == next, offset + n <= count else { inOrder = false; return }
            hash.update(UnsafeRawBufferPointer(start: p, count: n))
            next += n
        }

        /// Reads `n` bytes of the value at `offset`.
        public func read(into buffer: UnsafeMutableRawPointer, count n: Int, at offset: Int) throws {
            guard offset + n <= count else { throw Damaged() }
            try blob.read(into: buffer, count: n, at: offset)
            follow(buffer, n, at: offset)
        }

        /// Writes `n` bytes of the value at `offset`.
        public func write(from buffer: UnsafeRawPointer, count n: Int, at offset: Int) throws {
            guard offset + n <= count else { throw Damaged() }
            try blob.write(from: buffer, count: n, at: offset)
            follow(buffer, n, at: offset)
        }

        /// Whether every byte was read in order and they match the checksum kept after them.
        package var verified: Bool {
            guard inOrder, next == count else { return false }
            var kept: UInt64 = 0
            guard (try? withUnsafeMutableBytes(of: &kept) { try blob.read(into: $0.baseAddress!, count: 8, at: count) }) != nil else {
                return false
            }
            return UInt64(littleEndian: kept) == hash.finish().0
        }

        /// Writes the checksum after the value; throws when the value wasn't written whole and in order.
        package func seal() throws {
            guard inOrder, next == count else { throw Damaged() }
            var sum = hash.finish().0.littleEndian
            try withUnsafeBytes(of: &sum) { try blob.write(from: $0.baseAddress!, count: 8, at: count) }
        }
    }

    /// Whether `lookup` would find an entry (its value left unread).
    public func contains(kind: String, settings: String, path: String, stamp: FileStamp) -> Bool {
        lookupRow(kind: kind, settings: settings, path: path, stamp: stamp, statement: \.selectRowID) { _, _ in true } ?? false
    }

    /// The row of `path` under `kind` and `settings` by `statement` (columns 0-7: device, inode,
    /// size, mtime, ctime, version, rowid, checksum), handed to `read` when it is of the file
    /// `stamp` describes and of this version. When `read` throws `Damaged`, the row is dropped.
    private func lookupRow<T>(kind: String, settings: String, path: String, stamp: FileStamp,
                              statement: KeyPath<Session, SQLiteStatement> = \.select,
                              read: (SQLiteStatement, SQLiteConnection) throws -> T?) -> T? {
        withSession { session in
            try session.beginReading()
            session.readsInTransaction += 1
            var damaged: Int64?
            let hit = try session[keyPath: statement].with([.text(path), .text(kind), .text(settings)]) { s -> T? in
                guard try s.step() else { return nil }
                let stored = FileStamp(device: UInt64(bitPattern: s.int64(0)), inode: UInt64(bitPattern: s.int64(1)),
                                       sizeBytes: UInt64(bitPattern: s.int64(2)), modifiedNanoseconds: s.int64(3),
                                       changedNanoseconds: s.int64(4))
                guard stored == stamp, s.text(5) == version else { return nil }
                do { return try read(s, session.db) } catch is Damaged { damaged = s.int64(6); return nil }
            }
            // A miss means work and then a write: the snapshot isn't kept over it.
            if hit == nil || session.readsInTransaction >= Session.readsPerTransaction { try session.endReading() }
            if let row = damaged { try session.drop.with([.integer(row)]) { _ = try $0.step() } }
            return hit
        } ?? nil
    }

    /// Stores (or replaces) the entry for `path`, computed from the file `stamp` describes. A file
    /// modified within the last two seconds is not stored: it may not have settled.
    public func store(kind: String, settings: String, path: String, stamp: FileStamp, libraryID: String?, value: String) {
        storeRow(kind: kind, settings: settings, path: path, stamp: stamp, libraryID: libraryID, value: .text(value))
    }

    /// `store` for `count` bytes that `fill` writes in place, a piece at a time: the entry and its
    /// bytes go in one transaction, so no reader ever sees it half written.
    /// `fill` writes the bytes in order, start to end (their checksum is made as they go).
    public func storeBytes(kind: String, settings: String, path: String, stamp: FileStamp, count: Int,
                           _ fill: (CheckedBlob) throws -> Void) {
        withoutActuallyEscaping(fill) { fill in
            storeRow(kind: kind, settings: settings, path: path, stamp: stamp, libraryID: nil, value: .zeroBlob(count + 8),
                     fill: { blob in
                         let checked = CheckedBlob(writing: blob)
                         try fill(checked)
                         try checked.seal()
                     })
        }
    }

    /// The row, with `fill` (when given) writing its value in place in the same transaction.
    /// Such a row's `written` is 0 (nothing reads it): SQLite keeps a zero-filled value unbuilt only
    /// when no column after it holds bytes, and 0 takes none, so an hour's analysis (29 MB) isn't
    /// built twice in memory before it is filled.
    private func storeRow(kind: String, settings: String, path: String, stamp: FileStamp, libraryID: String?, value: SQLiteValue,
                          fill: ((SQLiteBlob) throws -> Void)? = nil) {
        let now = Self.nowNanoseconds()
        guard stamp.modifiedNanoseconds < now - Self.settleNanoseconds else { return }
        let checksum: Int64
        switch value {
        case .text(let t): checksum = Self.checksum(t)
        default: checksum = Self.bytesChecksumMark
        }
        _ = withSession { session in
            try session.endReading()
            func insert() throws {
                try session.store.with([.text(path), .text(kind), .text(settings),
                            .integer(Int64(bitPattern: stamp.device)), .integer(Int64(bitPattern: stamp.inode)),
                            .integer(Int64(bitPattern: stamp.sizeBytes)), .integer(stamp.modifiedNanoseconds),
                            .integer(stamp.changedNanoseconds), .text(version), libraryID.map { .text($0) } ?? .null,
                            .integer(checksum), value,
                            .integer(fill == nil ? now / 1_000_000_000 : 0)]) { try $0.step() }
            }
            guard let fill else { return try insert() }
            try session.db.immediateTransaction {
                try insert()
                try fill(try session.db.openBlob(table: "entries", column: "value", rowid: session.db.lastInsertRowID, writable: true))
            }
        }
    }

    /// The paths of entries whose library id is `id`, with the stamps they were computed from.
    public func paths(libraryID id: String, kind: String, settings: String) -> [(path: String, stamp: FileStamp)] {
        withSession { session in
            try session.endReading()
            return try session.byID.with([.text(id), .text(kind), .text(settings), .text(version)]) { s in
                var found: [(String, FileStamp)] = []
                while try s.step() {
                    guard let p = s.text(0) else { continue }
                    found.append((p, FileStamp(device: UInt64(bitPattern: s.int64(1)), inode: UInt64(bitPattern: s.int64(2)),
                                               sizeBytes: UInt64(bitPattern: s.int64(3)), modifiedNanoseconds: s.int64(4),
                                               changedNanoseconds: s.int64(5))))
                }
                return found
            }
        } ?? []
    }

    /// What a prune did.
    public struct PruneResult: Equatable {
        public var removed: Int
        public var kept: Int
    }

    /// Removes the entries that can never be used again: for files that are gone or have changed
    /// since, and those written by another version. Relative paths are judged from the current folder.
    public func prune() -> PruneResult? {
        withSession { session in
            try session.endReading()
            let db = session.db
            var doomed: [Int64] = []
            var total = 0
            let s = try db.prepare("SELECT rowid, path, device, inode, size, mtime_ns, ctime_ns, version FROM entries")
            while try s.step() {
                total += 1
                let stored = FileStamp(device: UInt64(bitPattern: s.int64(2)), inode: UInt64(bitPattern: s.int64(3)),
                                       sizeBytes: UInt64(bitPattern: s.int64(4)), modifiedNanoseconds: s.int64(5),
                                       changedNanoseconds: s.int64(6))
                if s.text(7) != version || s.text(1).flatMap(FileStamp.of) != stored { doomed.append(s.int64(0)) }
            }
            if !doomed.isEmpty {
                try db.immediateTransaction {
                    let d = try db.prepare("DELETE FROM entries WHERE rowid = ?1")
                    for id in doomed { try d.with([.integer(id)]) { try $0.step() } }
                }
            }
            return PruneResult(removed: doomed.count, kept: total - doomed.count)
        }
    }

    /// Closes the connection (SQLite folds the WAL back into the file when it is the last one).
    public func close() {
        lock.lock(); defer { lock.unlock() }
        for s in idle { try? s.endReading(); s.db.close() }
        idle = []
        stopped = true
    }

    /// An error during the run ends the cache's use for the rest of it, said once: a lock another
    /// process held past the busy timeout (waiting again for every file could take hours), or
    /// anything worse; a damaged file is also moved aside for the next run. Called with the lock held.
    private func failed(_ e: SQLiteError) {
        let name = PathBytes.quotedName(path)
        if stopped { return }
        stopped = true
        for s in idle { s.db.close() }
        idle = []
        if e.kind == .damaged {
            let aside = Self.asideName(path)
            if rename(path, aside) == 0 {
                for suffix in ["-wal", "-shm"] { _ = rename(path + suffix, aside + suffix) }
                warn("the cache \(name) is damaged (\(e.message)): moved it aside to \(PathBytes.quotedName(aside)); the rest of this run goes without it.")
                return
            }
        }
        if e.kind == .busy {
            warn("the cache \(name) was locked by another process for more than 15 s (\(e.message)); the rest of this run goes without it.")
            return
        }
        warn("the cache \(name) stopped working (\(e.message)); the rest of this run goes without it.")
    }

    /// `FILE.unusable-20260131T120000Z` (with `-2`, `-3`... when taken): where a bad file goes.
    package static func asideName(_ path: String) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let base = "\(path).unusable-\(f.string(from: Date()))"
        var aside = base
        var n = 1
        while FileManager.default.fileExists(atPath: aside) { n += 1; aside = "\(base)-\(n)" }
        return aside
    }

    package static func nowNanoseconds() -> Int64 { Clock.realtimeNanoseconds() }
}
