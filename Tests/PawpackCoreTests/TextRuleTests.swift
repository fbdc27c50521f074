import PawpackCore
import Testing

/// The one rule for text, at its boundaries.
@Suite struct TextRuleTests {
    @Test func controlCharactersAreRefusedAndLineBreaksOnlyWhereLinesAre() {
        for kind in [TextRule.name(max: 40), .line(max: 40), .paragraphs(max: 40)] {
            #expect(kind.check("\u{0000}x") == .failure(.controlCharacter))
            #expect(kind.check("a\u{0007}b") == .failure(.controlCharacter))
            #expect(kind.check("a\u{007F}b") == .failure(.controlCharacter))
            #expect(kind.check("a\u{0085}b") == .failure(.controlCharacter))
        }
        #expect(TextRule.line(max: 40).check("one\ntwo") == .failure(.lineBreak))
        #expect(TextRule.name(max: 40).check("one\u{2028}two") == .failure(.lineBreak))
        #expect(TextRule.paragraphs(max: 40).check("  one\r\ntwo\rthree\tfour \n") == .success("one\ntwo\nthree\tfour"))
    }

    @Test func directionControlsAreRefusedInNamesOnly() {
        #expect(TextRule.name(max: 40).check("Rex\u{202E}gnp.exe") == .failure(.directionControl))
        #expect(TextRule.name(max: 40).check("a\u{2066}b") == .failure(.directionControl))
        #expect(TextRule.line(max: 40).check("Rex\u{202E}x") == .success("Rex\u{202E}x"))
        #expect(TextRule.name(max: 40).check("شادي") == .success("شادي"), "right-to-left letters are letters")
    }

    @Test func lengthCountsCharactersAndScalars() {
        let rule = TextRule.paragraphs(max: 10)
        #expect(rule.check(String(repeating: "é", count: 10)) == .success(String(repeating: "é", count: 10)))
        #expect(rule.check(String(repeating: "x", count: 11)) == .failure(.tooLong(10)))
        #expect(rule.check("👨‍👩‍👧‍👦") == .success("👨‍👩‍👧‍👦"), "one family emoji: 7 scalars")
        let flood = "a" + String(repeating: "\u{0301}", count: 450_000)
        #expect(flood.count == 1)
        #expect(rule.check(flood) == .failure(.tooLong(10)), "one character of 450,001 scalars")
        #expect(rule.check("a" + String(repeating: "\u{0301}", count: 81)) == .failure(.tooLong(10)))
    }

    @Test func requiredTextIsNotOnlyWhiteSpace() throws {
        #expect(TextRule.paragraphs(max: 10, required: true).check(" \n\t ") == .failure(.empty))
        #expect(TextRule.line(max: 10).check("   ") == .success(""))
        #expect(try TextRule.line(max: 10).validate("   ", field: "x") == "")
        #expect(throws: Problem.invalidField("city", "may not contain control characters")) {
            try TextRule.line(max: 10).validate("\u{0000}", field: "city")
        }
    }
}
