import Foundation
import PawpackCore
import Plot
import Vapor

/// The Chats pages: the list with unread badges, and a chat with its messages, the panels other
/// areas show in it (`Area.chatPanel`: its meet-ups) and a plain form to write. Without
/// JavaScript the form posts and the page reloads; with it, messages arrive over the realtime socket and are sent without a reload (`Resources/web/chats.js`).
struct ChatPages {
    let chats: ChatService
    let services: PawpackServices
    static let messagesPerPage = 50

    func register(on routes: any RoutesBuilder) {
        routes.get(WebPath.chats.pathComponents, use: list)
        routes.get(WebPath.chat(Param.chat).pathComponents, use: show)
        routes.post(WebPath.chatMessages(Param.chat).pathComponents, use: send)
        routes.post(WebPath.chatRead(Param.chat).pathComponents, use: read)
    }

    @Sendable func list(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        let page = try await chats.chats(user, limit: 50, cursor: req.query[String.self, at: "cursor"], on: req.db)
        let me = try user.requireID()
        return WebPages.page(
            req, title: "Chats",
            main: .group(
                .if(
                    page.items.isEmpty,
                    .div(
                        .class("empty"), .id("chats-empty"), Icon.chat.node(),
                        .p(.text("No chats yet. A match opens a chat with the other dog's owner.")),
                        .a(.class("button"), .href(WebPath.playdates), .text("Find playmates")))),
                .ul(
                    .class("chat-list"), .id("chat-list"),
                    .forEach(page.items) { Self.row($0, me: me) }),
                .unwrap(page.next) { next in
                    .p(
                        .class("older"),
                        .a(.class("button quiet"), .id("older-chats"), .href(WebPath.chats + "?cursor=" + next.text), .text("Older chats")))
                },
                .p(.a(.class("button secondary"), .id("meetups-link"), .href(WebPath.meetups), Icon.calendar.node(), .text("Your meet-ups")))
            ))
    }

    /// A chat in a list: the other dog and owner, the last message, when, and how many unread.
    static func row(_ chat: ChatValue, me: User.ID) -> Node<HTML.ListContext> {
        .li(
            .a(
                .class(chat.unreadCount > 0 ? "chat-row unread" : "chat-row"), .id("chat-\(chat.id)"), .href(WebPath.chat(chat.id)),
                DogViews.avatar(chat.otherPet),
                .div(
                    .class("chat-row-text"),
                    .strong(.text(chat.otherPet.name)),
                    .span(.class("muted"), .text(" · \(chat.otherPet.ownerDisplayName)")),
                    .p(.class("chat-preview"), .text(Self.preview(chat, me: me)))),
                .div(
                    .class("chat-row-meta"),
                    TimeViews.time(chat.activityAt, style: .short),
                    WebPages.countBadge(chat.unreadCount, one: " unread", many: " unread"),
                    .if(chat.closed, .span(.class("badge"), .text("Closed")))))
        )
    }

    /// Chats on Home (`Area.home`): the chats with messages the member has not read, newest
    /// first, three at most.
    static func home(_ req: Request, services: PawpackServices) async throws -> [HomeCard] {
        guard req.unreadChats > 0 else { return [] }
        let user = try req.requireWebUser().user
        let unread = try await services.chats.chats(user, limit: 50, cursor: nil, on: req.db).items.filter { $0.unreadCount > 0 }
        guard !unread.isEmpty else { return [] }
        let me = try user.requireID()
        return [
            .section(
                .unread, id: "home-chats", title: unread.count == 1 ? "A chat with news" : "\(unread.count) chats with news",
                .ul(.class("chat-list"), .forEach(unread.prefix(3)) { row($0, me: me) }),
                .if(unread.count > 3, .p(.a(.class("button secondary"), .href(WebPath.chats), .text("All chats")))))
        ]
    }

    /// The chat list's second line: the last message, or how to start.
    static func preview(_ chat: ChatValue, me: User.ID) -> String {
        guard let last = chat.lastMessage else { return "Say hello to \(chat.otherPet.ownerDisplayName)!" }
        let what = last.text.map(NotificationService.preview) ?? "Photo"
        return last.sender == me ? "You: \(what)" : what
    }

    @Sendable func show(_ req: Request) async throws -> Response {
        try await render(req, chat: try req.idParameter(Param.chat))
    }

    func render(
        _ req: Request, chat id: Chats.Chat.ID, errors: FormErrors = [], text: String? = nil,
        status: HTTPResponseStatus = .ok
    ) async throws -> Response {
        let user = try req.requireWebUser().user
        let me = try user.requireID()
        var chat = try await chats.chat(user, id: id, on: req.db)
        let before = req.query[String.self, at: "before"]
        let page = try await chats.messages(user, chat: id, limit: Self.messagesPerPage, cursor: before, on: req.db)
        let messages = Array(page.items.reversed())
        // Opening the chat reads it (and its notification) up to its newest message.
        if before == nil, chat.unreadCount > 0, let newest = messages.last {
            try await chats.markRead(user, chat: id, upTo: newest.id, on: req.db)
            chat.unreadCount = 0
            // The badges were counted before this read: this chat no more, and its notification
            // maybe read with it.
            req.unreadChats = max(0, req.unreadChats - 1)
            req.unreadNotifications = try await NotificationService.unreadCount(of: me, on: req.db)
        }
        // What the areas standing on chats show above the messages (Meetups: the chat's meet-ups).
        var panels: [Node<HTML.BodyContext>] = []
        for area in services.areas { if let panel = area.chatPanel { panels.append(try await panel(req, chat, services)) } }
        let lastMine = messages.last { $0.sender == me }
        let seen = lastMine.map { $0.position <= chat.theirReadPosition } ?? false
        return WebPages.page(
            req, title: chat.otherPet.name, status: status, errors: errors, back: (WebPath.chats, "Chats"),
            main: .group(
                .div(
                    .class("chat-head"), .id("chat-head"),
                    .a(.href(WebPath.pet(chat.otherPet.id)), .ariaLabel("\(chat.otherPet.name)'s profile"), DogViews.avatar(chat.otherPet)),
                    .p(.text("\(chat.otherPet.ownerDisplayName) · with \(chat.myPet.name)"))),
                .group(panels),
                .unwrap(page.next) { next in
                    .p(
                        .class("older"),
                        .a(.class("button quiet"), .id("older-messages"), .href(WebPath.chat(id) + "?before=" + next.text), .text("Older messages")))
                },
                .ol(
                    .class("messages"), .id("messages"), .data(named: "chat", value: id.description),
                    .data(named: "read", value: WebPath.chatRead(id)), .attribute(named: "aria-live", value: "polite"),
                    .if(
                        messages.isEmpty,
                        .li(
                            .class("messages-empty muted"), .id("messages-empty"),
                            .text("No messages yet. Say hello to \(chat.otherPet.ownerDisplayName)!"))),
                    .forEach(messages) { message in Self.bubble(message, mine: message.sender == me) }),
                .p(.class("seen muted"), .id("seen"), .attribute(named: "hidden", value: seen ? nil : "hidden"), .text("Seen")),
                .if(
                    chat.closed,
                    .p(
                        .class("notice"), .id("chat-closed"),
                        .text("This chat is closed: the match ended. The messages stay; no new ones can be sent.")),
                    else: .form(
                        .class("composer"), .id("message-form"), .action(WebPath.chatMessages(id)), .method(.post),
                        WebPages.csrfField(req),
                        // A new id for each message written: a form sent twice (a retry) is one message.
                        .input(.type(.hidden), .name("id"), .value(UUID().uuidString.lowercased())),
                        .label(.class("visually-hidden"), .for("message-text"), .text("Message")),
                        .textarea(
                            .name("text"), .id("message-text"), .attribute(named: "rows", value: "1"),
                            .attribute(named: "maxlength", value: String(ChatRules.maximumTextLength)),
                            .attribute(named: "placeholder", value: "Write to \(chat.otherPet.ownerDisplayName)…"),
                            .required(true), .text(text ?? "")),
                        .button(.type(.submit), .class("button"), .id("message-send"), .text("Send"))))
            ))
    }

    /// One message; the page's script writes new ones the same way.
    static func bubble(_ message: ChatMessageValue, mine: Bool) -> Node<HTML.ListContext> {
        .li(
            .class(mine ? "message mine" : "message theirs"), .id("m-\(message.id)"),
            .data(named: "position", value: String(message.position)),
            .unwrap(message.text) { .p(.text($0)) },
            .unwrap(message.photoKey) { key in .img(.src(WebPath.media(key)), .alt("Photo"), .class("message-photo")) },
            TimeViews.time(message.createdAt, style: .time))
    }

    struct MessageForm: Content {
        var id: String?
        var text: String?
    }

    /// The form's message; a script asking for JSON gets the message's id and position back.
    @Sendable func send(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let id = try req.idParameter(Param.chat)
        let form = try req.content.decode(MessageForm.self)
        guard let clientID = form.id.flatMap(UUID.init(uuidString:)) else { throw Problem.invalidField("id", "must be a message id") }
        do {
            let sent = try await chats.send(user, chat: id, clientMessageID: clientID, text: form.text ?? "", on: req.db)
            if req.asksForJSON {
                let response = Response(status: sent.created ? .created : .ok)
                try response.content.encode(["id": sent.message.id.description, "position": String(sent.message.position)])
                return response
            }
            return WebPages.redirect(WebPath.chat(id) + "#m-\(sent.message.id)")
        } catch let problem as Problem where problem.status == 422 {
            return try await render(
                req, chat: id, errors: FormErrors(problem.renamingFields(["text": "message"])), text: form.text,
                status: .unprocessableEntity)
        }
    }

    struct ReadForm: Content {
        var messageId: String?
    }

    /// The script read a message as it arrived; the counts that changed.
    @Sendable func read(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let form = try req.content.decode(ReadForm.self)
        guard let message = form.messageId.flatMap(Chats.Message.ID.init(string:)) else {
            throw Problem.invalidField("messageId", "must be a message of this chat")
        }
        try await chats.markRead(user, chat: try req.idParameter(Param.chat), upTo: message, on: req.db)
        // What reading changed, for the bell and the Chats tab.
        let me = try user.requireID()
        let response = Response(status: .ok)
        try response.content.encode([
            "unreadNotifications": try await NotificationService.unreadCount(of: me, on: req.db),
            "unreadChats": try await ChatService.unreadChatCount(of: me, on: req.db),
        ])
        return response
    }
}
