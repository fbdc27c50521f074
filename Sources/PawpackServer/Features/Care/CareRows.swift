import Fluent
import Foundation
import PawpackCore
import SQLKit

// Care's records read from plain SQL rows, column by column, for the reads every Care request
// makes (the pets' access, their families and settings, their foods): through Fluent's model
// decoding, which reflects over every property of every row, a Care tab of ten pets spent more
// on decoding than on its queries (`pawpack bench care`, docs/PERFORMANCE.md). Each initialiser
// reads every column its model declares and marks the record as loaded, as `PetRows.swift` does.

extension FamilyRecord: SQLRowReadable {
    /// Reads the family's columns, named with the `family_` prefix where a query joins them to
    /// another table's (`columns(as:)`).
    convenience init<Row: SQLRow>(reading row: Row) throws {
        self.init()
        id = try row.decode(column: "family_id", as: Care.Family.ID.self)
        name = try row.decode(column: "family_name", as: String.self)
        $owner.id = try row.decode(column: "family_owner_id", as: User.ID.self)
        timeZone = try row.decode(column: "family_time_zone", as: String.self)
        inviteCode = try row.decode(column: "family_invite_code", as: String?.self)
        inviteExpiresAt = try row.decode(column: "family_invite_expires_at", as: Date?.self)
        $pendingOwner.id = try row.decode(column: "family_pending_owner_id", as: User.ID?.self)
        createdAt = try row.decode(column: "family_created_at", as: Date.self)
        $id.exists = true
    }

    /// The columns `init(reading:)` reads, from the families table.
    static let prefixedColumns = """
        "families"."id" AS "family_id", "families"."name" AS "family_name", "families"."owner_id" AS "family_owner_id", \
        "families"."time_zone" AS "family_time_zone", "families"."invite_code" AS "family_invite_code", \
        "families"."invite_expires_at" AS "family_invite_expires_at", "families"."pending_owner_id" AS "family_pending_owner_id", \
        "families"."created_at" AS "family_created_at"
        """
}

extension CareSettingsRecord: SQLRowReadable {
    convenience init<Row: SQLRow>(reading row: Row) throws {
        self.init()
        id = try row.decode(column: "id", as: UUID.self)
        $pet.id = try row.decode(column: "pet_id", as: Pet.ID.self)
        feedingGapMinutes = try row.decode(column: "feeding_gap_minutes", as: Int.self)
        timeZone = try row.decode(column: "time_zone", as: String?.self)
        dietaryNotes = try row.decode(column: "dietary_notes", as: String?.self)
        energyFactor = try row.decode(column: "energy_factor", as: Double?.self)
        vaccinationLeadDays = try row.decode(column: "vaccination_lead_days", as: Int?.self)
        $id.exists = true
    }
}

extension FoodRecord: SQLRowReadable {
    convenience init<Row: SQLRow>(reading row: Row) throws {
        self.init()
        id = try row.decode(column: "id", as: Care.Food.ID.self)
        $pet.id = try row.decode(column: "pet_id", as: Pet.ID.self)
        name = try row.decode(column: "name", as: String.self)
        kind = try row.decode(column: "kind", as: String.self)
        kcal = try row.decode(column: "kcal", as: Double?.self)
        packetsPerBox = try row.decode(column: "packets_per_box", as: Int?.self)
        packetsPerBag = try row.decode(column: "packets_per_bag", as: Int?.self)
        usualUnits = try row.decode(column: "usual_units", as: Int.self)
        stockUnits = try row.decode(column: "stock_units", as: Int?.self)
        lowStockUnits = try row.decode(column: "low_stock_units", as: Int?.self)
        lowAlertSent = try row.decode(column: "low_alert_sent", as: Bool.self)
        emptyAlertSent = try row.decode(column: "empty_alert_sent", as: Bool.self)
        createdAt = try row.decode(column: "created_at", as: Date.self)
        $id.exists = true
    }
}
