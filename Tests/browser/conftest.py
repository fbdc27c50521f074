"""Shared setup for Pawpack's browser tests: a headless Chromium that behaves like a 390 px
phone (or a 1280 px desktop, light or dark, with or without JavaScript), numbered screenshots
of every page visited, small helpers that speak the page contract (ids, the `.toast`
confirmation, `#form-errors` and `.field-error`, the development outbox at /dev/mail), and a
client of the JSON API to set up other members quickly.

The server must already be running; `Tests/browser/run.sh` starts one and points
PAWPACK_BASE_URL at it.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin, urlparse

# Selenium Manager must never go to the network; the driver path below also skips it.
os.environ.setdefault("SE_OFFLINE", "true")

import pytest
from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

BASE_URL = os.environ.get("PAWPACK_BASE_URL", "http://127.0.0.1:8080").rstrip("/")
REPO_ROOT = Path(__file__).resolve().parents[2]
SCREENSHOT_DIR = REPO_ROOT / "artifacts" / "screenshots"

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
PHONE_WIDTH, PHONE_HEIGHT = 390, 844
# Generous: the machine has two cores and may be compiling while the tests run.
WAIT_SECONDS = 20


DESKTOP_WIDTH, DESKTOP_HEIGHT = 1280, 800


def make_driver(width: int = PHONE_WIDTH, height: int = PHONE_HEIGHT, *, dark: bool = False,
                javascript: bool = True) -> webdriver.Chrome:
    """A headless Chromium whose viewport is a 390 x 844 phone (or the size given).

    `--window-size` alone is not enough: headless Chromium clamps windows to at least
    500 px wide, so the viewport is pinned with device-metrics emulation (mobile=True also
    makes Chromium honour `<meta name="viewport">`, as a phone does).
    """
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        f"--window-size={width},{height}",
    ):
        options.add_argument(argument)
    # No password-manager or leaked-password bubbles over the forms.
    prefs = {
        "credentials_enable_service": False,
        "profile.password_manager_enabled": False,
        "profile.password_manager_leak_detection": False,
    }
    if not javascript:
        prefs["profile.managed_default_content_settings.javascript"] = 2
    options.add_experimental_option("prefs", prefs)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
    )
    driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]},
    )
    return driver


# Returns a list of problems with the current page on a phone of the given width: content
# wider than the screen (sideways scrolling), and visible inputs without a <label for> or
# aria-label (or whose id is not unique, which makes label[for] ambiguous).
LAYOUT_PROBLEMS_JS = """
const maxWidth = arguments[0];
const problems = [];
const scrollWidth = document.documentElement.scrollWidth;
if (scrollWidth > maxWidth) {
  problems.push(`scrolls sideways: content is ${scrollWidth}px wide on a ${maxWidth}px screen`);
}
for (const el of document.querySelectorAll('input, select, textarea')) {
  const type = (el.getAttribute('type') || '').toLowerCase();
  if (['hidden', 'submit', 'button', 'reset', 'image'].includes(type)) continue;
  if (el.getClientRects().length === 0 || getComputedStyle(el).visibility === 'hidden') continue;
  const where = `${el.tagName.toLowerCase()}[name="${el.name}"]` + (el.form && el.form.id ? ` in form#${el.form.id}` : '');
  if (el.id && document.querySelectorAll('#' + CSS.escape(el.id)).length > 1) {
    problems.push(`${where}: id "${el.id}" is not unique, so label[for] is ambiguous`);
    continue;
  }
  const ariaLabel = (el.getAttribute('aria-label') || '').trim();
  const forLabel = el.id && Array.from(document.querySelectorAll('label'))
    .some(label => label.htmlFor === el.id && label.textContent.trim() !== '');
  const wrapping = el.closest('label') && el.closest('label').textContent.trim() !== '';
  if (!ariaLabel && !forLabel && !wrapping) problems.push(`${where}: no <label for>, wrapping <label> or aria-label`);
}
return problems;
"""


class Screenshots:
    """Numbers screenshots across the whole run: 01-landing.png, 02-signup.png, ..."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.count = 0

    def take(self, driver: webdriver.Chrome, name: str) -> Path:
        self.count += 1
        slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
        path = self.directory / f"{self.count:02d}-{slug}.png"
        driver.save_screenshot(str(path))
        return path


@dataclass(frozen=True)
class Owner:
    """A pet owner who does not exist yet; unique per call so runs never collide."""

    email: str
    username: str
    display_name: str
    password: str
    date_of_birth: str = "1990-05-17"
    city: str = "Lisbon"

    def living_in(self, city: str) -> "Owner":
        return Owner(self.email, self.username, self.display_name, self.password, self.date_of_birth, city)

    @classmethod
    def fresh(cls, prefix: str = "walker") -> "Owner":
        tag = f"{int(time.time()) % 1_000_000:06d}{secrets.token_hex(3)}"  # digits + a-f
        return cls(
            email=f"{prefix}-{tag}@example.com",
            username=f"{prefix}{tag}",
            display_name="Walker Tester",
            password=f"Leash-and-biscuit-{tag}",
        )


class Browser:
    """The page contract, spoken through Selenium with explicit waits only."""

    def __init__(self, driver: webdriver.Chrome, screenshots: Screenshots) -> None:
        self.driver = driver
        self.screenshots = screenshots
        self.wait = WebDriverWait(driver, WAIT_SECONDS)

    # --- navigation ---------------------------------------------------------------

    def url(self, path: str) -> str:
        return urljoin(BASE_URL + "/", path.lstrip("/"))

    def visit(self, path_or_url: str, shot: str) -> None:
        """Open a page by address, wait until it has loaded, and screenshot it."""
        target = path_or_url if "://" in path_or_url else self.url(path_or_url)
        self.driver.get(target)
        self._settle(shot)

    def click(self, css: str, shot: str) -> None:
        """Click a link or submit button and wait for the next page to replace this one."""
        element = self.wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, css)))
        # Every new document gets a fresh `window`, so a mark on this one tells the pages apart.
        # (Waiting for the old <html> to go stale is racy in chromedriver: mid-navigation it can
        # answer "node does not belong to the document" instead of "stale element".)
        mark = secrets.token_hex(8)
        self.driver.execute_script("window.__pawpackPage = arguments[0]", mark)
        where = self.path
        # Fixed bars (the tab bar) must not cover what is clicked.
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center', inline: 'nearest'})", element)
        element.click()

        def next_page_loaded(driver: webdriver.Chrome) -> bool:
            try:
                return driver.execute_script(
                    "return window.__pawpackPage !== arguments[0] && document.readyState === 'complete'",
                    mark)
            except WebDriverException:
                return False  # the old page is being torn down; ask again

        try:
            self.wait.until(next_page_loaded)
        except TimeoutException:
            raise AssertionError(f"clicking {css} on {where} did not load a new page") from None
        self._settle(shot)

    def submit(self, form_css: str, fields: dict[str, str], button_css: str, shot: str,
               *, skip_browser_validation: bool = False) -> None:
        """Fill the named inputs of a form, press its submit button, and wait for the result.

        skip_browser_validation turns off HTML constraint checks (minlength, required, ...)
        so a deliberately invalid value reaches the server, whose answer is what is tested.
        """
        form = self.wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, form_css)))
        for name, value in fields.items():
            self.fill(form.find_element(By.NAME, name), value)
        if skip_browser_validation:
            self.driver.execute_script("arguments[0].noValidate = true", form)
        self.click(f"{form_css} {button_css}", shot)

    def tap(self, css: str) -> None:
        """Click something that changes the page in place (a chip, a toggle, a disclosure)."""
        element = self.wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, css)))
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center', inline: 'nearest'})", element)
        element.click()

    def fill(self, field: WebElement, value: str) -> None:
        if field.tag_name.lower() == "select":
            Select(field).select_by_value(value)
        elif field.get_attribute("type") == "file":
            field.send_keys(value)  # an absolute path; file inputs cannot be cleared or typed into
        elif field.get_attribute("type") == "date":
            # Typing into a date input depends on the locale; set the value directly.
            self.driver.execute_script(
                "arguments[0].value = arguments[1];"
                "arguments[0].dispatchEvent(new Event('input', {bubbles: true}));"
                "arguments[0].dispatchEvent(new Event('change', {bubbles: true}));",
                field, value,
            )
        else:
            field.clear()
            field.send_keys(value)

    def _settle(self, shot: str) -> None:
        self.wait.until(lambda d: d.execute_script("return document.readyState") == "complete")
        # Lazy pictures on the screen do not hold the load event back: wait for them too.
        self.wait.until(lambda d: d.execute_script(
            "return Array.from(document.images).every(i => i.complete || i.getBoundingClientRect().top > window.innerHeight)"))
        self.screenshots.take(self.driver, shot)

    # --- reading the page -----------------------------------------------------------

    @property
    def path(self) -> str:
        return urlparse(self.driver.current_url).path

    @property
    def h1(self) -> str:
        return self.driver.find_element(By.TAG_NAME, "h1").text.strip()

    def text_of(self, css: str) -> str:
        return self.driver.find_element(By.CSS_SELECTOR, css).text.strip()

    def texts(self, css: str) -> list[str]:
        return [element.text.strip() for element in self.driver.find_elements(By.CSS_SELECTOR, css)]

    @property
    def flashes(self) -> list[str]:
        """The confirmation toast (read through textContent: it fades after a few seconds)."""
        return [element.get_attribute("textContent").strip()
                for element in self.driver.find_elements(By.CSS_SELECTOR, "div.toast")]

    @property
    def errors(self) -> list[str]:
        return self.texts("#form-errors p") + self.texts("p.field-error")

    def mark_page(self) -> str:
        """Marks the current document; `same_page(mark)` is true until another one loads."""
        mark = secrets.token_hex(8)
        self.driver.execute_script("window.__pawpackPage = arguments[0]", mark)
        return mark

    def same_page(self, mark: str) -> bool:
        return self.driver.execute_script("return window.__pawpackPage === arguments[0]", mark)

    def has(self, css: str) -> bool:
        return bool(self.driver.find_elements(By.CSS_SELECTOR, css))

    def layout_problems(self) -> list[str]:
        """What keeps the current page from fitting the phone: sideways scrolling, unlabelled inputs."""
        return self.driver.execute_script(LAYOUT_PROBLEMS_JS, PHONE_WIDTH)

    # --- the development outbox -----------------------------------------------------

    def mails_to(self, email: str) -> list[WebElement]:
        """The `article.mail` elements addressed to email on the current /dev/mail page."""
        return [
            article
            for article in self.driver.find_elements(By.CSS_SELECTOR, "article.mail")
            if article.find_element(By.CSS_SELECTOR, "p.mail-to").text.strip().lower() == email.lower()
        ]

    def verification_link(self, email: str) -> str:
        """Open /dev/mail and return the /verify link of the newest "Verify" mail to email."""
        self.visit("/dev/mail", "dev-mail")
        for article in self.mails_to(email):  # newest first
            if "verify" not in article.find_element(By.CSS_SELECTOR, "h2.mail-subject").text.lower():
                continue
            for link in article.find_elements(By.CSS_SELECTOR, "a.mail-link"):
                href = link.get_attribute("href") or ""
                if urlparse(href).path == "/verify" and "token=" in urlparse(href).query:
                    return href
        raise AssertionError(f"no verification mail with a /verify?token= link for {email} in /dev/mail")

    # --- flows every test needs -----------------------------------------------------

    def sign_up_and_verify(self, owner: Owner, shot_prefix: str = "") -> None:
        """Landing -> sign-up form -> verification mail -> the link signs in: home."""
        self.visit("/", f"{shot_prefix}landing")
        self.click("a#signup-link", f"{shot_prefix}signup")
        assert self.path == "/signup"
        self.sign_up(owner, f"{shot_prefix}check-your-email")
        assert self.h1 == "Check your email", self.errors
        self.visit(self.verification_link(owner.email), f"{shot_prefix}home-after-verifying")
        assert self.path == "/home", self.errors
        assert self.h1 == f"Hello, {owner.display_name}"

    def sign_up(self, owner: Owner, shot: str = "signup-submitted", *,
                password: str | None = None, skip_browser_validation: bool = False) -> None:
        """Fill and submit /signup (the browser must already be on it)."""
        self.submit(
            "form#signup-form",
            {
                "email": owner.email,
                "username": owner.username,
                "displayName": owner.display_name,
                "dateOfBirth": owner.date_of_birth,
                "city": owner.city,
                "password": owner.password if password is None else password,
            },
            "button#signup-submit",
            shot,
            skip_browser_validation=skip_browser_validation,
        )

    def log_in(self, email: str, password: str, shot: str = "login-submitted") -> None:
        """Fill and submit /login (the browser must already be on it)."""
        self.submit(
            "form#login-form",
            {"email": email, "password": password},
            "button#login-submit",
            shot,
            # A failed login must be refused by the server, not by the browser.
            skip_browser_validation=True,
        )


# --- the JSON API, to set up other members quickly --------------------------------------


class Api:
    """Another member, through the API: signed up, verified through the development outbox,
    logged in. Used to put dogs near the member the browser plays."""

    def __init__(self, owner: Owner) -> None:
        self.owner = owner
        self.token = ""
        self.call("POST", "/v1/auth/signup", {
            "email": owner.email, "password": owner.password, "username": owner.username,
            "displayName": owner.display_name, "dateOfBirth": owner.date_of_birth, "city": owner.city,
        })
        with urllib.request.urlopen(urllib.request.Request(BASE_URL + "/dev/mail", headers={"Accept": "text/html"})) as reply:
            outbox = reply.read().decode()
        tokens = re.findall(r'<p class="mail-to">' + re.escape(owner.email) + r'</p>.*?/verify\?token=([^\s"<&]+)', outbox, re.S)
        assert tokens, f"no verification mail for {owner.email}"
        self.call("POST", "/v1/auth/verify-email", {"token": tokens[0]})
        self.token = self.call("POST", "/v1/auth/login", {"email": owner.email, "password": owner.password})["accessToken"]

    def call(self, method: str, path: str, body: dict | None = None) -> dict:
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(BASE_URL + path, data=data, method=method, headers=headers)
        with urllib.request.urlopen(request) as reply:
            text = reply.read().decode()
        return json.loads(text) if text else {}

    def dog(self, name: str, latitude: float, longitude: float, **profile) -> str:
        """Places the member and adds a dog; its id."""
        self.call("PUT", "/v1/me/location", {"latitude": latitude, "longitude": longitude})
        body = {"name": name, "species": "dog", "estimatedAgeMonths": 30, "weightKg": 14.0}
        body.update(profile)
        return self.call("POST", "/v1/pets", body)["card"]["id"]

    def upload_photo(self, pet: str, path: Path) -> None:
        boundary = "pawpack" + secrets.token_hex(8)
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"{path.name}\"\r\n"
                f"Content-Type: image/jpeg\r\n\r\n").encode() + path.read_bytes() + f"\r\n--{boundary}--\r\n".encode()
        request = urllib.request.Request(BASE_URL + f"/v1/pets/{pet}/photos", data=body, method="POST", headers={
            "Authorization": f"Bearer {self.token}", "Accept": "application/json",
            "Content-Type": f"multipart/form-data; boundary={boundary}"})
        urllib.request.urlopen(request).read()

    def post_moment(self, pets: list[str], path: Path, privacy: str = "friends", caption: str = "") -> str:
        """Posts a photo to Moments, as an app does; answers its id."""
        boundary = "pawpack" + secrets.token_hex(8)
        fields = {"pets": ",".join(pets), "privacy": privacy, "caption": caption}
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"{path.name}\"\r\n"
                f"Content-Type: image/jpeg\r\n\r\n").encode() + path.read_bytes() + b"\r\n"
        for name, value in fields.items():
            body += f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n".encode()
        body += f"--{boundary}--\r\n".encode()
        request = urllib.request.Request(BASE_URL + "/v1/photos", data=body, method="POST", headers={
            "Authorization": f"Bearer {self.token}", "Accept": "application/json",
            "Content-Type": f"multipart/form-data; boundary={boundary}"})
        with urllib.request.urlopen(request) as answer:
            return json.load(answer)["id"]

    def like(self, pet: str, target: str) -> dict:
        return self.call("POST", f"/v1/pets/{pet}/swipes", {"targetPetId": target, "decision": "like"})


# --- fixtures -------------------------------------------------------------------------


@pytest.fixture(scope="session")
def screenshots() -> Screenshots:
    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
    for old in [*SCREENSHOT_DIR.glob("*.png"), *SCREENSHOT_DIR.glob("*.html")]:
        old.unlink()  # last run's pictures would mix with this run's numbering
    return Screenshots(SCREENSHOT_DIR)


@pytest.fixture
def driver(request: pytest.FixtureRequest, screenshots: Screenshots):
    """A fresh browser (no cookies) per test; on failure the last page is kept."""
    driver = make_driver()
    # A phone-ready page (one with a viewport meta tag) must get exactly the phone's width.
    driver.get("data:text/html,<meta name=viewport content='width=device-width,initial-scale=1'>")
    width = driver.execute_script("return window.innerWidth")
    assert width == PHONE_WIDTH, f"viewport is {width}px wide, expected a {PHONE_WIDTH}px phone"
    yield driver
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        shot = screenshots.take(driver, f"failed-{request.node.name}")
        shot.with_suffix(".html").write_text(driver.page_source, encoding="utf-8")
    driver.quit()


@pytest.fixture
def browser(driver: webdriver.Chrome, screenshots: Screenshots) -> Browser:
    return Browser(driver, screenshots)


@pytest.fixture
def two_browsers(screenshots: Screenshots):
    """Two members at once: one on a phone (light), one on a desktop (dark)."""
    phone = make_driver()
    desktop = make_driver(DESKTOP_WIDTH, DESKTOP_HEIGHT, dark=True)
    yield Browser(phone, screenshots), Browser(desktop, screenshots)
    phone.quit()
    desktop.quit()


@pytest.fixture
def owner() -> Owner:
    return Owner.fresh()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)
