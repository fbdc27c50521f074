"""Moments in two real browsers at once: Ada on a 390 px phone (light), Bob on a desktop (dark).
Bob finds Ada by the start of her name and asks; Ada accepts from Home. Ada posts a large
friends-only photo through the page, whose canvas makes the display size and thumbnail; Bob
sees it in his feed and Cyd, a stranger, does not. Both enter the week's contest, and Bob's
vote moves the leaderboard on Ada's open contest page without a reload.
"""

from __future__ import annotations

import json
import struct
import tempfile
import urllib.error
import urllib.request
import zlib
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import BASE_URL, Api, Browser, Owner


def large_png(width: int = 2400, height: int = 1800) -> Path:
    """A picture larger than the display size, so the page has copies to make."""
    rows = []
    for y in range(height):
        band = (y * 6 // height) * 40
        rows.append(b"\x00" + bytes((band + x * 200 // width) % 256 for x in range(width)) * 3)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b"")
    path = Path(tempfile.mkdtemp()) / "zoomies.png"
    path.write_bytes(data)
    return path


def status_of(api: Api, path: str) -> int:
    request = urllib.request.Request(BASE_URL + path, headers={"Authorization": f"Bearer {api.token}", "Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def test_friends_see_a_friends_only_photo_and_votes_move_the_leaderboard_live(two_browsers) -> None:
    ada_browser, bob_browser = two_browsers
    ada, bob, cyd = Owner.fresh("ada"), Owner.fresh("bob"), Owner.fresh("cyd")
    ada_api, bob_api, cyd_api = Api(ada), Api(bob), Api(cyd)
    rex = ada_api.call("POST", "/v1/pets", {"name": "Rex", "species": "dog", "estimatedAgeMonths": 30, "weightKg": 12,
                                            "neutered": True})["card"]["id"]
    bob_api.call("POST", "/v1/pets", {"name": "Bo", "species": "cat", "estimatedAgeMonths": 20})["card"]["id"]

    # when Bob searches for the start of Ada's username on his desktop and asks her
    bob_browser.visit("/login", "moments-bob-login")
    bob_browser.log_in(bob.email, bob.password, "moments-bob-home")
    bob_browser.visit("/moments/friends?query=" + ada.username[:6], "moments-search-desktop-dark")
    bob_browser.click(f"#add-{ada.username}", "moments-asked-desktop-dark")
    assert any("Asked" in flash for flash in bob_browser.flashes), bob_browser.flashes

    # then Ada, on her phone, answers from Home
    ada_browser.visit("/login", "moments-ada-login")
    ada_browser.log_in(ada.email, ada.password, "moments-ada-home")
    assert ada_browser.has("#home-friend-requests"), "Home shows the friend request"
    ada_browser.click(f"#accept-{bob.username}", "moments-accepted-phone")
    assert any("friends" in flash for flash in ada_browser.flashes), ada_browser.flashes
    assert ada_browser.has(f"#friend-{bob.username}")

    # when Ada posts a large friends-only photo of Rex through the page
    ada_browser.visit("/moments/new", "moments-new-phone")
    form = ada_browser.driver.find_element(By.CSS_SELECTOR, "form#moment-form")
    ada_browser.fill(form.find_element(By.NAME, "photo"), str(large_png()))
    # the page's canvas has made both copies (the script fills the hidden inputs)
    WebDriverWait(ada_browser.driver, 20).until(lambda d: d.execute_script(
        "var f = document.getElementById('moment-form');"
        "return f.querySelector('[name=display]').files.length === 1 && f.querySelector('[name=thumbnail]').files.length === 1"))
    # Rex, her only pet, is chosen already
    assert form.find_element(By.CSS_SELECTOR, f"input[name='pets[]'][value='{rex}']").is_selected()
    ada_browser.fill(form.find_element(By.NAME, "caption"), "Zoomies at dawn")
    ada_browser.click("#moment-submit", "moments-posted-phone")
    assert any("Posted" in flash for flash in ada_browser.flashes), ada_browser.flashes
    photo = ada_browser.path.rsplit("/", 1)[-1]
    moment = ada_api.call("GET", f"/v1/photos/{photo}")
    assert moment["privacy"] == "friends" and moment["width"] == 2400
    assert "display" in moment["displayUrl"] and "thumbnail" in moment["thumbnailUrl"], moment

    # then Bob sees it in his feed, drawn from the display size; Cyd, a stranger, sees nothing of it
    bob_browser.visit("/moments", "moments-friends-feed-desktop-dark")
    assert bob_browser.has(f"#moment-{photo}"), "the friend sees the friends-only photo"
    shown = bob_browser.driver.find_element(By.CSS_SELECTOR, f"#moment-{photo} img")
    assert "/display" in shown.get_attribute("src") and shown.get_attribute("naturalWidth") == "1600"
    assert status_of(cyd_api, f"/v1/photos/{photo}") == 404
    assert photo not in json.dumps(cyd_api.call("GET", "/v1/feeds/global"))

    # when both enter the week's contest: Ada from her photo's page (saying it may be public),
    # Bob a public photo of his cat (his only pet, chosen already) from the contest page
    ada_browser.visit(f"/moments/photos/{photo}", "moments-photo-phone")
    ada_browser.tap("label[for=makePublic]")
    ada_browser.click("#enter-contest", "moments-entered-phone")
    assert any("Entered" in flash for flash in ada_browser.flashes), ada_browser.flashes
    bob_browser.visit("/moments/new", "moments-new-desktop-dark")
    bob_form = bob_browser.driver.find_element(By.CSS_SELECTOR, "form#moment-form")
    bob_browser.fill(bob_form.find_element(By.NAME, "photo"), str(large_png(1200, 900)))
    bob_browser.fill(bob_form.find_element(By.NAME, "privacy"), "public")
    bob_browser.click("#moment-submit", "moments-bob-posted-desktop-dark")
    bob_photo = bob_browser.path.rsplit("/", 1)[-1]
    bob_browser.visit("/moments/contest", "moments-contest-desktop-dark")
    bob_browser.tap(f"label.photo-choice:has(#enter-{bob_photo})")
    bob_browser.click("#enter-contest", "moments-bob-entered-desktop-dark")
    assert any("Entered" in flash for flash in bob_browser.flashes), bob_browser.flashes

    # then Ada watches the contest page while Bob votes for her entry: the leaderboard moves
    # without a reload
    ada_browser.visit("/moments/contest", "moments-contest-phone")
    assert not ada_browser.has("#leaderboard .leaderboard li"), "no votes yet"
    mark = ada_browser.mark_page()
    bob_browser.visit("/moments/contest", "moments-contest-before-vote-desktop-dark")
    vote = bob_browser.driver.find_element(By.CSS_SELECTOR, f"#moment-{photo} button.vote")
    bob_browser.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", vote)
    vote.click()
    WebDriverWait(bob_browser.driver, 10).until(lambda d: vote.get_attribute("aria-pressed") == "true")
    assert "1 vote" in vote.text
    WebDriverWait(ada_browser.driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#leaderboard .leaderboard li"))
    assert ada_browser.same_page(mark), "the leaderboard moved in place"
    first = ada_browser.texts("#leaderboard .leaderboard li")[0]
    assert "Rex" in first and "1 vote" in first, first
    ada_browser.screenshots.take(ada_browser.driver, "moments-leaderboard-live-phone")
    bob_browser.screenshots.take(bob_browser.driver, "moments-voted-desktop-dark")
