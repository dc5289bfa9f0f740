"""The `inbox` case of scripts/bench.py (issue 52): a desk taking photos from an S3 bucket, on
loopback, against SeaweedFS.

- shutter to the desk's gallery through the bucket: a field relay (the camera simulator over
  PTP/IP, single 2 MB shots, each once the last is in the gallery) delivering to
  `s3://inbox/field/{name}`, and a desk (`relay run --inbox inbox --config gallery`, listing every
  1 s) delivering to a local gallery. p50 of shutter to the desk's gallery, seen from the
  gallery, against the issue's target: the field relay's own p50 shutter to the bucket (its log
  line) + the interval (1 s) + 0.3 s.
- 1,000 objects listed per interval: the desk idling 30 s over an inbox of 1,000 photos it has
  taken (each listing pages through all of them); its CPU and peak memory.
"""

import os
import re
import statistics
import time

import boto3

from bench import MB, Camera, Gallery, Relay, SeaweedFS, make_jpegs, single_shots, wait_for
from peers import ready_line

SHOTS = [15]


def field_seconds(log):
    with open(log, encoding="utf-8", errors="replace") as f:
        return [float(value) for value in re.findall(r"uploaded .* ([0-9.]+)s from shutter to gallery", f.read())]


def case_inbox(work, quick):
    SHOTS[0] = 5 if quick else 15
    store = SeaweedFS(work)
    bucket = store.bucket("inbox")
    gallery = Gallery(os.path.join(work, "gallery"))
    figures = {}
    try:
        desk = Relay(os.path.join(work, "desk"), gallery.url, ("--note", "gallery"), env=store.env())
        desk.add_config("s3://%s/field/" % bucket, "--note", "inbox", "--endpoint", store.endpoint)
        desk.start("--inbox", "inbox", "--config", "gallery")
        ready_line(desk.log, r"(inbox|listing|s3:)", timeout=120)

        camera = Camera(os.path.join(work, "camera"), 0, 2 * MB)
        field = Relay(os.path.join(work, "field"), "s3://%s/field/{name}" % bucket,
                      ("--endpoint", store.endpoint), env=store.env(), path="")
        field.start("--camera", "ptpip://" + camera.address)
        ready_line(field.log, r"(connected to)", timeout=120)
        desk_p50, _ = single_shots(gallery, camera, SHOTS[0], spacing=2, timeout=120)
        wait_for(lambda: len(field_seconds(field.log)) >= SHOTS[0], 60, 0.05)
        field.stop()
        camera.stop()
        to_bucket = statistics.median(field_seconds(field.log))
        figures["shutter to desk's gallery p50 s"] = desk_p50
        figures["field relay to bucket p50 s"] = to_bucket
        figures["target s"] = to_bucket + 1.0 + 0.3

        count = 1000
        files = make_jpegs(os.path.join(work, "many"), count, 20_000)
        client = boto3.client("s3", endpoint_url=store.endpoint, aws_access_key_id=store.KEY,
                              aws_secret_access_key=store.SECRET, region_name="us-east-1")
        for path in files:
            client.upload_file(path, bucket, "field/" + os.path.basename(path))
        wait_for(lambda: gallery.count() >= SHOTS[0] + count, 600, 0.5)
        time.sleep(3)  # the last deliveries' work settles before the idle window opens
        _, before = desk.usage()
        time.sleep(30)
        peak, after = desk.usage()
        figures["idle CPU over 1,000 objects %"] = (after - before) / 30 * 100
        figures["desk peak RSS MB"] = peak
    finally:
        desk.stop()
        gallery.stop()
        store.stop()
    return figures
