"""A dog's life on Pawpack in a real browser on a 390 px phone screen: added with a photo,
kept in Puppy Mode until its vaccinations allow meet-ups, then in Social Mode by itself.

Dates are counted back from the server's today (UTC), so the pet is always 20 weeks old.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone
from pprint import pformat

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import REPO_ROOT, Api, Browser, Owner

PHOTO = REPO_ROOT / "Tests" / "PawpackCoreTests" / "Fixtures" / "gps.jpg"
PET_PATH = re.compile(r"^/pets/[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")

# The JavaScript that tells whether an <img> has actually been fetched and decoded.
IMAGE_LOADED_JS = "return arguments[0].complete && arguments[0].naturalWidth > 0"

# Why a form would not submit: the browser's own validity checks, field by field.
INVALID_FIELDS_JS = """
return Array.from(arguments[0].elements)
  .filter(el => el.willValidate && !el.checkValidity())
  .map(el => `${el.name}: ${el.validationMessage}`);
"""


def server_today() -> date:
    """The server counts ages and vaccination dates in UTC."""
    return datetime.now(timezone.utc).date()


def record_vaccination(browser: Browser, given_on: date, shot: str) -> None:
    """Record one DHPP dose on the vaccinations page and expect to land back on it, confirmed."""
    vaccinations_path = browser.path
    browser.submit("form#vaccination-form", {"vaccine": "dhpp", "givenOn": given_on.isoformat()},
                   "button#vaccination-submit", shot)
    assert browser.path == vaccinations_path, browser.errors
    assert "Vaccination recorded." in browser.flashes, browser.errors


def test_owner_adds_a_puppy_with_photo_and_it_reaches_social_mode_by_itself_once_vaccinated(browser: Browser, owner: Owner):
    assert PHOTO.is_file(), f"photo fixture {PHOTO} is missing"
    today = server_today()
    birth = today - timedelta(days=140)  # 20 weeks old
    problems: dict[str, list[str]] = {}

    def check_layout(page: str) -> None:
        found = browser.layout_problems()
        if found:
            problems[f"{page} ({browser.path})"] = found

    # Given a new owner, signed in by the link in their verification mail
    browser.sign_up_and_verify(owner, "pets-")
    browser.click("nav#app-nav a#nav-care", "care-empty")
    assert browser.has("#care-empty"), "a new owner's Care tab says what it is for"
    browser.click("a#care-your-pets", "pets-empty")
    assert browser.path == "/pets"
    assert browser.has("#no-pets"), "a new owner's pets page says there are none yet"
    check_layout("pets list, empty")

    # When they add a 20-week-old puppy with a photo, saying what they know of it
    browser.click("a#add-pet-link", "add-pet")
    assert browser.path == "/pets/new"
    assert browser.has("#held-back-note"), "the form says what Puppy Mode does with play style and neuter status"
    check_layout("add-pet form")
    form = browser.wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, "form#pet-form")))
    for name, value in {"name": "Biscuit", "species": "dog", "breed": "Beagle mix", "sex": "female",
                        "dateOfBirth": birth.isoformat(), "weightKg": "11.4"}.items():
        browser.fill(form.find_element(By.NAME, name), value)
    browser.tap("label.chip-choice:has(#playStyles-chase)")
    browser.tap("label.toggle[for=neutered]")
    browser.fill(form.find_element(By.CSS_SELECTOR, "input#photo"), str(PHOTO))
    preview = browser.driver.find_element(By.CSS_SELECTOR, "img#photo-preview")
    browser.wait.until(lambda d: d.execute_script("return (arguments[0].getAttribute('src') || '').startsWith('blob:')", preview),
                       "img#photo-preview did not get a blob: src after choosing a photo")
    browser.wait.until(lambda d: d.execute_script(IMAGE_LOADED_JS, preview), "the photo preview did not load")
    browser.screenshots.take(browser.driver, "add-pet-filled")
    check_layout("add-pet form, filled, with preview")
    invalid = browser.driver.execute_script(INVALID_FIELDS_JS, form)
    assert not invalid, f"the browser would refuse to submit the add-pet form: {invalid}"
    browser.click("form#pet-form button#pet-submit", "pet-added")

    # Then, with no location yet, the guided start asks where they are next; they give their
    # postcode, whole, and pick the district it finds
    assert browser.path == "/account/location", browser.errors
    assert "Pet added." in browser.flashes
    assert browser.has("ol.steps"), "the guided start shows its steps"
    browser.submit("form#place-search", {"q": "SW1A 1AA"}, "button#place-search-submit", "pets-location-postcode")
    found = browser.text_of("#places li:first-child button")
    assert "SW1A… Westminster Abbey" in found and "United Kingdom" in found, found
    browser.click("#places li:first-child button", "pets-location-saved")
    assert browser.path.endswith("/deck"), browser.errors
    pet_path = browser.path.removesuffix("/deck")
    assert PET_PATH.match(pet_path), pet_path

    # And the pet page shows the photo, Puppy Mode, and the facts they gave (kept, held back)
    browser.visit(pet_path, "pet-page")
    assert "Biscuit" in browser.h1
    photo = browser.wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#pet-photos img")))
    browser.wait.until(lambda d: d.execute_script(IMAGE_LOADED_JS, photo), "the profile photo did not load")
    assert browser.text_of("#mode-badge") == "Puppy Mode"
    facts = browser.text_of("#pet-facts")
    assert "Chase" in facts and "Neutered" in facts, facts
    assert browser.text_of("section#welfare h2").startswith("Puppy Mode")
    check_layout("pet page")

    # When they record the first two puppy doses, at 10 and 14 weeks
    browser.click("a#vaccinations-link", "vaccinations-empty")
    assert browser.path == f"{pet_path}/vaccinations"
    check_layout("vaccinations page, no records")
    record_vaccination(browser, birth + timedelta(days=70), "vaccination-10-weeks")
    record_vaccination(browser, birth + timedelta(days=98), "vaccination-14-weeks")

    # Then Biscuit stays in Puppy Mode, and the page says what is missing and from when
    assert browser.text_of("section#welfare h2").startswith("Puppy Mode")
    reasons = [reason for reason in browser.texts("ul#welfare-reasons li") if reason]
    assert reasons, "Puppy Mode should list what is still needed"
    assert browser.text_of("p#earliest-social"), "Puppy Mode should name the earliest date for Social Mode"
    assert len(browser.texts("ul#vaccination-list > li")) == 2
    check_layout("vaccinations page, two doses")

    # When they record the dose given at 17 weeks, 21 days ago (past the 7-day buffer)
    vaccinations_path = browser.path
    browser.submit("form#vaccination-form", {"vaccine": "dhpp", "givenOn": (birth + timedelta(days=119)).isoformat()},
                   "button#vaccination-submit", "vaccination-17-weeks")

    # Then Biscuit reaches Social Mode by itself, and the owner is told
    assert browser.path == vaccinations_path, browser.errors
    assert any("Social Mode now" in flash for flash in browser.flashes), browser.flashes
    assert browser.text_of("section#welfare h2").startswith("Social Mode")
    assert len(browser.texts("ul#vaccination-list > li")) == 3
    check_layout("vaccinations page, Social Mode")
    browser.visit(pet_path, "pet-social")
    assert browser.text_of("#mode-badge") == "Social Mode"

    # And the pets list shows Biscuit, in Social Mode
    browser.click("nav#app-nav a#nav-care", "care-one")
    browser.click("a#care-your-pets", "pets-one")
    rows = browser.texts("#pet-list li")
    assert len(rows) == 1 and "Biscuit" in rows[0] and "Social Mode" in rows[0], rows
    check_layout("pets list, one pet")

    assert not problems, "pages that do not fit a phone or have unlabelled inputs:\n" + pformat(problems)


def test_the_small_things_a_member_sees_on_their_pets_inbox_and_account(browser: Browser) -> None:
    # given a member in Mo i Rana (a town of this test's own) with a dog with two photos and a
    # cat, whom a neighbour invites to guard her dog
    member = Owner.fresh("small").living_in("Mo i Rana")
    api = Api(member)
    dog = api.dog("Tinde", 66.313, 14.142)
    api.upload_photo(dog, PHOTO)
    api.upload_photo(dog, PHOTO)
    cat = api.call("POST", "/v1/pets", {"name": "Miso", "species": "cat", "estimatedAgeMonths": 24})["card"]["id"]
    neighbour = Api(Owner.fresh("neighbour"))
    theirs = neighbour.dog("Fjord", 66.313, 14.142)
    neighbour.call("POST", f"/v1/pets/{theirs}/guardians", {"username": member.username})
    browser.visit("/login", "small-login")
    browser.log_in(member.email, member.password, "small-home")

    # then the Care tab (which holds the pets) counts the invitation, and Home offers to answer it
    assert browser.text_of("#care-count").startswith("1")
    assert browser.has("#home-invitations")

    # and "Your pets" keeps each pet's mode on a line of its own; the cat is called a cat
    browser.click("nav#app-nav a#nav-care", "small-care")
    browser.click("a#care-your-pets", "small-pets")
    assert "Puppy Mode" in browser.text_of("#pet-list") or "Social Mode" in browser.text_of("#pet-list")
    browser.visit(f"/pets/{cat}", "small-cat")
    assert "Cat" in browser.text_of("#pet-facts") and "Breed" not in browser.text_of("#pet-facts")
    browser.visit(f"/pets/{cat}/edit", "small-cat-edit")
    assert not browser.has("#dog-only")

    # and the dog's second photo can be made the main one
    browser.visit(f"/pets/{dog}", "small-dog")
    browser.click("#photo-manager button[id^=main-]", "small-main-photo")
    assert "That photo now comes first." in browser.flashes

    # and the inbox says who invited her, with the day and time, and which kinds she hears about
    browser.click("a#bell", "small-inbox")
    assert "invites you to guard Fjord" in browser.text_of("#inbox")
    assert browser.driver.find_elements(By.CSS_SELECTOR, "#inbox time[data-style=full]")
    assert browser.has("#notification-settings input#hear-guardian_invitation:checked")
    assert browser.text_of("#bell-count") in ("", "0") or not browser.driver.find_element(By.ID, "bell-count").is_displayed()

    # and the place she chooses is named on her account and offered again
    browser.visit("/account/location?q=Mo%20i%20Rana", "small-location")
    browser.click("#places li:first-child button", "small-location-saved")
    browser.visit("/account", "small-account")
    assert "In or near Mo i Rana" in browser.text_of("#location-card")
