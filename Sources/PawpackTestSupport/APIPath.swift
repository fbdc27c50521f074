/// The API's paths as the tests call them. Each area declares its own beside its test steps
/// (`Areas/Pets.swift`: `APIPath.vaccinations(pet)`), so a path the contract renames changes in
/// one place, and a new area's tests start from a file of their own.
package enum APIPath {}
