"""A dog's life on Pawpack in a real browser on a 390 px phone screen: added with a photo,
kept in Puppy Mode until its vaccinations allow meet-ups, then switched to Social Mode.

Dates are counted back from the server's today (UTC), so the pet is always 20 weeks old.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone
from pprint import pformat

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import REPO_ROOT, Browser, Owner

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


def test_owner_adds_a_puppy_with_photo_and_switches_it_to_social_mode_once_vaccinated(browser: Browser, owner: Owner):
    assert PHOTO.is_file(), f"photo fixture {PHOTO} is missing"
    today = server_today()
    birth = today - timedelta(days=140)  # 20 weeks old
    problems: dict[str, list[str]] = {}

    def check_layout(page: str) -> None:
        found = browser.layout_problems()
        if found:
            problems[f"{page} ({browser.path})"] = found

    # Given a verified owner who is logged in
    browser.sign_up_and_verify(owner, "pets-")
    browser.click("a#login-link", "pets-login")
    browser.log_in(owner.email, owner.password, "pets-home")
    assert browser.path == "/home", browser.errors

    # When they open their pets from the navigation
    browser.click("nav#app-nav a#nav-pets", "pets-empty")

    # Then they see an empty list with a way to add a pet
    assert browser.path == "/pets"
    assert not browser.has("a.pet-summary"), "a new owner should have no pets"
    check_layout("pets list, empty")

    # When they open the add-pet form
    browser.click("a#add-pet-link", "add-pet")
    assert browser.path == "/pets/new"
    assert browser.has("form#pet-form")
    check_layout("add-pet form")

    # And fill it in for a 20-week-old beagle mix
    form = browser.wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, "form#pet-form")))
    for name, value in {
        "name": "Biscuit",
        "species": "dog",
        "breed": "Beagle mix",
        "dateOfBirth": birth.isoformat(),
        "weightKg": "11.4",
    }.items():
        browser.fill(form.find_element(By.NAME, name), value)

    # And choose a profile photo
    browser.fill(form.find_element(By.CSS_SELECTOR, "input#photo"), str(PHOTO))

    # Then the page previews the chosen photo before anything is uploaded
    preview = browser.driver.find_element(By.CSS_SELECTOR, "img#photo-preview")
    browser.wait.until(
        lambda d: (d.execute_script("return arguments[0].getAttribute('src') || ''", preview)).startswith("blob:"),
        "img#photo-preview did not get a blob: src after choosing a photo")
    browser.wait.until(lambda d: d.execute_script(IMAGE_LOADED_JS, preview),
                       "the photo preview did not load")
    browser.screenshots.take(browser.driver, "add-pet-filled")
    check_layout("add-pet form, filled, with preview")
    invalid = browser.driver.execute_script(INVALID_FIELDS_JS, form)
    assert not invalid, f"the browser would refuse to submit the add-pet form: {invalid}"

    # When they submit it
    browser.click("form#pet-form button#pet-submit", "pet-added")

    # Then they land on the pet's page, told it was added, with the photo shown and Puppy Mode on
    assert PET_PATH.match(browser.path), f"expected /pets/<uuid>, got {browser.path}: {browser.errors}"
    pet_path = browser.path
    assert "Pet added." in browser.flashes, (browser.flashes, browser.errors)
    assert "Biscuit" in browser.h1
    photo = browser.wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#pet-card img.photo.profile")))
    browser.wait.until(lambda d: d.execute_script(IMAGE_LOADED_JS, photo),
                       f"the profile photo {photo.get_attribute('src')} did not load")
    assert browser.text_of("#mode-badge") == "Puppy Mode"
    check_layout("pet page")

    # When they open the vaccinations page
    browser.click("a#vaccinations-link", "vaccinations-empty")
    vaccinations_path = f"{pet_path}/vaccinations"
    assert browser.path == vaccinations_path
    assert browser.text_of("section#welfare #mode-badge") == "Puppy Mode"
    check_layout("vaccinations page, no records")

    # And record the first two puppy doses, at 10 and 14 weeks
    record_vaccination(browser, birth + timedelta(days=70), "vaccination-10-weeks")
    record_vaccination(browser, birth + timedelta(days=98), "vaccination-14-weeks")

    # Then Biscuit stays in Puppy Mode, is told why and from when meet-ups open, and cannot switch yet
    assert browser.text_of("section#welfare #mode-badge") == "Puppy Mode"
    reasons = [reason for reason in browser.texts("ul#welfare-reasons li") if reason]
    assert reasons, "Puppy Mode should list what is still needed"
    assert browser.text_of("p#earliest-social"), "Puppy Mode should name the earliest date for Social Mode"
    assert not browser.has("form#social-form"), f"switching must not be offered yet; reasons: {reasons}"
    assert len(browser.texts("ul#vaccination-list > li")) == 2
    check_layout("vaccinations page, two doses")

    # When they record the dose given at 17 weeks, 21 days ago (past the 7-day buffer)
    record_vaccination(browser, birth + timedelta(days=119), "vaccination-17-weeks")

    # Then switching to Social Mode is offered
    assert browser.has("form#social-form"), (
        "a dose at 16+ weeks given 21 days ago should allow Social Mode; "
        f"still listed: {browser.texts('ul#welfare-reasons li')}, {browser.texts('p#earliest-social')}")
    assert len(browser.texts("ul#vaccination-list > li")) == 3
    check_layout("vaccinations page, ready for Social Mode")

    # When they switch
    browser.click("form#social-form button#social-submit", "social-mode-on")

    # Then Social Mode is on and meet-ups are open
    assert browser.path == vaccinations_path, browser.errors
    assert "Social Mode is on: meet-ups are open." in browser.flashes, (browser.flashes, browser.errors)
    assert browser.text_of("section#welfare #mode-badge") == "Social Mode"
    assert not browser.has("form#social-form")
    check_layout("vaccinations page, Social Mode")

    # And the pet page and the pets list agree
    browser.visit(pet_path, "pet-social")
    assert browser.text_of("#mode-badge") == "Social Mode"
    browser.click("nav#app-nav a#nav-pets", "pets-one")
    summaries = browser.driver.find_elements(By.CSS_SELECTOR, "a.pet-summary")
    assert [s.get_attribute("href").rstrip("/").endswith(pet_path) for s in summaries] == [True], \
        [s.get_attribute("href") for s in summaries]
    assert "Biscuit" in summaries[0].text
    check_layout("pets list, one pet")

    assert not problems, "pages that do not fit a phone or have unlabelled inputs:\n" + pformat(problems)
