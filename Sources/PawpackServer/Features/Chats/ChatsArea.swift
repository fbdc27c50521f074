import Fluent
import PawpackAPI
import PawpackCore
import SQLKit

extension Area {
    /// A match's chat: messages, photos, receipts.
    static let chats = Area(
        name: "Chats",
        services: { services in
            [
                ChatService(
                    pets: services.pets, photos: services.photos, clock: services.dependencies.clock, realtime: services.realtime,
                    notifications: services.notifications, writes: services.writes,
                    closed: { [unowned services] chats, now, tx in
                        for area in services.areas { try await area.chatsClosed?(chats, now, tx) }
                    })
            ]
        },
        migrations: ChatMigrations.all,
        pages: { app, services in ChatPages(chats: services.chats, services: services).register(on: app) },
        script: "chats",
        tab: .init(
            id: "chats", title: "Chats", path: WebPath.chats, icon: .chat, position: 40,
            badge: WebPages.Badge.unreadChats
        ) { $0.hasPrefix(WebPath.chats) },
        home: { req, services in try await ChatPages.home(req, services: services) },
        badges: [
            .init(id: WebPages.Badge.unreadChats, one: " chat unread", many: " chats unread", live: true) { me in
                """
                SELECT COUNT(*) FROM "chats" WHERE ("user_a_id" = \(bind: me) AND "a_unread" > 0) OR ("user_b_id" = \(bind: me) AND "b_unread" > 0)
                """
            }
        ],
        uploadOperations: [Operations.SendChatPhoto.id],
        notificationKinds: [.message],
        export: { document, scope in
            document.chats = try await scope.services.chats.export(scope.user, on: scope.db).map { chat, messages in
                .init(
                    id: chat.id.description, myPetId: chat.myPet.id.description, myPetName: chat.myPet.name,
                    otherPetName: chat.otherPet.name, otherOwnerDisplayName: chat.otherPet.ownerDisplayName,
                    closed: chat.closed, messages: messages.map { Components.Schemas.ChatMessage($0, viewer: scope.me, scope.handler.mapping) })
            }
        },
        deletion: .init(
            filesOfPets: { pets, db in try await ChatService.photoKeys(ofPets: pets, on: db) },
            filesOfMember: { member, db in try await ChatService.photoKeys(ofUser: member, on: db) }),
        blockEnds: { me, them, services, tx in
            // Their chats stay, closed, with their history.
            var events: [StoredRealtimeEvent] = []
            for chat in try await services.chats.closeAll(between: me, them, now: services.dependencies.clock.now(), on: tx) {
                events += try await services.realtime.record(.chatClosed(chat), for: [me, them], on: tx)
            }
            return events
        }
    )
}

extension PawpackServices {
    var chats: ChatService { area(ChatService.self) }
}

extension WebPages.Badge {
    static let unreadChats = "chats-count"
}
