import Foundation
import PawpackCore
import Testing

/// Identifiers are written and read on every request (cards, stored ids), without Foundation's
/// C formatting: the text must be exactly Foundation's, and exactly the same strings accepted.
@Suite struct IdentifierTests {
    @Test func textIsFoundationsInCapitalsAndInSmallLetters() {
        for _ in 0..<2_000 {
            let uuid = UUID()
            #expect(uuid.text(uppercase: true) == uuid.uuidString)
            #expect(uuid.text(uppercase: false) == uuid.uuidString.lowercased())
            #expect(Pet.ID(uuid).description == uuid.uuidString.lowercased())
        }
        let edges = [
            UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
            UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)),
        ]
        #expect(
            edges.map { $0.text(uppercase: false) }
                == ["00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"])
    }

    /// Rows written many times a second (messages, realtime events) get ids in time order, so
    /// their index grows at one end: a later id's text sorts after an earlier one's, and the
    /// id is still a valid, distinct UUID.
    @Test func timeOrderedIdsSortByTheirMillisecondAndAreVersion7() {
        // Half a millisecond in, so that a Double's rounding never moves one to the next.
        let start = Date(timeIntervalSince1970: 1_795_000_000.1235)
        let ids = (0..<1_000).map { UUID.timeOrdered(at: start.addingTimeInterval(Double($0) / 1_000)) }
        let texts = ids.map { $0.text(uppercase: true) }
        #expect(zip(texts, texts.dropFirst()).allSatisfy { $0 < $1 })
        #expect(Set(ids).count == ids.count)
        // The same millisecond twice: different ids, both of that millisecond.
        let twins = (UUID.timeOrdered(at: start), UUID.timeOrdered(at: start))
        #expect(twins.0 != twins.1)
        #expect(twins.0.uuidString.prefix(13) == twins.1.uuidString.prefix(13))
        for id in ids.prefix(50) {
            let text = id.uuidString
            #expect(Array(text)[14] == "7", "version 7: \(text)")
            #expect("89AB".contains(Array(text)[19]), "RFC 9562 variant: \(text)")
            #expect(UUID(text: text) == id)
        }
        // The first 48 bits are the Unix time in milliseconds.
        #expect(UInt64(ids[0].uuidString.replacingOccurrences(of: "-", with: "").prefix(12), radix: 16) == 1_795_000_000_123)
        #expect(Chats.Message.ID.timeOrdered(at: start).rawValue.uuidString.prefix(13) == texts[0].prefix(13))
    }

    @Test func parsingAcceptsWhatFoundationAcceptsAndReadsTheSameValue() {
        for _ in 0..<2_000 {
            let uuid = UUID()
            for text in [uuid.uuidString, uuid.uuidString.lowercased(), mixedCase(uuid.uuidString)] {
                #expect(UUID(text: text) == uuid)
                #expect(Pet.ID(string: text)?.rawValue == uuid)
            }
        }
        let sample = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
        let odd = [
            "", "E621E1F8", sample + "0", String(sample.dropLast()), sample.replacingOccurrences(of: "-", with: ""),
            sample.replacingOccurrences(of: "-", with: "_"), "G621E1F8-C36C-495A-93FC-0C247A3E6E5F",
            "E621E1F8-C36C-495A-93FC-0C247A3E6E5 ", " E621E1F8-C36C-495A-93FC-0C247A3E6E5",
            "E621E1F8C-36C-495A-93FC-0C247A3E6E5F", "E621E1F8-C36C-495A-93FC-0C247A3E6É5F",
            "{E621E1F8-C36C-495A-93FC-0C247A3E6E5F}", "+621E1F8-C36C-495A-93FC-0C247A3E6E5F",
        ]
        for text in odd {
            #expect(UUID(text: text) == UUID(uuidString: text), "\(text)")
        }
        #expect(UUID(text: "not a uuid") == nil)
    }

    private func mixedCase(_ text: String) -> String {
        String(text.enumerated().map { $0.offset.isMultiple(of: 2) ? Character($0.element.lowercased()) : $0.element })
    }
}
