import Plot

/// Pawpack's icons: inline SVG on a 24-unit grid drawn with the current text colour, so they
/// follow the theme and need no request of their own. Decorative: the text beside an icon (or
/// the button's `aria-label`) names it.
enum Icon: String, CaseIterable {
    case paw, dog, cat, person, heart, cross, undo, sliders, pin, camera, check, chat, back, sparkle, shield, bell, calendar, star, home, bowl

    /// The drawing inside the `<svg>`: fixed markup, never built from input.
    private var drawing: String {
        switch self {
        case .paw:
            return """
                <ellipse cx="12" cy="16.2" rx="4.6" ry="3.8"/><ellipse cx="5.4" cy="10.6" rx="2.1" ry="2.6"/>\
                <ellipse cx="18.6" cy="10.6" rx="2.1" ry="2.6"/><ellipse cx="9.1" cy="6.2" rx="2.1" ry="2.7"/>\
                <ellipse cx="14.9" cy="6.2" rx="2.1" ry="2.7"/>
                """
        case .dog:
            return """
                <path d="M7 4.5 3.5 6.8l1.3 5.2 2.3-1.1M17 4.5l3.5 2.3-1.3 5.2-2.3-1.1" fill="none" stroke="currentColor" \
                stroke-width="1.8" stroke-linejoin="round"/><path d="M7.2 6.5h9.6l.9 5.6c.6 3.9-2.1 7.4-5.7 7.4s-6.3-3.5-5.7-7.4z" \
                fill="none" stroke="currentColor" stroke-width="1.8"/><circle cx="9.8" cy="11" r="1"/><circle cx="14.2" cy="11" r="1"/>\
                <path d="M10.6 14.4h2.8L12 16z"/>
                """
        case .person:
            return """
                <circle cx="12" cy="8" r="4" fill="none" stroke="currentColor" stroke-width="1.8"/>\
                <path d="M4.5 20c.8-4 3.8-6 7.5-6s6.7 2 7.5 6" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round"/>
                """
        case .cat:
            return """
                <path d="M5 3.8 8.6 8h6.8L19 3.8l.9 8.3c.4 4.3-3.3 7.9-7.9 7.9s-8.3-3.6-7.9-7.9z" fill="none" stroke="currentColor" \
                stroke-width="1.8" stroke-linejoin="round"/><ellipse cx="9.6" cy="12" rx="1" ry="1.3"/><ellipse cx="14.4" cy="12" rx="1" ry="1.3"/>\
                <path d="M10.9 14.8h2.2L12 16z"/>
                """
        case .bowl:
            return """
                <path d="M7 11c.7-2.4 2.7-4 5-4s4.3 1.6 5 4" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round"/>\
                <path d="M2.8 11.2h18.4c-.3 4.3-3.8 7.6-8.1 7.6h-2.2c-4.3 0-7.8-3.3-8.1-7.6z"/>
                """
        case .heart:
            return """
                <path d="M12 20.3S3.5 15.2 3.5 9.1A4.6 4.6 0 0 1 12 6.6a4.6 4.6 0 0 1 8.5 2.5c0 6.1-8.5 11.2-8.5 11.2z"/>
                """
        case .cross:
            return """
                <path d="M6 6l12 12M18 6 6 18" fill="none" stroke="currentColor" stroke-width="2.6" stroke-linecap="round"/>
                """
        case .undo:
            return """
                <path d="M9 7 4.5 11.5 9 16" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"/>\
                <path d="M5 11.5h9a5 5 0 0 1 0 10h-2" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>
                """
        case .sliders:
            return """
                <path d="M4 7h9m4 0h3M4 17h3m4 0h9" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round"/>\
                <circle cx="15" cy="7" r="2.2" fill="none" stroke="currentColor" stroke-width="1.8"/>\
                <circle cx="9" cy="17" r="2.2" fill="none" stroke="currentColor" stroke-width="1.8"/>
                """
        case .pin:
            return """
                <path d="M12 21s-6.5-6.1-6.5-11.2a6.5 6.5 0 0 1 13 0C18.5 14.9 12 21 12 21z" fill="none" stroke="currentColor" stroke-width="1.8"/>\
                <circle cx="12" cy="9.8" r="2.3"/>
                """
        case .camera:
            return """
                <path d="M4 8.5h3.2L8.8 6h6.4l1.6 2.5H20V19H4z" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linejoin="round"/>\
                <circle cx="12" cy="13" r="3.3" fill="none" stroke="currentColor" stroke-width="1.8"/>
                """
        case .check:
            return """
                <path d="M5 12.5 10 17.5 19.5 7" fill="none" stroke="currentColor" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round"/>
                """
        case .chat:
            return """
                <path d="M4.5 5.5h15v10h-8l-4.5 4v-4H4.5z" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linejoin="round"/>
                """
        case .back:
            return """
                <path d="M14.5 5.5 8 12l6.5 6.5" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round"/>
                """
        case .sparkle:
            return """
                <path d="M12 2.5l2.2 6.6 6.8 2.4-6.8 2.4L12 20.5l-2.2-6.6-6.8-2.4 6.8-2.4z"/>
                """
        case .bell:
            return """
                <path d="M6 16.5V11a6 6 0 0 1 12 0v5.5l1.5 2h-15z" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linejoin="round"/>\
                <path d="M10 20.5a2.2 2.2 0 0 0 4 0" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round"/>
                """
        case .calendar:
            return """
                <rect x="4" y="5.5" width="16" height="14.5" rx="2.5" fill="none" stroke="currentColor" stroke-width="1.8"/>\
                <path d="M4 10h16M8.5 3.5v4M15.5 3.5v4" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round"/>
                """
        case .star:
            return """
                <path d="m12 3.2 2.7 5.6 6.1.8-4.5 4.2 1.1 6.1L12 17l-5.4 2.9 1.1-6.1-4.5-4.2 6.1-.8z"/>
                """
        case .home:
            return """
                <path d="M4 10.5 12 4l8 6.5V19a1.5 1.5 0 0 1-1.5 1.5H15v-5.5H9v5.5H5.5A1.5 1.5 0 0 1 4 19z" fill="none" \
                stroke="currentColor" stroke-width="1.8" stroke-linejoin="round"/>
                """
        case .shield:
            return """
                <path d="M12 3 5 5.8v5.6c0 4.4 3 8 7 9.6 4-1.6 7-5.2 7-9.6V5.8z" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linejoin="round"/>\
                <path d="m9 12 2.2 2.2L15.5 10" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round"/>
                """
        }
    }

    var svg: String {
        "<svg class=\"icon icon-\(rawValue)\" viewBox=\"0 0 24 24\" width=\"24\" height=\"24\" fill=\"currentColor\" aria-hidden=\"true\" focusable=\"false\">\(drawing)</svg>"
    }

    /// The icon as a node of any body context.
    func node<Context>() -> Node<Context> { .raw(svg) }
}
