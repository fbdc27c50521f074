import Foundation

/// The design tokens of the web app: colours for the light and the dark theme, spacing, radii
/// and the type scale. The stylesheet uses them through CSS custom properties only, so a page
/// never names a colour of its own; `contrastPairs` lists every foreground a page draws on a
/// background, and `DesignTokensTests` checks each meets WCAG AA in both themes.
enum DesignTokens {
    /// A colour token: its name (`--name` in CSS) and its value in each theme, as `#rrggbb`.
    struct Colour {
        let name: String
        let light: String
        let dark: String
    }

    static let colours: [Colour] = [
        .init(name: "bg", light: "#faf7f2", dark: "#121418"),
        .init(name: "surface", light: "#ffffff", dark: "#1c1f26"),
        .init(name: "surface-2", light: "#f2ede5", dark: "#272b34"),
        .init(name: "text", light: "#1d2330", dark: "#eceef2"),
        .init(name: "text-muted", light: "#545a67", dark: "#a9afbb"),
        .init(name: "border", light: "#ddd5c8", dark: "#363b46"),
        // Controls' outlines must stand out from what they sit on (WCAG 1.4.11, 3:1).
        .init(name: "control-border", light: "#8a8275", dark: "#7d8494"),
        .init(name: "accent", light: "#a8400c", dark: "#f4935a"),
        .init(name: "on-accent", light: "#ffffff", dark: "#1a0d04"),
        .init(name: "accent-soft", light: "#f8e7db", dark: "#3a2618"),
        .init(name: "on-accent-soft", light: "#6e2a06", dark: "#ffd4b8"),
        .init(name: "link", light: "#1f4fd1", dark: "#93b6ff"),
        .init(name: "danger", light: "#b42318", dark: "#ff8b7f"),
        .init(name: "on-danger", light: "#ffffff", dark: "#2b0603"),
        .init(name: "like", light: "#0f7a46", dark: "#5fd49a"),
        .init(name: "on-like", light: "#ffffff", dark: "#05210f"),
        .init(name: "success-bg", light: "#e1f3e7", dark: "#16301f"),
        .init(name: "success-text", light: "#1b5a2e", dark: "#a8e4bb"),
        .init(name: "error-bg", light: "#fdecea", dark: "#3b1613"),
        .init(name: "error-text", light: "#8a1c12", dark: "#ffb8ae"),
        .init(name: "puppy-bg", light: "#fff1c9", dark: "#3a2d0a"),
        .init(name: "puppy-text", light: "#5f3d00", dark: "#ffe08a"),
        .init(name: "social-bg", light: "#dcf2e3", dark: "#173524"),
        .init(name: "social-text", light: "#1b5a2e", dark: "#a8e4bb"),
        .init(name: "focus", light: "#b45309", dark: "#fbbf24"),
        .init(name: "badge", light: "#c81e1e", dark: "#ff6b6b"),
        .init(name: "on-badge", light: "#ffffff", dark: "#1f0303"),
        // Rating stars: a warm gold that still stands out from a card (3:1).
        .init(name: "star", light: "#a86a00", dark: "#ffc94d"),
        // Text over a photo sits on a dark scrim whatever the theme.
        .init(name: "on-photo", light: "#ffffff", dark: "#ffffff"),
        .init(name: "photo-scrim", light: "#2b2b2b", dark: "#2b2b2b"),
    ]

    /// How a foreground is used on a background: text needs 4.5:1, large text and the
    /// outlines of controls 3:1 (WCAG 2.2, 1.4.3 and 1.4.11).
    enum Use { case text, nonText }

    static let contrastPairs: [(foreground: String, background: String, use: Use)] = [
        ("text", "bg", .text), ("text", "surface", .text), ("text", "surface-2", .text),
        ("text-muted", "bg", .text), ("text-muted", "surface", .text), ("text-muted", "surface-2", .text),
        ("link", "bg", .text), ("link", "surface", .text),
        ("accent", "bg", .text), ("accent", "surface", .text),
        ("on-accent", "accent", .text), ("on-accent-soft", "accent-soft", .text),
        ("on-danger", "danger", .text), ("danger", "surface", .text),
        ("on-like", "like", .text), ("like", "surface", .nonText), ("star", "surface", .nonText), ("star", "bg", .nonText),
        ("success-text", "success-bg", .text), ("error-text", "error-bg", .text),
        ("puppy-text", "puppy-bg", .text), ("social-text", "social-bg", .text),
        ("on-badge", "badge", .text), ("on-photo", "photo-scrim", .text),
        ("control-border", "surface", .nonText), ("control-border", "bg", .nonText),
        ("focus", "bg", .nonText), ("focus", "surface", .nonText),
    ]

    /// Spacing, radii and the type scale: the same in both themes.
    static let scales: [(name: String, value: String)] = [
        ("space-1", ".25rem"), ("space-2", ".5rem"), ("space-3", ".75rem"), ("space-4", "1rem"),
        ("space-5", "1.5rem"), ("space-6", "2rem"), ("space-7", "3rem"),
        ("radius-s", ".5rem"), ("radius-m", ".875rem"), ("radius-l", "1.375rem"), ("radius-pill", "999px"),
        ("step--1", ".875rem"), ("step-0", "1rem"), ("step-1", "1.2rem"), ("step-2", "1.5rem"), ("step-3", "2rem"),
        ("step-4", "2.6rem"),
        ("shadow-1", "0 1px 2px rgb(0 0 0 / .06), 0 2px 8px rgb(0 0 0 / .06)"),
        ("shadow-2", "0 8px 30px rgb(0 0 0 / .18)"),
        ("tabbar-height", "4.25rem"), ("rail-width", "15rem"),
    ]

    static func value(of name: String, dark: Bool) -> String? {
        colours.first { $0.name == name }.map { dark ? $0.dark : $0.light }
    }

    /// `:root` with the light theme and the scales, then the dark theme for systems that ask.
    static var css: String {
        let light = colours.map { "--\($0.name):\($0.light)" } + scales.map { "--\($0.name):\($0.value)" }
        let dark = colours.map { "--\($0.name):\($0.dark)" }
        return ":root{color-scheme:light dark;\(light.joined(separator: ";"))}\n"
            + "@media (prefers-color-scheme:dark){:root{\(dark.joined(separator: ";"))}}\n"
    }

    /// The colour browsers paint around the app (manifest, `theme-color`).
    static let themeColour = "#a8400c"
    static let darkThemeColour = "#121418"

    // MARK: Contrast (WCAG 2.2)

    /// The relative luminance of `#rrggbb`.
    static func luminance(_ hex: String) -> Double? {
        let digits = hex.dropFirst()
        guard hex.first == "#", digits.count == 6, let value = Int(digits, radix: 16) else { return nil }
        func channel(_ shift: Int) -> Double {
            let c = Double((value >> shift) & 0xff) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * channel(16) + 0.7152 * channel(8) + 0.0722 * channel(0)
    }

    static func contrast(_ a: String, _ b: String) -> Double? {
        guard let la = luminance(a), let lb = luminance(b) else { return nil }
        return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
    }
}
