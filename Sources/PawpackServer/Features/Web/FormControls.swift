import Plot

/// The design system's choice controls: chips for several choices, a toggle for yes or no, a
/// select for one of many. Native inputs underneath, so they work without JavaScript and with
/// any assistive technology.
enum FormControls {
    /// Checkbox chips; the values are sent as `name[]`.
    static func chips(
        _ legend: String, name: String, options: [(value: String, title: String)], selected: Set<String>,
        hint: String? = nil
    ) -> Node<HTML.FormContext> {
        .fieldset(
            .id("\(name)-choices"),
            .element(named: "legend", nodes: [.text(legend)]),
            .div(
                .class("chips"),
                .forEach(options) { option in
                    .label(
                        .class("chip-choice"),
                        .input(
                            .type(.checkbox), .name("\(name)[]"), .value(option.value), .id("\(name)-\(option.value)"),
                            .checked(selected.contains(option.value))),
                        .span(.text(option.title)))
                }),
            .unwrap(hint) { .small(.class("hint"), .text($0)) }
        )
    }

    /// A switch for a yes-or-no field, sent as `on` when on.
    static func toggle(_ label: String, name: String, checked: Bool, hint: String? = nil) -> Node<HTML.FormContext> {
        .div(
            .class("field"),
            .label(
                .class("toggle"), .for(name), .span(.text(label)),
                .input(
                    .type(.checkbox), .name(name), .id(name), .value("on"), .checked(checked),
                    .attribute(named: "role", value: "switch"),
                    .attribute(named: "aria-describedby", value: hint == nil ? nil : "\(name)-hint"))),
            .unwrap(hint) { .small(.class("hint"), .id("\(name)-hint"), .text($0)) }
        )
    }

    /// Text of several lines, with its limit and, after a failed submit, its error beside it.
    static func textarea(
        _ label: String, name: String, id: String, value: String?, maxLength: Int, rows: Int = 3,
        errors: FormErrors = []
    ) -> Node<HTML.FormContext> {
        let error = errors.claim(field: name, id: id, label: label)
        return .div(
            .class("field"),
            .label(.for(id), .text(label)),
            .textarea(
                .name(name), .id(id), .rows(rows), .attribute(named: "maxlength", value: String(maxLength)),
                .attribute(named: "aria-invalid", value: error == nil ? nil : "true"),
                .attribute(named: "aria-describedby", value: error == nil ? nil : "\(id)-error"),
                .text(value ?? "")),
            .unwrap(error) { .p(.id("\(id)-error"), .class("field-error"), .text($0)) }
        )
    }

    static func select(
        _ label: String, name: String, options: [(value: String, title: String)], selected: String,
        hint: String? = nil, errors: FormErrors = []
    ) -> Node<HTML.FormContext> {
        let error = errors.claim(field: name, id: name, label: label)
        return .div(
            .class("field"),
            .label(.for(name), .text(label)),
            .element(
                named: "select",
                nodes: [
                    .attribute(named: "name", value: name), .attribute(named: "id", value: name),
                    .attribute(named: "aria-invalid", value: error == nil ? nil : "true"),
                    .attribute(named: "aria-describedby", value: error == nil ? (hint == nil ? nil : "\(name)-hint") : "\(name)-error"),
                    .forEach(options) { option in
                        .element(
                            named: "option",
                            nodes: [
                                .attribute(named: "value", value: option.value, ignoreIfValueIsEmpty: false),
                                .if(option.value == selected, .attribute(named: "selected", value: "selected")),
                                .text(option.title),
                            ])
                    },
                ]),
            .unwrap(hint) { .small(.id("\(name)-hint"), .class("hint"), .text($0)) },
            .unwrap(error) { .p(.id("\(name)-error"), .class("field-error"), .text($0)) }
        )
    }
}
