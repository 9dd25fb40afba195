"""The one-time secret page (docs/asking.md, "Secrets"), driven over real TCP as a browser
would: it serves once, at its random path, to its own origin, on 127.0.0.1, for a while."""

from __future__ import annotations

from urllib.parse import quote

import anyio
from muxport._internal.secret_page import SecretPage
from muxport.testing import fill_in, http


async def test_the_page_takes_one_secret_from_its_own_form_once():
    async with anyio.create_task_group() as group:
        page = SecretPage("[sudo] password for <u>:", seconds=30)
        await page.start(group)
        assert page.url.startswith("http://127.0.0.1:") and len(page.path) > 40
        status, body = await http(page.url)
        assert status == 200 and "[sudo] password for &lt;u&gt;:" in body  # escaped
        assert (await fill_in(page.url, "s3cret pass&=")) == (200, 200)
        secret = await page.received(5)
        assert secret is not None and secret.reveal() == "s3cret pass&="
        assert "s3cret" not in repr(secret) and "s3cret" not in str(secret)
        secret.drop()
        # used: the listener is closed; nothing answers a second use
        try:
            second = await http(page.url)
        except (OSError, anyio.BrokenResourceError):  # closed: nothing answers
            second = (0, "")
        assert second[0] in (0, 410)


async def test_the_page_refuses_other_origins_hosts_paths_and_late_use():
    async with anyio.create_task_group() as group:
        page = SecretPage("password:", seconds=30)
        await page.start(group)
        _, form = await http(page.url)
        nonce = form.split("name=nonce value='", 1)[1].split("'", 1)[0]
        body = f"nonce={quote(nonce)}&secret=stolen"
        evil = await http(page.url, "POST", body, {"Origin": "http://evil.example"})
        cross = await http(page.url, "POST", body, {"Sec-Fetch-Site": "cross-site"})
        no_nonce = await http(page.url, "POST", "secret=stolen")
        rebound = await http(page.url, "GET", "", {"Host": f"evil.example:{page.port}"})
        wrong_path = await http(page.origin + "/guess")
        assert [evil[0], cross[0], no_nonce[0], rebound[0], wrong_path[0]] == [
            403, 403, 403, 421, 404]
        assert page.secret is None and not page.used
        await page.close()

        late = SecretPage("password:", seconds=0.3)
        await late.start(group)
        url = late.url
        assert await late.received(5) is None  # the lifetime ended without a secret
        try:
            status = (await http(url))[0]
        except (OSError, anyio.BrokenResourceError):  # closed: nothing answers
            status = 0
        assert status in (0, 410)
