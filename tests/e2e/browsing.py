"""What the browser tests share: signing in through the login form, and where screenshots go."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def sign_in(page: Page, base: str, username: str, password: str, *, then: str = "/") -> None:
    page.goto(base + then)
    expect(page).to_have_url(f"{base}/accounts/login/?next={then}")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()


def screenshot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / name))
