"""Care in two real browsers at once: Sam on a 390 px phone (light) and Alex on a desktop
(dark), one family sharing Sam's cat. Alex joins with the family's code through the page; a
feed Sam logs with one tap appears on Alex's card without a reload, the stock goes down, and
Alex, about to feed again, is asked first ("Sam fed Miso … ago"). A week of feeds logged
earlier makes the health page's insight appear.
"""

from __future__ import annotations

import re
import urllib.request
import uuid
from datetime import datetime, timedelta

from selenium.webdriver.common.by import By

from conftest import BASE_URL, Api, Browser, Owner


def server_now() -> datetime:
    """The server's clock (other tests move it forward), from the development clock page."""
    with urllib.request.urlopen(f"{BASE_URL}/dev/clock", timeout=10) as answer:
        page = answer.read().decode()
    return datetime.fromisoformat(re.search(r'id="server-time">([^<]+)<', page).group(1).replace("Z", "+00:00"))


def card_feeds(browser: Browser, pet: str) -> list[str]:
    return browser.texts(f"#care-{pet} .care-today li")


def test_a_household_sees_each_feed_live_and_the_insight_after_a_week(two_browsers) -> None:
    sam_browser, alex_browser = two_browsers
    # given Sam's neutered adult cat, its pouches with 20 left, and a week of two packets a day
    sam, alex = Owner.fresh("sam"), Owner.fresh("alex")
    sam_api, alex_api = Api(sam), Api(alex)
    miso = sam_api.call("POST", "/v1/pets", {"name": "Miso", "species": "cat", "estimatedAgeMonths": 40,
                                             "weightKg": 4.2, "neutered": True})["card"]["id"]
    food = sam_api.call("POST", f"/v1/pets/{miso}/foods", {"name": "Salmon pouches", "kind": "wet", "kcal": 75})["id"]
    now = server_now()
    for days in range(1, 8):
        for hours in (2, 9):
            fed_at = (now - timedelta(days=days, hours=hours)).isoformat().replace("+00:00", "Z")
            sam_api.call("POST", f"/v1/pets/{miso}/feeds", {"id": str(uuid.uuid4()), "foodId": food, "fedAt": fed_at, "logAnyway": True})
    sam_api.call("POST", f"/v1/foods/{food}/stock", {"set": 20, "unit": "packets"})
    family = sam_api.call("POST", "/v1/families", {"name": "Sam's home", "timeZone": "Europe/Oslo"})["id"]
    sam_api.call("PUT", f"/v1/families/{family}/pets/{miso}")
    code = sam_api.call("POST", f"/v1/families/{family}/invite-code")["code"]
    _ = alex_api  # Alex signs up through the API, and does the rest in the browser

    # when Alex asks to join with the code, typed with a space, and Sam accepts on her phone
    alex_browser.visit("/login", "care-alex-login")
    alex_browser.log_in(alex.email, alex.password, "care-alex-home")
    alex_browser.visit("/care/family", "care-families-desktop-dark")
    alex_browser.submit("form#join-form", {"code": code[:3] + " " + code[3:]}, "button#join", "care-join-asked-desktop-dark")
    assert any("Asked" in flash for flash in alex_browser.flashes), alex_browser.flashes
    sam_browser.visit("/login", "care-sam-login")
    sam_browser.log_in(sam.email, sam.password, "care-sam-home")
    assert sam_browser.has("#home-join-requests"), "Home shows the request waiting"
    sam_browser.click("#home-join-requests button[id^=accept-]", "care-join-accepted-phone")
    assert any("Accepted" in flash for flash in sam_browser.flashes), sam_browser.flashes

    # then both see Miso's card on the Care tab
    for browser, who in ((sam_browser, "phone"), (alex_browser, "desktop-dark")):
        browser.click("a#nav-care", f"care-tab-{who}")
        assert browser.has(f"#care-{miso}"), browser.texts(".care-card h2")
        browser.wait.until(lambda d: d.execute_script("return document.documentElement.dataset.realtime") == "open")
    assert card_feeds(alex_browser, miso) == []
    assert "20 packets left" in alex_browser.text_of(f"#care-{miso} .care-stock")

    # when Sam feeds Miso with one tap
    alex_page = alex_browser.mark_page()
    sam_browser.click(f"#care-{miso} .care-feed button", "care-fed-phone")
    assert any("Feed logged" in flash for flash in sam_browser.flashes), sam_browser.flashes
    assert sam_browser.has(f"#care-{miso} .care-today li form[data-until] button"), "Sam may undo it for two minutes"

    # then Alex's card shows it without a reload, by Sam, first of the day, and one packet less
    alex_browser.wait.until(lambda d: len(card_feeds(alex_browser, miso)) == 1)
    assert alex_browser.same_page(alex_page), "Alex's page reloaded"
    entry = card_feeds(alex_browser, miso)[0]
    assert "1 packet Salmon pouches" in entry and "Walker Tester" in entry and "first today" in entry, entry
    assert "19 packets left" in alex_browser.text_of(f"#care-{miso} .care-stock")
    assert alex_browser.text_of(f"#care-{miso} .care-next .badge") == "Fed"
    alex_browser.screenshots.take(alex_browser.driver, "care-live-desktop-dark")

    # when Alex taps to feed as well, he is asked first, and logs anyway
    alex_browser.click(f"#care-{miso} .care-feed button", "care-recently-fed-desktop-dark")
    assert alex_browser.h1 == "Fed a moment ago"
    assert "fed Miso" in alex_browser.text_of("#recently-fed"), alex_browser.text_of("#recently-fed")
    alex_browser.click("button#log-anyway", "care-logged-anyway-desktop-dark")
    assert len(card_feeds(alex_browser, miso)) == 2
    assert "18 packets left" in alex_browser.text_of(f"#care-{miso} .care-stock")

    # and the health page has a week of data: an estimate of how much more or less to feed
    alex_browser.visit(f"/care/pets/{miso}/health", "care-health-desktop-dark")
    insight = alex_browser.text_of("#care-insight")
    assert "Salmon pouches a day" in insight and "estimate" in insight, insight
    intake = alex_browser.text_of("#intake")
    # (the feeds of a week fall on 7 or 8 of the household's days, as the hour goes)
    assert re.search(r"counting only the [78] days with feeds: a day nobody logged is not counted", intake), intake
    sam_browser.visit(f"/care/pets/{miso}/history", "care-history-phone")
    assert len(sam_browser.texts(".history-day")) >= 8


class WorkerNetwork:
    """The service worker's own network, switched off and on through Chromium's DevTools
    protocol: emulating a page offline leaves its worker online, so the worker's target is
    attached to and told instead."""

    def __init__(self, driver) -> None:
        import json as _json
        import websocket

        self._json = _json
        address = driver.capabilities["goog:chromeOptions"]["debuggerAddress"]
        with urllib.request.urlopen(f"http://{address}/json/version", timeout=10) as answer:
            endpoint = _json.load(answer)["webSocketDebuggerUrl"]
        self.socket = websocket.create_connection(endpoint, suppress_origin=True, timeout=10)
        self.next_id = 0
        workers = [t for t in self.call("Target.getTargets")["targetInfos"] if t["type"] == "service_worker"]
        assert workers, "no service worker runs"
        self.session = self.call("Target.attachToTarget", {"targetId": workers[0]["targetId"], "flatten": True})["sessionId"]
        self.call("Network.enable", session=self.session)

    def call(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self.socket.send(self._json.dumps(message))
        while True:
            reply = self._json.loads(self.socket.recv())
            if reply.get("id") == self.next_id:
                assert "error" not in reply, reply
                return reply.get("result", {})

    def offline(self, offline: bool) -> None:
        self.call("Network.emulateNetworkConditions",
                  {"offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}, self.session)

    def close(self) -> None:
        self.socket.close()


def test_a_feed_logged_offline_waits_on_the_device_and_is_sent_once(browser) -> None:
    # given Nora's cat and its food, her Care tab open in a phone whose worker runs it
    nora = Owner.fresh("nora")
    api = Api(nora)
    luna = api.call("POST", "/v1/pets", {"name": "Luna", "species": "cat", "estimatedAgeMonths": 30, "weightKg": 3.9,
                                         "neutered": True})["card"]["id"]
    api.call("POST", f"/v1/pets/{luna}/foods", {"name": "Tuna pouches", "kind": "wet", "kcal": 70})
    browser.visit("/login", "offline-login")
    browser.log_in(nora.email, nora.password, "offline-home")
    browser.visit("/care", "offline-care-first")
    browser.wait.until(lambda d: d.execute_script("return !!(navigator.serviceWorker && navigator.serviceWorker.controller)")
                       or d.refresh() or False)
    network = WorkerNetwork(browser.driver)
    try:
        # when the connection is gone and she taps to feed Luna
        network.offline(True)
        browser.click(f"#care-{luna} .care-feed button", "care-offline-kept-phone")

        # then the page says the feed waits on the device, and the server has none yet
        assert browser.h1 == "Saved on this device", browser.h1
        assert "sent as soon as there is one" in browser.text_of("#feed-waiting")
        assert api.call("GET", f"/v1/pets/{luna}/feeds")["items"] == []

        # when the connection is back and a page loads, the feed goes, once, with its time
        network.offline(False)
        browser.visit("/care", "care-offline-back-phone")
        browser.wait.until(lambda d: len(api.call("GET", f"/v1/pets/{luna}/feeds")["items"]) == 1)
        browser.driver.execute_script("navigator.serviceWorker.controller.postMessage('replay-feeds')")
        browser.wait.until(lambda d: not d.execute_script("return !!document.getElementById('feeds-waiting')"))
        browser.visit("/care", "care-offline-sent-phone")
        feeds = api.call("GET", f"/v1/pets/{luna}/feeds")["items"]
        assert len(feeds) == 1 and feeds[0]["foodName"] == "Tuna pouches", feeds
        assert len(card_feeds(browser, luna)) == 1, card_feeds(browser, luna)
    finally:
        network.close()
