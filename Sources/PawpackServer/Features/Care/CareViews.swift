import Foundation
import PawpackCore
import Plot
import Vapor

/// How Care shows on a page: amounts in words, a pet's card (the Care tab's and its own page's
/// head), the feed buttons and the charts.
enum CareViews {
    // MARK: Words

    /// "¼ packet", "1½ packets", "40 g".
    static func amount(units: Int, kind: FoodKind) -> String {
        switch kind {
        case .wet:
            let whole = units / 4
            let fraction = ["", "¼", "½", "¾"][units % 4]
            let number = whole == 0 ? (fraction.isEmpty ? "0" : fraction) : "\(whole)\(fraction)"
            return number + (units > 4 ? " packets" : " packet")
        case .dry:
            guard units >= 1_000 else { return "\(units) g" }
            let kilograms = Double(units / 100) / 10
            return kilograms == kilograms.rounded() ? "\(Int(kilograms)) kg" : "\(kilograms) kg"
        }
    }

    static func state(_ state: FeedState) -> String {
        switch state {
        case .fed: "Fed"
        case .due: "Due"
        case .overdue: "Overdue"
        }
    }

    /// "2 h 10 min", "25 min", "less than a minute".
    static func duration(_ interval: TimeInterval) -> String {
        let minutes = Int((abs(interval) / 60).rounded(.down))
        if minutes < 1 { return "less than a minute" }
        if minutes < 60 { return "\(minutes) min" }
        return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
    }

    /// "Next feed in 2 h 10 min", "Due now", "Overdue by 1 h 5 min", "Not fed here yet".
    static func nextFeed(_ summary: CareSummaryValue, now: Date) -> String {
        guard let next = summary.nextFeedAt else { return "No feed logged yet" }
        switch summary.state {
        case .fed: return "Next feed in \(duration(next.timeIntervalSince(now)))"
        case .due: return "Next feed due now"
        case .overdue: return "Overdue by \(duration(now.timeIntervalSince(next)))"
        }
    }

    // MARK: A pet's card

    /// The pet at a glance: its photo, name and state, the next feed, today's feeds with who
    /// fed, one button per food for its usual portion, what is left, today's kcal.
    static func card(
        _ req: Request, _ summary: CareSummaryValue, card pet: PetCardValue?, now: Date, me: User.ID,
        heading: Bool = true, back: String
    ) -> Node<HTML.BodyContext> {
        .section(
            .class("card care-card"), .id("care-\(summary.pet)"), .data(named: "pet", value: summary.pet.description),
            .div(
                .class("care-head"),
                .unwrap(pet, { DogViews.avatar($0) }, else: WebPages.noPhoto(summary.petName, species: summary.species)),
                .div(
                    .class("care-title"),
                    .if(
                        heading,
                        .h2(.a(.href(WebPath.carePet(summary.pet)), .text(summary.petName))),
                        else: .strong(.text(summary.petName))),
                    .p(
                        .class("care-next"),
                        // A pet nobody feeds here yet (no food, no feed) is not "due": it is not tracked.
                        .if(
                            summary.lastFeed != nil || !summary.foods.isEmpty,
                            .group(.span(.class("badge state-\(summary.state.rawValue)"), .text(state(summary.state))), .text(" "))),
                        .span(
                            .class("care-countdown"),
                            .unwrap(summary.nextFeedAt) { .data(named: "next", value: $0.formatted(Date.ISO8601FormatStyle())) },
                            .text(nextFeed(summary, now: now))),
                        .unwrap(summary.nextFeedAt) { next in .group(.text(" · "), TimeViews.time(next, style: .time)) }))),
            .h3(.class("care-subhead"), .text("Today")),
            .if(
                summary.today.isEmpty,
                .p(.class("muted care-none"), .text("No feeds yet today.")),
                else: .ul(
                    .class("care-today"),
                    .forEach(summary.today.reversed()) { feed in todayItem(req, feed, now: now, me: me, back: back) })),
            .if(
                summary.access.canLog && !summary.foods.isEmpty,
                .div(
                    .class("care-feed"),
                    .forEach(summary.foods) { food in feedButton(req, pet: summary.pet, food: food, back: back) })),
            .if(
                summary.access.canLog && summary.foods.isEmpty,
                .p(
                    .class("muted"),
                    .text(summary.access.canManage ? "Add " : "Its owner adds "),
                    .if(summary.access.canManage, .a(.href(WebPath.carePet(summary.pet) + "#foods"), .text("the food it eats"))),
                    .if(!summary.access.canManage, .text("the food it eats")),
                    .text(" to log feeds with one tap."))),
            .unwrap(stockLine(summary.foods)) { .p(.class("care-stock"), .text($0)) },
            .p(.class("care-calories"), .text(caloriesLine(summary.calories)))
        )
    }

    private static func todayItem(_ req: Request, _ feed: FeedValue, now: Date, me: User.ID, back: String) -> Node<HTML.ListContext> {
        let mine = feed.fedBy == me
        // The web's undo: two minutes to take back a feed logged by mistake.
        let undoable = mine && now.timeIntervalSince(feed.createdAt) < 120
        return .li(
            .id("feed-\(feed.id)"),
            TimeViews.time(feed.fedAt, style: .time),
            .text(" · \(amount(units: feed.units, kind: feed.kind)) \(feed.foodName) · "),
            .span(.class("care-who"), .text(mine ? "you" : feed.fedByDisplayName ?? "a former member")),
            .if(feed.firstOfDay, .span(.class("badge care-first"), .text("first today"))),
            .if(
                undoable,
                .form(
                    .class("inline"), .action(WebPath.deleteFeed(feed.id)), .method(.post), WebPages.csrfField(req),
                    .input(.type(.hidden), .name("back"), .value(back)),
                    .data(named: "until", value: feed.createdAt.addingTimeInterval(120).formatted(Date.ISO8601FormatStyle())),
                    .button(.type(.submit), .class("button quiet small"), .id("undo-\(feed.id)"), .text("Undo")))))
    }

    /// One tap: the food's usual portion, now, with an id chosen for this button so that a
    /// form sent twice logs once.
    static func feedButton(_ req: Request, pet: Pet.ID, food: FoodValue, back: String) -> Node<HTML.BodyContext> {
        .form(
            .class("inline"), .action(WebPath.careFeeds(pet)), .method(.post), .data(named: "feed", value: "quick"),
            WebPages.csrfField(req),
            .input(.type(.hidden), .name("id"), .value(UUID().text(uppercase: false))),
            .input(.type(.hidden), .name("food"), .value(food.id.description)),
            .input(.type(.hidden), .name("back"), .value(back)),
            .button(
                .type(.submit), .class("button secondary"), .id("feed-\(pet)-\(food.id)"),
                Icon.bowl.node(), .text(" \(amount(units: food.usualUnits, kind: food.kind)) \(food.name)")))
    }

    /// "Salmon pouches: 9½ packets left, about 5 days".
    static func stockLine(_ foods: [FoodValue]) -> String? {
        let kept = foods.compactMap { food -> String? in
            guard let stock = food.stockUnits else { return nil }
            let days = food.daysLeft.map { $0 == 0 ? ", runs out today" : $0 == 1 ? ", about a day" : ", about \($0) days" } ?? ""
            return "\(food.name): \(amount(units: stock, kind: food.kind)) left\(days)"
        }
        return kept.isEmpty ? nil : kept.joined(separator: " · ")
    }

    /// "160 of about 238 kcal today".
    static func caloriesLine(_ calories: CaloriesValue) -> String {
        let today = Int(calories.today.rounded())
        guard let ideal = calories.ideal else { return "\(today) kcal today" }
        return "\(today) of about \(Int(ideal.rounded())) kcal today"
    }

    // MARK: Charts

    /// A chart with its caption, which the chart's `aria-labelledby` names.
    static func figure(_ chart: Node<HTML.BodyContext>, captionID: String, caption: String) -> Node<HTML.BodyContext> {
        .element(named: "figure", nodes: [chart, .element(named: "figcaption", nodes: [.id(captionID), .text(caption)])])
    }

    /// Bars of kcal a day with the estimate as a line, drawn by the server: numbers only in
    /// the markup, the words escaped; the table beside it says the same in text.
    static func intakeChart(_ calories: CaloriesValue) -> Node<HTML.BodyContext> {
        let days = calories.byDay
        let top = max(calories.ideal ?? 0, days.map(\.kcal).max() ?? 0, 1) * 1.15
        let (width, height, gap) = (320.0, 140.0, 4.0)
        let bar = (width - gap * Double(days.count - 1)) / Double(max(days.count, 1))
        var svg = "<svg class=\"chart\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-labelledby=\"intake-caption\">"
        for (index, entry) in days.enumerated() {
            let h = (entry.kcal / top * (height - 10)).rounded()
            let x = (Double(index) * (bar + gap) * 10).rounded() / 10
            svg += "<rect class=\"bar\" x=\"\(x)\" y=\"\(height - h)\" width=\"\((bar * 10).rounded() / 10)\" height=\"\(h)\" rx=\"2\"/>"
        }
        if let ideal = calories.ideal {
            let y = (height - ideal / top * (height - 10)).rounded()
            svg += "<line class=\"goal\" x1=\"0\" x2=\"\(Int(width))\" y1=\"\(y)\" y2=\"\(y)\"/>"
        }
        svg += "</svg>"
        return .raw(svg)
    }

    /// A line through the weights, oldest to newest.
    static func weightChart(_ weights: [WeightValue]) -> Node<HTML.BodyContext> {
        guard weights.count >= 2, let first = weights.first?.day.dayNumber, let last = weights.last?.day.dayNumber else { return .empty }
        let low = (weights.map(\.kilograms).min() ?? 0) * 0.95
        let high = (weights.map(\.kilograms).max() ?? 1) * 1.05
        let (width, height) = (320.0, 140.0)
        let span = Double(max(last - first, 1))
        let points = weights.map { weight -> String in
            let x = (Double(weight.day.dayNumber - first) / span * (width - 12) + 6).rounded()
            let y = (height - 6 - (weight.kilograms - low) / max(high - low, 0.01) * (height - 12)).rounded()
            return "\(Int(x)),\(Int(y))"
        }
        var svg = "<svg class=\"chart\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-labelledby=\"weight-caption\">"
        svg += "<polyline class=\"line\" points=\"\(points.joined(separator: " "))\"/>"
        for point in points {
            let xy = point.split(separator: ",")
            svg += "<circle class=\"dot\" cx=\"\(xy[0])\" cy=\"\(xy[1])\" r=\"3.5\"/>"
        }
        svg += "</svg>"
        return .raw(svg)
    }
}
