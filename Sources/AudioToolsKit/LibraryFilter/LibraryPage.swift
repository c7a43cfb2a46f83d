import JSONValue
import ToolRunner

/// A window onto a sorted listing: skip `offset` items, then return at most `limit` (all when nil).
public struct LibraryPage: Equatable, Sendable {
    public var offset: Int
    public var limit: Int?

    /// Negative values are treated as 0; `validated` refuses them instead.
    public init(offset: Int = 0, limit: Int? = nil) {
        self.offset = max(0, offset)
        self.limit = limit.map { max(0, $0) }
    }

    /// A page from user-given numbers, refusing negative ones with a bad-input error.
    public static func validated(offset: Int, limit: Int?) throws -> LibraryPage {
        if offset < 0 {
            throw ToolError(.badInput, "--offset is \(offset), but it counts items to skip and can't be negative.",
                            suggestion: "Give --offset 0 or more.")
        }
        if let limit, limit < 0 {
            throw ToolError(.badInput, "--limit is \(limit), but it counts items to return and can't be negative.",
                            suggestion: "Give --limit 0 or more, or leave it out to return everything.")
        }
        return LibraryPage(offset: offset, limit: limit)
    }

    /// What a page returned and where the next one starts.
    public struct Info: Equatable, Sendable {
        public var offset: Int
        public var limit: Int?
        /// Items in this page.
        public var returned: Int
        /// Items in the whole listing.
        public var total: Int
        /// Whether items remain after this page.
        public var hasMore: Bool
        /// The offset that continues the listing, nil when nothing remains. With `limit` 0 this is
        /// the page's own offset: the page only counted.
        public var nextOffset: Int?

        /// `{"offset","limit","returned","total","has_more","next_offset"}`, nulls for no limit
        /// and no next page.
        public var json: JSON {
            .object([
                "offset": .int(offset), "limit": limit.map { .int($0) } ?? .null,
                "returned": .int(returned), "total": .int(total), "has_more": .bool(hasMore),
                "next_offset": nextOffset.map { .int($0) } ?? .null,
            ])
        }
    }

    /// This page's slice of `items` plus its paging info.
    public func apply<Element>(to items: [Element]) -> (items: [Element], info: Info) {
        let start = min(offset, items.count)
        let end = limit.map { min(items.count, start + min($0, items.count)) } ?? items.count
        let page = Array(items[start..<end])
        return (page, info(total: items.count, returned: page.count))
    }

    /// Paging info for a listing of `total` items without building the slice.
    public func info(total: Int) -> Info {
        let start = min(offset, total)
        let returned = limit.map { min($0, total - start) } ?? (total - start)
        return info(total: total, returned: returned)
    }

    private func info(total: Int, returned: Int) -> Info {
        let next = offset + returned
        let hasMore = next < total
        return Info(offset: offset, limit: limit, returned: returned, total: total,
                    hasMore: hasMore, nextOffset: hasMore ? next : nil)
    }
}
