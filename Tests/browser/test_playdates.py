"""Playdates in real browsers on 390 px phone screens: a new member's first run from sign-up to
a first like, swiping by dragging with JavaScript (no page load) and with plain forms without
it, and the full-screen match.

Each test's members live in a town of their own (picked from the bundled places), so decks
hold exactly the dogs the test put there. Other members are set up through the JSON API.
"""

from __future__ import annotations

import re

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from conftest import REPO_ROOT, Api, Browser, Owner, Screenshots, make_driver

PHOTO = REPO_ROOT / "Tests" / "PawpackCoreTests" / "Fixtures" / "plain.jpg"
DECK_PATH = re.compile(r"^/pets/([0-9a-f-]{36})/deck$")
# Tromsø's centre, as the bundled places have it.
TROMSO = (69.649, 18.957)


def drag(browser: Browser, element, dx: int) -> None:
    """A finger (mouse) dragging `element` sideways by dx pixels from its middle, in small
    steps; the page is scrolled so that the card is in view first."""
    browser.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    actions = ActionChains(browser.driver, duration=40)
    actions.move_to_element(element).click_and_hold()
    for _ in range(6):
        actions.move_by_offset(dx // 6, 0)
    actions.release().perform()


def test_a_new_member_goes_from_sign_up_to_a_first_like_and_swipes_without_reloading(browser: Browser) -> None:
    # given two dogs in Tromsø: Rex, like the newcomer's, and Cleo, a giant old dog
    rex_owner = Api(Owner.fresh("rex").living_in("Tromsø"))
    rex_owner.dog("Rex", *TROMSO, estimatedAgeMonths=30, weightKg=12.0)
    cleo_owner = Api(Owner.fresh("cleo").living_in("Tromsø"))
    cleo_owner.dog("Cleo", *TROMSO, estimatedAgeMonths=140, weightKg=60.0)

    # when a newcomer from Tromsø signs up and opens the link in the mail, they are signed in
    # and their home lists what a first playdate needs
    ada = Owner.fresh("ada").living_in("Tromsø")
    browser.sign_up_and_verify(ada, "first-run-")
    assert browser.texts("#checklist li.todo"), "nothing done yet"

    # and they add their dog with a photo from the checklist
    browser.click("#step-dog a", "first-run-add-dog")
    form = browser.driver.find_element(By.CSS_SELECTOR, "form#pet-form")
    for name, value in {"name": "Biscuit", "estimatedAgeMonths": "30", "weightKg": "11"}.items():
        browser.fill(form.find_element(By.NAME, name), value)
    browser.fill(form.find_element(By.CSS_SELECTOR, "input#photo"), str(PHOTO))
    browser.click("button#pet-submit", "first-run-where-are-you")

    # then Pawpack asks where they are, offering the town they gave at sign-up
    assert browser.path == "/account/location", browser.errors
    assert "Tromsø" in browser.text_of("#places li:first-child button")
    browser.click("#places li:first-child button", "first-run-deck")

    # and their deck opens, photo cards with chips and no raw score, Rex on top
    match = DECK_PATH.match(browser.path)
    assert match, browser.path
    assert "Location saved. Only you can see it." in browser.flashes
    assert browser.text_of("#deck-name").startswith("Rex")
    assert browser.texts("#deck-reasons li"), "the card says why Rex suits"
    assert "score" not in browser.text_of("#deck").lower()
    assert not browser.layout_problems(), browser.layout_problems()
    assert browser.has("#undo-form[hidden]"), "nothing to undo yet"

    # when they drag Rex's card to the right
    mark = browser.mark_page()
    drag(browser, browser.driver.find_element(By.CSS_SELECTOR, "#deck .deck-card"), 150)

    # then the like is sent without loading a page, Cleo comes up and Undo appears
    top_name = "return (document.querySelector('#deck .deck-card h2') || {}).textContent || ''"
    browser.wait.until(lambda d: "Cleo" in d.execute_script(top_name))
    assert browser.same_page(mark), "the swipe loaded a new page"
    assert browser.has("#undo-form:not([hidden])")
    # and they are told the like went out, and the round buttons now name Cleo
    assert "Liked! Their owner will be asked." in browser.text_of("#toast")
    assert browser.driver.find_element(By.ID, "like-button").get_attribute("aria-label") == "Like Cleo"
    assert browser.driver.find_element(By.ID, "pass-button").get_attribute("aria-label") == "Pass on Cleo"
    browser.screenshots.take(browser.driver, "first-run-after-a-drag")
    requests = rex_owner.call("GET", "/v1/match-requests?direction=incoming")["items"]
    assert [r["fromPet"]["name"] for r in requests] == ["Biscuit"], requests

    # and a tap on Pass sends the last card away; the deck then says it is empty
    browser.driver.find_element(By.CSS_SELECTOR, "button#pass-button").click()
    browser.wait.until(lambda d: browser.has("#deck-empty"))
    browser.screenshots.take(browser.driver, "first-run-deck-empty")

    # and the home checklist is done
    browser.visit("/home", "first-run-home-done")
    assert not browser.has("#checklist"), browser.texts("#checklist li")


@pytest.fixture
def plain_browser(screenshots: Screenshots):
    driver = make_driver(javascript=False)
    yield Browser(driver, screenshots)
    driver.quit()


def test_without_javascript_the_like_and_pass_buttons_post_forms(plain_browser: Browser) -> None:
    browser = plain_browser
    # given a member in Bodø with a dog, and two dogs nearby
    for name in ("Otto", "Maple"):
        Api(Owner.fresh(name.lower())).dog(name, 67.280, 14.405)
    member = Owner.fresh("plain").living_in("Bodø")
    api = Api(member)
    api.dog("Pepper", 67.280, 14.405)
    browser.visit("/login", "plain-login")
    browser.log_in(member.email, member.password, "plain-home")
    browser.visit("/playdates", "plain-deck")
    assert DECK_PATH.match(browser.path), browser.path
    first = browser.text_of("#deck-name")

    # when they press Like (a plain form: the page loads again)
    browser.click("button#like-button", "plain-liked")

    # then they are told, and the other dog is on top
    assert "Liked! Their owner will be asked." in browser.flashes
    assert browser.text_of("#deck-name") != first
    browser.click("button#pass-button", "plain-passed")
    assert "Passed." in browser.flashes
    assert browser.has("#deck-empty")
    # and the dog passed on waits in the pass pile, reachable from the deck
    browser.click("a#passes-link", "plain-pass-pile")
    assert len(browser.texts("#pass-list li")) == 1


def test_accepting_a_request_is_a_full_screen_match_with_both_dogs(browser: Browser) -> None:
    # given a member in Narvik whose dog Rosie another dog, Teddy, has asked to meet
    member = Owner.fresh("rosie")
    api = Api(member)
    rosie = api.dog("Rosie", 68.438, 17.427)
    teddy_owner = Api(Owner.fresh("teddy"))
    teddy = teddy_owner.dog("Teddy", 68.438, 17.427)
    teddy_owner.upload_photo(teddy, PHOTO)
    teddy_owner.like(teddy, rosie)
    browser.visit("/login", "match-login")
    browser.log_in(member.email, member.password, "match-home")
    assert browser.text_of("#requests-count").startswith("1"), "the Playdates tab counts the request"

    # when they accept it on the requests page (buttons named for screen readers)
    browser.visit("/playdates/requests", "match-requests")
    accept = browser.driver.find_element(By.CSS_SELECTOR, "#incoming-requests button[id^=accept-]")
    assert accept.get_attribute("aria-label") == "Accept Teddy's request"
    browser.click("#incoming-requests button[id^=accept-]", "match-screen")

    # then a full-screen match shows both dogs and what to do next
    assert browser.text_of("#match-title") == "It's a match!"
    assert browser.text_of("#match-other") == "Teddy"
    assert browser.has("a#view-matches") and browser.has("a#keep-swiping")
    chat = browser.driver.find_element(By.ID, "say-hello").get_attribute("href")
    assert re.search(r"/chats/[0-9a-f-]{36}$", chat), chat
    assert not browser.has("nav#app-nav"), "the match screen stands alone"
    photo = browser.driver.find_element(By.CSS_SELECTOR, ".match-pair img")
    assert browser.driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", photo)

    # and the match is listed with Teddy's photo; unmatching asks first
    browser.click("a#view-matches", "match-list")
    rows = browser.texts("#match-list li")
    assert len(rows) == 1 and "Teddy" in rows[0], rows
    assert not browser.driver.find_element(By.CSS_SELECTOR, "#match-list button[id^=unmatch-]").is_displayed()
    browser.driver.find_element(By.CSS_SELECTOR, "#match-list summary[id^=unmatch-]").click()
    browser.click("#match-list button[id^=unmatch-]", "match-unmatched")
    assert "Unmatched." in browser.flashes
    assert browser.has("#matches-empty")


def test_the_member_who_liked_first_hears_of_the_match_wherever_they_are(browser: Browser) -> None:
    # given a member in Alta whose dog Nova liked Bramble, and who is looking at their pets
    member = Owner.fresh("nova")
    api = Api(member)
    nova = api.dog("Nova", 69.968, 23.271)
    bramble_owner = Api(Owner.fresh("bramble"))
    bramble = bramble_owner.dog("Bramble", 69.968, 23.271)
    api.like(nova, bramble)
    browser.visit("/login", "first-liker-login")
    browser.log_in(member.email, member.password, "first-liker-home")
    browser.visit("/pets", "first-liker-pets")
    browser.wait.until(lambda d: d.execute_script("return document.documentElement.dataset.realtime === 'open'"))

    # when Bramble's owner likes back
    bramble_owner.like(bramble, nova)

    # then a toast says it is a match, and leads to the chat it opened
    browser.wait.until(lambda d: "It's a match" in (d.execute_script("return (document.getElementById('toast') || {}).textContent || ''")))
    browser.screenshots.take(browser.driver, "first-liker-match-toast")
    link = browser.driver.find_element(By.CSS_SELECTOR, "#toast a")
    assert link.text == "Say hello" and re.search(r"/chats/[0-9a-f-]{36}$", link.get_attribute("href"))



def test_the_requests_and_chats_pages_follow_what_happens_elsewhere(browser: Browser) -> None:
    # given a member in Harstad with Kiwi, looking at their requests, and Pip's owner nearby
    member = Owner.fresh("kiwi")
    api = Api(member)
    kiwi = api.dog("Kiwi", 68.798, 16.541)
    pip_owner = Api(Owner.fresh("pip"))
    pip = pip_owner.dog("Pip", 68.798, 16.541)
    browser.visit("/login", "live-login")
    browser.log_in(member.email, member.password, "live-home")
    browser.visit("/playdates/requests", "live-requests-empty")
    open_socket = "return document.documentElement.dataset.realtime === 'open'"
    browser.wait.until(lambda d: d.execute_script(open_socket))

    # when Pip likes Kiwi, the request appears without a reload by hand
    pip_owner.like(pip, kiwi)
    browser.wait.until(lambda d: "Pip" in d.execute_script("return (document.getElementById('incoming-requests') || {}).textContent || ''"))
    browser.screenshots.take(browser.driver, "live-requests-arrived")

    # and on the chat list, the match's chat and then Pip's owner's message come in by themselves
    browser.visit("/chats", "live-chats-empty")
    browser.wait.until(lambda d: d.execute_script(open_socket))
    api.like(kiwi, pip)
    browser.wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#chat-list .chat-row"))
    browser.wait.until(lambda d: d.execute_script(open_socket))
    chat = pip_owner.call("GET", "/v1/chats")["items"][0]["id"]
    pip_owner.call("POST", f"/v1/chats/{chat}/messages", {"id": "8c4a1f52-6f3e-4d8e-9d2a-3b1f0c9e7a11", "text": "Walk by the harbour?"})
    browser.wait.until(lambda d: "Walk by the harbour?" in d.execute_script("return document.getElementById('chat-list').textContent"))
    browser.screenshots.take(browser.driver, "live-chats-message")


def test_a_dog_opened_from_the_deck_leads_back_with_like_and_pass(browser: Browser) -> None:
    # given a member in Bodø's neighbour Fauske with a dog, and Loki nearby
    Api(Owner.fresh("loki")).dog("Loki", 67.259, 15.391)
    member = Owner.fresh("fauske")
    Api(member).dog("Skye", 67.259, 15.391)
    browser.visit("/login", "from-deck-login")
    browser.log_in(member.email, member.password, "from-deck-home")
    browser.visit("/playdates", "from-deck-deck")
    assert browser.text_of("#deck-name").startswith("Loki")

    # when they open Loki's card, the page leads back to the deck and offers Like and Pass
    browser.click("#deck .deck-card a", "from-deck-profile")
    assert browser.text_of("a.back-link") == "Skye's deck"
    # and Like sends the request and returns to the deck, saying so
    browser.click("button#profile-like", "from-deck-liked")
    assert DECK_PATH.match(browser.path), browser.path
    assert "Liked! Their owner will be asked." in browser.flashes


def test_many_requests_come_twenty_at_a_time_with_more(two_browsers) -> None:
    # given a member in Alta whose dog Aurora 21 dogs have asked to meet, the last one Asker 20
    member = Owner.fresh("alta")
    aurora = Api(member).dog("Aurora", 69.969, 23.272)
    for number in range(21):
        asker = Api(Owner.fresh(f"asker{number}"))
        asker.like(asker.dog(f"Asker {number}", 69.969, 23.272), aurora)

    for browser, shot in zip(two_browsers, ("requests-paged-phone", "requests-paged-desktop-dark")):
        # when they open the requests page, on a phone and on a desktop
        browser.visit("/login", f"{shot}-login")
        browser.log_in(member.email, member.password, f"{shot}-home")
        browser.visit("/playdates/requests", shot)

        # then the twenty newest come first, and "More requests" leads to the last one
        names = browser.texts("#incoming-requests li.dog-row strong")
        assert len(names) == 20 and names[0] == "Asker 20" and names[-1] == "Asker 1", names
        if shot.endswith("phone"):  # the check measures against a phone's width
            assert not browser.layout_problems(), browser.layout_problems()
        browser.driver.execute_script("document.getElementById('incoming-more').scrollIntoView({block: 'center'})")
        browser.screenshots.take(browser.driver, f"{shot}-its-end")
        browser.click("a#incoming-more", f"{shot}-more")
        assert browser.texts("#incoming-requests li.dog-row strong") == ["Asker 0"]
        assert not browser.has("a#incoming-more")
