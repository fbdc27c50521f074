"""Every page of the web app, on a 390 px phone and a 1280 px desktop, in the light and the dark
theme: each is screenshot (artifacts/screenshots/) and checked for what an automated
accessibility check would catch and a person would notice — no sideways scrolling on a phone,
every image loaded and inside its box, every input labelled, one main landmark and one
heading, the navigation marking the current tab, and the skip link first in the focus order.
(Colour contrast is checked on the design tokens by `DesignSystemTests`.)
"""

from __future__ import annotations

import uuid
from datetime import date, datetime, timedelta, timezone
from pprint import pformat

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import (DESKTOP_HEIGHT, DESKTOP_WIDTH, LAYOUT_PROBLEMS_JS, PHONE_HEIGHT, PHONE_WIDTH, REPO_ROOT, Api,
                      Browser, Owner, Screenshots, make_driver)

PHOTO = REPO_ROOT / "Tests" / "PawpackCoreTests" / "Fixtures" / "plain.jpg"
HAMMERFEST = (70.663, 23.681)

PAGE_PROBLEMS_JS = """
const width = arguments[0], signedIn = arguments[1];
const problems = [];
for (const img of document.querySelectorAll('img')) {
  if (img.getClientRects().length === 0 || !img.getAttribute('src') || getComputedStyle(img).visibility === 'hidden') continue;
  if (!(img.complete && img.naturalWidth > 0)) problems.push(`image ${img.src} did not load`);
  const box = img.getBoundingClientRect(), parent = img.parentElement.getBoundingClientRect();
  if (box.right > width + 1) problems.push(`image ${img.src} reaches ${Math.round(box.right)}px on a ${width}px screen`);
  if (box.width > parent.width + 1 && getComputedStyle(img.parentElement).overflowX === 'visible')
    problems.push(`image ${img.src} is wider than its box`);
  if (!img.hasAttribute('alt')) problems.push(`image ${img.src} has no alt text`);
}
if (document.querySelectorAll('main').length !== 1) problems.push('not exactly one <main>');
if (document.querySelectorAll('h1').length !== 1) problems.push('not exactly one <h1>');
const nav = document.querySelector('nav[aria-label=Main]');
if (signedIn && nav && nav.querySelectorAll('[aria-current=page]').length > 1) problems.push('more than one current tab');
for (const button of document.querySelectorAll('button, a')) {
  if (button.getClientRects().length === 0) continue;
  const name = (button.getAttribute('aria-label') || button.textContent || '').trim();
  if (!name) problems.push(`${button.tagName.toLowerCase()}#${button.id} has no accessible name`);
}
return problems;
"""


@pytest.fixture(scope="module")
def community() -> dict:
    """A member in Hammerfest with a dog, a match, a request waiting and neighbours' photos."""
    member = Owner.fresh("pages")
    api = Api(member)
    dog = api.dog("Juno", *HAMMERFEST, playStyles=["chase"], neutered=True)
    api.upload_photo(dog, PHOTO)
    others = {}
    for name in ("Archie", "Olive", "Finn"):
        other = Api(Owner.fresh(name.lower()))
        others[name] = other.dog(name, *HAMMERFEST)
        other.upload_photo(others[name], PHOTO)
    api.like(dog, others["Archie"])  # a request Juno sent
    asker = Api(Owner.fresh("mabel"))  # a request waiting for Juno's answer
    mabel = asker.dog("Mabel", *HAMMERFEST)
    asker.like(mabel, dog)
    matched = Api(Owner.fresh("hazel"))  # a match, with a chat, a message and a meet-up proposed
    hazel = matched.dog("Hazel", *HAMMERFEST)
    matched.upload_photo(hazel, PHOTO)
    given = (date.today() - timedelta(days=30)).isoformat()
    for owner, pet in ((api, dog), (matched, hazel)):
        owner.call("POST", f"/v1/pets/{pet}/vaccinations", {"vaccine": "dhpp", "givenOn": given})
    matched.like(hazel, dog)
    api.like(dog, hazel)
    match = api.call("GET", "/v1/matches")["items"][0]["id"]
    chat = api.call("GET", "/v1/chats")["items"][0]["id"]
    matched.call("POST", f"/v1/chats/{chat}/messages", {"id": str(uuid.uuid4()), "text": "Hello Juno! Walk on Saturday?"})
    api.call("POST", f"/v1/chats/{chat}/messages", {"id": str(uuid.uuid4()), "text": "Yes please, Hazel."})
    starts = (datetime.now(timezone.utc) + timedelta(days=2)).replace(microsecond=0).isoformat()
    matched.call("POST", f"/v1/chats/{chat}/meetups", {"startsAt": starts, "placeName": "Hammerfest harbour",
                                                         "latitude": HAMMERFEST[0], "longitude": HAMMERFEST[1]})
    return {"member": member, "dog": dog, "stranger": others["Finn"], "match": match, "chat": chat}


def pages(world: dict) -> list[tuple[str, str]]:
    dog = world["dog"]
    return [
        ("home", "/home"), ("deck", f"/pets/{dog}/deck"), ("preferences", f"/pets/{dog}/preferences"),
        ("pass pile", f"/pets/{dog}/passes"), ("requests", "/playdates/requests"), ("matches", "/playdates/matches"),
        ("match", f"/playdates/matches/{world['match']}"), ("pets", "/pets"), ("pet", f"/pets/{dog}"),
        ("edit pet", f"/pets/{dog}/edit"), ("vaccinations", f"/pets/{dog}/vaccinations"),
        ("guardians", f"/pets/{dog}/guardians"), ("add pet", "/pets/new"), ("another dog", f"/pets/{world['stranger']}"),
        ("me", "/account"), ("where are you", "/account/location"), ("offline", "/offline"),
        ("chats", "/chats"), ("chat", f"/chats/{world['chat']}"), ("propose meet-up", f"/chats/{world['chat']}/meetups/new"),
        ("meet-ups", "/meetups"), ("notifications", "/notifications"),
    ]


@pytest.mark.parametrize("width,height,theme", [
    (PHONE_WIDTH, PHONE_HEIGHT, "light"), (PHONE_WIDTH, PHONE_HEIGHT, "dark"),
    (DESKTOP_WIDTH, DESKTOP_HEIGHT, "light"), (DESKTOP_WIDTH, DESKTOP_HEIGHT, "dark"),
])
def test_every_page_fits_loads_its_images_and_has_its_landmarks(community: dict, screenshots: Screenshots,
                                                                width: int, height: int, theme: str) -> None:
    driver = make_driver(width, height, dark=theme == "dark")
    browser = Browser(driver, screenshots)
    problems: dict[str, list[str]] = {}
    size = "phone" if width == PHONE_WIDTH else "desktop"
    try:
        def check(name: str, signed_in: bool) -> None:
            found = driver.execute_script(LAYOUT_PROBLEMS_JS, width) + driver.execute_script(PAGE_PROBLEMS_JS, width, signed_in)
            driver.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
            if driver.execute_script("return document.activeElement.className") != "skip-link":
                found.append("the skip link is not first in the focus order")
            if found:
                problems[f"{name} ({browser.path})"] = found

        for name, path in (("landing", "/"), ("sign-up", "/signup"), ("log-in", "/login"), ("forgot password", "/forgot-password")):
            browser.visit(path, f"{name}-{size}-{theme}")
            check(name, False)
        browser.visit("/login", f"log-in-again-{size}-{theme}")
        browser.log_in(community["member"].email, community["member"].password, f"signed-in-{size}-{theme}")
        for name, path in pages(community):
            browser.visit(path, f"{name}-{size}-{theme}")
            check(name, name not in ("match", "offline"))
            if name not in ("match", "offline"):
                current = driver.find_elements(By.CSS_SELECTOR, "nav#app-nav [aria-current=page]")
                expected = {"home": "nav-me", "me": "nav-me", "where are you": "nav-me", "notifications": None}.get(
                    name, "nav-chats" if path.startswith(("/chats", "/meetups"))
                    else "nav-pets" if path.startswith("/pets") and not path.endswith(("/deck", "/preferences", "/passes"))
                    else "nav-playdates")
                if [element.get_attribute("id") for element in current] != ([expected] if expected else []):
                    problems.setdefault(f"{name} ({path})", []).append(f"current tab is not {expected}")
    finally:
        driver.quit()
    assert not problems, f"{size}, {theme}:\n" + pformat(problems)
