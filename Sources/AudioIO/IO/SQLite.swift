import CSQLite
import Foundation

/// Why an SQLite call failed, in the few kinds a caller decides on; `message` is SQLite's own text.
public struct SQLiteError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Another process held the lock for longer than the busy timeout.
        case busy
        /// The file is not a database, or its pages are damaged.
        case damaged
        /// The file or its folder can't be written (or created).
        case readOnly
        /// The file can't be opened at all.
        case cantOpen
        /// The disk is full.
        case full
        case other
    }

    public var kind: Kind
    /// The extended SQLite result code.
    public var code: Int32
    public var message: String

    public var description: String { message }

    package init(code: Int32, message: String) {
        self.code = code
        self.message = message
        switch code & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED: kind = .busy
        case SQLITE_CORRUPT, SQLITE_NOTADB: kind = .damaged
        case SQLITE_READONLY, SQLITE_PERM: kind = .readOnly
        case SQLITE_CANTOPEN: kind = .cantOpen
        case SQLITE_FULL: kind = .full
        default: kind = .other
        }
    }
}

/// One connection to an SQLite database file: a thin typed layer over the C API, closed when the
/// value goes away. Not thread-safe: the owner serialises calls (the cache holds a lock).
public final class SQLiteConnection {
    private var db: OpaquePointer?

    /// Opens (creating when `create`) the database at `path`, with a busy timeout so that
    /// concurrent writers wait for each other instead of failing.
    public init(path: String, create: Bool = true, busyTimeoutMilliseconds: Int32 = 15_000) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            if let handle { sqlite3_close_v2(handle) }
            throw SQLiteError(code: rc, message: message)
        }
        db = handle
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
    }

    /// Sets how long a statement waits for another process's lock.
    public func setBusyTimeout(milliseconds: Int32) {
        if let db { sqlite3_busy_timeout(db, milliseconds) }
    }

    deinit { close() }

    /// Closes the connection now (statements still open are finalised by SQLite's v2 close).
    public func close() {
        if let db { sqlite3_close_v2(db) }
        db = nil
    }

    /// Whether SQLite opened the file read-only (it does so silently when the file is write-protected).
    public var isReadOnly: Bool { db.map { sqlite3_db_readonly($0, "main") == 1 } ?? true }
    /// Whether no transaction is open (each statement is its own).
    public var isAutocommit: Bool { db.map { sqlite3_get_autocommit($0) != 0 } ?? true }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws {
        let rc = sqlite3_exec(db, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw lastError(rc) }
    }

    /// A prepared statement, reusable with `reset`; finalised when the value goes away.
    public func prepare(_ sql: String) throws -> SQLiteStatement {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(db, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw lastError(rc) }
        return SQLiteStatement(stmt, connection: self)
    }

    /// The first column of the first row of a query, as an integer (nil when there is no row).
    public func integer(_ sql: String) throws -> Int64? {
        let s = try prepare(sql)
        return try s.step() ? s.int64(0) : nil
    }

    /// Runs `body` inside `BEGIN IMMEDIATE ... COMMIT` (the write lock is taken at the start, so
    /// two writers wait on the busy timeout instead of failing mid-transaction); rolls back when
    /// `body` throws.
    public func immediateTransaction<R>(_ body: () throws -> R) throws -> R {
        try execute("BEGIN IMMEDIATE")
        do {
            let r = try body()
            try execute("COMMIT")
            return r
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(db)) }

    /// The rowid of the last row inserted on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(db) }

    /// The value in `column` of row `rowid` of `table`, opened in place: read (or written) a
    /// piece at a time, never held whole. Valid until the row changes or the handle goes away.
    public func openBlob(table: String, column: String, rowid: Int64, writable: Bool) throws -> SQLiteBlob {
        var handle: OpaquePointer?
        let rc = sqlite3_blob_open(db, "main", table, column, rowid, writable ? 1 : 0, &handle)
        guard rc == SQLITE_OK, let handle else {
            if let handle { sqlite3_blob_close(handle) }
            throw lastError(rc)
        }
        return SQLiteBlob(handle, connection: self)
    }

    package func lastError(_ rc: Int32) -> SQLiteError {
        let code = db.map { sqlite3_extended_errcode($0) } ?? rc
        let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
        return SQLiteError(code: code == SQLITE_OK ? rc : code, message: message)
    }
}

/// A prepared statement. Parameters are numbered from 1, columns from 0, as in SQLite.
public final class SQLiteStatement {
    private var stmt: OpaquePointer?
    private let connection: SQLiteConnection

    package init(_ stmt: OpaquePointer, connection: SQLiteConnection) {
        self.stmt = stmt
        self.connection = connection
    }

    deinit { sqlite3_finalize(stmt) }

    /// SQLite copies bound text at once (SQLITE_TRANSIENT).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    public func bind(_ index: Int32, _ value: Int64) throws {
        try check(sqlite3_bind_int64(stmt, index, value))
    }

    public func bind(_ index: Int32, _ value: String?) throws {
        guard let value else { try check(sqlite3_bind_null(stmt, index)); return }
        // Swift passes the string as NUL-terminated UTF-8; paths and JSON text hold no NUL bytes.
        try check(sqlite3_bind_text(stmt, index, value, -1, Self.transient))
    }

    /// Binds each value in order from parameter 1.
    public func bind(_ values: [SQLiteValue]) throws {
        for (i, v) in values.enumerated() {
            switch v {
            case .integer(let n): try bind(Int32(i + 1), n)
            case .text(let s): try bind(Int32(i + 1), s)
            case .null: try bind(Int32(i + 1), nil as String?)
            case .zeroBlob(let n): try check(sqlite3_bind_zeroblob64(stmt, Int32(i + 1), sqlite3_uint64(n)))
            }
        }
    }

    /// Advances: true when a row is ready to read, false when the statement is done.
    @discardableResult
    public func step() throws -> Bool {
        let rc = sqlite3_step(stmt)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw connection.lastError(rc)
    }

    /// Makes the statement ready to run again, with its bindings cleared.
    public func reset() {
        sqlite3_reset(stmt)
        sqlite3_clear_bindings(stmt)
    }

    /// Resets, binds, runs `body` and resets again whatever happens: the scoped use of a reused statement.
    @discardableResult
    public func with<R>(_ values: [SQLiteValue], _ body: (SQLiteStatement) throws -> R) throws -> R {
        reset()
        defer { reset() }
        try bind(values)
        return try body(self)
    }

    public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(stmt, column) }

    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(stmt, column) == SQLITE_NULL }

    public func text(_ column: Int32) -> String? {
        guard let p = sqlite3_column_text(stmt, column) else { return nil }
        let n = Int(sqlite3_column_bytes(stmt, column))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    private func check(_ rc: Int32) throws {
        guard rc == SQLITE_OK else { throw connection.lastError(rc) }
    }
}

/// A blob opened in place (`SQLiteConnection.openBlob`), closed when the value goes away.
public final class SQLiteBlob {
    private let handle: OpaquePointer
    private let connection: SQLiteConnection
    /// Its length in bytes.
    public let count: Int

    package init(_ handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
        count = Int(sqlite3_blob_bytes(handle))
    }

    deinit { sqlite3_blob_close(handle) }

    /// Bytes `offset ..< offset + n` into `buffer`.
    public func read(into buffer: UnsafeMutableRawPointer, count n: Int, at offset: Int) throws {
        let rc = sqlite3_blob_read(handle, buffer, Int32(n), Int32(offset))
        guard rc == SQLITE_OK else { throw connection.lastError(rc) }
    }

    /// `n` bytes from `buffer` over bytes `offset ..< offset + n` (the length never changes).
    public func write(from buffer: UnsafeRawPointer, count n: Int, at offset: Int) throws {
        let rc = sqlite3_blob_write(handle, buffer, Int32(n), Int32(offset))
        guard rc == SQLITE_OK else { throw connection.lastError(rc) }
    }
}

/// A value bound to a statement parameter.
public enum SQLiteValue: Sendable, Equatable {
    case integer(Int64)
    case text(String)
    /// A blob of this many zero bytes, to be written in place afterwards (`openBlob`).
    case zeroBlob(Int)
    case null
}
