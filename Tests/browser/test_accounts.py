"""Account life cycle in a real browser on a 390 px phone screen.

Each test signs up its own owner (unique email and username per run), so tests do not
depend on each other or on earlier runs. Screenshots land in artifacts/screenshots/.
"""

from __future__ import annotations

from selenium.webdriver.common.by import By

from conftest import Browser, Owner

SHORT_PASSWORD = "short1"  # under the 10-character minimum


def test_owner_can_sign_up_verify_rename_log_out_and_delete_their_account(browser: Browser, owner: Owner):
    # Given a new owner who signs up and follows the link in the verification mail,
    # Then the link signs them in: their home page greets them and says so
    browser.sign_up_and_verify(owner)
    assert "Your email is verified. Welcome to Pawpack!" in browser.flashes

    # When they change their username on the Me page
    browser.click("a#topbar-me", "account")
    assert browser.path == "/account"
    assert browser.text_of("#current-username") == owner.username
    new_username = "trotter" + owner.username.removeprefix("walker")
    browser.submit("form#username-form", {"username": new_username}, "button#username-submit",
                   "username-changed")

    # Then the account page confirms it and shows the new username
    assert browser.path == "/account"
    assert "Username changed." in browser.flashes, browser.errors
    assert browser.text_of("#current-username") == new_username

    # When they log out
    browser.click("form#logout-form button#logout-button", "logged-out")

    # Then they are back on the landing page, told so, and no longer signed in
    assert browser.path == "/"
    assert "You are logged out." in browser.flashes
    assert not browser.has("nav#app-nav")

    # When they log back in
    browser.click("a#login-link", "login-again")
    browser.log_in(owner.email, owner.password, "home-again")

    # Then the session is theirs again and the new username stuck
    assert browser.path == "/home", browser.errors
    browser.click("a#topbar-me", "account-before-delete")
    assert browser.text_of("#current-username") == new_username

    # When they delete their account, re-entering their password
    browser.submit("form#delete-form", {"password": owner.password}, "button#delete-submit",
                   "account-deleted")

    # Then they land on the landing page, signed out, with a confirmation
    assert browser.path == "/"
    assert "Your account was deleted." in browser.flashes, browser.errors
    assert not browser.has("nav#app-nav")

    # And the old credentials no longer open a session
    browser.click("a#login-link", "login-after-delete")
    browser.log_in(owner.email, owner.password, "login-refused-after-delete")
    assert browser.path != "/home"
    assert browser.errors, "logging in to a deleted account should show an error"


def test_signup_with_too_short_password_names_the_password_and_creates_no_account(browser: Browser, owner: Owner):
    # Given the sign-up form
    browser.visit("/signup", "signup-short-password")

    # When an owner submits it with a password under 10 characters (otherwise valid)
    browser.sign_up(owner, "signup-short-password-refused", password=SHORT_PASSWORD,
                    skip_browser_validation=True)

    # Then the form comes back with an error that names the password
    assert browser.h1 != "Check your email"
    assert browser.has("form#signup-form")
    assert any("password" in error.lower() for error in browser.errors), browser.errors
    # and the password's Show button stays inside its field, above the error and the hint
    toggle = browser.driver.find_element(By.CSS_SELECTOR, "#signup-form .password-toggle").rect
    field = browser.driver.find_element(By.CSS_SELECTOR, "#signup-form input[type=password]").rect
    assert field["y"] <= toggle["y"] and toggle["y"] + toggle["height"] <= field["y"] + field["height"], (toggle, field)

    # And nothing was created: no verification mail was sent ...
    browser.visit("/dev/mail", "dev-mail-after-refused-signup")
    assert browser.mails_to(owner.email) == []

    # ... and those credentials do not log in
    browser.visit("/login", "login-with-refused-signup")
    browser.log_in(owner.email, SHORT_PASSWORD, "login-refused-for-refused-signup")
    assert browser.path != "/home"
    assert browser.errors, "logging in with never-created credentials should show an error"
