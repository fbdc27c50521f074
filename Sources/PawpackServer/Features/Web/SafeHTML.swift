import Plot

/// Every value a page writes into HTML is escaped here, at one place.
///
/// Plot escapes text but writes attribute values exactly as given, so a pet named
/// `"><base href=//evil.example/>` would close an `alt` or `value` attribute and add a tag to every
/// page that shows it. Plot's text escaping also keeps anything that looks like an entity, so a
/// name typed as `&lt;` would show as `<`. The builders below have the signatures of Plot's own; a
/// module's own declaration wins over an imported one with the same signature, so within
/// PawpackServer `.value(name)`, `.alt(name)` or `.text(name)` is the escaping one, and no page
/// can reach an unescaped one by accident. `SafeHTMLTests` checks the escaping itself, and
/// `EscapedPagesTests` renders every page with hostile text in every field.
enum HTMLEscaping {
    /// The string with every character that could end a quoted attribute, open a tag or start an
    /// entity replaced by its entity: safe in text and in double- or single-quoted attributes.
    static func escape(_ string: String) -> String {
        guard string.contains(where: { "&<>\"'".contains($0) }) else { return string }
        var escaped = ""
        escaped.reserveCapacity(string.utf8.count + 16)
        for character in string {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}

extension Attribute {
    /// The one way an attribute is made in Pawpack's pages: its value escaped.
    static func escaped(_ name: String, _ value: String?, ignoreIfValueIsEmpty: Bool = true) -> Attribute {
        Attribute(name: name, value: value.map(HTMLEscaping.escape), ignoreIfValueIsEmpty: ignoreIfValueIsEmpty)
    }

    static func attribute(named name: String, value: String?) -> Attribute { .escaped(name, value) }
}

extension Node {
    static func text(_ text: String) -> Node { .raw(HTMLEscaping.escape(text)) }

    static func attribute(named name: String, value: String?, ignoreIfValueIsEmpty: Bool = true) -> Node {
        .attribute(.escaped(name, value, ignoreIfValueIsEmpty: ignoreIfValueIsEmpty))
    }
}

extension Node where Context == HTML.HeadContext {
    /// The page's title alone: Plot's own also writes it, unescaped, into social-sharing `meta`
    /// tags, which signed-in pages have no use for.
    static func title(_ title: String) -> Node { .element(named: "title", nodes: [.text(title)]) }
}

// MARK: Plot's attribute builders that take text, escaping

extension Attribute where Context: HTMLContext {
    static func id(_ id: String) -> Attribute { .escaped("id", id) }
    static func `class`(_ className: String) -> Attribute { .escaped("class", className) }
    static func data(named name: String, value: String) -> Attribute { .escaped("data-" + name, value) }
    static func title(_ title: String) -> Attribute { .escaped("title", title) }
}

extension Node where Context: HTMLContext {
    static func id(_ id: String) -> Node { .attribute(.escaped("id", id)) }
    static func `class`(_ className: String) -> Node { .attribute(.escaped("class", className)) }
    static func data(named name: String, value: String) -> Node { .attribute(.escaped("data-" + name, value)) }
    static func title(_ title: String) -> Node { .attribute(.escaped("title", title)) }
}

extension Attribute where Context: HTMLNamableContext {
    static func name(_ name: String) -> Attribute { .escaped("name", name) }
}

extension Node where Context: HTMLNamableContext {
    static func name(_ name: String) -> Node { .attribute(.escaped("name", name)) }
}

extension Attribute where Context: HTMLValueContext {
    static func value(_ value: String) -> Attribute { .escaped("value", value) }
}

extension Node where Context: HTMLValueContext {
    static func value(_ value: String) -> Node { .attribute(.escaped("value", value)) }
}

extension Attribute where Context: HTMLLinkableContext {
    static func href(_ url: URLRepresentable) -> Attribute { .escaped("href", url.description) }
}

extension Node where Context: HTMLLinkableContext {
    static func href(_ url: URLRepresentable) -> Node { .attribute(.escaped("href", url.description)) }
}

extension Attribute where Context: HTMLSourceContext {
    static func src(_ url: URLRepresentable) -> Attribute { .escaped("src", url.description) }
}

extension Node where Context: HTMLSourceContext {
    static func src(_ url: URLRepresentable) -> Node { .attribute(.escaped("src", url.description)) }
}

extension Node where Context == HTML.FormContext {
    static func action(_ url: URLRepresentable) -> Node { .attribute(.escaped("action", url.description)) }
}

extension Node where Context == HTML.LabelContext {
    static func `for`(_ target: String) -> Node { .attribute(.escaped("for", target)) }
}

extension Attribute where Context == HTML.InputContext {
    static func placeholder(_ placeholder: String) -> Attribute { .escaped("placeholder", placeholder) }
}

extension Node where Context == HTML.TextAreaContext {
    static func placeholder(_ placeholder: String) -> Node { .attribute(.escaped("placeholder", placeholder)) }
}

extension Attribute where Context == HTML.OptionContext {
    static func label(_ label: String) -> Attribute { .escaped("label", label) }
}

extension Attribute where Context == HTML.MetaContext {
    static func content(_ content: String) -> Attribute { .escaped("content", content) }
}

extension Attribute where Context == HTML.ImageContext {
    static func alt(_ text: String) -> Attribute { .escaped("alt", text) }
}

extension Node where Context: HTML.BodyContext {
    static func ariaLabel(_ label: String) -> Node { .attribute(.escaped("aria-label", label)) }
}

extension Node where Context == HTML.TimeContext {
    static func datetime(_ datetime: String) -> Node { .attribute(.escaped("datetime", datetime)) }
}
