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
