import Fluent
import PawpackCore

extension QueryBuilder {
    /// A list kept newest activity first, ties broken by id (both descending), starting after
    /// `cursor` when one is given: chats, notifications and reviews page this way.
    func newestFirst<Subject>(
        after cursor: ActivityCursor<Subject>?,
        activity: KeyPath<Model, FieldProperty<Model, Int64>>
    ) -> Self
    where Model.IDValue == Identifier<Subject> {
        if let cursor {
            group(.or) { group in
                group.filter(activity < cursor.activity)
                group.group(.and) { $0.filter(activity == cursor.activity).filter(\._$id < cursor.id) }
            }
        }
        return sort(activity, .descending).sort(\._$id, .descending)
    }
}

extension QueryBuilder {
    /// `limit` rows of a list kept newest activity first, after `cursor`, and where the next
    /// page starts (nil on the last).
    func newestPage<Subject>(
        limit: Int, after cursor: ActivityCursor<Subject>?,
        activity: KeyPath<Model, FieldProperty<Model, Int64>>
    ) async throws -> (rows: [Model], next: ActivityCursor<Subject>?)
    where Model.IDValue == Identifier<Subject> {
        let rows = try await newestFirst(after: cursor, activity: activity).limit(limit + 1).all()
        let page = Array(rows.prefix(limit))
        guard rows.count > limit, let last = page.last else { return (page, nil) }
        return (page, ActivityCursor(activity: last[keyPath: activity].wrappedValue, id: try last.requireID()))
    }
}
