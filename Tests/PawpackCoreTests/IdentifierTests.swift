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
        let edges = [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
                     UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))]
        #expect(edges.map { $0.text(uppercase: false) }
                == ["00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"])
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
        let odd = ["", "E621E1F8", sample + "0", String(sample.dropLast()), sample.replacingOccurrences(of: "-", with: ""),
                   sample.replacingOccurrences(of: "-", with: "_"), "G621E1F8-C36C-495A-93FC-0C247A3E6E5F",
                   "E621E1F8-C36C-495A-93FC-0C247A3E6E5 ", " E621E1F8-C36C-495A-93FC-0C247A3E6E5",
                   "E621E1F8C-36C-495A-93FC-0C247A3E6E5F", "E621E1F8-C36C-495A-93FC-0C247A3E6É5F",
                   "{E621E1F8-C36C-495A-93FC-0C247A3E6E5F}", "+621E1F8-C36C-495A-93FC-0C247A3E6E5F"]
        for text in odd {
            #expect(UUID(text: text) == UUID(uuidString: text), "\(text)")
        }
        #expect(UUID(text: "not a uuid") == nil)
    }

    private func mixedCase(_ text: String) -> String {
        String(text.enumerated().map { $0.offset.isMultiple(of: 2) ? Character($0.element.lowercased()) : $0.element })
    }
}
