import Fluent

/// Rows between two members (a block, a match, a request, a chat) keep them in two columns,
/// in either order: these read such rows the same way everywhere.
extension QueryBuilder {
    /// Rows whose two columns hold these two values, either way round.
    func between<Field: QueryableProperty>(
        _ first: KeyPath<Model, Field>, _ second: KeyPath<Model, Field>, _ one: Field.Value, _ other: Field.Value
    ) -> Self where Field.Model == Model {
        group(.or) { group in
            group.group(.and) { $0.filter(first == one).filter(second == other) }
            group.group(.and) { $0.filter(first == other).filter(second == one) }
        }
    }

    /// Rows where either column holds this value.
    func involving<Field: QueryableProperty>(
        _ first: KeyPath<Model, Field>, _ second: KeyPath<Model, Field>, _ value: Field.Value
    ) -> Self where Field.Model == Model {
        group(.or) { $0.filter(first == value).filter(second == value) }
    }
}
