import Fluent
import Foundation
import PawpackCore

/// The signed-in session a socket was opened with. A socket lives no longer than its session:
/// whatever ends the session (signing out, a new password, a stolen refresh token, the web
/// session's idle end, the account's deletion, an operator) closes its sockets, on every instance.
enum SocketSession: Hashable, Sendable {
    /// An app's tokens: the family of access and refresh tokens issued at one log-in.
    case app(AppSession.ID)
    /// A browser's cookie session.
    case web(Identifier<WebSessionRecord>)
}

/// Which of a member's sessions are still open, as the accounts' rules say: asked after a
/// session ended, and by the instances that hear of it.
typealias OpenSessions = @Sendable (_ member: User.ID, _ db: any Database) async throws -> Set<SocketSession>
