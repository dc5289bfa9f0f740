"""The `wordpress` case of scripts/bench.py (issue 51): shutter to a WordPress site on loopback
(Debian's WordPress 6.1 with MariaDB and PHP's server, 4 workers, from scripts/wordpress_site.py;
WordPress makes its smaller sizes of each photo, as a site does), single 2 MB shots from the
camera simulator over PTP/IP, each once the last is in, p50 of:

- plain HTTP: relay's HTTP destination posting the photo as a form (`file`) to the same site's
  `/wp/v2/media` with the Application Password: what a user without the WordPress kind does;
- wordpress: the `wp://` destination, to the media library;
- live post: the `wp://` destination with `--post`, until the photo is in the post's gallery.

Target: each within 0.2 s of plain HTTP. The figure is relay's own "from shutter to gallery" for
each photo (its log line): the camera's capture time to WordPress's answer, and for the live post
to the answer of the post's update. The site's own view cannot time the media library fairly:
WordPress writes the attachment and its `media_details` before it makes the photo's sizes, so a
photo shows there about 0.5 s before its upload is answered. The shots are paced by the site's
view (the media library's count, the post's raw content), asked every 10 ms."""

import base64
import json
import os
import re
import statistics
import subprocess
import sys
import urllib.request

from bench import MB, Camera, Relay, single_shots
from peers import ready_line, wait_for

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Site:
    """A throwaway WordPress, counted through its REST API."""

    def __init__(self, work):
        out = os.path.join(work, "wordpress.out")
        self.proc = subprocess.Popen([sys.executable, os.path.join(ROOT, "scripts", "wordpress_site.py")],
                                     stdout=open(out, "w"), stderr=open(os.path.join(work, "wordpress.err"), "w"))
        self.site = json.loads(ready_line(out, r"(\{.*\})", timeout=180))
        self.url = self.site["url"].rstrip("/")
        self.basic = base64.b64encode(("%s:%s" % (self.site["user"], self.site["app_password"])).encode()).decode()

    def get(self, route):
        request = urllib.request.Request(self.site["rest_root"] + route, headers={"Authorization": "Basic " + self.basic})
        return urllib.request.urlopen(request, timeout=30)

    def media(self):
        with self.get("wp/v2/media?per_page=1&_fields=id") as answer:
            return int(answer.headers["X-WP-Total"])

    def in_post(self):
        with self.get("wp/v2/posts/%d?context=edit&_fields=content.raw" % self.site["post_id"]) as answer:
            return json.load(answer)["content"]["raw"].count('class="wp-image-')

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


class Counted:
    """What single_shots counts: the site's photos (or those in the post) past where it started."""

    def __init__(self, count):
        self.read = count
        self.start = count()

    def count(self):
        return self.read() - self.start


def shots(work, site, count, url, *config, path=""):
    """p50 of relay's shutter-to-gallery over single shots, each once the site shows the last."""
    camera = Camera(work, 0, 2 * MB)
    relay = Relay(work, url, config, env={"WP_APP_PASSWORD": site.site["app_password"], "WP_BASIC": site.basic}, path=path)
    relay.start("--camera", "ptpip://" + camera.address)
    ready_line(relay.log, r"(connected to)", timeout=120)
    try:
        single_shots(count, camera, SHOTS[0], spacing=2, timeout=120)
        # The last answer may come after the site shows the photo (a form's upload is visible
        # before WordPress has made its sizes and answered).
        wait_for(lambda: len(figures(relay.log)) >= SHOTS[0], 60, 0.05)
    finally:
        relay.stop()
        camera.stop()
    seconds = figures(relay.log)
    if len(seconds) != SHOTS[0]:
        raise RuntimeError("%d of %d photos said uploaded" % (len(seconds), SHOTS[0]))
    return statistics.median(seconds)


def figures(log):
    with open(log, encoding="utf-8", errors="replace") as f:
        return [float(value) for value in re.findall(r"uploaded .* ([0-9.]+)s from shutter to gallery", f.read())]


SHOTS = [15]


def case_wordpress(work, quick):
    SHOTS[0] = 5 if quick else 15
    site = Site(work)
    try:
        base = "http://%s@%s" % (site.site["user"], site.url.split("://", 1)[1])
        plain = shots(os.path.join(work, "plain"), site, Counted(site.media), site.site["rest_root"] + "wp/v2/media",
                      "--header", "Authorization: Basic ${WP_BASIC}")
        media = shots(os.path.join(work, "media"), site, Counted(site.media), base.replace("http://", "wp://") + "/",
                      "--password", "${WP_APP_PASSWORD}")
        post = shots(os.path.join(work, "post"), site, Counted(site.in_post), base.replace("http://", "wp://") + "/",
                     "--password", "${WP_APP_PASSWORD}", "--post", str(site.site["post_id"]))
    finally:
        site.stop()
    return {"plain HTTP p50 s": plain, "wordpress p50 s": media, "live post p50 s": post,
            "wordpress - plain s": media - plain, "live post - plain s": post - plain,
            "live post - wordpress s": post - media}
