"""Chats, meet-ups and reviews in two real browsers at once: Ada on a 390 px phone (light), Bob
on a desktop (dark). A message typed in one appears in the other without a reload; Ada
proposes a meet-up through the form, Bob accepts it, and once its time has come they mark it
done and review each other. A Puppy Mode dog's owner is told why meet-ups wait, and until when.

The meet-up is proposed a minute or two ahead (the form takes minutes), so the test waits for
its start, as the owners would.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import Api, Browser, Owner

# Trondheim's centre; each test's members live in a town of their own.
TRONDHEIM = (63.430, 10.395)
STAVANGER = (58.970, 5.733)


def vaccinate(api: Api, dog: str) -> None:
    """A combined core dose a month ago: an adult dog is then in Social Mode."""
    api.call("POST", f"/v1/pets/{dog}/vaccinations",
             {"vaccine": "dhpp", "givenOn": (date.today() - timedelta(days=30)).isoformat()})


def matched(first: Api, first_dog: str, second: Api, second_dog: str) -> str:
    first.like(first_dog, second_dog)
    second.like(second_dog, first_dog)
    return first.call("GET", "/v1/chats")["items"][0]["id"]


# The bell's unread count on a page (0 while hidden).
BELL = "return document.getElementById('bell-count').hidden ? 0 : parseInt(document.getElementById('bell-count').textContent)"


def messages_text(browser: Browser) -> str:
    return browser.driver.find_element(By.ID, "messages").text


def socket_open(browser: Browser) -> None:
    """Waits until the page's realtime socket is open (the script marks <html data-realtime>)."""
    browser.wait.until(lambda d: d.execute_script("return document.documentElement.dataset.realtime") == "open")


def test_two_owners_chat_live_plan_a_meetup_meet_and_review_each_other(two_browsers) -> None:
    ada_browser, bob_browser = two_browsers
    # given Ada and Bob in Trondheim, their vaccinated dogs matched
    ada, bob = Owner.fresh("ada"), Owner.fresh("bob")
    ada_api, bob_api = Api(ada), Api(bob)
    biscuit = ada_api.dog("Biscuit", *TRONDHEIM)
    rex = bob_api.dog("Rex", *TRONDHEIM)
    vaccinate(ada_api, biscuit)
    vaccinate(bob_api, rex)
    chat = matched(ada_api, biscuit, bob_api, rex)

    # each opens the chat from the Chats tab
    for browser, owner, who in ((ada_browser, ada, "phone"), (bob_browser, bob, "desktop")):
        browser.visit("/login", f"chat-{who}-login")
        browser.log_in(owner.email, owner.password, f"chat-{who}-home")
        browser.click("a#nav-chats", f"chats-list-{who}")
        assert browser.has(f"a#chat-{chat}"), browser.texts("#chat-list li")
        browser.click(f"a#chat-{chat}", f"chat-empty-{who}")
        assert browser.path == f"/chats/{chat}"
        assert not browser.layout_problems() or who == "desktop", browser.layout_problems()
        socket_open(browser)

    # when Ada types a message and sends it
    bob_page = bob_browser.mark_page()
    ada_page = ada_browser.mark_page()
    field = ada_browser.driver.find_element(By.ID, "message-text")
    field.send_keys("Hi Bob! Rex looks like fun.")
    ada_browser.driver.find_element(By.ID, "message-send").click()

    # then it appears on Bob's screen without a reload, and on hers
    bob_browser.wait.until(lambda d: "Hi Bob! Rex looks like fun." in messages_text(bob_browser))
    ada_browser.wait.until(lambda d: "Hi Bob! Rex looks like fun." in messages_text(ada_browser))
    assert bob_browser.same_page(bob_page) and ada_browser.same_page(ada_page), "a page reloaded"
    # and Ada sees that Bob read it
    ada_browser.wait.until(lambda d: d.find_element(By.ID, "seen").is_displayed())

    # when Bob answers with Enter
    reply = bob_browser.driver.find_element(By.ID, "message-text")
    reply.send_keys("Hello Ada! Saturday at the park?")
    reply.send_keys(Keys.ENTER)
    ada_browser.wait.until(lambda d: "Saturday at the park?" in messages_text(ada_browser))
    assert ada_browser.same_page(ada_page)
    bob_browser.screenshots.take(bob_browser.driver, "chat-live-desktop-dark")
    ada_browser.screenshots.take(ada_browser.driver, "chat-live-phone")

    # when Ada proposes a meet-up a minute or two ahead, near Trondheim's centre
    ada_browser.click("a#propose-meetup", "meetup-form-phone")
    assert ada_browser.h1 == "Propose a meet-up"
    start = (datetime.now() + timedelta(minutes=2)).replace(second=0, microsecond=0)
    form = ada_browser.driver.find_element(By.ID, "meetup-form")
    ada_browser.fill(form.find_element(By.NAME, "date"), start.date().isoformat())
    ada_browser.driver.execute_script("arguments[0].value = arguments[1]", form.find_element(By.NAME, "time"), start.strftime("%H:%M"))
    ada_browser.fill(form.find_element(By.NAME, "placeName"), "Nidaros Cathedral, west gate")
    ada_browser.fill(form.find_element(By.NAME, "town"), "Trondheim")
    ada_browser.fill(form.find_element(By.NAME, "note"), "Biscuit loves a stick.")
    ada_browser.click("#meetup-form button#meetup-submit", "meetup-proposed-phone")
    assert ada_browser.path == f"/chats/{chat}", ada_browser.errors
    assert "Meet-up proposed. You will hear when they answer." in ada_browser.flashes
    assert "Waiting for their answer" in ada_browser.text_of("#chat-meetups")

    # then Bob's chat shows it (the page refreshes itself) and he accepts
    bob_browser.wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "button[id^=meetup-accept-]"))
    assert "Nidaros Cathedral, west gate" in bob_browser.text_of("#chat-meetups")
    bob_browser.screenshots.take(bob_browser.driver, "meetup-proposed-desktop-dark")
    # (Ada's unread count as the server has it just before: the page's own may still be taking
    # in a read of Bob's last message)
    ada_unread = ada_api.call("GET", "/v1/notifications?limit=1")["unreadCount"]
    bob_browser.click("button[id^=meetup-accept-]", "meetup-accepted-desktop-dark")
    assert "Meet-up accepted. Have fun!" in bob_browser.flashes
    # and Ada's bell counts the answer, live: exactly one more, as the server counts it
    assert ada_api.call("GET", "/v1/notifications?limit=1")["unreadCount"] == ada_unread + 1
    try:
        ada_browser.wait.until(lambda d: d.execute_script(BELL) == ada_unread + 1)
    except TimeoutException:
        raise AssertionError(
            f"Ada's bell shows {ada_browser.driver.execute_script(BELL)}, not {ada_unread + 1}; "
            f"her page's socket is {ada_browser.driver.execute_script('return document.documentElement.dataset.realtime')}"
        ) from None

    # when the time has come (the server's development clock moved past the start, rather
    # than waiting for it), Bob marks it done: the button shows once it has started
    assert not bob_browser.has("button[id^=meetup-complete-]"), "done before it started"
    bob_browser.visit("/dev/clock", "dev-clock-desktop-dark")
    bob_browser.fill(bob_browser.driver.find_element(By.NAME, "minutes"), "3")
    bob_browser.click("#clock-form button#clock-submit", "dev-clock-moved-desktop-dark")
    bob_browser.visit(f"/chats/{chat}", "meetup-started-desktop-dark")
    bob_browser.click("button[id^=meetup-complete-]", "meetup-done-desktop-dark")
    assert "Marked as done. How did it go? Leave a review." in bob_browser.flashes

    # and each reviews the other
    bob_browser.click("a[id^=meetup-review-]", "review-form-desktop-dark")
    bob_browser.tap("label.star-choice:has(#rating-5)")
    bob_browser.fill(bob_browser.driver.find_element(By.ID, "review-text"), "Biscuit was a delight.")
    bob_browser.click("#review-form button#review-submit", "reviewed-desktop-dark")
    assert "Thank you for your review!" in bob_browser.flashes

    ada_browser.visit("/meetups", "meetups-to-review-phone")
    assert ada_browser.has("#meetups-to-review"), ada_browser.texts("main section")
    ada_browser.click("#meetups-to-review a[id^=meetup-review-]", "review-form-phone")
    ada_browser.tap("label.star-choice:has(#rating-4)")
    # the first four stars fill, in the order they stand: the same colour, the fifth another
    # (once their colours' short transition has ended)
    colours = "return [...document.querySelectorAll('.star-choice .icon')].map(icon => getComputedStyle(icon).color);"
    ada_browser.wait.until(lambda d: (lambda c: len(set(c[:4])) == 1 and c[4] != c[0])(d.execute_script(colours)),
                           "the first four stars should fill")
    ada_browser.click("#review-form button#review-submit", "reviewed-phone")
    assert "Thank you for your review!" in ada_browser.flashes
    assert not ada_browser.has("#meetups-to-review")

    # then the ratings show on the dogs' pages
    ada_browser.visit(f"/pets/{rex}", "rated-dog-phone")
    assert ada_browser.text_of("#pet-rating").startswith("4.0 · 1 review"), ada_browser.text_of("#pet-rating")
    # and the inbox holds what happened, newest first
    ada_browser.visit("/notifications", "inbox-phone")
    titles = ada_browser.texts("#inbox li strong")
    assert titles and any("review" in title.lower() for title in titles), titles


def test_a_puppy_mode_dogs_owner_sees_why_meetups_wait_and_until_when(browser: Browser) -> None:
    # given Pip, a puppy, matched with Max
    owner = Owner.fresh("pip")
    api = Api(owner)
    pip = api.dog("Pip", *STAVANGER, estimatedAgeMonths=2)
    other = Api(Owner.fresh("max"))
    max_dog = other.dog("Max", *STAVANGER)
    vaccinate(other, max_dog)
    chat = matched(api, pip, other, max_dog)

    # when Pip's owner opens the chat
    browser.visit("/login", "puppy-login")
    browser.log_in(owner.email, owner.password, "puppy-home")
    browser.visit(f"/chats/{chat}", "puppy-chat")

    # then the chat says why meet-ups wait and from when, and offers no proposal
    notice = browser.text_of("#meetups-unavailable")
    assert "Pip is in Puppy Mode and may meet other dogs from" in notice, notice
    assert not browser.has("a#propose-meetup")
    assert browser.has("#message-form"), "chatting is allowed"
