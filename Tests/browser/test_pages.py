"""Every page of the web app, on a 390 px phone and a 1280 px desktop, in the light and the dark
theme: each is screenshot (artifacts/screenshots/) and checked for what an automated
accessibility check would catch and a person would notice — axe-core's WCAG 2.1 A and AA rules
(colour contrast as drawn included), no sideways scrolling on a phone even with every inline
confirmation open, every image loaded and inside its box, every input labelled, one main
landmark and one heading, the navigation marking the current tab, and the skip link first in
the focus order. (The design tokens' pairs are also checked by `DesignSystemTests`.)
"""

from __future__ import annotations

import importlib.resources
import json
import urllib.request
import uuid
from datetime import date, datetime, timedelta, timezone
from pprint import pformat

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import (BASE_URL, DESKTOP_HEIGHT, DESKTOP_WIDTH, LAYOUT_PROBLEMS_JS, PHONE_HEIGHT, PHONE_WIDTH, REPO_ROOT, Api,
                      Browser, Owner, Screenshots, make_driver)

PHOTO = REPO_ROOT / "Tests" / "PawpackCoreTests" / "Fixtures" / "plain.jpg"
HAMMERFEST = (70.663, 23.681)

# axe-core 4.12, as the axe-playwright-python wheel carries it (installed by .ci/run).
AXE_JS = importlib.resources.files("axe_playwright_python").joinpath("axe.min.js").read_text()
AXE_RUN_JS = """
const done = arguments[arguments.length - 1];
axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}, resultTypes: ['violations']})
  .then(results => done(results.violations.map(v => `axe ${v.id}: ` + v.nodes.slice(0, 3).map(n => n.target.join(' ') + (n.any[0] ? ` (${n.any[0].message})` : '')).join('; '))))
  .catch(error => done([`axe failed: ${error}`]));
"""

PAGE_PROBLEMS_JS = """
const width = arguments[0], signedIn = arguments[1];
const problems = [];
for (const img of document.querySelectorAll('img')) {
  if (img.getClientRects().length === 0 || !img.getAttribute('src') || getComputedStyle(img).visibility === 'hidden') continue;
  // a lazy picture below the screen loads as the reader nears it (a feed's), not before
  if (img.loading === 'lazy' && !img.complete && img.getBoundingClientRect().top > window.innerHeight) continue;
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
// nothing lies over the heading or the way back (a photo's placeholder, a toast)
for (const el of document.querySelectorAll('main h1, main .back-link')) {
  if (el.getClientRects().length === 0) continue;
  el.scrollIntoView({block: 'center'});
  const box = el.getBoundingClientRect();
  const hit = document.elementFromPoint(box.left + Math.min(box.width / 2, 40), box.top + box.height / 2);
  if (hit && hit !== el && !el.contains(hit)) problems.push(`${el.tagName.toLowerCase()} is covered by ${hit.tagName.toLowerCase()}.${hit.className}`);
}
window.scrollTo(0, 0);
// a password's Show button stays inside its input, whatever hint or error is below it
for (const toggle of document.querySelectorAll('.password-toggle')) {
  const input = document.getElementById(toggle.dataset.toggles);
  if (!input || toggle.getClientRects().length === 0) continue;
  const t = toggle.getBoundingClientRect(), i = input.getBoundingClientRect();
  if (t.top < i.top - 1 || t.bottom > i.bottom + 1 || t.right > i.right + 1) problems.push(`the Show button of #${input.id} leaves its field`);
}
// the fact a list row is about (a welfare mode, "likes Pixel", a next due date) is never cut
for (const key of document.querySelectorAll('.row-key')) {
  if (key.getClientRects().length && key.scrollWidth > key.clientWidth + 1) problems.push(`"${key.textContent}" is cut`);
}
for (const button of document.querySelectorAll('button, a')) {
  if (button.getClientRects().length === 0) continue;
  const name = (button.getAttribute('aria-label') || button.textContent || '').trim();
  if (!name) problems.push(`${button.tagName.toLowerCase()}#${button.id} has no accessible name`);
}
return problems;
"""

# The inline confirmations (`details.confirm`: Unmatch, Block, Remove, Delete), all opened at
# once: the page must not scroll sideways or squeeze a name to a letter a line, and each
# confirming button, scrolled to the bottom of the screen, must not be under the tab bar.
CONFIRMATIONS_JS = """
const width = arguments[0];
const problems = [];
const details = Array.from(document.querySelectorAll('details')).filter(d => d.getClientRects().length);
if (details.length === 0) return problems;
for (const d of details) d.open = true;
const scrollWidth = document.documentElement.scrollWidth;
if (scrollWidth > width) problems.push(`with its confirmations open it scrolls sideways: ${scrollWidth}px on a ${width}px screen`);
for (const el of document.querySelectorAll('main h1, main h2, main h3, main strong, main a, main p, main button, main summary')) {
  if (el.getClientRects().length === 0) continue;
  const box = el.getBoundingClientRect(), line = parseFloat(getComputedStyle(el).lineHeight) || 20;
  const text = (el.textContent || '').trim();
  if (text.length >= 4 && box.height > 3.5 * line && box.width < 4 * line)
    problems.push(`"${text.slice(0, 30)}" is squeezed to ${Math.round(box.width)}px wide with the confirmations open`);
}
for (const d of details) {
  for (const button of d.querySelectorAll('button')) {
    if (button.getClientRects().length === 0) continue;
    button.scrollIntoView({block: 'end'});
    const box = button.getBoundingClientRect();
    const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    if (!hit || !(hit === button || button.contains(hit)))
      problems.push(`"${button.textContent.trim()}" at the bottom of the screen is under ${hit ? hit.tagName.toLowerCase() + '.' + hit.className : 'nothing'}`);
  }
}
for (const d of details) d.open = false;
window.scrollTo(0, 0);
return problems;
"""


@pytest.fixture(scope="module")
def community() -> dict:
    """A member in Hammerfest with a dog, a match, a request waiting and neighbours' photos."""
    member = Owner.fresh("pages")
    api = Api(member)
    dog = api.dog("Juno", *HAMMERFEST, playStyles=["chase"], neutered=True)
    api.upload_photo(dog, PHOTO)
    others, apis = {}, {}
    for name in ("Archie", "Olive", "Finn"):
        other = apis[name] = Api(Owner.fresh(name.lower()))
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
    # the last message is long, without a space to break at: the chat list must cut it, not widen
    api.call("POST", f"/v1/chats/{chat}/messages", {"id": str(uuid.uuid4()), "text": "Yes please, Hazel! " + "Woof" * 60})
    starts = (datetime.now(timezone.utc) + timedelta(days=2)).replace(microsecond=0).isoformat()
    matched.call("POST", f"/v1/chats/{chat}/meetups", {"startsAt": starts, "placeName": "Hammerfest harbour",
                                                         "latitude": HAMMERFEST[0], "longitude": HAMMERFEST[1]})
    # Care: Juno is shared with the member's family, eats a food with a stock, was fed and weighed
    family = api.call("POST", "/v1/families", {"name": "Juno's home", "timeZone": "Europe/Oslo"})["id"]
    api.call("PUT", f"/v1/families/{family}/pets/{dog}")
    food = api.call("POST", f"/v1/pets/{dog}/foods", {"name": "Salmon pouches", "kind": "wet", "kcal": 80, "packetsPerBox": 12})["id"]
    api.call("POST", f"/v1/foods/{food}/stock", {"set": 12, "unit": "packets"})
    api.call("POST", f"/v1/pets/{dog}/feeds", {"id": str(uuid.uuid4()), "foodId": food})
    for days, kilograms in ((14, 14.4), (0, 14.1)):
        api.call("POST", f"/v1/pets/{dog}/weights", {"kilograms": kilograms, "date": (date.today() - timedelta(days=days)).isoformat()})
    # Moments: Juno's friends-only photo, entered in the week's contest; Archie's owner is a
    # friend who posted one too and voted; Olive's asks to be friends
    moment = api.post_moment([dog], PHOTO, caption="Juno at the harbour")
    archies = apis["Archie"]
    asked = archies.call("POST", "/v1/friend-requests", {"username": member.username})
    api.call("POST", f"/v1/friend-requests/{asked['id']}/accept")
    archies.post_moment([others["Archie"]], PHOTO, privacy="public", caption="Archie and the ball")
    apis["Olive"].call("POST", "/v1/friend-requests", {"username": member.username})
    contest = api.call("GET", "/v1/contests/current")["id"]
    entry = api.call("POST", f"/v1/contests/{contest}/entries", {"photoId": moment, "makePublic": True})["id"]
    archies.call("PUT", f"/v1/contest-entries/{entry}/vote")
    return {"member": member, "dog": dog, "stranger": others["Finn"], "match": match, "chat": chat, "family": family,
            "moment": moment, "contest": contest}


# The pages come from the server (`/dev/pages`: each area's GET routes, and the tab each shows
# as current), so a new area's pages are checked here as soon as it registers them. A route is
# either visited with the values below for its parameters, or named here with why not.
NOT_PAGES = {
    "/assets/*": "the stylesheet and the script", "/manifest.webmanifest": "the install manifest",
    "/sw.js": "the service worker", "/icon.svg": "an icon", "/icon-192.png": "an icon", "/icon-512.png": "an icon",
    "/landing-dog-1.png": "a drawing", "/landing-dog-2.png": "a drawing", "/landing-dog-3.png": "a drawing",
    "/verify": "needs an emailed link: test_accounts.py", "/reset-password": "needs an emailed link: test_accounts.py",
    "/account/export": "a download", "/v1/realtime": "the realtime socket",
    "/media/pets/:petId/:file": "a photo", "/media/chats/:chatId/:file": "a photo", "/media/moments/:momentId/:file": "a photo",
    "/meetups/:meetupId/review": "needs a finished meet-up: test_chats.py",
    "/care/pets/:petId/feeds.csv": "a download",
    "/moments/contests/:contestId/leaderboard": "the leaderboard alone, which the contest page's script reads",
}
SIGNED_OUT = ("/", "/signup", "/login", "/forgot-password")
# Full-screen pages without the tab bar.
NO_NAV = ("/playdates/matches/:matchId", "/offline")
# The screenshots' names, kept as the docs and earlier runs know them.
NAMES = {
    "/": "landing", "/signup": "sign-up", "/login": "log-in", "/forgot-password": "forgot password",
    "/home": "home", "/pets/:petId/deck": "deck", "/pets/:petId/preferences": "preferences",
    "/pets/:petId/passes": "pass pile", "/playdates/requests": "requests", "/playdates/matches": "matches",
    "/playdates/matches/:matchId": "match", "/pets": "pets", "/pets/:petId": "pet", "/pets/:petId/edit": "edit pet",
    "/pets/:petId/vaccinations": "vaccinations", "/pets/:petId/guardians": "guardians", "/pets/new": "add pet",
    "/account": "account", "/account/location": "where are you", "/offline": "offline", "/chats": "chats",
    "/chats/:chatId": "chat", "/chats/:chatId/meetups/new": "propose meet-up", "/meetups": "meet-ups",
    "/notifications": "notifications", "/playdates": "playdates", "/pets/:petId/reviews": "reviews",
    "/care": "care", "/care/pets/:petId": "pet care", "/care/pets/:petId/history": "feed history",
    "/care/pets/:petId/health": "health", "/care/family": "families", "/care/families/:familyId": "family",
}


def listed_pages() -> list[dict]:
    """Every page the areas register, with its area and tab (`GET /dev/pages`)."""
    request = urllib.request.Request(f"{BASE_URL}/dev/pages", headers={"Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def pages(world: dict) -> list[tuple[str, str, str | None, bool]]:
    """(name, path, the tab it marks current, whether it has the tab bar) of each signed-in page,
    its parameters filled from `world`; fails on a page it cannot visit and no one excused."""
    values = {":petId": world["dog"], ":chatId": world["chat"], ":matchId": world["match"], ":familyId": world["family"],
              ":momentId": world["moment"], ":contestId": world["contest"]}
    visits, unvisitable = [], []
    for page in listed_pages():
        template = page["path"]
        if template in NOT_PAGES or template in SIGNED_OUT or template.startswith("/assets/"):
            continue
        path = "/".join(values.get(part, part) for part in template.split("/"))
        if ":" in path:
            unvisitable.append(f"{page['area']}: {template}")
            continue
        visits.append((NAMES.get(template, template.strip("/").replace("/", "-")), path, page.get("tab"),
                       template not in NO_NAV))
        if template == "/pets/:petId":
            visits.append(("another dog", path.replace(world["dog"], world["stranger"]), page.get("tab"), True))
    assert not unvisitable, "pages with a parameter this test cannot fill (give it a value, or say why not in NOT_PAGES):\n" + "\n".join(unvisitable)
    return visits


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
            found += driver.execute_script(CONFIRMATIONS_JS, width)
            driver.execute_script(AXE_JS)
            found += driver.execute_async_script(AXE_RUN_JS)
            driver.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
            if driver.execute_script("return document.activeElement.className") != "skip-link":
                found.append("the skip link is not first in the focus order")
            if found:
                problems[f"{name} ({browser.path})"] = found

        for path in SIGNED_OUT:
            browser.visit(path, f"{NAMES[path]}-{size}-{theme}")
            check(NAMES[path], False)
        browser.visit("/login", f"log-in-again-{size}-{theme}")
        browser.log_in(community["member"].email, community["member"].password, f"signed-in-{size}-{theme}")
        for name, path, tab, has_nav in pages(community):
            browser.visit(path, f"{name}-{size}-{theme}")
            check(name, has_nav)
            if has_nav:
                # the tab the page's area declares is the one marked current, and no other
                current = driver.find_elements(By.CSS_SELECTOR, "nav#app-nav [aria-current=page]")
                expected = f"nav-{tab}" if tab else None
                if [element.get_attribute("id") for element in current] != ([expected] if expected else []):
                    problems.setdefault(f"{name} ({path})", []).append(f"current tab is not {expected}")
    finally:
        driver.quit()
    assert not problems, f"{size}, {theme}:\n" + pformat(problems)


def test_a_toast_stays_clear_of_the_heading_and_does_not_come_back_on_reload(community: dict, browser: Browser) -> None:
    browser.visit("/login", "toast-login")
    browser.log_in(community["member"].email, community["member"].password, "toast-home")
    # given a page opened with a flash, as after saving a pet
    browser.visit(f"/pets/{community['dog']}?flash=pet-saved", "toast-shown")
    toast = browser.driver.find_element(By.ID, "toast").rect
    heading = browser.driver.find_element(By.TAG_NAME, "h1").rect
    # then the toast does not cover the heading
    apart = toast["y"] >= heading["y"] + heading["height"] or toast["y"] + toast["height"] <= heading["y"]
    assert apart, (toast, heading)
    # and the address forgot it: a reload shows no toast
    assert "flash=" not in browser.driver.current_url
    browser.driver.refresh()
    assert not browser.driver.find_elements(By.ID, "toast")



def test_home_shows_what_waits_for_the_member_across_areas(community: dict, browser: Browser) -> None:
    browser.visit("/login", "home-cards-login")
    browser.log_in(community["member"].email, community["member"].password, "home-cards")
    browser.visit("/home", "home-cards-home")
    # the Home tab is the current one, the account sits in the top bar
    assert browser.driver.find_element(By.CSS_SELECTOR, "nav#app-nav [aria-current=page]").get_attribute("id") == "nav-home"
    assert browser.has("a#topbar-me")
    # and what waits comes first: Mabel's request and the meet-up Hazel's owner proposed, then the
    # way to Juno's deck (the chat may have been read by the tests before)
    ids = browser.driver.execute_script("return Array.from(document.querySelectorAll('main section.home-card')).map(s => s.id)")
    for card in ("home-meetups-proposed", "waiting", "your-dogs"):
        assert card in ids, ids
    assert ids.index("waiting") < ids.index("home-meetups-proposed") < ids.index("your-dogs"), ids
