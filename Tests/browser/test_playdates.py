"""Two dog owners near each other find each other's dogs in their decks, like them, and both
see the match — in two real browsers on 390 px phone screens."""

from __future__ import annotations

import pytest

from conftest import Browser, Owner, Screenshots, make_driver


def join_with_a_dog(browser: Browser, owner: Owner, dog_name: str, latitude: str, longitude: str, prefix: str) -> None:
    """Sign up, verify, log in, set a location and add a 30-month-old dog."""
    browser.sign_up_and_verify(owner, f"{prefix}-")
    browser.click("a#login-link", f"{prefix}-login")
    browser.log_in(owner.email, owner.password, f"{prefix}-home")
    assert browser.path == "/home", browser.errors
    browser.visit("/account", f"{prefix}-account")
    browser.submit("form#location-form", {"latitude": latitude, "longitude": longitude},
                   "button#location-submit", f"{prefix}-location-saved")
    assert "Location saved. Only you can see it." in browser.flashes, browser.errors
    browser.visit("/pets/new", f"{prefix}-add-pet")
    browser.submit("form#pet-form", {"name": dog_name, "species": "dog", "estimatedAgeMonths": "30", "weightKg": "14"},
                   "button#pet-submit", f"{prefix}-pet-added")
    assert "Pet added." in browser.flashes, browser.errors


def open_deck(browser: Browser, prefix: str) -> None:
    browser.click("nav#app-nav a#nav-playdates", f"{prefix}-playdates")
    browser.click("a.pet-summary", f"{prefix}-deck")


@pytest.fixture
def second_browser(screenshots: Screenshots):
    driver = make_driver()
    yield Browser(driver, screenshots)
    driver.quit()


def test_two_owners_like_each_others_dogs_and_both_see_the_match(browser: Browser, second_browser: Browser) -> None:
    # given two owners in Lyon, 2 km apart, each with a dog
    ada, bob = Owner.fresh("ada"), Owner.fresh("bob")
    join_with_a_dog(browser, ada, "Biscuit", "45.7640", "4.8357", "ada")
    join_with_a_dog(second_browser, bob, "Rex", "45.7820", "4.8357", "bob")

    # when Ada opens Biscuit's deck, Rex is there, with why and how far — and she likes him
    open_deck(browser, "ada")
    assert browser.text_of("#deck-name") == "Rex"
    assert browser.text_of("#deck-distance") == "2 km"
    assert browser.texts("#deck-reasons li"), "a card says why it scored as it did"
    assert not browser.layout_problems(), browser.layout_problems()
    browser.click("button#like-button", "ada-liked")
    assert "Liked! Their owner will be asked." in browser.flashes
    assert browser.has("#deck-empty")

    # then Bob sees the request, finds Biscuit in Rex's deck and likes her back: a match
    second_browser.visit("/playdates/requests", "bob-requests")
    assert second_browser.texts("#incoming-requests li"), "Bob has a request waiting"
    open_deck(second_browser, "bob")
    assert second_browser.text_of("#deck-name") == "Biscuit"
    second_browser.click("button#like-button", "bob-liked")
    assert "It's a match!" in second_browser.flashes

    # and both see the match on their matches page
    for side, prefix in ((browser, "ada"), (second_browser, "bob")):
        side.visit("/playdates/matches", f"{prefix}-matches")
        matches = side.texts("#match-list li")
        assert len(matches) == 1, matches
        assert "Biscuit" in matches[0] and "Rex" in matches[0]
