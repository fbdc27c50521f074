import Fluent
import PawpackCore

/// Deleting a member or pets: one statement, whose cascading foreign keys remove every row below
/// (see `Deletion`), with what each area keeps outside the database before and after it.
extension PawpackServices {
    /// Deletes the member and everything that belongs to them: their pets, and every row that
    /// refers to either, in every area.
    func deleteMember(_ member: User.ID, on db: any Database) async throws {
        for area in areas {
            try await area.deletion.mustWait?(member, db)
        }
        let (pets, files) = try await db.transaction { tx in
            let pets = try await PetRecord.query(on: tx).filter(\.$owner.$id == member).all().map { try $0.requireID() }
            var files = try await self.files(ofPets: pets, on: tx)
            for area in self.areas {
                if let filesOfMember = area.deletion.filesOfMember { files += try await filesOfMember(member, tx) }
            }
            try await UserRecord.query(on: tx).filter(\.$id == member).delete()
            return (pets, files)
        }
        await petsDeleted(pets, on: db)
        for area in areas {
            await area.deletion.memberDeleted?(member, self, db)
        }
        await photos.remove(files)
    }

    /// Deletes these pets and every row that refers to them, in every area.
    func deletePets(_ pets: [Pet.ID], on db: any Database) async throws {
        guard !pets.isEmpty else { return }
        let files = try await db.transaction { tx in
            let files = try await self.files(ofPets: pets, on: tx)
            try await PetRecord.query(on: tx).filter(\.$id ~~ pets).delete()
            return files
        }
        await petsDeleted(pets, on: db)
        await photos.remove(files)
    }

    private func files(ofPets pets: [Pet.ID], on db: any Database) async throws -> [String] {
        guard !pets.isEmpty else { return [] }
        var files: [String] = []
        for area in areas {
            if let filesOfPets = area.deletion.filesOfPets { files += try await filesOfPets(pets, db) }
        }
        return files
    }

    private func petsDeleted(_ pets: [Pet.ID], on db: any Database) async {
        guard !pets.isEmpty else { return }
        for area in areas {
            await area.deletion.petsDeleted?(pets, self, db)
        }
    }
}
